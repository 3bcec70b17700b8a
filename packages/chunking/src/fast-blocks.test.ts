import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import MarkdownIt from 'markdown-it';
import { fastBlocks, interruptSkipActive, lineMarks, parsedPlainText, plainText, setCodeWithoutTextForTests, setInterruptSkipForTests } from './fast-blocks.js';
import { lineTable } from './lines.js';

/** `text`'s blocks with a fast path on (as it runs) equal those with it turned off by `set`. */
function expectSameBlocksWithout(set: (on: boolean) => void, text: string): void {
  const fast = fastBlocks(text).blocks;
  set(false);
  try {
    expect(fast).toEqual(fastBlocks(text).blocks);
  } finally {
    set(true);
  }
}

describe('plainText shortcut', () => {
  // Every ASCII character, plus a few beyond, so that any rule a character can
  // start shows up; entities and references get an env with a definition.
  const chars = fc.constantFrom(
    ...Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)),
    'é', '日', '😀', '\u00a0', '\u2028', '&amp;', '&#x41;', '[x]', '[x][y]', '`c`', '`', '``', '``a`b``', '` x `', '`a b`', '`\\`', '`*x*`', '`<a>`', '*e*', '<a>', '<http://a.b>', 'http://a.b', 'a:b',
  );
  const inline = fc.array(chars, { maxLength: 30 }).map((a) => a.join(''));
  const env = { references: { Y: { href: 'https://example.com', title: '' } } };

  it('gives what markdown-it gives, on any inline text', () => {
    fc.assert(
      fc.property(inline, (s) => {
        expect(plainText(s, { env })).toBe(parsedPlainText(s, { env }));
      }),
      { numRuns: 5000 },
    );
  });

  it('skips the parser only for text without inline syntax', () => {
    expect(plainText('Class: Buffer (deprecated) - v1.2 = 3 + 4 $ % ^ { } | # @ ?', { env: {} })).toBe(
      'Class: Buffer (deprecated) - v1.2 = 3 + 4 $ % ^ { } | # @ ?',
    );
    expect(plainText('a &amp; b', { env: {} })).toBe('a & b');
    expect(plainText('`code` and *em*', { env: {} })).toBe('code and em');
    expect(plainText('`fs.readFile(path[, options], callback)`', { env: {} })).toBe('fs.readFile(path[, options], callback)');
    expect(plainText('Class: `Buffer` and ``a`b``', { env: {} })).toBe('Class: Buffer and a`b');
  });
});

describe('lineMarks', () => {
  // A fresh instance: fast-blocks patches only its own parser's state class.
  const Original = new MarkdownIt().block.State;
  const original = (src: string) => {
    const s = new Original(src, new MarkdownIt(), {}, []);
    return { bMarks: s.bMarks, eMarks: s.eMarks, tShift: s.tShift, sCount: s.sCount, bsCount: s.bsCount, lineMax: s.lineMax };
  };
  const ours = (src: string, table?: ReturnType<typeof lineTable>) => {
    const m = lineMarks(src, table);
    return { bMarks: [...m.bMarks], eMarks: [...m.eMarks], tShift: [...m.tShift], sCount: [...m.sCount], bsCount: [...m.bsCount], lineMax: m.lineMax };
  };

  it('gives the line marks markdown-it computes', () => {
    for (const src of ['', '\n', 'a', 'a\n', '  \n\tb\n', 'x\n   ', ' \t  code\n\n  \t', '\t\t- item\n  \tmore']) {
      expect(ours(src), JSON.stringify(src)).toEqual(original(src));
    }
  });

  it('agrees with markdown-it on arbitrary text', () => {
    const piece = fc.constantFrom(' ', '  ', '\t', '\n', '\n\n', 'a', '- ', '>', '\u00a0', '\r');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (parts) => {
        const src = parts.join('');
        expect(ours(src)).toEqual(original(src));
        // Fed the line table, as fastBlocks does when the text has no CR.
        if (!src.includes('\r')) expect(ours(src, lineTable(src))).toEqual(original(src));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('paragraph interruption shortcut', () => {
  // Lines made of what starts or ends a block: list markers, fences, quotes, rules, HTML,
  // headings, setext underlines, table rows and delimiter rows, indentation, and plain text.
  const start = fc.constantFrom('', ' ', '  ', '   ', '    ', '\t', '> ', '>', '- ', '* ', '+ ', '1. ', '1) ', '2. ', '10. ');
  const body = fc.constantFrom(
    'text', 'a | b', '| a | b |', '|-|-|', '| --- | :-: |', '---', '- - -', '***', '___', '===', '=', '-', ':-', ':--:|',
    '```', '```js', '~~~', '# h', '###### h', '#no', '<div>', '<!-- c -->', '<p>', '</div>', '[d]: /u', '[^1]: n',
    '1.', '1', '* x', '+', '>', '\u00a0x', 'é', '<http://a.b>', '',
  );
  const line = fc.tuple(start, body).map(([a, b]) => a + b);
  const doc = fc.array(line, { maxLength: 25 }).map((lines) => lines.join('\n'));

  it('is active on this build of markdown-it', () => {
    fastBlocks('para\nmore\n');
    expect(interruptSkipActive()).toBe(true);
  });

  it('gives the blocks the terminator rules give when each line runs through them', () => {
    fc.assert(
      fc.property(doc, (text) => expectSameBlocksWithout(setInterruptSkipForTests, text)),
      { numRuns: 3000 },
    );
  });
});

describe('fence and indented code rules without the code text', () => {
  // Fences of both markers and several lengths, closing or not, indented, inside lists and
  // quotes, with tabs, lazy lines, info strings (a backtick in a backtick fence's info makes it
  // no fence) and the lines that end a fence early (less indented container content).
  const start = fc.constantFrom('', ' ', '   ', '    ', '     ', '\t', '\t\t', '> ', '>', '- ', '  ', '1. ', '   > ');
  const body = fc.constantFrom(
    '```', '````', '``', '~~~', '~~~~', '```js', '``` a`b', '~~~ x`y', '```  ', '~~~ \t', 'code', 'a = 1', '', ' ', '#x', '- item',
    '> q', '<div>', '---', 'text', '\tindented', '```\t', '~~~~~ more',
  );
  const line = fc.tuple(start, body).map(([a, b]) => a + b);
  const doc = fc.array(line, { maxLength: 30 }).map((lines) => lines.join('\n'));

  it("gives the blocks markdown-it's own rules give", () => {
    fc.assert(
      fc.property(doc, (text) => expectSameBlocksWithout(setCodeWithoutTextForTests, text)),
      { numRuns: 3000 },
    );
  });
});
