import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { unspacedRun } from './test-helpers.js';
import { countTokens } from './tokens.js';

// Pages whose text is their source range have their body and whole text counted by the
// document's TokenIndex at the joints (joinedCounts); they must be countTokens' counts of the
// strings. Hostile joints: unspaced runs, non-ASCII, whitespace and markup at page edges.
const part = fc.oneof(
  unspacedRun(1500),
  fc.constantFrom('# T\n', '## Ünï <x>\n', '- a\n- b\n', '   \n\n', '\u00a0\u3000 text\n', '```\ncode  \n```\n', '| a |\n| - |\n| 1 |\n', '> q\n'),
  fc.integer({ min: 1, max: 80 }).map((n) => `${'Words, and more words. '.repeat(n)}\n`),
);

describe('paginate token counts', () => {
  it("are countTokens' counts of each page's body and text", () => {
    fc.assert(
      fc.property(
        fc.array(part, { minLength: 1, maxLength: 12 }).map((p) => p.join('\n')),
        fc.constantFrom('extractive' as const, 'none' as const),
        fc.constantFrom('d', 'doc <&> name'),
        (source, leadLines, docName) => {
          const { chunks } = chunkDocument(source, { docName, strategy: 'paginate', ctxSize: 1024, bufSize: 0, pageOverlapTokens: 30, leadLines });
          for (const c of chunks) {
            expect(c.tokenStats.embedTokens).toBe(countTokens(c.embedText));
            expect(c.page!.tokens).toBe(countTokens(c.page!.text));
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
