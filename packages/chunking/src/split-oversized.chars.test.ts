import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bpeTokenEnds } from './bpe.js';
import { nextPreTokenEnd } from './cl100k-count.js';
import { lineTable } from './lines.js';
import { splitChars, whitespaceRunEnds, type SplitContext } from './split-oversized.js';
import { seededText } from './test-helpers.js';
import { countTokens, TokenIndex } from './tokens.js';

type Part = { start: number; end: number; rebuiltText: string | null; tokens: number };

/**
 * splitChars and splitLongPreToken as they were before the part's count was taken from its last
 * probe (main 59d5daf), with the search started past the rest of a pre-token that fits (session
 * 50: the search had probed prefixes ending inside a deep quote's `>>>>` run, each merged again).
 * Counts are not monotone in the prefix (30 dashes are one token, 29 two), so that start can
 * find a longer part than the search from the part's first character did; never one over the cap.
 */
function splitCharsBefore(start: number, end: number, limit: number, ctx: SplitContext): Part[] {
  const parts: Part[] = [];
  const fits = (a: number, b: number): boolean => ctx.tokens.count(a, b) <= limit;
  let a = start;
  let hint = 0;
  while (a < end) {
    const long = splitLongPreTokenBefore(a, end, limit, ctx, hint);
    if (typeof long === 'object' && long !== null) {
      parts.push(long);
      hint = long.end - long.start;
      a = long.end;
      continue;
    }
    let lo = a + 1;
    if (typeof long === 'number' && fits(a, long)) lo = long;
    let hi = Math.min(end, a + Math.max(16, limit * 4));
    if (hi <= lo) hi = Math.min(end, lo + 16);
    while (hi < end && fits(a, hi)) {
      lo = hi;
      hi = Math.min(end, a + (hi - a) * 2);
    }
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (fits(a, mid)) lo = mid;
      else hi = mid - 1;
    }
    let b = lo;
    const c = ctx.source.charCodeAt(b - 1);
    if (b < end && c >= 0xd800 && c <= 0xdbff && b - 1 > a) b--;
    parts.push({ start: a, end: b, rebuiltText: null, tokens: ctx.tokens.count(a, b) });
    a = b;
  }
  return parts;
}

function splitLongPreTokenBefore(a: number, end: number, limit: number, ctx: SplitContext, hint: number): Part | number | null {
  const kept = ctx.tokens.lastTokenEnd(a, end, limit);
  if (kept > a) {
    let b = kept;
    const c = ctx.source.charCodeAt(b - 1);
    if (b < end && c >= 0xd800 && c <= 0xdbff && b - 1 > a) b--;
    const n = ctx.tokens.count(a, b);
    if (n <= limit) return { start: a, end: b, rebuiltText: null, tokens: n };
  }
  for (let window = hint > 0 ? Math.ceil(hint * 1.25) + 64 : Math.max(512, limit * 8); ; window *= 2) {
    const reach = Math.min(end, a + window);
    const w = nextPreTokenEnd(ctx.source, a, reach);
    const e = w < reach || reach === end ? w : Infinity;
    if (w - a <= 256) return w === e && w - a > 16 ? w : null;
    const { ends, tokens } = bpeTokenEnds(ctx.source.slice(a, w));
    const total = tokens[tokens.length - 1] ?? 0;
    if (w === e && total <= limit) return w;
    if (total <= limit && w < e) continue;
    let k = tokens.length - 1;
    while (k >= 0 && tokens[k]! > limit) k--;
    for (; k >= 0 && ends[k]! > 0; k--) {
      let b = a + ends[k]!;
      const c = ctx.source.charCodeAt(b - 1);
      if (b < end && c >= 0xd800 && c <= 0xdbff && b - 1 > a) b--;
      const n = ctx.tokens.count(a, b);
      if (n <= limit) return { start: a, end: b, rebuiltText: null, tokens: n };
    }
    return null;
  }
}

const contextOf = (source: string): SplitContext => ({ source, lines: lineTable(source), tokens: new TokenIndex(source), target: 1, budget: () => 1 });

// Unspaced text on which a prefix's count goes up and down as it grows: letters, digits and
// punctuation mixed (pre-tokens of every kind, cut anywhere), multibyte letters, surrogate pairs
// (whole, and halves alone), and long runs of one kind.
const alphabets = [
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
  'abc123+/=-_.',
  'aab',
  '0123456789',
  '-',
  "a'sb'll1",
  'éß日本😀a1',
  'ab\u{1F600}\ud83d\ude00-',
  'a\ud800b\udc00c',
  'x\u0085y',
];
const unspaced = fc
  .tuple(fc.array(fc.tuple(fc.constantFrom(...alphabets), fc.integer({ min: 1, max: 600 }), fc.integer()), { minLength: 1, maxLength: 4 }), fc.constantFrom('', '# T\n\n', 'é '))
  .map(([runs, prefix]) => prefix + runs.map(([alphabet, length, seed]) => seededText(alphabet, length, seed)).join(''));

describe('splitChars', () => {
  it('cuts where it cut before, with the same counts, from caps of one token up', () => {
    fc.assert(
      fc.property(unspaced, fc.integer({ min: 1, max: 120 }), fc.nat(), (source, limit, at) => {
        const start = at % source.length;
        const ctx = contextOf(source);
        const parts = splitChars(start, source.length, limit, ctx);
        expect(parts).toEqual(splitCharsBefore(start, source.length, limit, contextOf(source)));
        let cursor = start;
        for (const p of parts) {
          expect(p.start).toBe(cursor);
          expect(p.end).toBeGreaterThan(p.start);
          expect(p.tokens).toBe(countTokens(source.slice(p.start, p.end)));
          // Over the cap only when one character is (a part is never empty).
          if (p.end - p.start > 1 && !(p.end - p.start === 2 && source.codePointAt(p.start)! > 0xffff)) expect(p.tokens).toBeLessThanOrEqual(limit);
          cursor = p.end;
        }
        expect(cursor).toBe(source.length);
      }),
      { numRuns: 400 },
    );
  });
});

describe('whitespaceRunEnds on a long run without whitespace', () => {
  it('finds none, and the runs after a long word all', () => {
    const word = 'x'.repeat(5000);
    expect([...whitespaceRunEnds(word, 0, word.length)]).toEqual([]);
    const text = `${word} a  b\t`;
    expect([...whitespaceRunEnds(text, 0, text.length)]).toEqual([5001, 5004]);
  });
});
