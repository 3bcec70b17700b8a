import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { unspacedRun } from './test-helpers.js';
import { countTokens } from './tokens.js';

// A chunk whose text is its source range has its embed text (prefix, newline, text) counted by
// the document's TokenIndex at the joint (embedTokensOf); it must be countTokens' count of the
// string. Hostile joints: unspaced runs, non-ASCII, whitespace and markup at chunk starts.
const part = fc.oneof(
  unspacedRun(1200),
  fc.constantFrom('# T\n', '## Ünï <x>\n', '- a\n- b\n', '   \n\n', '\u00a0\u3000 text\n', '```\ncode  \n```\n', '| a |\n| - |\n| 1 |\n', '> q\n', ' leading space\n'),
  fc.integer({ min: 1, max: 60 }).map((n) => `${'Words, and more words. '.repeat(n)}\n`),
);

describe('hierarchical token counts', () => {
  it("are countTokens' counts of each chunk's texts", () => {
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 12 }).map((p) => p.join('\n')), fc.constantFrom(0, 5), (source, maxConcepts) => {
        const { chunks } = chunkDocument(source, {
          docName: 'd',
          strategy: 'hierarchical',
          sectionTargetTokens: 300,
          sectionMaxTokens: 400,
          sectionOverlapTokens: 20,
          snippetTargetTokens: 100,
          snippetMaxTokens: 160,
          snippetOverlapTokens: 10,
          maxConcepts,
        });
        for (const c of chunks) {
          expect(c.tokenStats.embedTokens).toBe(countTokens(c.embedText));
          expect(c.tokenStats.tokens).toBe(countTokens(c.originalText));
        }
      }),
      { numRuns: 60 },
    );
  });
});
