import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineTable } from './lines.js';
import { splitOversized } from './split-oversized.js';
import { countTokens, TokenIndex } from './tokens.js';
import type { Block } from './types.js';

/** Long unspaced runs (one huge pre-token, or a few): letters, base64, digits, CJK, accents, emoji. */
const ALPHABETS = [
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/',
  '0123456789',
  '日本語の文字列漢字',
  'éèßā',
  'ab\u{1F600}',
  'aab',
];
const unspacedRun = fc
  .tuple(fc.constantFrom(...ALPHABETS), fc.integer({ min: 300, max: 4000 }), fc.integer())
  .map(([alphabet, length, seed]) => {
    const chars = [...alphabet];
    let x = seed >>> 0;
    let t = '';
    for (let i = 0; i < length; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      t += chars[(x >>> 8) % chars.length];
    }
    return t;
  });

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
