import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deferredItemsForTests, fastBlocks, setDirectListsForTests, setItemsNowForTests } from './fast-blocks.js';
import { BlockArray, directListsMadeForTests, nestedListsMadeForTests, tokenItemsForTests } from './fast-lists.js';
import type { Block } from './types.js';
import { flatten } from './flatten.js';
import { parse } from './parse.js';

/** `text`'s blocks with a fast path on (as it runs) equal those with it turned off by `set`, in JSON (field order too). */
function expectSameBlocksWithout(set: (on: boolean) => void, text: string): void {
  const fast = JSON.stringify(fastBlocks(text).blocks);
  set(false);
  try {
    expect(fast).toBe(JSON.stringify(fastBlocks(text).blocks));
  } finally {
    set(true);
  }
}

/** `text`'s blocks with direct lists equal those made from markdown-it's tokens. */
const expectSameAsTokens = (text: string): void => expectSameBlocksWithout(setDirectListsForTests, text);

/** How many lists `text` makes directly. */
function madeDirectly(text: string): number {
  const before = directListsMadeForTests();
  fastBlocks(text);
  return directListsMadeForTests() - before;
}

describe('top-level lists made into blocks without tokens', () => {
  // Item lines: indentation 0-6 (and tabs), every marker kind and ordered numbers up to
  // markdown-it's 9 digits and past them, marker spacing from none to code-deep, tabs after
  // the marker; bodies that are paragraphs or that start other blocks (headings, fences,
  // quotes, HTML, rules, setext underlines, reference and footnote definitions, nested
  // lists, tables); continuation lines indented, lazy, blank, or starting blocks.
  const indent = fc.constantFrom('', '', '', ' ', '  ', '   ', '    ', '     ', '      ', '\t', ' \t', '  \t');
  const marker = fc.constantFrom('-', '-', '*', '+', '1.', '1)', '2.', '0.', '10)', '123456789.', '1234567890.', '-', '*');
  const gap = fc.constantFrom(' ', ' ', ' ', '  ', '    ', '     ', '\t', '\t\t', ' \t', '');
  const body = fc.constantFrom(
    'item', 'item', 'two words', 'x  ', '# h', '#tag', '```', '```js', '~~~', '> q', '>', '<div>', '<span>x</span>', '<!-- c -->', '[d]: /u', '[l](u)', '[l]', '[^1]: n',
    '**b**', '*e* x', '_u_', '* * *', '- - -', '---', '***', '===', '`code`', '1. x', '2) y', '- nested', '+ n', '|a|b|', 'a | b', '', '    code', '&amp;', '\u00a0', '\f',
    '\u00a0x', 'a\0b', '2024 year', '\\- x',
  );
  const item = fc.tuple(indent, marker, gap, body).map(([a, m, g, b]) => a + m + g + b);
  const other = fc.constantFrom(
    '', '', '  ', 'lazy', '  cont', '   cont', '    deep', '      deeper', '\tx', '|-|', '--|--', ':-', '---', '===', '  ===', '  ---', '  - x', '   1. y', '> q', '```', '# h', '<div>', '[d]: /u',
    '    - x', '\t- x', '*em*', '-x', '2024', '  [d]: /u', '\u00a0', '\f', '  \f',
  );
  const line = fc.oneof({ arbitrary: item, weight: 3 }, { arbitrary: other, weight: 2 });
  const doc = fc
    .tuple(fc.boolean(), fc.array(line, { maxLength: 24 }), fc.constantFrom('\n', '\n', '\r\n', '\r'))
    .map(([front, lines, nl]) => (front ? `---${nl}a: 1${nl}---${nl}` : '') + lines.join(nl));

  it('give the blocks made from their tokens', () => {
    const before = directListsMadeForTests();
    fc.assert(
      fc.property(doc, (text) => expectSameAsTokens(text)),
      { numRuns: 6000 },
    );
    // The inputs reach the direct path, not only markdown-it's rule.
    expect(directListsMadeForTests() - before).toBeGreaterThan(1500);
  });

  // Lists of plain items only: the ones the direct path takes, every marker, spacing and lazy line.
  const plainItem = fc.tuple(fc.constantFrom('', ' ', '  ', '   '), fc.constantFrom('-', '*', '+', '1.', '3)', '99.'), fc.constantFrom(' ', '  ', '\t', '    '), fc.constantFrom('a', 'item two', '**b** c', '`x`', '[l](u)', '#x', 'é'));
  const plainLine = fc.oneof(
    { arbitrary: plainItem.map(([a, m, g, b]) => a + m + g + b), weight: 4 },
    { arbitrary: fc.constantFrom('', 'lazy', '  cont', '     deep', '*e*', '\tt'), weight: 1 },
  );
  it('give them on lists of plain items, lazy and indented lines, loose or tight', () => {
    fc.assert(
      fc.property(fc.array(plainLine, { maxLength: 30 }), (lines) => expectSameAsTokens(lines.join('\n'))),
      { numRuns: 3000 },
    );
  });

  it('give them on items whose paragraph has no visible character, and on items with trailing whitespace lines', () => {
    // itemBlock takes the item's offsets from its paragraph's, except where the paragraph is
    // all whitespace to lines.ts (form feed, vertical tab: content to markdown-it).
    const samples = ['- \f', '- \v\n- x', '- a\n- \f\n  \v\n- b', '1. \f \f\n2. y', '- a  \n  b \t\n- c\f', '- x\n  \f\n\n- y', '* a\r\n* \f\r\n', '- \u00a0\n- \f\u00a0'];
    for (const text of samples) {
      expect(madeDirectly(text)).toBe(1);
      expectSameAsTokens(text);
    }
  });

  it('make the usual lists directly, and equal remark on them', () => {
    const samples = [
      '- a\n- b\n- c\n',
      '* a\n* b\n\n* c\n\n\npara\n',
      '1. one\n2. two\n10. ten\n',
      '3) x\n4) y\n',
      '- a\n  more a\nlazy a\n- b\n',
      '- a\n+ b\n* c\n',
      '1. a\n1) b\n- c\n',
      '- **Bold**: text\n- `code` text\n- [link](u) text\n- #tag\n- 2024 was\n',
      '-\ta\n-  b\n-    c\n',
      ' - a\n - b\n   c\n',
      '- a\r\n- b\r\n',
      '---\ntitle: t\n---\n- a\n- b\n',
      'para\n\n- a\n- b\n# h\n',
      '- a\n- b\n---\n',
      '- a\n- b\n      - c\n',
    ];
    for (const s of samples) {
      expect(madeDirectly(s), s).toBeGreaterThan(0);
      expect(fastBlocks(s).blocks, s).toEqual(flatten(parse(s)));
      expectSameAsTokens(s);
    }
  });

  it("make the items that are not one paragraph from markdown-it's tokens of them, and leave lists inside containers to markdown-it", () => {
    for (const s of ['- a\n\n  b\n', '- a\n  - b\n', '- a\n- b\n    - c\n', ' - a\n   - b\n', '-\n  a\n', '-\n\n  a\n', '- # h\n', '- ```\n  x\n  ```\n', '- <div>\n', '- a\n  ---\n', '-     code\n', '- [d]: /u\n', '- a\n  > q\n', '- a\n- b\n  | x |\n  | - |\n']) {
      expect(madeDirectly(s), s).toBe(1);
      expectSameAsTokens(s);
    }
    // A heading's text in a token item reads references defined after the list: its block is made after the parse.
    const later = '- # [l] x\n- | [l] |\n  | - |\n\n[l]: /u\n';
    expect(madeDirectly(later)).toBe(1);
    expect(fastBlocks(later).blocks[0]!.children!.map((item) => item.children![0]!.text ?? item.children![0]!.header)).toEqual(['l x', ['l']]);
    expectSameAsTokens(later);
    for (const s of ['> - a\n', '> 1. a\n> 2. b\n']) {
      expect(madeDirectly(s), s).toBe(0);
      expectSameAsTokens(s);
    }
  });

  it("give the same blocks with token items made during the parse as after it, and defer only items whose blocks read references", () => {
    fc.assert(
      fc.property(doc, (text) => expectSameBlocksWithout(setItemsNowForTests, text)),
      { numRuns: 4000 },
    );
    // Before: every such item's tokens and tree lived to the end of the parse (2,000 here).
    const nested = Array.from({ length: 2000 }, (_, i) => `${'\t'.repeat(i % 3)}- > x${i}`).join('\n');
    fastBlocks(nested);
    expect(deferredItemsForTests()).toBe(0);
    // A heading's or header cell's text may read a reference defined after the list.
    const later = '- # [l] x\n- | [l] |\n  | - |\n- > q\n\n[l]: /u\n';
    expect(fastBlocks(later).blocks[0]!.children!.map((item) => item.children![0]!.text ?? item.children![0]!.header ?? item.children![0]!.type)).toEqual(['l x', ['l'], 'blockquote']);
    expect(deferredItemsForTests()).toBe(2);
  });

  it('make items that hold nothing without tokens, ended by the next line when it is not theirs', () => {
    // Markers alone before other markers, lazy text, blank lines, indented content (the item's),
    // the end of the text; with trailing spaces and tabs after the marker.
    const empty = fc.tuple(fc.constantFrom('', ' ', '   '), fc.constantFrom('-', '*', '1.', '2)'), fc.constantFrom('', ' ', '  ', '\t', '     ')).map(([a, m, g]) => a + m + g);
    const after = fc.constantFrom('- x', '-', '', 'lazy', ' b', '  b', '   b', '    b', '\tb', '1. y', '# h', '> q', '```', '---');
    fc.assert(
      fc.property(fc.array(fc.oneof(empty, after), { maxLength: 20 }), fc.constantFrom('\n', '\r\n'), (lines, nl) => expectSameAsTokens(lines.join(nl))),
      { numRuns: 3000 },
    );
    // Before: each item of this list went to markdown-it's tokens (2,000 token items).
    const list = Array.from({ length: 2000 }, (_, i) => (i % 2 ? '-' : '- ')).join('\n');
    const before = tokenItemsForTests();
    expect(fastBlocks(list).blocks[0]!.children).toHaveLength(2000);
    expect(tokenItemsForTests() - before).toBe(0);
    expectSameAsTokens(list);
    for (const s of ['-\n  a\n', '-\n\n  a\n', '-\n\n\n-\n', '-\n-', '-   \n    code\n']) expectSameAsTokens(s);
  });

  it('end where the one terminator a line\'s first character names (fence, blockquote or rule) takes the line, as all three asked in turn', () => {
    // Before each item past the first only the rule its first character names is asked: lines
    // next to items that each rule takes, nearly takes, or that start with its characters.
    const next = fc.constantFrom(
      '```', '~~~', '``', '~~', '```js', '~~~ x', '> q', '>', '>>', ' > q', '---', '***', '___', '* * *', '- - -', '_ _ _', '-', '--', '*', '_', '- -', '**', '__',
      ' ---', '   ***', '    ---', '\t---', '-\t-\t-', '***x', '---a', '- x', '* x', '+ x', '1. x', '2) x', '', '  ---', '  > q', '  ```', '# h', '+++', '=', 'lazy',
    );
    const listItem = fc.tuple(fc.constantFrom('-', '*', '+', '1.', '2)', '_'), fc.constantFrom(' a', ' item 1', ' ---', ' > q', ' ```', ' *', '  b')).map(([m, b]) => m + b);
    const line = fc.oneof({ arbitrary: listItem, weight: 2 }, { arbitrary: next, weight: 1 });
    const before = directListsMadeForTests();
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 16 }), fc.constantFrom('\n', '\r\n'), (lines, nl) => expectSameAsTokens(lines.join(nl))),
      { numRuns: 3000 },
    );
    expect(directListsMadeForTests() - before).toBeGreaterThan(1000);
  });

  it('give them on lists past the length where their items are no longer pushed, with token items on either side (issue 15)', () => {
    // 20,000 items (BlockArray pushes 8,192, then extrapolates), some of them token items (a
    // nested list), the first 9,000 of two lines and the rest of one, so that the items thicken
    // (per line) after the extrapolation: it falls short and the array grows again.
    const items = Array.from({ length: 20_000 }, (_, i) => (i % 2999 === 5 ? `- a${i}\n  - nested\n` : i < 9000 ? `- item ${i}\n  more\n` : `- i\n`));
    const list = items.join('');
    expect(madeDirectly(list)).toBe(1);
    expectSameAsTokens(list);
    const block = fastBlocks(list).blocks[0]!;
    expect(block.children).toHaveLength(20_000);
    const starts: number[] = [];
    for (let i = 0, line = 0; i < items.length; line += items[i]!.split('\n').length - 1, i++) starts.push(line);
    expect(block.children!.map((item) => item.startLine)).toEqual(starts);
  });

  it('give them on very many and very long items', () => {
    const many = Array.from({ length: 5000 }, (_, i) => `${i % 7 === 0 ? '\n' : ''}- item ${i}\n`).join('');
    const long = Array.from({ length: 50 }, (_, i) => `${i + 1}. ${'word '.repeat(2000)}\n   ${'more '.repeat(500)}\n`).join('');
    const nested = Array.from({ length: 2000 }, (_, i) => `* \`opt${i}\` {Object}\n  * \`a\` {string} text\n  * \`b\` {number}\n\n    more\n`).join('');
    for (const s of [many, long, `${many}  - nested at the end\n`, nested]) expectSameAsTokens(s);
    expect(madeDirectly(nested)).toBe(1);
    expect(madeDirectly(many)).toBe(1);
    expect(madeDirectly(long)).toBe(1);
  });
});

describe('lists nested in the items of a top-level list, made without tokens', () => {
  // Item lines mostly at the content columns of `-` and `1.` lists one to five deep, some one
  // off them, code-deep past them, or tabbed; bodies mostly paragraphs, some starting other
  // blocks; lines between them lazy, indented to an item's content, blank, or starting blocks.
  const indent = fc.oneof(
    { arbitrary: fc.constantFrom('', '  ', '    ', '      ', '        ', '   ', '      '), weight: 6 },
    { arbitrary: fc.constantFrom(' ', '     ', '       ', '          ', '\t', '\t\t', ' \t', '  \t'), weight: 1 },
  );
  const marker = fc.constantFrom('-', '-', '-', '*', '+', '1.', '1.', '1)', '2.', '10.');
  const gap = fc.constantFrom(' ', ' ', ' ', ' ', '  ', '   ', '     ', '\t', '');
  const body = fc.oneof(
    { arbitrary: fc.constantFrom('a', 'two words', '**b** c', '`x`', 'x  ', '#tag'), weight: 6 },
    { arbitrary: fc.constantFrom('# h', '```', '> q', '<div>', '[d]: /u', '---', '- x', '2) y', '|a|b|', '', '    code', '\f'), weight: 1 },
  );
  const item = fc.tuple(indent, marker, gap, body).map(([a, m, g, b]) => a + m + g + b);
  const other = fc.constantFrom('', '', '', 'lazy', '  cont', '    cont', '      cont', '  ---', '    ===', '  |-|', '    > q', '  ```', '    # h', '      [d]: /u', '\t\tx', '  \f');
  const line = fc.oneof({ arbitrary: item, weight: 8 }, { arbitrary: other, weight: 1 });

  it('give the blocks made from their tokens', () => {
    const before = nestedListsMadeForTests();
    fc.assert(
      fc.property(fc.array(line, { maxLength: 24 }), fc.constantFrom('\n', '\n', '\r\n'), (lines, nl) => expectSameAsTokens(lines.join(nl))),
      { numRuns: 8000 },
    );
    // The inputs reach the nested path, not only markdown-it's tokens.
    expect(nestedListsMadeForTests() - before).toBeGreaterThan(1000);
  });

  it('make the usual nested lists with no token item, to the depth where items are left to markdown-it', () => {
    const samples = [
      '- a\n  - b\n    - c\n- d\n',
      '1. a\n   1. b\n   2. c\n2. d\n\n   - e\n',
      '* `opt` {Object}\n  * `a` {string} text\n  * `b` {number}\n',
      '- a\n  - b\n  lazy\n- c\n  * d\n  * e\n',
      '- a\n\n  - b\n\n- c\n',
      '-\ta\n\t-\tb\n',
    ];
    for (const s of samples) {
      const tokens = tokenItemsForTests();
      expect(madeDirectly(s), s).toBe(1);
      expect(tokenItemsForTests() - tokens, s).toBe(0);
      expect(fastBlocks(s).blocks, s).toEqual(flatten(parse(s)));
      expectSameAsTokens(s);
    }
    // Lists 32 deep (MAX_DIRECT_DEPTH) are made directly; at 33 the top-level item goes to markdown-it.
    const deep = (levels: number): string => Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}- l${i}\n`).join('');
    for (const [levels, tokenItems] of [[32, 0], [33, 1]] as const) {
      const tokens = tokenItemsForTests();
      expect(madeDirectly(deep(levels))).toBe(1);
      expect(tokenItemsForTests() - tokens).toBe(tokenItems);
      expectSameAsTokens(deep(levels));
    }
  });

  it('leave an item to markdown-it when its nested list holds any other item, and give the same blocks (issue 15)', () => {
    for (const s of ['- a\n  - b\n\n    more\n', '- a\n  - b\n  * c\n', '- a\n  - b\n\n  para\n', '- a\n  - ```\n    x\n    ```\n', '- a\n  - b\n  * c\n\n  text\n', '- a\n  - b\n    # h\n', '- a\n  1. b\n  2) c\n']) {
      const tokens = tokenItemsForTests();
      expect(madeDirectly(s), s).toBe(1);
      expect(tokenItemsForTests() - tokens, s).toBe(1);
      expectSameAsTokens(s);
    }
  });
});

describe('BlockArray', () => {
  const block = (line: number): Block => ({ type: 'paragraph', start: line, end: line + 1, startLine: line, endLine: line });
  it('gives the blocks pushed, in order, however their lines run against the line count it extrapolates from', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40_000 }),
        fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 200_000 }),
        (count, gaps, lineCount) => {
          // Lines grow by `gaps` in turn: even, thinning and thickening runs of blocks.
          const pushed: Block[] = [];
          const array = new BlockArray(lineCount);
          for (let k = 0, line = 0; k < count; k++, line += gaps[k % gaps.length]!) {
            const b = block(line);
            pushed.push(b);
            array.push(b, line);
          }
          expect(array.length).toBe(count);
          const out = array.toArray();
          expect(out.length).toBe(count);
          for (let k = 0; k < count; k++) if (out[k] !== pushed[k]) expect([k, out[k]]).toEqual([k, pushed[k]]);
          expect(Object.keys(out).length).toBe(count);
        },
      ),
      { numRuns: 60 },
    );
  });
});
