// Issue 15: every stage runs in linear time. Each printed chunk's text was trimmed with
// /\s+$/, quadratic in a run of whitespace not at the end; a chunk's text comes from the docs
// tree, which may be a site the user points docs-query at. trimEnd gives the same result.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SearchResult } from '@chunkyard/retrieval';
import { formatSearch } from './main.js';

describe('a printed chunk is trimmed in linear time', () => {
  it("trimEnd is text.replace(/\\s+$/, '')", () => {
    const text = fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\u2028', '\ufeff', '\u3000', '\u0085', '\u200b', '\u180e', 'a'), maxLength: 40 });
    fc.assert(
      fc.property(text, (s) => {
        expect(s.trimEnd()).toBe(s.replace(/\s+$/, ''));
      }),
      { numRuns: 10_000 },
    );
  });

  it('a chunk holding 400,000 tabs before its last word', () => {
    const text = `Intro${'\t'.repeat(400_000)}x\t\n`;
    const result: SearchResult = {
      query: 'q',
      queryHash: '0000000000000000',
      maxDistance: 0,
      method: 'none',
      chunks: [{ topic: 't', doc: 'golden-reference.md', index: 0, title: 'T', isCode: false, location: 'docs/t/_chunks/0.md', text, span: { from: 0, to: 0 } }],
    };
    const out = formatSearch(result, true);
    expect(out).toContain(`Intro${'\t'.repeat(400_000)}x\n\n`);
  });
});
