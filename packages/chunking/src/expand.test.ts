import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHUNK_BOUNDARY, expandNeighbors } from './expand.js';
import { chunkDocument } from './index.js';
import { countTokens } from './tokens.js';

/** Prose whose sentences are all different, so a repeated span can only come from overlap. */
function prose(paragraphs: number, sentences: number): string {
  return Array.from({ length: paragraphs }, (_, p) =>
    Array.from({ length: sentences }, (_, s) => `Sentence ${p}.${s} of this document describes step ${p * 100 + s} of the build.`).join(' '),
  ).join('\n\n');
}

// Between 4100 and 4900 tokens: six token windows of 900 with 100 overlap.
let doc = '';
for (let n = 1; countTokens(doc) < 4500; n++) doc = `# Guide\n\n${prose(n, 10)}\n`;
const { chunks } = chunkDocument(doc, { strategy: 'token-window' });

describe('expandNeighbors (seed 004)', () => {
  it('works on a six-chunk document', () => {
    expect(countTokens(doc)).toBeGreaterThan(4100);
    expect(chunks).toHaveLength(6);
  });

  it('joins chunk 3 with chunks 2 and 4, with boundary markers and the overlap shown once', () => {
    const out = expandNeighbors(chunks, 3);
    const parts = out.split(`\n${CHUNK_BOUNDARY}\n`);
    expect(parts).toHaveLength(3);
    expect(parts[0]).toBe(chunks[2]!.originalText);
    // Each later part starts where the one before it ended in the source.
    expect(parts.join('')).toBe(doc.slice(chunks[2]!.sourcePosition.charStart, chunks[4]!.sourcePosition.charEnd));
    expect(chunks[3]!.originalText.endsWith(parts[1]!)).toBe(true);
    expect(parts[1]!.length).toBe(chunks[3]!.originalText.length - chunks[3]!.overlapChars);
    const shared = doc.slice(chunks[3]!.sourcePosition.charStart, chunks[2]!.sourcePosition.charEnd);
    expect(shared.length).toBeGreaterThan(100);
    expect(out.split(shared)).toHaveLength(2);
  });

  it('stops at the ends of the document and takes k', () => {
    expect(expandNeighbors(chunks, 0).split(CHUNK_BOUNDARY)).toHaveLength(2);
    expect(expandNeighbors(chunks, 5).split(CHUNK_BOUNDARY)).toHaveLength(2);
    expect(expandNeighbors(chunks, 2, 0)).toBe(chunks[2]!.originalText);
    const all = expandNeighbors(chunks, 2, 3);
    expect(all.split(CHUNK_BOUNDARY)).toHaveLength(6);
    expect(all.split(`\n${CHUNK_BOUNDARY}\n`).join('')).toBe(doc.slice(chunks[0]!.sourcePosition.charStart, chunks[5]!.sourcePosition.charEnd));
  });

  it('works on semantic chunks too (their sentence overlap shown once)', () => {
    const semantic = chunkDocument(prose(3, 40), { minTokens: 64, targetTokens: 200, maxTokens: 256, overlapSentences: 2 }).chunks;
    const i = semantic.findIndex((c, n) => n > 0 && c.overlapChars > 0);
    expect(i).toBeGreaterThan(0);
    const parts = expandNeighbors(semantic, i).split(`\n${CHUNK_BOUNDARY}\n`);
    expect(parts[1]!.trimStart()).toBe(semantic[i]!.originalText.slice(semantic[i]!.overlapChars));
  });

  it('rejects an index outside the document', () => {
    expect(() => expandNeighbors(chunks, 6)).toThrow(RangeError);
    expect(() => expandNeighbors([], 0)).toThrow(RangeError);
  });
});

describe('expandNeighbors names a wrong argument as it was given (session 59 probe)', () => {
  const rows = [
    { originalText: 'abc', sourcePosition: { charStart: 0, charEnd: 3 } },
    { originalText: 'cde', sourcePosition: { charStart: 2, charEnd: 5 } },
  ];

  it('shows a string index or k quoted ("no chunk 0 (have 2)" and "got 1" read as if chunk 0 were missing, 1 refused)', () => {
    expect(() => expandNeighbors(rows, '0' as never)).toThrow(new TypeError('expandNeighbors: index must be an integer, got "0"'));
    expect(() => expandNeighbors(rows, 0, '1' as never)).toThrow(new RangeError('expandNeighbors: k must be an integer >= 0, got "1"'));
    expect(() => expandNeighbors(rows, '\u001b[2J' as never)).toThrow(new TypeError('expandNeighbors: index must be an integer, got "\\u001b[2J"'));
    expect(() => expandNeighbors(rows, 2)).toThrow(new RangeError('expandNeighbors: no chunk 2 (have 2)'));
    expect(() => expandNeighbors(rows, -0, -0)).not.toThrow();
  });

  it('refuses chunks that are not an array, and a row without originalText or sourcePosition, naming it', () => {
    expect(() => expandNeighbors(null as never, 0)).toThrow(new TypeError('expandNeighbors: chunks must be an array of chunk records, got null'));
    // A LangChain Document keeps the offsets in its metadata.
    const lc = { pageContent: 'cde', metadata: { charStart: 2, charEnd: 5 } };
    expect(() => expandNeighbors([rows[0]!, lc as never], 0)).toThrow(
      new TypeError('expandNeighbors: chunks[1] must have originalText (a string) and sourcePosition.charStart/charEnd (numbers), got an object'),
    );
    expect(() => expandNeighbors([rows[0]!, null as never], 0)).toThrow(/^expandNeighbors: chunks\[1\] must have originalText/);
    // Rows outside the k neighbours are not read.
    expect(expandNeighbors([rows[0]!, rows[1]!, null as never], 0)).toBe(`abc\n${CHUNK_BOUNDARY}\nde`);
  });
});

describe('expandNeighbors refuses rows that are not one document\'s chunks in order (session 59 probe)', () => {
  it('refuses rows in a search result\'s order (it joined other chunks than the neighbours, cut at the wrong place)', () => {
    const hits = [chunks[3]!, chunks[0]!, chunks[2]!, chunks[1]!];
    expect(() => expandNeighbors(hits, 2)).toThrow(
      new RangeError("expandNeighbors: chunks must be one document's chunks in document order (all of them, e.g. sorted by chunkNumber), but chunks[2] is chunk 2, not the one after chunks[1] (chunk 0)"),
    );
    expect(() => expandNeighbors(hits, 0)).toThrow(/but chunks\[1\] is chunk 0, not the one after chunks\[0\] \(chunk 3\)$/);
    // Rows read back from a store with only the text and the offsets: their order is checked by the offsets.
    const stored = hits.map(({ originalText, sourcePosition: { charStart, charEnd } }) => ({ originalText, sourcePosition: { charStart, charEnd } }));
    expect(() => expandNeighbors(stored, 2)).toThrow(
      new RangeError(
        `expandNeighbors: chunks must be one document's chunks in document order (all of them, e.g. sorted by chunkNumber), but chunks[3] starts at ${chunks[1]!.sourcePosition.charStart}, before chunks[2] (at ${chunks[2]!.sourcePosition.charStart})`,
      ),
    );
  });

  it('refuses hits sorted by position with the chunks between them missing, and rows of two documents', () => {
    expect(() => expandNeighbors([chunks[1]!, chunks[3]!, chunks[5]!], 1)).toThrow(/but chunks\[1\] is chunk 3, not the one after chunks\[0\] \(chunk 1\)$/);
    expect(() => expandNeighbors([chunks[2]!, chunks[2]!], 0)).toThrow(/chunks\[1\] is chunk 2, not the one after chunks\[0\] \(chunk 2\)/);
    const other = chunkDocument(`# Other\n\n${prose(1, 80)}\n`, { strategy: 'token-window', windowTokens: 300, windowOverlapTokens: 50 }).chunks;
    expect(() => expandNeighbors([chunks[0]!, other[1]!], 0)).toThrow(/chunks\[1\] is of a document of \d+ characters, chunks\[0\] of one of \d+$/);
  });

  it('still takes every strategy\'s records as chunkDocument gives them, hierarchical sections and snippets included', () => {
    for (const options of [{}, { strategy: 'hierarchical' as const, sectionTargetTokens: 300, sectionMaxTokens: 400, snippetTargetTokens: 100, snippetMaxTokens: 128, snippetOverlapTokens: 40 }, { strategy: 'paginate' as const, ctxSize: 1024, bufSize: 0 }, { strategy: 'token-window' as const }]) {
      const records = chunkDocument(doc, options).chunks;
      expect(records.length).toBeGreaterThan(3);
      for (let i = 0; i < records.length; i++) expect(() => expandNeighbors(records, i, 2)).not.toThrow();
    }
  });

  it('never gives other neighbours than the chunks\' own: rows in any order either give chunk i\'s expansion or are refused (property)', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray([...chunks.keys()], { minLength: 1 }), fc.nat(), fc.integer({ min: 0, max: 3 }), (order, at, k) => {
        const rows = order.map((n) => chunks[n]!);
        const index = at % rows.length;
        let out: string;
        try {
          out = expandNeighbors(rows, index, k);
        } catch (err) {
          expect(err).toBeInstanceOf(RangeError);
          expect((err as Error).message).toMatch(/^expandNeighbors: chunks must be one document's chunks in document order/);
          return;
        }
        // Accepted: the rows around `index` are consecutive chunks, and the text is theirs.
        const lo = Math.max(0, index - k);
        const hi = Math.min(rows.length - 1, index + k);
        const window = order.slice(lo, hi + 1);
        expect(window).toEqual(window.map((_, j) => order[lo]! + j));
        expect(out).toBe(expandNeighbors(chunks.slice(order[lo]!, order[hi]! + 1), index - lo, k));
      }),
    );
  });
});
