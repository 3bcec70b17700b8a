import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { bpeTokenEnds, RunningCounts } from './bpe.js';
import { SliceCounter } from './cl100k-count.js';
import { seededText } from './test-helpers.js';

// Fixed seeds: a property that fails must fail on every run, not one run in fifty.
fc.configureGlobal({ seed: 20261125 });

const tiktoken = get_encoding('cl100k_base');
afterAll(() => tiktoken.free());
const reference = (text: string): number => tiktoken.encode(text, [], []).length;

describe('RunningCounts (a byte an offset and a base a block)', () => {
  // Marks at increasing offsets whose counts grow by at most 3 a unit (the most tokens a UTF-16
  // unit can make), from any start: the steepest growth a block can hold, gaps across blocks,
  // and a clear back to a mark (or to an unmarked offset) with the rest written again.
  const marks = fc.record({
    first: fc.integer({ min: 1, max: 1 << 28 }),
    steps: fc.array(fc.tuple(fc.integer({ min: 1, max: 200 }), fc.nat(3), fc.boolean()), { minLength: 1, maxLength: 400 }),
    clearAt: fc.nat(),
  });

  it('reads back every count written, and 0 elsewhere, before and after clearAfter', () => {
    fc.assert(
      fc.property(marks, ({ first, steps, clearAt }) => {
        const want = new Map<number, number>([[0, first]]);
        let p = 0;
        let v = first;
        for (const [gap, perUnit, steep] of steps) {
          const g = steep ? 1 : gap;
          v += steep ? 3 : Math.min(3 * g, perUnit * g);
          p += g;
          want.set(p, v);
        }
        const counts = new RunningCounts(p + 5);
        for (const [at, c] of want) counts.set(at, c);
        for (let q = 0; q <= p + 5; q++) expect(counts.get(q)).toBe(want.get(q) ?? 0);
        // Clear after some offset (marked or not): the rest reads 0, then reads back when written again.
        const from = clearAt % (p + 1);
        counts.clearAfter(from, p + 5);
        for (let q = 0; q <= p + 5; q++) expect(counts.get(q)).toBe(q <= from ? (want.get(q) ?? 0) : 0);
        for (const [at, c] of want) if (at > from) counts.set(at, c);
        for (let q = 0; q <= p + 5; q++) expect(counts.get(q)).toBe(want.get(q) ?? 0);
      }),
      { numRuns: 500 },
    );
  });
});

describe('SliceCounter on text of many tokens a unit (its marks at their steepest)', () => {
  // Characters whose UTF-8 bytes are tokens of their own or nearly (private use, rare CJK,
  // lone surrogates' U+FFFD, emoji), in pre-tokens of one to a few units, long runs of them,
  // and ASCII between: every slice's count must be tiktoken's.
  const dense = fc
    .tuple(
      fc.constantFrom('\ue000\ue001\uf8ff', '\u{10ffff}\u{f0000}', '𠀀𠀁𪜀', '\u2fff\u31ef', '😀🫠🧬', '\ue000 \ue001\n'),
      fc.integer({ min: 1, max: 400 }),
      fc.integer(),
      fc.constantFrom('', ' ', '\n', 'ab', ' x1\n'),
    )
    .map(([alphabet, length, seed, sep]) => seededText(alphabet, length, seed).replace(/(.{1,3})/gu, `$1${sep}`));

  it('counts every slice as tiktoken does', () => {
    fc.assert(
      fc.property(dense, fc.nat(), fc.nat(), (text, x, y) => {
        const counter = new SliceCounter(text);
        if (counter.count(0, text.length) !== reference(text)) return false;
        const [a, b] = [x % (text.length + 1), y % (text.length + 1)].sort((p, q) => p - q) as [number, number];
        // Keep surrogate pairs whole: tiktoken cannot take a lone surrogate.
        const isLow = (i: number): boolean => i > 0 && i < text.length && (text.charCodeAt(i) & 0xfc00) === 0xdc00;
        const a2 = isLow(a) ? a - 1 : a;
        const b2 = isLow(b) ? b + 1 : b;
        return counter.count(a2, b2) === reference(text.slice(a2, b2));
      }),
      { numRuns: 300 },
    );
  });

  it('counts slices of a long text past many blocks exactly', () => {
    const text = seededText('\ue000\uf8ff𠀀 x\n1.', 20_000, 7);
    const counter = new SliceCounter(text);
    expect(counter.count(0, text.length)).toBe(reference(text));
    for (let k = 0; k < 200; k++) {
      let a = (k * 7919) % text.length;
      let b = Math.min(text.length, a + ((k * 104729) % 3000));
      if ((text.charCodeAt(a) & 0xfc00) === 0xdc00) a--;
      if (b < text.length && (text.charCodeAt(b) & 0xfc00) === 0xdc00) b++;
      expect(counter.count(a, b)).toBe(reference(text.slice(a, b)));
    }
  });
});

describe('SliceCounter over many long runs (their token ends counted from the text\'s start)', () => {
  const run = fc
    .tuple(
      fc.constantFrom('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 'ABCabc0123456789+/', '日本語の文字', 'éß\u{1F600}a', '-', 'aab'),
      fc.integer({ min: 200, max: 900 }),
      fc.integer(),
    )
    .map(([alphabet, length, seed]) => seededText(alphabet, length, seed));
  it('counts slices within, between and across runs side by side as tiktoken does', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(run, fc.constantFrom('', ' ', '\n', '.', ' x ', '1')), { minLength: 2, maxLength: 6 }), fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 4, maxLength: 4 }), (runs, cuts) => {
        const text = runs.map(([r, sep]) => r + sep).join('');
        const counter = new SliceCounter(text);
        if (counter.count(0, text.length) !== reference(text)) return false;
        // Slices between the runs' own token ends (mostly the text's: the subtraction) and anywhere (the scan).
        const ends: number[] = [];
        let at = 0;
        for (const [r, sep] of runs) {
          ends.push(at, ...bpeTokenEnds(r).ends.map((e) => at + e));
          at += r.length + sep.length;
        }
        const keepPairs = (p: number): number => (p > 0 && p < text.length && (text.charCodeAt(p) & 0xfc00) === 0xdc00 ? p - 1 : p);
        for (const [x, y] of cuts) {
          const [a, b] = [ends[x % ends.length]!, ends[y % ends.length]!].sort((p, q) => p - q) as [number, number];
          const [c, d] = [keepPairs(x % (text.length + 1)), keepPairs(y % (text.length + 1))].sort((p, q) => p - q) as [number, number];
          if (counter.count(a, b) !== reference(text.slice(a, b)) || counter.count(c, d) !== reference(text.slice(c, d))) return false;
        }
        return true;
      }),
      { numRuns: 150 },
    );
  });
});
