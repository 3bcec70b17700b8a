import { describe, expect, it } from 'vitest';
import { chunkDocument } from '@chunkyard/chunking';
import { locateChunk } from '@chunkyard/quality';
import { recordSpan } from './spans.mjs';

// A plain-text corpus shaped like Chroma's pubmed.md: paragraphs separated by lone page
// numbers (removed from originalText as boilerplate), and one paragraph repeated at the end
// (finance.md repeats passages).
const para = (i: number) =>
  `Paragraph ${i} talks about the steady state flux of beta catenin and the axin complex in cells. It has a second sentence about kinase activity number ${i}.`;
let corpus = '';
for (let i = 0; i < 12; i++) corpus += `${para(i)}\n${i + 1}\n\n`;
corpus += `${para(0)}\n`;
const chunks = chunkDocument(corpus, { strategy: 'semantic', targetTokens: 60, maxTokens: 80, minTokens: 8, overlapSentences: 0, docName: 'x' }).chunks;

describe('recordSpan: our chunks are scored where they are', () => {
  it('finds the premise: searching for originalText loses chunks and misplaces repeats', () => {
    expect(chunks.some((c) => c.removed?.length && locateChunk(corpus, c.originalText) === null)).toBe(true);
    const last = chunks.at(-1)!;
    expect(locateChunk(corpus, last.originalText)?.start).toBe(0);
  });

  it('maps every chunk, at its own position, covering its text', () => {
    for (const c of chunks) {
      const span = recordSpan(corpus, c);
      expect(span).not.toBeNull();
      expect(span!.start).toBe(c.sourcePosition.charStart);
      const slice = corpus.slice(span!.start, span!.end);
      // The span holds the chunk's text, plus only the boilerplate lines it left out.
      const kept = (c.removed ?? []).reduceRight((s, r) => s.slice(0, r.start - span!.start) + s.slice(r.end - span!.start), slice);
      expect(kept.replace(/\s+/g, ' ')).toBe(c.originalText.replace(/\s+/g, ' '));
    }
    expect(recordSpan(corpus, chunks.at(-1)!)!.start).toBeGreaterThan(corpus.length / 2);
  });

  it('refuses an empty or out-of-range position', () => {
    expect(recordSpan('abc', { sourcePosition: { charStart: 2, charEnd: 2 } })).toBeNull();
    expect(recordSpan('abc', { sourcePosition: { charStart: 0, charEnd: 4 } })).toBeNull();
  });
});
