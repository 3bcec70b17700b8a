/**
 * A call's records do not depend on the calls before it, nor on when the heap was collected.
 * The chunker keeps state from one call to the next (pooled blocks, pieces' and pack's spare
 * columns, the count memo); spares past STRONG_MOST entries are held weakly, so a full
 * collection between two calls lets them go and the next call makes its own. Session 68's
 * probe compared calls with fresh workers but left collections to chance and kept no test.
 * Here every result is compared with what a fresh module graph (vi.resetModules: the state of
 * no call) gives the same document: after each other document (ordered pairs, where a spare
 * passes from one call to the next), and in two shuffled orders with full collections forced
 * before some calls. A pieces column read before it was written (a stale piece kind) fails
 * the first test.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { chunkDocument } from './index.js';
import { STRONG_MOST } from './spare.js';
import { collectFully } from './test-helpers.js';
import type { ParserName, StrategyName } from './types.js';

const repeat = (piece: (i: number) => string, bytes: number): string => {
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const p = piece(i);
    parts.push(p);
    n += p.length;
  }
  return parts.join('');
};

/**
 * Documents on either side of the spare thresholds, in pairs of about as many pieces and blocks
 * of other kinds (a spare is taken by a call of up to four times fewer pieces): past STRONG_MOST
 * (held weakly between calls), some thousands, a few.
 */
const DOCUMENTS: Record<string, string> = {
  manyParagraphs: repeat((i) => `p${i % 100}\n\n`, (STRONG_MOST + 20_000) * 5),
  manyHeadings: repeat((i) => `# h${i % 100}\n`, (STRONG_MOST + 20_000) * 6),
  paragraphs: repeat((i) => `p${i % 100}\n\n`, 60_000),
  tinyHeadings: repeat((i) => `# h${i % 100}\n`, 60_000),
  // Documentation: code, a table, a list, long paragraphs split at sentences.
  reference: repeat(
    (i) =>
      `## \`method${i}()\`\n\nThe method number ${i} reads its options. It returns a value. ${'It is documented here at length. '.repeat(i % 40)}\n\n` +
      (i % 3 === 0 ? '```js\nconst v = method();\n```\n\n' : '') +
      (i % 5 === 0 ? '| a | b |\n|---|---|\n| 1 | 2 |\n\n' : '') +
      (i % 4 === 0 ? '- one\n- two\n  - nested\n\n' : ''),
    150_000,
  ),
  small: '# Title\n\nA paragraph.\n\n## Part\n\n- an item\n- another\n',
};

const STRATEGIES: StrategyName[] = ['semantic', 'hierarchical'];

type ChunkDocument = typeof chunkDocument;

interface Case {
  name: string;
  strategy: StrategyName;
  parser: ParserName;
}

/** What a call returns, as data (records and all). */
function chunked(chunk: ChunkDocument, { name, strategy, parser }: Case): string {
  return JSON.stringify(chunk(DOCUMENTS[name]!, { docName: name, strategy, parser }));
}

const keyOf = ({ name, strategy, parser }: Case): string => `${name}/${strategy}/${parser}`;

/** chunkDocument of a module graph of its own: no state of any call before (a fresh worker's). */
async function freshChunkDocument(): Promise<ChunkDocument> {
  vi.resetModules();
  return ((await import('./index.js')) as typeof import('./index.js')).chunkDocument;
}

describe('calls one after another', () => {
  const cases: Case[] = [
    ...Object.keys(DOCUMENTS).flatMap((name) => STRATEGIES.map((strategy) => ({ name, strategy, parser: 'fast' as const }))),
    // remark parses a document over 60 KB in windows (remark-windows.ts), with state of its own.
    { name: 'reference', strategy: 'semantic', parser: 'remark' },
    { name: 'tinyHeadings', strategy: 'semantic', parser: 'remark' },
  ];
  const fresh = new Map<string, string>();

  it('give every document what a fresh module gives it, after every other document', async () => {
    for (const c of cases) fresh.set(keyOf(c), chunked(await freshChunkDocument(), c));
    // Every ordered pair (semantic) of the documents under STRONG_MOST pieces, each in a module
    // of its own: the second call after the first's spares (the larger two are the next test's).
    const names = Object.keys(DOCUMENTS).filter((name) => !name.startsWith('many'));
    for (const before of names) {
      for (const name of names) {
        const chunk = await freshChunkDocument();
        chunk(DOCUMENTS[before]!, { docName: before });
        const c: Case = { name, strategy: 'semantic', parser: 'fast' };
        expect(chunked(chunk, c), `${name} after ${before}`).toBe(fresh.get(keyOf(c)));
      }
    }
  }, 300_000);

  it('give every document what a fresh module gives it, in any order, collected between calls or not', async () => {
    if (fresh.size === 0) for (const c of cases) fresh.set(keyOf(c), chunked(await freshChunkDocument(), c));
    const chunk = await freshChunkDocument();
    // Two orders, drawn once (the test's own seed), each call after full collections or not.
    const orders = fc.sample(fc.shuffledSubarray(cases, { minLength: cases.length }), { numRuns: 2, seed: 15 });
    const collectBefore = fc.sample(fc.array(fc.boolean(), { minLength: cases.length, maxLength: cases.length }), { numRuns: 2, seed: 69 });
    for (let o = 0; o < orders.length; o++) {
      const order = orders[o]!;
      for (let k = 0; k < order.length; k++) {
        const c = order[k]!;
        if (collectBefore[o]![k]) await collectFully();
        expect(chunked(chunk, c), `${keyOf(c)}, order ${o}, call ${k}`).toBe(fresh.get(keyOf(c)));
      }
    }
  }, 300_000);
});
