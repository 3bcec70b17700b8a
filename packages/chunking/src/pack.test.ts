import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalize } from './normalize.js';
import { addOverlap } from './overlap.js';
import { blockMinima, pack, rangeMin, runText } from './pack.js';
import type { HeadingRef, Piece } from './pieces.js';
import { documentBlocks, opensTechnicalBaseline } from './semantic.js';
import { splitOversized } from './split-oversized.js';
import { countTokens, TokenIndex } from './tokens.js';
import { toUnits } from './units.js';

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'Reference', 'x', 'fn()', 'Quick', 'data');
const heading = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.array(word, { minLength: 1, maxLength: 4 })).map(([d, w]) => `${'#'.repeat(d)} ${w.join(' ')}`);
const paragraph = fc.array(word, { minLength: 1, maxLength: 60 }).map((w) => `${w.join(' ')}.`);
const fence = fc.array(word, { minLength: 1, maxLength: 80 }).map((w) => `\`\`\`\n${w.join(' ')}\n\`\`\``);
// Runs of bare headings (the carry of trailing headings), prose, code that may be split and rebuilt.
const doc = fc.array(fc.oneof({ weight: 5, arbitrary: heading }, { weight: 3, arbitrary: paragraph }, { weight: 1, arbitrary: fence }), { minLength: 1, maxLength: 80 }).map((b) => `${b.join('\n\n')}\n`);

describe('pack', () => {
  it('keeps every piece once and in order, counts each chunk exactly, and keeps multi-piece chunks within their budget', () => {
    fc.assert(
      fc.property(doc, fc.integer({ min: 8, max: 120 }), fc.integer({ min: 0, max: 60 }), (source, cap, min) => {
        const { blocks, lines } = documentBlocks(source, 'fast');
        const tokens = new TokenIndex(source);
        // A budget that depends on the path, as the breadcrumb reserve does.
        const budget = (path: HeadingRef[]): number => Math.max(4, cap - path.reduce((n, h) => n + h.text.length, 0) % 7);
        const pieces = splitOversized(toUnits(blocks), { source, lines, tokens, target: cap, budget });
        const ctx = { source, tokens, minTokens: min, targetTokens: Math.max(1, cap - 4), budget, opensChunk: opensTechnicalBaseline };
        const drafts = pack(pieces, ctx);
        const flat: Piece[] = drafts.flatMap((d) => d.pieces);
        expect(flat).toEqual(pieces);
        for (const d of drafts) {
          expect(d.tokens).toBe(countTokens(runText(d.pieces, source)));
          expect(d.start).toBe(d.pieces[0]!.start);
          expect(d.end).toBe(d.pieces[d.pieces.length - 1]!.end);
          if (d.pieces.length > 1) expect(d.tokens).toBeLessThanOrEqual(Math.min(...d.pieces.map((p) => budget(p.path))));
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('rangeMin', () => {
  it('is the least value of the range, whatever blocks it spans', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 600 }), { maxLength: 200 }), fc.nat(), fc.nat(), (xs, a, b) => {
        const values = Float64Array.from(xs);
        const from = xs.length ? a % (xs.length + 1) : 0;
        const to = from + (xs.length ? b % (xs.length - from + 1) : 0);
        expect(rangeMin(values, blockMinima(values), from, to)).toBe(Math.min(Infinity, ...xs.slice(from, to)));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('normalize', () => {
  it('gives what spreading each draft with its trimmed range and text gives, key order included', () => {
    fc.assert(
      fc.property(doc, fc.integer({ min: 8, max: 120 }), fc.nat(2), (source, cap, overlap) => {
        const { blocks, lines } = documentBlocks(source, 'fast');
        const tokens = new TokenIndex(source);
        const budget = (): number => cap;
        const pieces = splitOversized(toUnits(blocks), { source, lines, tokens, target: cap, budget });
        const ctx = { source, tokens, minTokens: 4, targetTokens: Math.max(1, cap - 4), budget };
        const drafts = addOverlap(pack(pieces, ctx), overlap, ctx);
        // The formulation it replaced.
        const reference = drafts.flatMap((draft) => {
          let start = draft.start;
          while (start < draft.end && /\s/.test(source[start]!) && source.charCodeAt(start) < 128) start++;
          let end = draft.end;
          while (end > start && /\s/.test(source[end - 1]!) && source.charCodeAt(end - 1) < 128) end--;
          if (end <= start) return [];
          const exact = draft.pieces.every((p) => p.rebuiltText === null);
          const text = exact ? source.slice(start, end) : source.slice(start, draft.pieces[0]!.start) + runText(draft.pieces, source);
          return [{ ...draft, start, end, text, exact }];
        });
        const normalized = normalize(drafts, source);
        expect(normalized).toStrictEqual(reference);
        expect(normalized.map((c) => Object.keys(c))).toEqual(reference.map((c) => Object.keys(c)));
      }),
      { numRuns: 200 },
    );
  });
});
