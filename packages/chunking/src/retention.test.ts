/**
 * What the chunker keeps once a call has returned and its result is dropped: a long-running host
 * (the MCP server, docs-serve) chunks one document after another, and must not hold the last one.
 * The anchors of shape-anchor.ts keep a few of each document's objects (for their hidden classes),
 * and their strings were slices of the document, which V8 keeps as views of the whole string: the
 * last document and its markdown-it copy stayed in memory, 42 MB after a 21 MB one (session 62;
 * bench/memory.mjs did not see it, as it held the text itself while it measured).
 */
import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkDocumentStream } from './index.js';
import { collectFully } from './test-helpers.js';
import type { StrategyName } from './types.js';

/** About `bytes` of documentation: headings with code spans and emphasis (made from tokens and plain text), paragraphs, code, a table. */
function documentOf(bytes: number): string {
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const part =
      `## \`method${i}(options)\` returns *a value* [see](#x${i})\n\n` +
      `The method number ${i} reads its options and returns the value it computed from the configuration file.\n\n` +
      (i % 5 === 0 ? '```js\nconst value = method(options);\n```\n\n' : '') +
      (i % 7 === 0 ? '| Option | Meaning |\n|---|---|\n| `a` | the first one |\n\n' : '');
    parts.push(part);
    n += part.length;
  }
  return `# Reference\n\n${parts.join('')}`;
}

/**
 * Heap in use after full collections, each after a turn of the event loop: a collection run in
 * the same turn as the chunking left garbage of it counted as in use (CI read 18 MB once where a
 * heap snapshot, which collects fully, found nothing of the document).
 */
async function heapInUse(): Promise<number> {
  await collectFully();
  return process.memoryUsage().heapUsed;
}

/** Chunks a fresh document of `bytes` with `chunk`, in a frame of its own that ends before the heap is read. */
function chunkFresh(bytes: number, chunk: (text: string) => void): void {
  chunk(documentOf(bytes));
}

describe('a chunking call keeps nothing of its document once its result is dropped', () => {
  const MB = 1024 * 1024;

  it.each<[string, (text: string) => void]>([
    ['semantic', (text) => void chunkDocument(text, { docName: 'big' })],
    ...(['token-window', 'hierarchical', 'paginate'] as StrategyName[]).map((strategy): [string, (text: string) => void] => [strategy, (text) => void chunkDocument(text, { docName: 'big', strategy })]),
    ['the stream', (text) => {
      let records = 0;
      for (const record of chunkDocumentStream(text, { docName: 'big' }).chunks) records += record.originalText.length > 0 ? 1 : 0;
      expect(records).toBeGreaterThan(0);
    }],
  ])('%s', async (_name, chunk) => {
    // Warmed on a small document first: caches that live as long as the process fill up once.
    chunkFresh(200_000, chunk);
    const before = await heapInUse();
    chunkFresh(8 * MB, chunk);
    // The document alone is 8 MB; before, at least that much stayed (what is left is the
    // process-long caches: heading texts, token counts).
    expect(((await heapInUse()) - before) / MB).toBeLessThan(4);
  }, 120_000);

  it('a page of link reference definitions', async () => {
    // Each definition's destination is a slice of the document: markdown-it's references (or
    // anything that keeps them past the call, as a module-level cache once did) keep it all.
    const definitions = (bytes: number): string => {
      const parts: string[] = ['# Links\n\n## One\n\n## Two\n\n'];
      let n = 30;
      for (let i = 0; n < bytes; i++) {
        const line = `[ref${i}]: https://example.com/docs/reference/page/${i}\n`;
        parts.push(line);
        n += line.length;
      }
      return parts.join('');
    };
    const chunk = (text: string): void => void chunkDocument(text, { docName: 'links' });
    chunk(definitions(200_000));
    const before = await heapInUse();
    chunk(definitions(8 * MB));
    expect(((await heapInUse()) - before) / MB).toBeLessThan(4);
  }, 120_000);
});
