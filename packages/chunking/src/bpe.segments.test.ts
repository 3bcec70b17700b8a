import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bpeTokenCount,
  bpeTokenCountRange,
  bpeTokenCountsInto,
  bpeTokenEnds,
  bpeTokenEndsInto,
  bpeTokenIdsInto,
  neverPairForTests,
  RunningCounts,
  setSegmentingForTests,
  tokenStartsForTests,
} from './bpe.js';
import { mergeTable, TOKENS } from './cl100k-merges.js';
import { seededText } from './test-helpers.js';

// Fixed seeds: a property that fails must fail on every run, not one run in fifty.
fc.configureGlobal({ seed: 20261124 });

const tiktoken = get_encoding('cl100k_base');
afterAll(() => tiktoken.free());

/** Everything the encoder says of `s.slice(a, b)` through each entry point, with the cut at never pairs on or off. */
function encodeAll(s: string, a: number, b: number, segmented: boolean) {
  const old = setSegmentingForTests(segmented);
  try {
    const piece = s.slice(a, b);
    const ids: number[] = [];
    const idCount = bpeTokenIdsInto(s, a, b, ids);
    const out = new Int32Array(s.length + 1);
    const inPlace = bpeTokenEndsInto(s, a, b, out);
    // The token index's marks, counted on from far past 0 (tokens before the run): the same
    // ends and counts less `before`.
    const marks = new RunningCounts(s.length);
    const before = (1 << 20) + 3 * a;
    marks.set(a, before + 1);
    expect(bpeTokenCountsInto(s, a, b, marks, before)).toBe(inPlace);
    const marked = Array.from({ length: s.length + 1 }, (_, p) => (p > a && marks.get(p) !== 0 ? marks.get(p) - before : 0));
    if (JSON.stringify(marked) !== JSON.stringify(Array.from(out))) expect(marked).toEqual(Array.from(out));
    return {
      count: bpeTokenCount(piece),
      countRange: bpeTokenCountRange(s, a, b),
      ids,
      idCount,
      inPlace,
      out: Array.from(out),
      ends: bpeTokenEnds(piece),
      starts: tokenStartsForTests(piece, false),
    };
  } finally {
    setSegmentingForTests(old);
  }
}

// Hostile shapes for the cut: random letters (a never pair every 5 bytes), base64 and hex
// (nearly every other byte), lowercase (every 30), digits, one character repeated (none, or
// every byte), runs inside letters, non-ASCII mixed in (a cut between the bytes of a
// character, or next to them), and the one- and two-byte segments that skip the walk.
const alphabets = [
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
  '0123456789abcdef',
  '0123456789ABCDEF',
  'abcdefghijklmnopqrstuvwxyz',
  '0123456789',
  'qQzZxXjJ',
  'aAbB',
  'a',
  'Q',
  '\u0000',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab',
  'abcXYZé日\u{1F600}',
  'qzxj\u00e9\u00df\u0101',
  'Zq\u0085\ufeff\u200b',
  'ab\ud83d\ude00\ud83d',
  '=-=-=-_',
  'xX',
];

const hostile = fc
  .tuple(fc.constantFrom(...alphabets), fc.integer({ min: 1, max: 1500 }), fc.integer())
  .map(([alphabet, length, seed]) => seededText(alphabet, length, seed));

describe('never pairs', () => {
  it('are exactly the byte pairs no token holds side by side', () => {
    const { start, bytes } = mergeTable();
    const held = new Uint8Array(65536);
    for (let t = 0; t < TOKENS; t++) for (let i = start[t]!; i + 1 < start[t + 1]!; i++) held[(bytes[i]! << 8) | bytes[i + 1]!] = 1;
    let never = 0;
    for (let x = 0; x < 256; x++) {
      for (let y = 0; y < 256; y++) {
        expect(neverPairForTests(x, y)).toBe(held[(x << 8) | y] === 0);
        if (held[(x << 8) | y] === 0) never++;
      }
    }
    // Sanity: most letter pairs are held ("th"), some are not ("qz"?), and the table is not empty.
    expect(never).toBeGreaterThan(1000);
    expect(neverPairForTests(0x74, 0x68)).toBe(false);
  });
});

describe('BPE cut at never pairs', () => {
  it('gives the same tokens, ids, ends and counts as the walk over the whole pre-token, through every entry point', () => {
    fc.assert(
      fc.property(hostile, fc.nat(), fc.nat(), (t, x, y) => {
        expect(encodeAll(t, 0, t.length, true)).toEqual(encodeAll(t, 0, t.length, false));
        // A range inside a longer text: the in-place ends are written at its offsets.
        const s = `${t}${t.slice(0, 7)}`;
        const a = x % t.length;
        const b = a + 1 + (y % (s.length - a));
        expect(encodeAll(s, a, b, true)).toEqual(encodeAll(s, a, b, false));
      }),
      { numRuns: 250 },
    );
  });

  it('gives the merge loop\'s tokens on hostile strings', () => {
    fc.assert(
      fc.property(hostile, (t) => {
        expect(tokenStartsForTests(t, false)).toEqual(tokenStartsForTests(t, true));
      }),
      { numRuns: 300 },
    );
  });

  it('handles every segment length: one byte, two that merge or not, short ones merged, long ones walked', () => {
    // Random letters and base64 have segments of every length up to 30 and 17 in 100 KB.
    for (const [alphabet, seed, longest] of [
      ['abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 2, 30],
      ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 3, 17],
    ] as const) {
      const t = seededText(alphabet, 100_000, seed);
      const lengths = new Set<number>();
      let from = 0;
      for (let i = 1; i <= t.length; i++) {
        if (i < t.length && !neverPairForTests(t.charCodeAt(i - 1), t.charCodeAt(i))) continue;
        lengths.add(i - from);
        from = i;
      }
      for (const len of [1, 2, 3, 16, 17, longest]) expect(lengths.has(len), `${alphabet.length}: ${len}`).toBe(true);
      const seg = encodeAll(t, 0, t.length, true);
      // Compared as text: a deep comparison of arrays this long takes the test runner a minute.
      expect(JSON.stringify(seg) === JSON.stringify(encodeAll(t, 0, t.length, false))).toBe(true);
      expect(seg.count).toBe(tiktoken.encode(t, [], []).length);
    }
  });
});
