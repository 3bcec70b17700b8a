// The remark route parsed a window at a time (remark-windows.ts) gives the blocks of the whole
// parse, `flatten(parse(source))`, on any document and any window size. Before it, micromark held
// a whole document's events: 1 MB of short paragraphs took 2.5 GB of heap and 4 MB ran out of it
// (session 55), valid markdown ending the process with a fatal error.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flatten } from './flatten.js';
import { chunkDocument } from './index.js';
import { lineTable } from './lines.js';
import { parse } from './parse.js';
import { remarkBlocks } from './remark-windows.js';

const require = createRequire(import.meta.url);
const examples = (require('commonmark-spec') as { tests: { markdown: string }[] }).tests.map((t) => t.markdown);

const whole = (source: string) => {
  const parsed = parse(source);
  return { frontMatter: parsed.frontMatter, blocks: flatten(parsed) };
};
const windowed = (source: string, windowChars: number) => remarkBlocks(source, lineTable(source), windowChars);

// Pieces that reach across windows: definitions and references to them in headings and table
// headers, lists and fences longer than a window, setext underlines and delimiter rows right at
// a window's edge, lazy lines, front matter.
const label = fc.constantFrom('a', 'Foo  Bar', 'ß', 'x\\]y', '1', 'İ');
const piece = fc.oneof(
  fc.constantFrom(...examples),
  label.map((l) => `[${l}]: /u "t"\n`),
  label.map((l) => `> [${l}]: /u\n`),
  label.map((l) => `- [${l}]:\n  /u\n`),
  label.map((l) => `[^${l.replace(/\W/g, '')}]: note\n`),
  label.map((l) => `# see [${l}] and [^${l.replace(/\W/g, '')}]\n`),
  label.map((l) => `| [${l}] | b |\n| - | - |\n| 1 | 2 |\n`),
  label.map((l) => `[${l}]\n===\n`),
  fc.integer({ min: 1, max: 40 }).map((n) => Array.from({ length: n }, (_, i) => `- item ${i}\n${i % 3 === 0 ? '\n' : ''}`).join('')),
  fc.integer({ min: 1, max: 40 }).map((n) => `\`\`\`\n${'code\n'.repeat(n)}`),
  fc.constantFrom('para\n', 'h | h\n', '- | -\n', '===\n', '---\n', '> quote\n', 'lazy\n', '\n', '\n\n', '    indented\n', '<div>\n', '<del>\n', '2. two\n', '-\n', '\t- tab\n', '# h\n', '```\n', '***\n', '  para\n', '   > q\n'),
);
const document = fc
  .tuple(fc.boolean(), fc.array(piece, { minLength: 1, maxLength: 40 }), fc.constantFrom('\n', '\r\n', '\r'))
  .map(([frontMatter, pieces, eol]) => (frontMatter ? '---\ntitle: "T"\nx: 1\n---\n' : '') + pieces.join('').replace(/\n/g, eol));

describe('remarkBlocks', () => {
  it('gives the whole parse’s front matter and blocks, windows of any size', () => {
    fc.assert(
      fc.property(document, fc.integer({ min: 1, max: 400 }), (source, windowChars) => {
        expect(windowed(source, windowChars)).toEqual(whole(source));
      }),
      { numRuns: 400 },
    );
  });

  it('reads a heading’s reference as a link when its definition is in another window', () => {
    const source = `# see [x]\n\n${'filler paragraph\n\n'.repeat(50)}[x]: /url\n`;
    const { blocks } = windowed(source, 64);
    expect(blocks[0]).toMatchObject({ type: 'heading', text: 'see x' });
    expect(blocks).toEqual(whole(source).blocks);
  });

  // Keep a Changelog's shape: `## [1.2.0] - date` headings and every version's link definition at
  // the end. Each window's headings reference definitions of the last window; with all of the
  // other windows' definitions put in front of each, that cost more than parsing the document
  // whole, which it then was (a 1 MB changelog ran out of a 256 MB heap).
  it('parses a changelog whose definitions sit at its end a window at a time, each with only the definitions it references', () => {
    let source = '# Changelog\n\n';
    for (let v = 300; v > 0; v--) source += `## [1.${v}.0] - 2026-01-01\n\n- fix one\n- fix two\n\n`;
    for (let v = 300; v > 0; v--) source += `[1.${v}.0]: https://example.com/compare/v1.${v - 1}.0...v1.${v}.0\n`;
    const parses: number[] = [];
    const { blocks } = remarkBlocks(source, lineTable(source), 1024, (chars) => parses.push(chars));
    expect(blocks).toEqual(whole(source).blocks);
    expect(blocks.find((b) => b.type === 'heading' && b.depth === 2)).toMatchObject({ text: '1.300.0 - 2026-01-01' });
    // The largest text parsed at once is the run of definitions (one paragraph's content, never
    // cut) and a window around it, not the document.
    expect(Math.max(...parses)).toBeLessThan(source.length * 0.6);
    expect(parses.reduce((a, b) => a + b, 0)).toBeLessThan(3 * source.length);
  });

  // Cuts the property found wrong: a window started at `2. two` (a list alone) where the whole
  // parse, after indented code, reads it as a paragraph, even past a blank line (micromark's
  // reading; CommonMark's would be a list); and at `-` right after a definition.
  it('never starts a window at a line that reads otherwise after what precedes it', () => {
    for (const source of ['-   foo\n\n<!-- -->\n\n    code\n2. two\n[^a]: note\n', '    code\n\n2. two\n\nx\n', '![foo]\n\n[foo]: /url "title"\n-\n\tfoo\n> [a]: /u\n']) {
      for (const windowChars of [1, 4, 16]) expect(windowed(source, windowChars), JSON.stringify(source)).toEqual(whole(source));
    }
  });

  // The shapes the scaling bench runs: each is cut into windows, none parsed whole at once.
  it('cuts documents of tiny headings, setext headings, lazy quotes and short paragraphs into windows', () => {
    const shapes = {
      tiny: (i: number) => `# h${i % 100}\n`,
      setext: (i: number) => `h${i % 100}\n---\n\n`,
      lazy: (i: number) => `> # h${i % 100}\nlazy ${i}\n`,
      paragraphs: (i: number) => `p${i % 100}\n\n`,
    };
    for (const [name, piece] of Object.entries(shapes)) {
      const source = Array.from({ length: 2000 }, (_, i) => piece(i)).join('');
      const parses: number[] = [];
      const { blocks } = remarkBlocks(source, lineTable(source), 512, (chars) => parses.push(chars));
      expect(blocks, name).toEqual(whole(source).blocks);
      expect(Math.max(...parses), name).toBeLessThanOrEqual(2 * 512 + 64);
    }
  });

  it('keeps a list longer than the window one list', () => {
    const source = `${Array.from({ length: 200 }, (_, i) => `- item ${i}\n\n`).join('')}after\n`;
    const { blocks } = windowed(source, 32);
    expect(blocks.map((b) => b.type)).toEqual(['list', 'paragraph']);
    expect(blocks[0]!.children).toHaveLength(200);
  });

  it('chunks a document of short paragraphs many windows long within a heap a fifth of what its whole parse took', () => {
    // 250 KB of them: the whole parse held ~600 MB of micromark's events and the process ran
    // out of a 128 MB heap (V8's fatal error, no message); a window's events take a few MB.
    // The built package (npm test builds it first), in a process of its own with that heap.
    const dist = pathToFileURL(fileURLToPath(new URL('../dist/index.js', import.meta.url))).href;
    const script = `
      import { chunkDocument } from ${JSON.stringify(dist)};
      const parts = [];
      for (let i = 0, n = 0; n < 250000; i++) { const p = 'p' + (i % 100) + '\\n\\n'; parts.push(p); n += p.length; }
      console.log(chunkDocument(parts.join(''), { docName: 'x', parser: 'remark' }).chunks.length);`;
    const run = spawnSync(process.execPath, ['--max-old-space-size=128', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 240_000 });
    expect(run.status, run.stderr.slice(-400)).toBe(0);
    const parts: string[] = [];
    for (let i = 0, n = 0; n < 250_000; i++) {
      const p = `p${i % 100}\n\n`;
      parts.push(p);
      n += p.length;
    }
    // The same chunks as the fast parser makes of it (the two parsers' blocks agree).
    expect(Number(run.stdout.trim())).toBe(chunkDocument(parts.join(''), { docName: 'x' }).chunks.length);
  }, 300_000);
});
