// A section's last paragraphs went to the front of the next section's chunk: a short one
// ("See the alpha notes.") closed away from its section's run once that run had reached the
// target, and a longer one, closed the same way, took the small sections after it in. Either
// was shown and embedded under the next section's breadcrumb.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';

const words = (n: number, w: string): string => `${Array.from({ length: n }, () => w).join(' ')}.`;

/** A chunk's own text, without the sentences it repeats from the chunk before (overlap). */
const ownText = (c: { originalText: string; overlapChars?: number }): string => c.originalText.slice(c.overlapChars ?? 0);

describe("a section's short last paragraph", () => {
  it('stays in its section\'s chunk, under its breadcrumb', () => {
    const doc = `# Guide\n\n## Alpha\n\n${words(74, 'alpha')}\n\nSee the alpha notes.\n\n## Beta\n\n${words(200, 'beta')}\n`;
    const { chunks } = chunkDocument(doc, { docName: 'd' });
    const tail = chunks.find((c) => c.originalText.includes('See the alpha notes.'))!;
    expect(tail.originalText).not.toContain('## Beta');
    expect(tail.embedText).not.toMatch(/Beta/);
    const beta = chunks.find((c) => c.originalText.includes('## Beta'))!;
    expect(ownText(beta).startsWith('## Beta')).toBe(true);
  });

  it('never leads the next section\'s chunk when its own section had room for it', () => {
    // Sections of at most ~150 tokens under the default cap of 512: each run has room for its tail.
    const paragraph = fc.tuple(fc.integer({ min: 3, max: 40 }), fc.constantFrom('alpha', 'token', 'serializer', 'the')).map(([n, w]) => words(n, w));
    const tail = fc.tuple(fc.integer({ min: 1, max: 8 }), fc.constantFrom('see', 'note', 'more')).map(([n, w]) => words(n, w));
    const section = fc.tuple(fc.integer({ min: 2, max: 3 }), fc.array(paragraph, { minLength: 1, maxLength: 3 }), fc.option(tail, { nil: undefined }));
    fc.assert(
      fc.property(fc.array(section, { minLength: 2, maxLength: 8 }), (sections) => {
        const doc = `# Guide\n\n${sections.map(([depth, body, t], k) => `${'#'.repeat(depth)} Part ${k}\n\n${[...body, ...(t ? [t] : [])].join('\n\n')}\n`).join('\n')}`;
        const { chunks } = chunkDocument(doc, { docName: 'd' });
        for (const c of chunks) {
          const own = ownText(c);
          const heading = own.search(/\n#{1,3} Part /);
          // A chunk that starts inside a section ends before the next heading: its last pieces
          // under min stay with the run before them, and a run of more closes at the heading.
          if (!own.startsWith('#')) expect(heading, own).toBe(-1);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe("a section's last paragraphs over min", () => {
  it('make a chunk of their own under their section, not the front of the next sections', () => {
    // Shaped as npm's docs are: a run past the target, then a last paragraph of ~20 tokens, then small sections.
    const doc = `# npm access\n\n## Description\n\n${words(70, 'access')}\n\nManagement of teams and team memberships is done with the npm team command in the registry.\n\n### Configuration\n\n#### json\n\n* Default: false\n\nWhether to output JSON.\n`;
    const { chunks } = chunkDocument(doc, { docName: 'd' });
    const tail = chunks.find((c) => c.originalText.includes('Management of teams'))!;
    expect(tail.originalText).not.toContain('### Configuration');
    expect(tail.headerBreadcrumb).toBe('npm access > Description');
  });
});
