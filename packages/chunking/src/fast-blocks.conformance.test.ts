/**
 * The fast block producer (markdown-it) must yield exactly the blocks that the
 * reference route, remark-parse + remark-gfm → flatten, yields.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { fastBlocks } from './fast-blocks.js';
import { flatten } from './flatten.js';
import { parse } from './parse.js';
import { realDocuments } from './test-corpus.js';

interface SpecExample {
  markdown: string;
  number: number;
  section: string;
}
const require = createRequire(import.meta.url);
const spec = require('commonmark-spec') as { tests: SpecExample[] };
const specVersion = (require('commonmark-spec/package.json') as { version: string }).version;

describe('fast blocks conform to remark', () => {
  it('on every document of the sample docs and shared corpora', () => {
    const docs = realDocuments();
    expect(docs.length).toBeGreaterThanOrEqual(7);
    for (const [name, text] of docs) {
      expect({ name, blocks: fastBlocks(text).blocks }).toEqual({ name, blocks: flatten(parse(text)) });
    }
  });

  it(`on all CommonMark ${specVersion} spec examples`, () => {
    expect(spec.tests.length).toBeGreaterThan(600);
    const mismatches = spec.tests
      .filter((t) => JSON.stringify(fastBlocks(t.markdown).blocks) !== JSON.stringify(flatten(parse(t.markdown))))
      .map((t) => `#${t.number} (${t.section})`);
    expect(mismatches).toEqual([]);
  });

  it('on GFM constructs: tables, footnote definitions, reference definitions, front matter, CRLF', () => {
    const samples = [
      '| a | `b` |\n| - | :-: |\n| 1 | 2 |\n\ntext',
      'Text[^1].\n\n[^1]: The note.\n',
      '[ref]: https://example.com "title"\n[other]: /x\n\n# Heading *em* `code` ![alt](i.png)\n',
      '---\ntitle: Front\n---\n# Real heading\n\nBody.\n',
      '# Title\r\n\r\nPara one\r\nstill one\r\n\r\n```js\r\ncode\r\n```\r\n',
      '> quote\n>\n> - item\n>   [d]: /u\n',
      '<div>\n\nhtml\n\n</div>\n\n***\n\n    indented\n',
    ];
    for (const s of samples) expect(fastBlocks(s).blocks).toEqual(flatten(parse(s)));
  });

  it('on reference definitions on the first line of a list item, after its marker (and quote markers)', () => {
    const samples = [
      '- [d]: /u\n', '- [d]: /u\n- x\n', '1. [d]: /u\n', '2) [d]: /u\n   para\n', '-\t[d]: /u\n', '* [d]: /u\n\n  [e]: /v\n',
      '- - [d]: /u\n', '> - [d]: /u\n', '- > [d]: /u\n', '- > - [d]: /u\n', '   - [d]: /u\n', '- a\n- [d]: /u\n', '- [d]:\n  /u\n',
      '> [d]:\n> /u\n> "title"\n', '- a\n\n  [d]: /u\n  "t"\n', '> [d]: /u\n>\n> para\n', '> - [d]:\n>   /u\n>\n>   [e]: /v\n',
    ];
    for (const s of samples) expect({ s, blocks: fastBlocks(s).blocks }).toEqual({ s, blocks: flatten(parse(s)) });
  });

  it('on reference definitions inside large containers (lines marked covered once, not child by child)', () => {
    const parts = Array.from({ length: 40 }, (_, i) => `para ${i}\n\n[d${i}]: /u${i}\n`);
    const samples = [
      parts.map((p) => p.replace(/^/gm, '> ')).join('>\n'),
      `- item\n\n${parts.map((p) => p.replace(/^(?=.)/gm, '  ')).join('\n')}`,
      `> - ${parts.join('\n').replace(/\n(?=.)/g, '\n>   ')}`,
    ];
    for (const s of samples) {
      const blocks = fastBlocks(s).blocks;
      expect(JSON.stringify(blocks)).toContain('"definition"');
      expect(blocks).toEqual(flatten(parse(s)));
    }
  });

  it('on the lists made without tokens (fast-lists.ts) and those next to them', () => {
    const samples = [
      '- a\n- b\n* c\n+ d\n',
      '1. one\n2. two\n10) ten\n11) eleven\n',
      '- a\n  more\nlazy\n- b\n\n\n- loose\n\npara\n',
      ' - a\n   - nested\n-\ttab\n-    four\n-     code\n',
      '- **b**: x\n- `c` y\n- [l](u) z\n- #tag\n- 2024 was\n- <b>x</b>\n',
      'para\n- a\n- b\n---\n- c\n  ---\n2. x\n1. y\n',
      '- a\r\n- b\r\n\r\n- c\r\n',
    ];
    for (const s of samples) expect(fastBlocks(s).blocks, JSON.stringify(s)).toEqual(flatten(parse(s)));
  });
});
