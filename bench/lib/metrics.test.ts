import { describe, expect, it } from 'vitest';
import {
  cellCount,
  countFenceLines,
  findFencedCodeBlocks,
  findTables,
  intactFlags,
  isDelimiterRow,
  isHeadlessTableChunk,
  isOddFenceChunk,
  locateAndCover,
  median,
  nonWhitespaceCount,
  offsetStatus,
  percentile,
  sizeStats,
} from './metrics.mjs';

const FENCE = '```';

describe('fence lines', () => {
  it('counts ``` and ~~~ lines of three or more, indented or not', () => {
    const text = [`${FENCE}js`, 'code', FENCE, '  ~~~~', 'x', '  ~~~~', '``', 'a ``` b'].join('\n');
    expect(countFenceLines(text)).toBe(4);
    expect(isOddFenceChunk(text)).toBe(false);
  });

  it('flags a chunk that opens a block without closing it', () => {
    expect(isOddFenceChunk(`Intro\n\n${FENCE}sh\nnpm test\n`)).toBe(true);
    expect(isOddFenceChunk('no code here')).toBe(false);
  });

  it('flags a chunk that only holds the tail of a block', () => {
    expect(isOddFenceChunk(`  more();\n${FENCE}\n\nNext paragraph.`)).toBe(true);
  });
});

describe('tables', () => {
  it('recognises delimiter rows, which need a pipe', () => {
    expect(isDelimiterRow('| --- | :-: | --: |')).toBe(true);
    expect(isDelimiterRow('--- | ---')).toBe(true);
    expect(isDelimiterRow('|:--|')).toBe(true);
    expect(isDelimiterRow('---')).toBe(false);
    expect(isDelimiterRow('| a | b |')).toBe(false);
  });

  it('counts cells, ignoring outer pipes and escaped pipes', () => {
    expect(cellCount('| a | b |')).toBe(2);
    expect(cellCount('a | b | c')).toBe(3);
    expect(cellCount('| a \\| b | c |')).toBe(2);
  });

  it('a chunk starting with header + delimiter is not headless', () => {
    expect(isHeadlessTableChunk('\n| a | b |\n| - | - |\n| 1 | 2 |')).toBe(false);
  });

  it('a chunk starting at a body row is headless', () => {
    expect(isHeadlessTableChunk('| 3 | 4 |\n| 5 | 6 |\n\nText.')).toBe(true);
  });

  it('a chunk starting at the delimiter row is headless', () => {
    expect(isHeadlessTableChunk('| --- | --- |\n| 1 | 2 |')).toBe(true);
  });

  it('a single table row with nothing after it is headless; prose is not', () => {
    expect(isHeadlessTableChunk('| 9 | 9 |')).toBe(true);
    expect(isHeadlessTableChunk('Some prose | with a pipe inside.')).toBe(false);
    expect(isHeadlessTableChunk('')).toBe(false);
  });

  it('a list item whose first line ends with a pipe is not a table row (issue 15: tls.md)', () => {
    // The one "headless-table chunk" of chunkyard-semantic on the Node.js API docs: a
    // split list starting at this item of tls.md, whose type union wraps after a `|`.
    const item =
      '* `ALPNProtocols`: {string\\[]|Buffer\\[]|TypedArray\\[]|DataView\\[]|Buffer|\n' +
      '    TypedArray|DataView}\n    An array of strings.';
    expect(isHeadlessTableChunk(item)).toBe(false);
    expect(isHeadlessTableChunk('- a |\n- b |')).toBe(false);
    expect(isHeadlessTableChunk('12) x | y |\ntext')).toBe(false);
    // Still headless: a body row indented inside a list item, and a pipe-less delimiter row.
    expect(isHeadlessTableChunk('  | 1 | 2 |\n  | 3 | 4 |')).toBe(true);
    expect(isHeadlessTableChunk('- | -\n1 | 2')).toBe(true);
    // Not a list marker: no space after it.
    expect(isHeadlessTableChunk('-x | y |')).toBe(true);
  });
});

describe('source structure', () => {
  const source = [
    '# Title', // 0
    '',
    `${FENCE}js`,
    'const a = 1;',
    '~~~ not a closer',
    FENCE,
    '',
    '* item',
    '',
    `  ${FENCE}console`,
    '  $ node',
    `  ${FENCE}`,
    '',
    '| a | b |',
    '|---|---|',
    '| 1 | 2 |',
    '| 3 | 4 |',
    '',
    `${FENCE}md`,
    '| x | y |',
    '| - | - |',
    FENCE,
    '',
    '````',
    '```',
    'nested fence text',
    '````',
  ].join('\n');

  it('finds fenced blocks, including indented ones and longer fences', () => {
    const blocks = findFencedCodeBlocks(source);
    expect(blocks.map((b) => b.text.split('\n')[0])).toEqual([`${FENCE}js`, `${FENCE}console`, `${FENCE}md`, '````']);
    expect(blocks.every((b) => b.closed)).toBe(true);
    expect(blocks[0]?.text).toBe(`${FENCE}js\nconst a = 1;\n~~~ not a closer\n${FENCE}`);
    expect(blocks[1]?.text).toBe(`${FENCE}console\n  $ node\n  ${FENCE}`);
    for (const b of blocks) expect(source.slice(b.start, b.end)).toBe(b.text);
  });

  it('runs an unclosed block to the end of the file', () => {
    const blocks = findFencedCodeBlocks(`text\n\n${FENCE}\nnever closed\n\n`);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.closed).toBe(false);
    expect(blocks[0]?.text).toBe(`${FENCE}\nnever closed`);
  });

  it('a backtick fence whose info string holds a backtick is not a fence', () => {
    const blocks = findFencedCodeBlocks('``` a`b\ncode\n```\n');
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.text).toBe('```'); // the third line opens a block that never closes
    expect(blocks[0]?.closed).toBe(false);
  });

  it('finds GFM tables outside code blocks', () => {
    const tables = findTables(source);
    expect(tables).toHaveLength(1);
    expect(tables[0]?.text).toBe('| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |');
  });

  it('needs matching header and delimiter cell counts', () => {
    expect(findTables('| a | b |\n| --- |\n| 1 | 2 |\n')).toHaveLength(0);
  });
});

describe('intact blocks', () => {
  it('a block is intact when one chunk holds all of it verbatim', () => {
    const src = `A\n\n${FENCE}\none\ntwo\n${FENCE}\n\nB\n`;
    const blocks = findFencedCodeBlocks(src);
    expect(intactFlags(blocks, [`A\n\n${FENCE}\none\ntwo\n${FENCE}`, 'B'])).toEqual([true]);
    expect(intactFlags(blocks, [`A\n\n${FENCE}\none`, `two\n${FENCE}\n\nB`])).toEqual([false]);
  });
});

describe('statistics', () => {
  it('nearest-rank percentiles and medians', () => {
    const s = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(s, 50)).toBe(5);
    expect(percentile(s, 95)).toBe(10);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });

  it('size stats count chunks over the maximum', () => {
    const z = sizeStats([100, 600, 512, 513], 512);
    expect(z.chunks).toBe(4);
    expect(z.overMax).toBe(2);
    expect(z.max).toBe(600);
    expect(z.mean).toBeCloseTo(431.25);
  });
});

describe('fidelity', () => {
  const source = 'alpha beta\n\ngamma delta\n\nepsilon\n';

  it('checks offsets by slice equality', () => {
    expect(offsetStatus(source, { text: 'alpha beta', start: 0, end: 10 })).toBe('exact');
    expect(offsetStatus(source, { text: 'alpha beta', start: 1, end: 11 })).toBe('wrong');
    expect(offsetStatus(source, { text: 'gamma', start: 12 })).toBe('exact');
    expect(offsetStatus(source, { text: 'gamma' })).toBe('none');
  });

  it('counts non-whitespace characters', () => {
    expect(nonWhitespaceCount(source)).toBe(26);
    expect(nonWhitespaceCount(' \t\n\u00a0x')).toBe(1);
  });

  it('locates chunks in order and measures coverage', () => {
    const r = locateAndCover(source, [{ text: 'alpha beta' }, { text: 'gamma delta', start: 12, end: 23 }]);
    expect(r.located).toBe(2);
    expect(r.nonWs).toBe(26);
    expect(r.verbatimCovered).toBe(9 + 10);
    expect(r.covered).toBe(19);
    expect(r.gaps).toEqual([{ start: 25, end: source.length }]);
  });

  it('finds overlapping chunks and counts out-of-order hits', () => {
    const r = locateAndCover(source, [{ text: 'gamma delta' }, { text: 'delta\n\nepsilon' }, { text: 'alpha' }]);
    expect(r.located).toBe(3);
    expect(r.outOfOrder).toBe(1);
  });

  it('credits a rebuilt split-unit chunk only with lines inside its own range', () => {
    const src = `${FENCE}js\nline1();\nline2();\nline3();\n${FENCE}\n`;
    const second = src.indexOf('line2');
    const piece = { text: `${FENCE}js\nline2();\nline3();\n${FENCE}`, start: second, end: src.length - 1, splitUnit: true };
    const r = locateAndCover(src, [piece]);
    expect(r.located).toBe(0);
    expect(r.lineCredited).toBe(1);
    // line2, line3 and the closing fence are inside the range; the re-opened ```js is not.
    expect(r.covered).toBe('line2();'.length + 'line3();'.length + 3);
    expect(r.verbatimCovered).toBe(0);
  });
});
