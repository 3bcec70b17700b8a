/**
 * Issue 15: valid markdown that threw an invariant violation. Each shape runs
 * through every strategy with recounted tokens, so `validate` checks the caps.
 */
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { countTokens } from './tokens.js';
import type { ChunkOptions } from './types.js';

const words = (n: number, stem = 'word'): string => Array.from({ length: n }, (_, i) => `${stem}${i}`).join(' ');
const wideTable = (cols: number): string =>
  [`|${Array.from({ length: cols }, (_, i) => ` c${i} `).join('|')}|`, `|${' --- |'.repeat(cols)}`, `|${' x |'.repeat(cols)}`].join('\n');

const STRATEGIES: Partial<ChunkOptions>[] = [
  { maxTokens: 64, targetTokens: 48, minTokens: 8 },
  { maxTokens: 400, targetTokens: 300, minTokens: 50 },
  {},
  { strategy: 'token-window' },
  { strategy: 'hierarchical' },
  { strategy: 'paginate', ctxSize: 2048, bufSize: 0 },
];

function chunkAll(source: string, opts: Partial<ChunkOptions>) {
  return chunkDocument(source, { docName: 'doc', ...opts }, { recount: true }).chunks;
}

describe('valid markdown never throws', () => {
  it.each([300, 2000])('a table whose header row alone is over the cap (%i columns) is split like any other row', (cols) => {
    const source = `# Title\n\nIntro.\n\n${wideTable(cols)}\n`;
    for (const opts of STRATEGIES) expect(() => chunkAll(source, opts)).not.toThrow();
  });

  it('a heading of 3000 words is split like prose, and the breadcrumbs after it shrink', () => {
    const source = `# Title\n\n## ${words(3000)}\n\nBody text under the heading.\n`;
    for (const opts of STRATEGIES) {
      const chunks = chunkAll(source, opts);
      expect(chunks.map((c) => c.originalText).join(' ')).toContain('word2999');
    }
  });

  it.each([16, 100, 128])('a breadcrumb longer than a cap of %i shrinks: truncated names, then the title, then nothing', (maxTokens) => {
    const caption = `Figure 3: ${words(150, 'caption')}`;
    const source = `# ${caption}\n\n## Results\n\n${'The measured values agree with the model. '.repeat(30)}\n`;
    const chunks = chunkAll(source, { maxTokens, targetTokens: Math.floor(maxTokens * 0.75), minTokens: 4, breadcrumbMode: 'always' });
    for (const c of chunks) expect(countTokens(c.embedText)).toBeLessThanOrEqual(maxTokens);
    // Where there is room the breadcrumb is kept, shortened rather than dropped.
    if (maxTokens >= 100) expect(chunks.some((c) => c.embedText.startsWith('Figure 3:') && c.embedText.includes('…'))).toBe(true);
  });

  it('a code block that fits the cap but not beside its breadcrumb stays whole, with a shorter prefix', () => {
    const heading = words(20, 'Section');
    let body = '';
    for (let i = 0; countTokens(`\`\`\`js\n${body}\`\`\``) < 500; i++) body += `call${i}();\n`;
    const block = `\`\`\`js\n${body}\`\`\``;
    const tokens = countTokens(block);
    expect(tokens).toBeGreaterThan(490);
    expect(tokens).toBeLessThanOrEqual(510);
    const source = `# Guide\n\n## ${heading}\n\nSome words first.\n\n${block}\n\nAfter.\n`;
    const chunks = chunkAll(source, {});
    const holder = chunks.find((c) => c.originalText.includes(block));
    expect(holder).toBeDefined();
    expect(holder!.splitUnit).toBe(false);
    expect(countTokens(holder!.embedText)).toBeLessThanOrEqual(512);
  });

  it.each([
    ['after a space', '```csharp\n    größe data data data größe data [link](https://example.com);\n    data;\n```\n\n> data data data.\n>> data data data.\n', 22],
    ['after indentation', '```\n\n    data [link](https://example.com) **bold**;\n\n```\n', 16],
  ])('parts of one overlong code line packed together keep their fences on lines of their own (cut %s)', (_what, source, maxTokens) => {
    const chunks = chunkAll(source, { maxTokens, targetTokens: Math.floor(maxTokens * 0.75), minTokens: 2, overlapSentences: 0 });
    for (const c of chunks) {
      const lines = c.originalText.split('\n');
      // Every fence is a fence: at most three spaces of indentation, nothing before it.
      expect(lines.filter((l) => l.includes('```')).every((l) => /^ {0,3}```(csharp)?$/.test(l))).toBe(true);
      expect(lines.filter((l) => /^ {0,3}```/.test(l)).length % 2).toBe(0);
    }
  });

  // s36 fuzz probe: a fence whose opening line alone takes most of a small cap (a run of 127
  // backticks, a long info string) left every re-fenced part over the cap, 129 tokens > 64.
  it.each([
    ['a fence of 127 backticks, unclosed', `${'`'.repeat(127)}\nD`, 64],
    ['a fence of 127 backticks around a body', `# T\n\n${'`'.repeat(127)}\n${'let x = 1;\n'.repeat(40)}${'`'.repeat(127)}\n`, 100],
    ['a long info string', '```/x) *d*\ufb01g\t\u200b\t\tPI\r>', 16],
    ['a long info string around blank lines only (a TypeError before)', '```the the the e.g. 1.5   the \r\r```\n\n\n\n', 16],
    ['a long info string around a body', `\`\`\`js ${'word '.repeat(30)}\n${'call();\n'.repeat(30)}\`\`\`\n`, 32],
  ])('%s: its parts fit the cap (cut as exact lines when re-fencing cannot fit)', (_what, source, maxTokens) => {
    for (const parser of ['fast', 'remark'] as const) {
      const chunks = chunkAll(source, { maxTokens, targetTokens: Math.floor(maxTokens * 0.8), minTokens: 2, breadcrumbMode: 'none', parser });
      for (const c of chunks) expect(countTokens(c.originalText)).toBeLessThanOrEqual(maxTokens);
      // Nothing of the source is lost.
      expect(chunks.map((c) => c.originalText).join('').replace(/\s/g, '').length).toBeGreaterThanOrEqual(source.replace(/\s/g, '').length);
    }
  });

  it('a list item whose text is tab-indented code, trimmed to its first character, is not "inside a code block" (s36 property test)', () => {
    const source = '  - \t the \n- \n\n```\n\n\n';
    for (const parser of ['fast', 'remark'] as const) {
      expect(() => chunkAll(source, { maxTokens: 16, targetTokens: 1, minTokens: 0, parser })).not.toThrow();
    }
  });
});
