import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import MarkdownIt from 'markdown-it';
import { fastBlocks, inlineParsesForTests, inlineTokensForTests, interruptSkipActive, markdownItText, isJsTrimmed, lineMarks, parsedPlainText, plainText, quoteLinesMarkedForTests, setBlockquoteScratchForTests, setCodeWithoutTextForTests, setDirectHeadingsForTests, setDirectParagraphsForTests, setFlatBlocksForTests, parsedTokensForTests, PLAIN_URL, setDirectQuotesForTests, setDirectThematicBreaksForTests, setDirectHtmlBlocksForTests, setByFirstCharForTests, setInterruptSkipForTests, setMarkerIndentCheckedForTests, setNestedLazyLinesForTests, setParagraphEndSharedForTests, setPooledMarksForTests, setSharedMarksForTests, setGfmTableStartsForTests, setTableWithoutCellsForTests, tableRuleCallsForTests, useRemarkInlineRules } from './fast-blocks.js';
import { plainHeadingText } from './direct-blocks.js';
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

  it('leaves a text whose brackets, angle brackets and ampersands have no closer to itself, unparsed (session 62)', () => {
    // markdown-it's link rule reads ahead from each `[` to its nesting limit: a heading of a
    // million `[` took 2 s. Without a `]` no `[` or `!` starts anything, nor `<` without `>`, nor `&` without `;`.
    inlineParsesForTests();
    for (const s of ['[[[[[[', 'a [b !c', '<a <b', 'x & y &amp', '[ < & !']) expect(plainText(s, { env })).toBe(s);
    expect(inlineParsesForTests()).toBe(0);
    for (const s of ['[a]', '![x]', '<a>', '&amp;', '[ *a* ']) expect(plainText(s, { env })).toBe(parsedPlainText(s, { env }));
    expect(inlineParsesForTests()).toBeGreaterThanOrEqual(5);
    const heading = `# ${'['.repeat(20000)}\n`;
    expect(fastBlocks(heading).blocks[0]!.text).toBe('['.repeat(20000));
    expect(inlineParsesForTests()).toBe(0);
  });

  it('makes a top-level heading with inline syntax but no `[` a block without its token (session 62)', () => {
    const headings = Array.from({ length: 3000 }, (_, i) => `### \`m${i % 100}()\` *x*\n`).join('');
    setFlatBlocksForTests(false);
    try {
      expect(fastBlocks(headings).blocks.map((b) => b.text).slice(0, 2)).toEqual(['m0() x', 'm1() x']);
    } finally {
      setFlatBlocksForTests(true);
    }
    expect(parsedTokensForTests()).toBe(1);
    expectSameBlocksWithout(setDirectHeadingsForTests, headings);
    // One with a `[` keeps its token: its reference is defined further down.
    expect(fastBlocks('# see [a]\n\npara\n\n[a]: /u\n').blocks[0]!.text).toBe('see a');
  });

  it('reads a heading whose only syntax is emphasis without markdown-it, however long (session 63)', () => {
    // A heading of a megabyte of `*word*` made a token and a delimiter object per `*` (22 times
    // prose per MB); emphasis-text.ts pairs them by markdown-it's algorithm on typed columns.
    inlineParsesForTests();
    const words = Array.from({ length: 5000 }, (_, i) => (i % 3 ? `*w${i}*` : `__s${i}__ x*`)).join(' ');
    const text = fastBlocks(`# Title\n\n## ${words}\n\nBody.\n`).blocks[1]!.text!;
    expect(inlineParsesForTests()).toBe(0);
    expect(text).toBe(parsedPlainText(words, { env }));
    expect(text.startsWith('s0 x* w1 w2 s3')).toBe(true);
  });

  it('parses a text without `[` once, however often it comes, and one with `[` each time (its references are the document\'s)', () => {
    inlineParsesForTests();
    const headings = Array.from({ length: 600 }, (_, i) => `# *h${i % 3}* and \`c\`\n`).join('');
    expect(fastBlocks(headings).blocks.map((b) => b.text).slice(0, 3)).toEqual(['h0 and c', 'h1 and c', 'h2 and c']);
    expect(inlineParsesForTests()).toBeLessThanOrEqual(3);
    // A reference is resolved by each document's own definitions.
    expect(fastBlocks('# [a] *x*\n\n[a]: /u\n').blocks[0]!.text).toBe('a x');
    expect(fastBlocks('# [a] *x*\n').blocks[0]!.text).toBe('[a] x');
    expect(inlineParsesForTests()).toBe(2);
  });

  it("gives stock markdown-it's tokens with the plain-constructor states (plainCoreState, plainInlineState)", () => {
    // The same options and inline rules as fast-blocks' instance, with markdown-it's own state classes.
    const stock = new MarkdownIt('default', { html: true, linkify: false, typographer: false });
    useRemarkInlineRules(stock);
    const shape = (tokens: ReturnType<typeof stock.parseInline>): unknown =>
      tokens.map((t) => ({ ...t, children: t.children?.map((c) => ({ ...c })) ?? null }));
    expect(fastBlocks('# *a* [b](c) `d`\n').blocks[0]!.text).toBe('a b d');
    fc.assert(
      fc.property(inline, (s) => {
        const expected = shape(stock.parseInline(s, structuredClone(env)));
        expect(shape(inlineTokensForTests(s, structuredClone(env)))).toEqual(expected);
      }),
      { numRuns: 3000 },
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
    // Through markdown-it: flat-blocks reads such a flat document without it.
    setFlatBlocksForTests(false);
    try {
      fastBlocks('para\nmore\n');
    } finally {
      setFlatBlocksForTests(true);
    }
    expect(interruptSkipActive()).toBe(true);
  });

  it('sees the rules as they are after a rule changes (the chains are cached by the ruler\'s cache)', () => {
    // With markdown-it's own blockquote rule in place, ours must mark no line: a chain cached
    // from before the change would still send `>` lines to ours (byFirstChar).
    fastBlocks('> a\n> b\n');
    setBlockquoteScratchForTests(false);
    try {
      const before = quoteLinesMarkedForTests();
      fastBlocks('> a\n> b\n');
      expect(quoteLinesMarkedForTests()).toBe(before);
    } finally {
      setBlockquoteScratchForTests(true);
    }
    const before = quoteLinesMarkedForTests();
    fastBlocks('> a\n> b\n');
    expect(quoteLinesMarkedForTests()).toBeGreaterThan(before);
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

describe('table rule without cell tokens', () => {
  // Rows of cells holding what splits or trims a row differently: escaped pipes, backslashes,
  // pipes in code spans, entities, HTML, trailing `#`s; cell padding of spaces, tabs and the
  // Unicode spaces JS's trim removes (and one it keeps, U+200B); delimiter rows valid and not;
  // rows indented, quoted, listed, lazy; blank lines and CRLF.
  const cell = fc.constantFrom(
    '', ' ', 'a', ' a ', '\ta\t', 'b\\|c', '\\', '\\\\', '`x|y`', '&#124;', '&amp;', '<b>|</b>', '# h ##', '\u00a0a\u3000', '\u200bz', '\ufeff', '---', ':-:', '-',
  );
  const row = fc
    .tuple(fc.boolean(), fc.array(cell, { maxLength: 6 }), fc.boolean(), fc.constantFrom('', '\\', ' ', '\u00a0'))
    .map(([lead, cells, trail, end]) => `${lead ? '|' : ''}${cells.join('|')}${trail ? '|' : ''}${end}`);
  // Mostly valid delimiter cells, so that most tables are tables; sometimes one that is not.
  const delimiterCell = fc.oneof(
    { arbitrary: fc.constantFrom('-', '---', ':--', '--:', ':-:', ' - ', '\t-\t', ' :-- '), weight: 12 },
    { arbitrary: fc.constantFrom(':', '::', '- -', '', ' ', '-:-'), weight: 1 },
  );
  const delimiter = fc
    .tuple(fc.boolean(), fc.array(delimiterCell, { minLength: 1, maxLength: 6 }), fc.boolean())
    .map(([lead, cells, trail]) => `${lead ? '|' : ''}${cells.join('|')}${trail ? '|' : ''}`);
  const start = fc.constantFrom('', '', '', ' ', '   ', '    ', '\t', '> ', '>', '- ', '  ', '1. ', '\u00a0');
  const other = fc.constantFrom('', 'text', '> q', '- item', '```', '# h', '<div>', '***', '    code');
  const line = fc.tuple(start, fc.oneof(row, delimiter, other)).map(([a, b]) => a + b);
  // A table: a header row, a delimiter row of about as many columns, then rows, all under
  // one prefix or each line under its own.
  const table = fc
    .tuple(fc.integer({ min: 1, max: 5 }), fc.constantFrom(0, 0, 0, 0, -1, 1), fc.array(fc.oneof(row, row, other), { maxLength: 5 }), start, fc.array(start, { minLength: 8, maxLength: 8 }), fc.constantFrom(true, true, true, false))
    .chain(([k, skew, body, prefix, prefixes, same]) =>
      fc.tuple(fc.array(cell, { minLength: k, maxLength: k }), fc.array(delimiterCell, { minLength: Math.max(1, k + skew), maxLength: Math.max(1, k + skew) }), fc.boolean(), fc.boolean()).map(([head, delim, lead, trail]) => {
        const bar = (cells: string[]) => `${lead ? '|' : ''}${cells.join('|')}${trail || cells.length === 1 ? '|' : ''}`;
        return [bar(head), bar(delim), ...body].map((l, i) => (same ? prefix : prefixes[i % 8]!) + l);
      }),
    );
  const doc = fc
    .tuple(fc.array(fc.oneof(line.map((l) => [l]), table), { maxLength: 6 }), fc.constantFrom('\n', '\r\n'))
    .map(([parts, nl]) => parts.flat().join(nl));

  // The line logic is markdown-it's; where a table may start is GFM's (the conformance test
  // holds that to remark), so that is switched to markdown-it's reading here.
  it("gives the blocks markdown-it's own rule gives", () => {
    setGfmTableStartsForTests(false);
    try {
      fc.assert(
        fc.property(doc, (text) => expectSameBlocksWithout(setTableWithoutCellsForTests, text)),
        { numRuns: 5000 },
      );
    } finally {
      setGfmTableStartsForTests(true);
    }
  });

  it('ends a table where markdown-it does when body rows lack more than 65,536 cells', () => {
    const header = `|${Array.from({ length: 10_000 }, (_, i) => ` h${i} `).join('|')}|\n`;
    const delimiter = `|${'-|'.repeat(10_000)}\n`;
    const text = `${header}${delimiter}${'| x |\n'.repeat(9)}\nafter\n`;
    const blocks = fastBlocks(text).blocks;
    // 6 rows lack 59,994 cells, the 7th takes it over the limit: it is a paragraph of its own.
    expect(blocks.map((b) => [b.type, b.startLine, b.endLine])).toEqual([
      ['table', 0, 7],
      ['paragraph', 8, 10],
      ['paragraph', 12, 12],
    ]);
    expectSameBlocksWithout(setTableWithoutCellsForTests, text);
    // A row's cells are counted after JS's trim (a leading U+00A0 hides no `|` from the
    // count), exactly: with 9,364 columns the 7th row passes the limit by 5 cells.
    const columns = 9_364;
    const padded = `|${' h |'.repeat(columns)}\n|${'-|'.repeat(columns)}\n${'\u00a0| x |\u3000\n'.repeat(9)}`;
    expect(fastBlocks(padded).blocks[0]).toMatchObject({ type: 'table', startLine: 0, endLine: 7 });
    expectSameBlocksWithout(setTableWithoutCellsForTests, padded);
  });

  it('reads only the lines it tries: no search for a `|` runs past the line (linear time, issue 15)', () => {
    // A delimiter-like line after each pipe-less line, and the document's only `|` at its end:
    // indexOf('|') from each header line read the rest of the document (quadratic).
    const text = `${'a\n-:\n\n'.repeat(2000)}z|`;
    const indexOf = String.prototype.indexOf;
    let read = 0;
    String.prototype.indexOf = function (this: string, search: string, from?: number): number {
      const at = indexOf.call(this, search, from);
      if (search === '|') read += (at === -1 ? this.length : at) - (from ?? 0);
      return at;
    };
    try {
      fastBlocks(text);
    } finally {
      String.prototype.indexOf = indexOf;
    }
    expect(read).toBeLessThanOrEqual(text.length);
  });

  it("trims what String.prototype.trim trims", () => {
    for (let c = 0; c < 0x10000; c++) expect([c, isJsTrimmed(c)]).toEqual([c, String.fromCharCode(c).trim() === '']);
  });
});

/**
 * Documents of up to `maxLength` parts, two `heading`s to one `other`, joined by line breaks, every
 * break (the parts' own too) `\n`, `\r\n` or `\r` throughout.
 */
function headingDocs(heading: fc.Arbitrary<string>, other: fc.Arbitrary<string>, maxLength: number): fc.Arbitrary<string> {
  return fc
    .tuple(fc.array(fc.oneof(heading, heading, other), { maxLength }), fc.constantFrom('\n', '\r\n', '\r'))
    .map(([parts, nl]) => parts.join('\n').replace(/\n/g, nl));
}

/** On 4,000 of `docs`, the heading blocks made without tokens are those made from tokens. */
function expectDirectHeadingsAsTokens(docs: fc.Arbitrary<string>): void {
  fc.assert(
    fc.property(docs, (source) => expectSameBlocksWithout(setDirectHeadingsForTests, source)),
    { numRuns: 4000 },
  );
}

describe('top-level ATX headings made into blocks without tokens', () => {
  // Heading lines with and without inline syntax (which keeps the token), closing `#`s,
  // escaped ones, tabs, trailing spaces, NUL, entities, HTML, empty headings, seven `#`s, and
  // headings inside quotes and lists (which keep their tokens) or after a paragraph line.
  const start = fc.constantFrom('', '', ' ', '   ', '    ', '\t', '> ', '- ', '  ', '1. ');
  const hashes = fc.constantFrom('#', '##', '######', '#######', '#\t', '# ', '## ', '#\u00a0');
  const text = fc.constantFrom(
    '', 'h1', ' title ', 'a # b', 'x #', 'x ##  ', 'x \\#', 'x#', '#', ' # ', '\t#\t', '`c`', '*em*', 'a_b', '[l]', '[l]: /u', '&amp;', '<b>',
    'a\0b', 'é ü', '\u00a0x\u00a0', 'x\\', '!', '~',
  );
  const heading = fc.tuple(start, hashes, text).map(([a, b, c]) => a + b + c);
  const other = fc.constantFrom('', 'para', '===', '---', '[l]: /u', '```', '> q', '<div>');

  it('gives the blocks made from their tokens', () => {
    expectDirectHeadingsAsTokens(headingDocs(heading, other, 16));
  });

  it('keeps the order of blocks around them, and their text', () => {
    const source = '---\ntitle: x\n---\n# One\n\npara\n## Two ##\n> # Quoted\n# [l]\n\n[l]: /u\n  ### Three\t\n';
    const blocks = fastBlocks(source).blocks;
    expect(blocks.map((b) => [b.type, b.startLine, b.text ?? null])).toEqual([
      ['heading', 3, 'One'],
      ['paragraph', 5, null],
      ['heading', 6, 'Two'],
      ['blockquote', 7, null],
      ['heading', 8, 'l'],
      ['definition', 10, null],
      ['heading', 11, 'Three'],
    ]);
    expectSameBlocksWithout(setDirectHeadingsForTests, source);
  });

  it('gives each heading its own text where texts repeat or share a slot of the texts seen lately', () => {
    const texts = Array.from({ length: 5000 }, (_, i) => (i % 3 === 0 ? `h${i % 100}` : i % 3 === 1 ? `t${i}` : 'x'.repeat(i % 90)));
    const source = texts.map((t) => `## ${t}\n`).join('');
    expect(fastBlocks(source).blocks.map((b) => b.text)).toEqual(texts);
    expectSameBlocksWithout(setDirectHeadingsForTests, source);
  });

  it('gives them on many tiny blocks, in runs that share a mark, between containers (issue 15)', () => {
    const source = Array.from({ length: 30_000 }, (_, i) => (i % 997 === 0 ? `- item ${i}\n> q\n\n` : i % 7 === 0 ? `para ${i}\n\n` : `# h${i % 100}\n`)).join('');
    const blocks = fastBlocks(source).blocks;
    expect(blocks.length).toBeGreaterThan(30_000);
    expectSameBlocksWithout(setDirectHeadingsForTests, source);
    expectSameBlocksWithout(setDirectHeadingsForTests, source.replace(/^- .*\n> q\n\n/gm, ''));
  });
});

describe('top-level thematic breaks made into blocks without tokens (session 62)', () => {
  // Breaks of each marker, spaced, tabbed, indented up to code, too short, with a stray
  // character; in quotes and lists (which keep their tokens); after a paragraph line (where
  // `---` is an underline and `***` interrupts) and between other blocks.
  const start = fc.constantFrom('', '', ' ', '   ', '    ', '\t', '> ', '- ', '1. ', '>');
  const rule = fc.constantFrom('***', '---', '___', '* * *', '- - -', '_ _ _', '*\t*\t*', '**', '--', '****x', '-- -', '***   ', '* *  *  *', '\u00a0***');
  const breakLine = fc.tuple(start, rule).map(([a, r]) => a + r);
  const other = fc.constantFrom('', 'para', 'two\nlines', '# atx', '[l]: /u', '```', '> q', '<div>', '| a |\n|---|', '- item', '===');

  it('gives the blocks made from their tokens', () => {
    fc.assert(
      fc.property(headingDocs(breakLine, other, 14), (source) => expectSameBlocksWithout(setDirectThematicBreaksForTests, source)),
      { numRuns: 4000 },
    );
  });

  it('makes no token for a top-level break, and keeps the blocks in order', () => {
    const source = '***\npara\n***\n> ---\n- - -\n  ___\n- x\n  ***\n';
    expect(fastBlocks(source).blocks.map((b) => [b.type, b.startLine, b.endLine])).toEqual([
      ['thematicBreak', 0, 0],
      ['paragraph', 1, 1],
      ['thematicBreak', 2, 2],
      ['blockquote', 3, 3],
      ['thematicBreak', 4, 4],
      ['thematicBreak', 5, 5],
      ['list', 6, 7],
    ]);
    expectSameBlocksWithout(setDirectThematicBreaksForTests, source);
    // Before: a token a break (3,000 here), with its map and markup, and a tree node.
    const many = `# T\n\n${'***\n'.repeat(3000)}`;
    setFlatBlocksForTests(false);
    try {
      expect(fastBlocks(many).blocks).toHaveLength(3001);
    } finally {
      setFlatBlocksForTests(true);
    }
    expect(parsedTokensForTests()).toBe(1);
    expectSameBlocksWithout(setDirectThematicBreaksForTests, many);
  });
});

describe('top-level HTML blocks made into blocks without tokens (session 62)', () => {
  // The seven kinds of HTML block start (script/pre, comment, processing instruction,
  // declaration, CDATA, block tags, any other tag alone on its line), closed or not, indented up
  // to code, in quotes and lists (which keep their tokens), after paragraphs (where kind 7 cannot
  // interrupt), and lines that only look like HTML.
  const start = fc.constantFrom('', '', ' ', '   ', '    ', '\t', '> ', '- ', '1. ');
  const html = fc.constantFrom('<br>', '<div>', '<div>\ninside', '</div>', '<pre>\ncode\n</pre>', '<script>x', '<!-- c -->', '<!-- open\nmore', '<?php x ?>', '<!DOCTYPE html>', '<![CDATA[ x ]]>', '<custom-tag>', '<a href="x">', '<a', '< b', '<br/>text', '<img src=x>');
  const block = fc.tuple(start, html).map(([a, h]) => a + h);
  const other = fc.constantFrom('', '', 'para', 'two\nlines', '# atx', '[l]: /u', '```', '> q', '- item', '***', '| a |\n|---|');

  it('gives the blocks made from their tokens', () => {
    fc.assert(
      fc.property(headingDocs(block, other, 14), (source) => expectSameBlocksWithout(setDirectHtmlBlocksForTests, source)),
      { numRuns: 4000 },
    );
  });

  it('makes no token for a top-level HTML block, and keeps the blocks in order', () => {
    const source = '<br>\n\npara\n<div>\n\n> <b>\n<!-- a\nb -->\n- <i>\n';
    expect(fastBlocks(source).blocks.map((b) => [b.type, b.startLine, b.endLine])).toEqual([
      ['html', 0, 0],
      ['paragraph', 2, 2],
      ['html', 3, 3],
      ['blockquote', 5, 5],
      ['html', 6, 7],
      ['list', 8, 8],
    ]);
    expectSameBlocksWithout(setDirectHtmlBlocksForTests, source);
    // Before: a token a block (3,000 here), with its content string, and a tree node.
    const many = `# T\n\n${'<br>\n\n'.repeat(3000)}`;
    expect(fastBlocks(many).blocks).toHaveLength(3001);
    expect(parsedTokensForTests()).toBe(1);
    expectSameBlocksWithout(setDirectHtmlBlocksForTests, many);
  });
});

describe('top-level setext headings made into blocks without tokens (session 42)', () => {
  // One-line and two-line texts with and without inline syntax, indented up to code, under
  // `=` and `-` underlines (indented, spaced, too indented), in quotes and lists (which keep
  // their tokens), after definitions and paragraphs, and lines that only look like underlines.
  const start = fc.constantFrom('', '', ' ', '   ', '    ', '\t', '> ', '- ', '1. ');
  const text = fc.constantFrom('h1', ' title ', 'a # b', 'x\\', '`c`', '*em*', '[l]', '&amp;', '<b>', 'a\0b', 'é ü', '\u00a0x\u00a0', 'two\nlines', 'x\n`c`', '[l]: /u\nafter',
    // Several lines of plain text (blocks at once since session 62): hard and soft breaks, tabs and indentation around them.
    'a  \nb', 'a \n  b', 'a\t\nb', 'a\t  \n\tb', 'one\n    two\nthree', 'x   \ny\nz  ', 'é\u00a0 \n\u00a0ü');
  const underline = fc.constantFrom('===', '---', ' --', '   =', '    ---', '- - -', '=== x', '--\t', '=');
  const heading = fc.tuple(start, text, underline).map(([a, t, u]) => `${a}${t}\n${u}`);
  const other = fc.constantFrom('', 'para', '# atx', '[l]: /u', '```', '> q', '<div>', '| a |\n|---|');

  it('gives the blocks made from their tokens', () => {
    expectDirectHeadingsAsTokens(headingDocs(heading, other, 12));
  });

  it('makes no token for a heading of plain lines, and keeps the blocks in order', () => {
    const source = 'One\n===\n\npara\n\nTwo *em*\n---\n> Quoted\n> ---\nThree\n  ---\n';
    expect(fastBlocks(source).blocks.map((b) => [b.type, b.startLine, b.endLine, b.text ?? null])).toEqual([
      ['heading', 0, 1, 'One'],
      ['paragraph', 3, 3, null],
      ['heading', 5, 6, 'Two em'],
      ['blockquote', 7, 8, null],
      ['heading', 9, 10, 'Three'],
    ]);
    expectSameBlocksWithout(setDirectHeadingsForTests, source);
    // Before: three tokens a heading (9,000 here), each with its map, and a tree node.
    const tiny = Array.from({ length: 3000 }, (_, i) => `h${i % 100}\n---\n\n`).join('');
    setFlatBlocksForTests(false);
    try {
      expect(fastBlocks(tiny).blocks).toHaveLength(3000);
    } finally {
      setFlatBlocksForTests(true);
    }
    expect(parsedTokensForTests()).toBe(1);
    expectSameBlocksWithout(setDirectHeadingsForTests, tiny);
    // Headings of two lines (a probe found them at 18 times prose per MB: three tokens and two
    // inline parses each, 2.7 KB of garbage a heading) make no token either.
    const twoLines = Array.from({ length: 3000 }, (_, i) => `a${i % 100}  \n  b\t\n===\n`).join('');
    setFlatBlocksForTests(false);
    try {
      expect(fastBlocks(twoLines).blocks.map((b) => b.text).slice(0, 2)).toEqual(['a0b', 'a1b']);
    } finally {
      setFlatBlocksForTests(true);
    }
    expect(parsedTokensForTests()).toBe(1);
    expectSameBlocksWithout(setDirectHeadingsForTests, twoLines);
  });

  it('gives a heading of plain lines the text the inline parser gives it', () => {
    const piece = fc.constantFrom('a', 'Word', ' ', '  ', '\t', 'é', '\u00a0', '-', '#', ':', ']', '(x)', '日本');
    const line = fc.array(piece, { minLength: 1, maxLength: 6 }).map((a) => a.join(''));
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 5 }), (lines) => {
        const text = lines.join('\n').replace(/^[ \t]+|[ \t]+$/g, '');
        fc.pre(text.length > 0);
        expect(plainHeadingText(text, 0, text.length)).toBe(parsedPlainText(text, { env: {} }));
      }),
      { numRuns: 3000 },
    );
    expect(plainHeadingText('a *b*\nc', 0, 8)).toBeNull();
  });

  it('does not ask the table rule about a heading line without a pipe', () => {
    // Its `---` underline starts like a delimiter row; the header row needs a pipe. Before, the
    // table rule was asked about every heading (3,000 here) and then the rest of the chain.
    const tiny = Array.from({ length: 3000 }, (_, i) => `h${i % 100}\n---\n`).join('');
    tableRuleCallsForTests();
    // Through markdown-it: flat-blocks reads such a flat document without its rules.
    setFlatBlocksForTests(false);
    try {
      expect(fastBlocks(tiny).blocks).toHaveLength(3000);
    } finally {
      setFlatBlocksForTests(true);
    }
    expect(tableRuleCallsForTests()).toBe(0);
    // A header row with a pipe is still asked about, and is a table where it is one.
    expect(fastBlocks('a | b\n--|--\nc | d\n').blocks.map((b) => b.type)).toEqual(['table']);
    expect(tableRuleCallsForTests()).toBeGreaterThan(0);
    expect(fastBlocks('a | b\n---\n').blocks.map((b) => b.type)).toEqual(['heading']);
  });
});

describe('blockquote rule keeping line marks in one typed array', () => {
  // Quote markers with and without a space, with tabs at every column (markdown-it's partial
  // tab rule), indented up to code, inside lists and lists inside quotes, lazy continuation
  // lines, empty quote lines, and lines that end a quote (fences, rules, headings, HTML).
  const marker = fc.constantFrom('>', '> ', '>\t', '>  ', ' >', '   >', '    >', '>\t\t', ' > ', '\t>', '- ', '1. ', '  ', '\t', '');
  const body = fc.constantFrom('', 'text', 'more text', '# h', '```', '~~~', '---', '***', '- item', '    code', '\tcode', '<div>', '[d]: /u', '| a |', '|-|', '===', '1) x', '[e]: /v "open', 'closed"', '[t]:', '/dest');
  const line = fc.tuple(fc.array(marker, { maxLength: 5 }), body).map(([m, b]) => m.join('') + b);
  const doc = fc
    .tuple(fc.array(line, { maxLength: 20 }), fc.constantFrom('\n', '\r\n'))
    .map(([lines, nl]) => lines.join(nl));

  // As markdown-it asks: its own rule asks the terminators again about a line an enclosing
  // quote marked lazy, and takes a `>` indented four columns as a marker (the conformance test
  // has what remark reads there instead).
  it("gives the blocks markdown-it's own rule gives", () => {
    setNestedLazyLinesForTests(false);
    setMarkerIndentCheckedForTests(false);
    try {
      fc.assert(
        fc.property(doc, (text) => expectSameBlocksWithout(setBlockquoteScratchForTests, text)),
        { numRuns: 4000 },
      );
    } finally {
      setNestedLazyLinesForTests(true);
      setMarkerIndentCheckedForTests(true);
    }
  });

  // Each of these quotes ends at a lazy line that no paragraph takes; markdown-it's rule scanned
  // every line after each of them first (the rest of the document: quadratic, issue 15).
  const endedByLazyLines = [
    (i: number) => `> # h${i}\nlazy ${i}\n`,
    (i: number) => `> ***\nlazy ${i}\n`,
    (i: number) => `> \`\`\`\n> c${i}\n> \`\`\`\nlazy ${i}\n`,
    (i: number) => `> [d${i}]: /u\nlazy ${i}\n`,
    (i: number) => `> a ${i}\nlazy\n> # h\nlazy ${i}\n`,
    (i: number) => `- > # h${i}\n  lazy ${i}\n`,
  ];

  it('gives them on quotes each ended by a lazy line, and on quotes whose paragraph takes thousands of lazy lines', () => {
    for (const unit of endedByLazyLines) expectSameBlocksWithout(setBlockquoteScratchForTests, Array.from({ length: 400 }, (_, i) => unit(i)).join(''));
    const oneParagraph = Array.from({ length: 3000 }, (_, i) => (i % 2 ? `lazy ${i}\n` : `> line ${i}\n`)).join('');
    expectSameBlocksWithout(setBlockquoteScratchForTests, oneParagraph);
    expectSameBlocksWithout(setBlockquoteScratchForTests, `> > x\n${oneParagraph}`);
  });

  it('marks lines in proportion to the document, not to its square, on quotes each ended by a lazy line', () => {
    // The rule's scan itself: `> # h` quotes would not reach it (see directQuote).
    setDirectQuotesForTests(false);
    try {
      for (const unit of [...endedByLazyLines, (i: number) => (i % 2 ? `lazy ${i}\n` : `> line ${i}\n`)]) {
        const marked = [1000, 2000, 4000].map((n) => {
          const text = Array.from({ length: n }, (_, i) => unit(i)).join('');
          const before = quoteLinesMarkedForTests();
          fastBlocks(text);
          return quoteLinesMarkedForTests() - before;
        });
        expect(marked[0]).toBeGreaterThan(0);
        expect(marked[1]! / marked[0]!, unit(0)).toBeLessThan(2.3);
        expect(marked[2]! / marked[1]!, unit(0)).toBeLessThan(2.3);
      }
    } finally {
      setDirectQuotesForTests(true);
    }
  });

  // Quotes nested up to markdown-it's limit with lazy lines at many depths (a line of fewer `>`
  // is lazy for every quote deeper than it): a quote whose content may take its lazy line parses
  // that content again, and each nested quote then began its own stops again from its first
  // line, multiplying the parses level by level (fuzzed: 3.5 KB took 9.5 s).
  it("gives markdown-it's blocks on quotes nested deep with lazy lines at many depths, marking lines in proportion to depth × lines", () => {
    for (const seed of [1, 2, 3]) {
      for (const lines of [15, 30, 60]) {
        const text = Array.from({ length: lines }, (_, i) => {
          const r = (Math.imul(seed * 1000 + i, 2654435761) >>> 0) % 97;
          return i % 3 === 1 ? `${'>'.repeat(5 + (r % 60))} lazy ${i} text` : `${'>'.repeat(80 + (r % 50))} ${['- item', '```', '# h', 'para'][r % 4]} ${i}`;
        }).join('\n');
        const before = quoteLinesMarkedForTests();
        fastBlocks(text);
        const marked = quoteLinesMarkedForTests() - before;
        // Each line marked by each quote open on it (at most 100 deep) some tens of times over
        // (a parse of the quotes around it each), not once per parse of every quote around it:
        // 1,600-2,900 marks a line here, 54,000 a line before, growing with the lines.
        expect(marked, `seed ${seed}, ${lines} lines`).toBeLessThan(40 * 100 * lines);
        expectSameBlocksWithout(setBlockquoteScratchForTests, text);
      }
    }
  });

  it('gives them on quotes nested past markdown-it’s nesting limit and past the first scratch size', () => {
    const deep = Array.from({ length: 160 }, (_, i) => `${'>'.repeat(i + 1)} line ${i}\n`).join('');
    const wide = Array.from({ length: 3000 }, (_, i) => `> > - item ${i}\n>   lazy\n`).join('');
    for (const text of [deep, wide, `- ${deep.replace(/\n(?=.)/g, '\n  ')}`]) expectSameBlocksWithout(setBlockquoteScratchForTests, text);
  });
});

describe('top-level one-line quotes of an ATX heading made into blocks without tokens', () => {
  // Quote markers with spaces and tabs at every column (markdown-it's partial tab rule), indented
  // up to code and past it, nested, inside lists; heading lines with closing `#`s, seven `#`s,
  // no space, inline syntax (which keeps the tokens), indented code in the quote; and every kind
  // of line after one: another `>` line (which the quote takes), lazy text, blank lines,
  // terminators, setext underlines, definitions, table delimiter rows, code.
  const marker = fc.constantFrom('>', '> ', '>\t', '>  ', '>    ', '>     ', ' >', '   >', '    >', '\t>', ' \t>', '>\t\t', '> \t', '>>', '> > ', '- > ', '1. > ', '  ');
  const hashes = fc.constantFrom('#', '##', '######', '#######', '# ', '#\t', '  #', '    #', '#\u00a0');
  const text = fc.constantFrom('', 'h1', ' h ', 'a # b', 'x #', 'x ## ', 'x \\#', 'x#', '#', '`c`', '*e*', '[l]', '&amp;', '<b>', 'a\0b', 'é', '\u00a0x\u00a0');
  // One or two markers: `  > # h` continues a list item, `> > # h` nests, `- > # h` opens both.
  const quoted = fc.tuple(fc.array(marker, { minLength: 1, maxLength: 2 }), hashes, text).map(([m, h, t]) => m.join('') + h + t);
  const other = fc.constantFrom('', ' ', 'lazy', 'lazy 1', '> more', '>', '---', '===', '***', '- item', '1. item', '    code', '```', '[d]: /u', '[d]:', '"title"', '|-|', '| a |', '<div>', '# h', 'Title Case');
  const doc = fc
    .tuple(fc.array(fc.oneof(quoted, quoted, other), { maxLength: 16 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean())
    .map(([ls, nl, frontMatter]) => (frontMatter ? `---${nl}> # fm${nl}---${nl}` : '') + ls.join(nl));

  it('gives the blocks made from their tokens', () => {
    fc.assert(
      fc.property(doc, (source) => expectSameBlocksWithout(setDirectQuotesForTests, source)),
      { numRuns: 6000 },
    );
  });

  it('gives them between other blocks, in order, on many quotes (issue 15)', () => {
    const source = Array.from({ length: 20_000 }, (_, i) => (i % 11 === 5 ? `> # h${i}\n> more\n` : i % 13 === 7 ? `- x\n> ## *e${i}*\n` : `> # h${i % 100}\nlazy ${i}\n`)).join('');
    const blocks = fastBlocks(source).blocks;
    expect(blocks.filter((b) => b.type === 'blockquote').length).toBeGreaterThan(15_000);
    expect(blocks[0]).toEqual({ type: 'blockquote', start: 0, end: 6, startLine: 0, endLine: 0, children: [{ type: 'heading', start: 0, end: 6, startLine: 0, endLine: 0, depth: 1, text: 'h0' }] });
    expectSameBlocksWithout(setDirectQuotesForTests, source);
  });
});

describe('top-level one-line quotes of a paragraph made into blocks without tokens (session 62)', () => {
  // Quote markers with spaces and tabs, indented, nested, in lists; paragraph lines starting with
  // a letter or not (which keep the tokens), with pipes, trailing spaces, NUL; and every kind of
  // line after one: a blank line (which ends the quote), whitespace, lazy text (which continues
  // the paragraph), another `>` line, underlines, terminators, tables, definitions.
  const marker = fc.constantFrom('>', '> ', '>\t', '>  ', '>     ', ' >', '   >', '    >', '\t>', '>>', '> > ', '- > ', '  ');
  const text = fc.constantFrom('q1', 'Note: read this', 'é', '日本', 'a | b', 'x  ', 'a\0b', 'Word *em*', '1. x', '- x', '*x*', '[x]', '<b>', '`c`', 'a\\', 'Title Case');
  const quoted = fc.tuple(fc.array(marker, { minLength: 1, maxLength: 2 }), text).map(([m, t]) => m.join('') + t);
  const other = fc.constantFrom('', '', '', ' ', '\t', 'lazy', '> more', '>', '---', '===', '***', '- item', '    code', '```', '[d]: /u', '|-|', '| a |', '<div>', '# h');
  const doc = fc
    .tuple(fc.array(fc.oneof(quoted, quoted, other), { maxLength: 16 }), fc.constantFrom('\n', '\r\n', '\r'))
    .map(([ls, nl]) => ls.join(nl));

  it('gives the blocks made from their tokens', () => {
    fc.assert(
      fc.property(doc, (source) => expectSameBlocksWithout(setDirectQuotesForTests, source)),
      { numRuns: 6000 },
    );
  });

  it('makes no token for one, and keeps the blocks in order', () => {
    const source = '> Note: one\n\n> two\nlazy\n\n> three\n';
    expect(fastBlocks(source).blocks.map((b) => [b.type, b.startLine, b.endLine, b.children?.map((c) => [c.type, c.start, c.end])])).toEqual([
      ['blockquote', 0, 0, [['paragraph', 0, 11]]],
      ['blockquote', 2, 3, [['paragraph', 13, 23]]],
      ['blockquote', 5, 5, [['paragraph', 25, 32]]],
    ]);
    expectSameBlocksWithout(setDirectQuotesForTests, source);
    // Before: four tokens a quote (12,000 here) and a tree node.
    const many = Array.from({ length: 3000 }, (_, i) => `> q${i % 100}\n\n`).join('');
    expect(fastBlocks(many).blocks).toHaveLength(3000);
    expect(parsedTokensForTests()).toBe(1);
    expectSameBlocksWithout(setDirectQuotesForTests, many);
  });
});

describe("the line table's starts and ends as the block state's bMarks and eMarks", () => {
  // Quotes (whose rule rewrites bMarks and restores it) nested, in lists, lazy, and ended by
  // other blocks, next to the blocks made during the parse from the table (headings,
  // paragraphs, list items); every text ends with a line break, where the table is shared.
  const marker = fc.constantFrom('>', '> ', '>\t', ' >', '- ', '1. ', '  ', '\t', '', '', '');
  const body = fc.constantFrom('', 'text', '# h', '```', '---', '- item', '    code', '<div>', '[d]: /u', '| a |', '|-|', '===', '1) x', '[^1]: n');
  const line = fc.tuple(fc.array(marker, { maxLength: 4 }), body).map(([m, b]) => m.join('') + b);
  const doc = fc.tuple(fc.array(line, { maxLength: 20 }), fc.constantFrom('\n', '\n\n', '\n   \n')).map(([lines, end]) => lines.join('\n') + end);

  it('gives the blocks of copied marks, and leaves the table as it was', () => {
    fc.assert(
      fc.property(doc, (text) => {
        const table = lineTable(text);
        const before = { starts: [...table.starts], ends: [...table.ends] };
        const fast = fastBlocks(text, table).blocks;
        expect({ starts: [...table.starts], ends: [...table.ends] }).toEqual(before);
        setSharedMarksForTests(false);
        try {
          expect(fast).toEqual(fastBlocks(text).blocks);
        } finally {
          setSharedMarksForTests(true);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe("the block state's tShift, sCount and bsCount kept from one parse to the next", () => {
  // Documents of every size in turn (the pool, 4,096 lines at first, grows, then serves smaller ones), with tabs and
  // quotes (whose rule rewrites the marks of their lines and restores them) at any depth.
  const marker = fc.constantFrom('>', '> ', '>\t', ' >', '- ', '1. ', '  ', '\t', ' \t', '    ', '', '', '');
  const body = fc.constantFrom('', 'text', '# h', '```', '---', '- item', '\tcode', '<div>', '[d]: /u', '| a |', '|-|', '===', '1) x', ' ');
  const line = fc.tuple(fc.array(marker, { maxLength: 4 }), body).map(([m, b]) => m.join('') + b);
  const doc = fc
    .tuple(fc.array(line, { maxLength: 20 }), fc.nat({ max: 5000 }), fc.constantFrom('\n', '', '\n  '))
    .map(([lines, repeat, end]) => (repeat > 4600 ? Array.from({ length: repeat }, (_, i) => lines[i % Math.max(1, lines.length)] ?? '') : lines).join('\n') + end);

  it('gives the blocks of arrays of its own, parse after parse (issue 15)', () => {
    fc.assert(
      fc.property(doc, (text) => expectSameBlocksWithout(setPooledMarksForTests, text)),
      { numRuns: 400 },
    );
  });
});

describe('top-level paragraphs made into blocks without tokens', () => {
  // Paragraph lines with lazy continuations, setext underlines, footnote definitions (in a
  // paragraph, or a reference definition to markdown-it) and reference definitions, lines of spaces JS or CommonMark treat differently (U+00A0, U+3000), NUL,
  // indentation, tabs, and the containers and blocks around them; front matter and CRLF.
  const start = fc.constantFrom('', '', '', ' ', '   ', '    ', '\t', '> ', '- ', '  ', '1. ');
  const body = fc.constantFrom(
    'para', 'more text', '[^1]: note', '[^1]: a note', '[^x]: *b* c', '[^x]', '[d]: /u', '[d]: /u\n', '\u00a0', '\u3000', '\u00a0x', 'a\0b', '===', '---', '# h', '```', '<div>',
    '| a |', '|-|', '', ' ', 'x  ', '\\', '&amp;',
  );
  const line = fc.tuple(start, body).map(([a, b]) => a + b);
  const doc = fc
    .tuple(fc.boolean(), fc.array(line, { maxLength: 18 }), fc.constantFrom('\n', '\r\n', '\r'))
    .map(([front, lines, nl]) => (front ? `---${nl}a: 1${nl}---${nl}` : '') + lines.join(nl));

  it('gives the blocks made from their tokens', () => {
    fc.assert(
      fc.property(doc, (source) => expectSameBlocksWithout(setDirectParagraphsForTests, source)),
      { numRuns: 4000 },
    );
  });

  it('keeps footnote definitions and the order of blocks around them', () => {
    // `[^n]: a note` is no reference definition (a destination, then no title): a paragraph for markdown-it.
    const source = 'one\nlazy\n\n[^n]: a note\n\n> quoted\npara\n# h\ntwo\n===\nthree\n';
    const blocks = fastBlocks(source).blocks;
    expect(blocks.map((b) => [b.type, b.startLine, b.endLine])).toEqual([
      ['paragraph', 0, 1],
      ['footnoteDefinition', 3, 3],
      ['blockquote', 5, 6],
      ['heading', 7, 7],
      ['heading', 8, 9],
      ['paragraph', 10, 10],
    ]);
    expectSameBlocksWithout(setDirectParagraphsForTests, source);
  });
});

describe('paragraph end shared by the setext heading rule', () => {
  // Paragraphs with and without setext underlines (which the shared end must not skip), lazy
  // lines, indented lines, lines that end a paragraph, inside quotes and lists; tiny lines.
  const start = fc.constantFrom('', '', '', ' ', '    ', '\t', '> ', '- ', '  ', '1. ', '>> ');
  const body = fc.constantFrom('x0', 'para', '===', '---', '  ===', '- -', '# h', '```', '<div>', '| a |', '|-|', '', ' ', '[d]: /u', '> q', '* * *');
  const line = fc.tuple(start, body).map(([a, b]) => a + b);
  const doc = fc.tuple(fc.array(line, { maxLength: 24 }), fc.constantFrom('\n', '\r\n')).map(([lines, nl]) => lines.join(nl));

  it('gives the blocks the paragraph rule gives walking its lines itself', () => {
    fc.assert(
      fc.property(doc, (source) => expectSameBlocksWithout(setParagraphEndSharedForTests, source)),
      { numRuns: 4000 },
    );
    const tiny = `# Lines\n\n${Array.from({ length: 50_000 }, (_, i) => `x${i % 10}`).join('\n')}\n`;
    expectSameBlocksWithout(setParagraphEndSharedForTests, tiny);
    expectSameBlocksWithout(setParagraphEndSharedForTests, `${tiny}===\n`);
  });
});

describe('lines given at once to the first rule that may take them, by their first character', () => {
  // Heading-like lines (closed, empty, seven #s, no space, indented to code) before lines that
  // make them a table header (delimiter rows) or not; quote lines and lazy lines after them;
  // plain text (ASCII, Unicode, odd whitespace) next to every character a rule starts with,
  // setext underlines and definitions; inside quotes and lists, after paragraphs, indented.
  const start = fc.constantFrom('', '', '', ' ', '   ', '    ', '\t', ' \t', '> ', '>', '- ', '  ', '1. ', '> > ', '- > ');
  const body = fc.constantFrom(
    '# h', '## h ##', '#', '#######', '#x', '# a | b', '| a |', 'a | b', 'a \\| b', '|-|', '-|-', ':-', '---', '===', '- x', '+ x', '1) x', '* * *', '_ _ _',
    'para', 'lazy 1', 'x0', 'é', '\u00a0x', '\fx', '\vx', '', ' ', '```', '~~~', '<div>', '<!-- c -->', '[d]: /u', '[x]', '"title"', '# `c`', '> # h', '>', '> q', '*e*', '\\x', '&amp;',
  );
  const line = fc.tuple(start, body).map(([a, b]) => a + b);
  const doc = fc
    .tuple(fc.array(line, { maxLength: 20 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean())
    .map(([lines, nl, frontMatter]) => (frontMatter ? `---${nl}a: b${nl}---${nl}` : '') + lines.join(nl));

  it("gives the blocks markdown-it's order of rules gives", () => {
    fc.assert(
      fc.property(doc, (source) => expectSameBlocksWithout(setByFirstCharForTests, source)),
      { numRuns: 6000 },
    );
    for (const source of [
      '# a | b\n--|--\nc | d\n',
      '# a | b\n:-\n',
      '    # code\n# h\n',
      'a | b\n--|--\n',
      'a | b\n---\n',
      'a \\| b\n-|-\n',
      'ab\n--|--\n',
      '> a | b\n--|--\n',
      'text\n===\n',
      'text\n    code\n',
      Array.from({ length: 20_000 }, (_, i) => `# h${i % 100}`).join('\n'),
      Array.from({ length: 20_000 }, (_, i) => `> # h${i % 100}\nlazy ${i}`).join('\n'),
    ]) {
      expectSameBlocksWithout(setByFirstCharForTests, source);
    }
  });
});

describe("markdown-it's text: line breaks as line feeds, NUL as U+FFFD (markdownItText)", () => {
  it('equals the two regex replacements, one-byte and two-byte text alike', () => {
    const unit = fc.constantFrom('a', ' ', '\r', '\n', '\r\n', '\n\r', '\0', '\u00ff', '\u00e9', '\u0100', '\ufffd', '\ud800', '\udc00', '😀', '\u2028');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 60 }), (units) => {
        const text = units.join('');
        expect(markdownItText(text)).toBe(text.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD'));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the blocks of CR and CR LF documents without a regex replacement per break', () => {
    // V8 builds a global replacement from a part per match: 29 MB for 1 MB of tiny CR lines.
    const lines = Array.from({ length: 2000 }, (_, i) => (i % 50 === 0 ? `# h${i}` : `x${i % 10}`));
    const replace = vi.spyOn(String.prototype, 'replace');
    try {
      for (const br of ['\r', '\r\n']) {
        const source = lines.join(br) + '\0';
        const blocks = fastBlocks(source).blocks;
        expect(replace.mock.calls.filter(([pattern]) => pattern instanceof RegExp && pattern.global)).toEqual([]);
        expect(blocks.map((b) => [b.type, b.startLine, b.endLine, b.text ?? null])).toEqual(fastBlocks(lines.join('\n') + '\0').blocks.map((b) => [b.type, b.startLine, b.endLine, b.text ?? null]));
      }
    } finally {
      replace.mockRestore();
    }
  });
});

describe('link destinations returned as they are (PLAIN_URL)', () => {
  const stock = new MarkdownIt();
  const scheme = fc.constantFrom('', 'http://', 'https://', 'HTTP://', 'ftp://', 'mailto:', '//');
  const host = fc.constantFrom('', 'example.com', 'EXAMPLE.com', 'a-b.c', 'a.', '-a.b', 'xn--d.e', 'ex_ample.com', '1.2.3.4', 'b\u00fccher.de', 'u@h.c', 'h.c:80', 'h.c:123456');
  const pathChar = fc.constantFrom('a', 'Z', '0', '-', '.', '_', '~', '/', '?', '#', '=', '&', '%', '%41', '@', ':', ' ', '\\', '\u00e9', '+', '[', '(', '"', '<', "'", '*');
  const url = fc.tuple(scheme, host, fc.array(pathChar, { maxLength: 12 })).map(([s, h, p]) => s + h + p.join(''));

  it('matches only destinations markdown-it normalizes to themselves', () => {
    let plain = 0;
    fc.assert(
      fc.property(url, (u) => {
        if (!PLAIN_URL.test(u)) return;
        plain++;
        expect(stock.normalizeLink(u)).toBe(u);
      }),
      { numRuns: 20000 },
    );
    expect(plain).toBeGreaterThan(300);
    for (const u of ['https://example.com/1', '/docs/a_b.md#x', '?q=1&r=2', '#top', 'http://h.c:8080/p/']) expect(PLAIN_URL.test(u)).toBe(true);
  });
});
