// A paragraph ending with a colon announces what follows it ("The main differences between npm
// install and npm ci are:"), and packing cut it from the list or code it announces: the run ended
// on a dangling colon and the list was a chunk without its subject (268 of 2,648 chunks of npm's
// docs, the .NET corpus and docs/ ended with a colon, session 60). It goes with what follows now,
// as a bare heading does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';

const words = (n: number, w: string): string => `${Array.from({ length: n }, () => w).join(' ')}.`;

describe('a paragraph ending with a colon', () => {
  it('goes with the list it introduces when the run before it closes', () => {
    const doc = `# npm ci\n\n## Description\n\n${words(60, 'install')}\n\nThe main differences between using npm install and npm ci are:\n\n* The project must have an existing package-lock.json.\n* If dependencies do not match, npm ci exits with an error.\n* npm ci can only install entire projects at a time.\n`;
    const { chunks } = chunkDocument(doc, { docName: 'd' });
    const intro = chunks.find((c) => c.originalText.includes('are:'))!;
    expect(intro.originalText.trimEnd().endsWith('are:')).toBe(false);
    expect(intro.originalText).toContain('* The project must have');
  });

  it('takes the code it introduces when it would be a chunk of its own', () => {
    // An introduction long enough (60 tokens) that, with the code, it passes the target by more than it falls short.
    const tree = Array.from({ length: 24 }, (_, k) => `└─┬ init-package-json@0.0.${k}`).join('\n');
    const doc = `# npm ls\n\n## Usage\n\n${words(70, 'tree')}\n\n${words(58, 'nested').slice(0, -1)} will show:\n\n\`\`\`bash\nnpm@11.19.1 /path/to/npm\n${tree}\n\`\`\`\n`;
    const { chunks } = chunkDocument(doc, { docName: 'd' });
    const intro = chunks.find((c) => c.originalText.includes('will show:'))!;
    expect(intro.originalText).toContain('```bash');
  });

  it('before a heading stays where it is (it introduces nothing it could join)', () => {
    const doc = `# Guide\n\n## A\n\n${words(90, 'alpha')}\n\nThe options are:\n\n## B\n\n${words(40, 'beta')}\n`;
    const { chunks } = chunkDocument(doc, { docName: 'd' });
    const intro = chunks.find((c) => c.originalText.includes('The options are:'))!;
    expect(intro.originalText).not.toContain('## B');
  });

  it('never ends a chunk before the list or code it introduces when both fit one', () => {
    const item = fc.array(fc.constantFrom('save', 'prod', 'dev', 'flag'), { minLength: 1, maxLength: 12 }).map((w) => `* ${w.join(' ')}`);
    const list = fc.array(item, { minLength: 1, maxLength: 6 }).map((items) => items.join('\n'));
    const code = fc.array(fc.constantFrom('npm', 'ls', '--json', 'x'), { minLength: 1, maxLength: 30 }).map((w) => `\`\`\`\n${w.join(' ')}\n\`\`\``);
    const section = fc.tuple(
      fc.integer({ min: 10, max: 90 }),
      fc.integer({ min: 3, max: 20 }),
      fc.oneof(list, code),
    );
    fc.assert(
      fc.property(fc.array(section, { minLength: 1, maxLength: 6 }), (sections) => {
        const doc = `# Guide\n\n${sections.map(([lead, intro, body], k) => `## Part ${k}\n\n${words(lead, 'lead')}\n\n${words(intro, 'intro').slice(0, -1)}:\n\n${body}\n`).join('\n')}`;
        const { chunks } = chunkDocument(doc, { docName: 'd' });
        for (const c of chunks) expect(c.originalText.trimEnd(), c.originalText).not.toMatch(/:$/);
      }),
      { numRuns: 300 },
    );
  });
});
