import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineTable } from './lines.js';
import { splitOversized, whitespaceRunEnds } from './split-oversized.js';
import { unspacedRun as unspacedRunOf } from './test-helpers.js';
import { countTokens, TokenIndex } from './tokens.js';
import type { Block } from './types.js';

const unspacedRun = unspacedRunOf(4000);

function split(source: string, cap: number) {
  const block: Block = { type: 'paragraph', start: 0, end: source.length, startLine: 0, endLine: 0 };
  return splitOversized([{ block, path: [], types: ['paragraph'] }], {
    source,
    lines: lineTable(source),
    tokens: new TokenIndex(source),
    target: cap,
    budget: () => cap,
  });
}

describe('splitOversized on one huge unspaced run', () => {
  it('cuts it into pieces of at most the cap (exact count) that make up the run', () => {
    fc.assert(
      fc.property(unspacedRun, fc.integer({ min: 4, max: 40 }), (run, cap) => {
        // (A character is up to 4 tokens, one per UTF-8 byte: no cap below that can hold every one.)
        const pieces = split(run, cap);
        expect(pieces.map((p) => run.slice(p.start, p.end)).join('')).toBe(run);
        for (const p of pieces) {
          const n = countTokens(run.slice(p.start, p.end));
          expect(p.tokens).toBe(n);
          expect(n).toBeLessThanOrEqual(cap);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('gives a run of 50,000 letters parts near the cap, not single tokens', () => {
    const [run] = fc.sample(unspacedRun.map((r) => r.repeat(20)), { numRuns: 1, seed: 7 });
    const pieces = split(run!, 100);
    expect(pieces.map((p) => run!.slice(p.start, p.end)).join('')).toBe(run);
    const total = countTokens(run!);
    expect(pieces.length).toBeLessThanOrEqual(Math.ceil(total / 90) + 1);
  });
});

describe('whitespaceRunEnds', () => {
  it('cuts where the regex /\\s+/g ends a run, inside the range', () => {
    const piece = fc.constantFrom('a', 'bc', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\ufeff', '\u3000', '\ud83d', '\ude00', '😀', '|', 'é', '\u200b');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.nat(), fc.nat(), (parts, x, y) => {
        const source = parts.join('');
        const start = x % (source.length + 1);
        const end = start + (y % (source.length - start + 1));
        const re = /\s+/g;
        const text = source.slice(start, end);
        const expected: number[] = [];
        for (let m = re.exec(text); m; m = re.exec(text)) expected.push(start + m.index + m[0].length);
        expect(whitespaceRunEnds(source, start, end)).toEqual(expected.filter((c) => c > start && c < end));
      }),
      { numRuns: 3000 },
    );
  });
});
