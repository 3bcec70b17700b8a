/**
 * pack.ts' typed columns are handed out again from one document to the next: a document's
 * output must not depend on which documents were chunked before it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
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

describe('pooled columns', () => {
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
});

describe('spare piece columns (PieceTable.release)', () => {
  // Documents of thousands of pieces, the size whose columns a released table hands on: tiny
  // headings, list items and prose, each document its own mix, so that a table taking the last
  // one's columns finds other units, types and counts in them.
  const line = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 40 }).map((i) => `# h${i}`) },
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 40 }).map((i) => `- item ${i}`) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 30 }).map((n) => `${'word '.repeat(n)}end.\n`) },
    { weight: 1, arbitrary: fc.constant('```\ncode\n```') },
  );
  const big = fc.array(line, { minLength: 4500, maxLength: 9000 }).map((lines) => `${lines.join('\n')}\n`);
  // A few units split into thousands of parts (a paragraph of tiny lines, an unspaced run): the
  // table grows from a few entries into the spare columns, parts column included.
  const split = fc
    .tuple(fc.integer({ min: 2600, max: 5200 }), fc.integer({ min: 0, max: 9 }), fc.boolean())
    .map(([n, k, run]) => (run ? `# Run\n\n${'abcdefghij'.slice(k).repeat(Math.ceil((n * 6) / 10))}\n` : `# Lines\n\n${Array.from({ length: n }, (_, i) => `x${(i * 7 + k) % 10} y`).join('\n')}\n`));
  const strategy = fc.constantFrom('semantic' as const, 'paginate' as const);
  const wide = { maxTokens: 128, targetTokens: 96, minTokens: 16 };
  const tiny = { maxTokens: 16, targetTokens: 12, minTokens: 2 };
  const doc = fc.oneof(
    // Tiny caps split the prose lines: parts that start late in a table made large at once.
    fc.tuple(big, strategy, fc.boolean()).map(([source, s, small]) => ({ source, options: { ...(small ? tiny : wide), strategy: s } })),
    split.map((source) => ({ source, options: { ...tiny, strategy: 'semantic' as const } })),
  );
  it('a large document chunks the same whatever large documents were chunked before it', () => {
    fc.assert(
      fc.property(fc.array(doc, { minLength: 2, maxLength: 3 }), (docs) => {
        const run = ({ source, options }: { source: string; options: Partial<ChunkOptions> }) => JSON.stringify(chunkDocument(source, { docName: 'spare', ...options }).chunks);
        const forward = docs.map(run);
        const backward = [...docs].reverse().map(run).reverse();
        expect(backward).toEqual(forward);
      }),
      { numRuns: 8 },
    );
  });
});
