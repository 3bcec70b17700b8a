/**
 * The pools that hand working objects and columns out again from one document to the next
 * (pieces.ts' PiecePool for chunkSemantic, pack.ts' typed columns): a document's output must not
 * depend on which documents were chunked before it, nor on whether its pieces came from a pool.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { DraftPool, PiecePool, type DraftChunk, type Piece } from './pieces.js';
import { pack } from './pack.js';
import { documentBlocks, opensTechnicalBaseline } from './semantic.js';
import { splitOversizedBlocks } from './split-oversized.js';
import { TokenIndex } from './tokens.js';
import { newUnitsState } from './units.js';
import type { ChunkOptions } from './types.js';

const word = fc.constantFrom('alpha', 'beta', 'Reference', 'x', 'fn()', 'Quick', 'h1', 'data', 'API');
// Deep heading levels, runs of bare headings (empty sections), tiny headings repeating a few
// names (numbered slugs), prose long enough to be split, fenced code, tables and lists.
const heading = fc.tuple(fc.integer({ min: 1, max: 6 }), fc.array(word, { minLength: 1, maxLength: 3 })).map(([d, w]) => `${'#'.repeat(d)} ${w.join(' ')}`);
const tiny = fc.integer({ min: 0, max: 3 }).map((i) => `# h${i}`);
const paragraph = fc.array(word, { minLength: 1, maxLength: 90 }).map((w) => `${w.join(' ')}.`);
const fence = fc.array(word, { minLength: 1, maxLength: 120 }).map((w) => `\`\`\`\n${w.join(' ')}\n\`\`\``);
const list = fc.array(fc.array(word, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 6 }).map((items) => items.map((w) => `- ${w.join(' ')}`).join('\n'));
const table = fc.array(fc.array(word, { minLength: 2, maxLength: 2 }), { minLength: 1, maxLength: 30 }).map((rows) => `| a | b |\n| - | - |\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}`);
const block = fc.oneof(
  { weight: 4, arbitrary: heading },
  { weight: 4, arbitrary: tiny },
  { weight: 3, arbitrary: paragraph },
  { weight: 1, arbitrary: fence },
  { weight: 1, arbitrary: list },
  { weight: 1, arbitrary: table },
);
const doc = fc.array(block, { minLength: 0, maxLength: 60 }).map((b) => `${b.join('\n\n')}\n`);

const strategy = fc.constantFrom('semantic' as const, 'hierarchical' as const, 'paginate' as const, 'token-window' as const);
const options = fc
  .record({ maxTokens: fc.integer({ min: 16, max: 200 }), breadcrumbMode: fc.constantFrom('conditional' as const, 'always' as const, 'none' as const), overlapSentences: fc.integer({ min: 0, max: 2 }), strategy })
  .map((o): Partial<ChunkOptions> => ({ ...o, targetTokens: Math.max(1, Math.floor(o.maxTokens * 0.75)), minTokens: Math.floor(o.maxTokens / 8), docName: 'pooled' }));

/** What a piece reads as, through the Piece interface. */
const view = (p: Piece) => ({ start: p.start, end: p.end, rebuiltText: p.rebuiltText, tokens: p.tokens, unit: p.unit, splitUnit: p.splitUnit, heading: p.heading, types: p.types });

describe('pooled working objects', () => {
  it('a document chunks the same whatever documents were chunked before it, in every strategy', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(doc, options), { minLength: 2, maxLength: 4 }), (docs) => {
        const forward = docs.map(([source, o]) => JSON.stringify(chunkDocument(source, o)));
        const backward = [...docs].reverse().map(([source, o]) => JSON.stringify(chunkDocument(source, o))).reverse();
        expect(backward).toEqual(forward);
      }),
      { numRuns: 150 },
    );
  });

  it('splitOversizedBlocks gives the same pieces from a pool, one used by other documents before, as new ones', () => {
    fc.assert(
      fc.property(fc.array(doc, { minLength: 1, maxLength: 3 }), fc.integer({ min: 8, max: 120 }), (sources, cap) => {
        const pool = new PiecePool();
        for (const source of sources) {
          const { blocks, lines } = documentBlocks(source, 'fast');
          const tokens = new TokenIndex(source);
          const budget = (): number => cap;
          const fresh = splitOversizedBlocks(blocks, { source, lines, tokens, target: cap, budget }, newUnitsState());
          pool.reset();
          const pooled = splitOversizedBlocks(blocks, { source, lines, tokens, target: cap, budget, pool }, newUnitsState());
          pool.settle();
          expect(pooled.map(view)).toEqual(fresh.map(view));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('pack gives the same drafts from a pool, one used by other documents before, as new ones', () => {
    const draftView = (d: DraftChunk) => ({ ...d, pieces: d.pieces.map(view) });
    fc.assert(
      fc.property(fc.array(fc.tuple(doc, fc.integer({ min: 8, max: 120 }), fc.integer({ min: 0, max: 60 })), { minLength: 1, maxLength: 4 }), (docs) => {
        const pool = new DraftPool();
        for (const [source, cap, min] of docs) {
          const { blocks, lines } = documentBlocks(source, 'fast');
          const tokens = new TokenIndex(source);
          const budget = (heading: number): number => Math.max(4, cap - (heading % 5));
          const pieces = splitOversizedBlocks(blocks, { source, lines, tokens, target: cap, budget }, newUnitsState());
          const ctx = { source, tokens, minTokens: min, targetTokens: Math.max(1, cap - 4), budget, opensChunk: opensTechnicalBaseline };
          const fresh = pack(pieces, ctx).map(draftView);
          pool.reset();
          const pooled = pack(pieces, { ...ctx, drafts: pool });
          pool.settle();
          expect(pooled.map(draftView)).toEqual(fresh);
          expect(pool.size).toBe(pooled.length);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('a pool holds no more pieces than the last document took', () => {
    const pool = new PiecePool();
    const big = `${Array.from({ length: 200 }, (_, i) => `# h${i % 3}`).join('\n')}\n`;
    const small = '# one\n\ntext\n';
    for (const source of [big, small]) {
      const { blocks, lines } = documentBlocks(source, 'fast');
      pool.reset();
      const pieces = splitOversizedBlocks(blocks, { source, lines, tokens: new TokenIndex(source), target: 50, budget: () => 50, pool }, newUnitsState());
      pool.settle();
      expect(pool.size).toBe(pieces.length);
    }
  });
});
