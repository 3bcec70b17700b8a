// The hierarchical strategy matches each chunk's concepts with one KeywordMatcher per document,
// seeded by the document's keyword extraction (ScanMemo). It must find exactly what
// matchKeywords finds in the chunk's text, for every chunk of every sample document.
import { extractKeywords, KeywordMatcher, matchKeywords, ScanMemo } from '@chunkyard/keywords';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { realDocuments } from './test-corpus.js';

const FRONT_MATTER = /^---[ \t]*\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

describe('hierarchical concepts through KeywordMatcher', () => {
  const docs = realDocuments();

  it('has sample documents', () => {
    expect(docs.length).toBeGreaterThan(0);
  });

  it('match every chunk of every sample document as matchKeywords does', () => {
    let chunks = 0;
    let matched = 0;
    for (const [path, source] of docs) {
      const result = chunkDocument(source, { docName: path, strategy: 'hierarchical' });
      const body = source.slice(FRONT_MATTER.exec(source)?.[0].length ?? 0);
      // A longer table than the strategy's default, so that more entries meet more chunks.
      const memo = new ScanMemo();
      const table = extractKeywords([{ name: path, text: body }], { max: 120, memo });
      const matcher = new KeywordMatcher(table, memo);
      for (const chunk of result.chunks) {
        const expected = matchKeywords(table, chunk.originalText);
        expect(matcher.match(chunk.originalText), `${path} ${chunk.id}`).toEqual(expected);
        chunks++;
        matched += expected.length;
      }
    }
    expect(chunks).toBeGreaterThan(docs.length);
    expect(matched).toBeGreaterThan(chunks);
  });
});
