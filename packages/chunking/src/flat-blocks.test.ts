import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastBlocks, setFlatBlocksForTests } from './fast-blocks.js';
import { chunkDocument } from './index.js';
import type { Block } from './types.js';

/** fastBlocks of `text` through markdown-it (flat-blocks off), and how many flat documents the first call read. */
function bothWays(text: string): { flat: Block[]; markdownIt: Block[]; readFlat: number } {
  setFlatBlocksForTests(true);
  const flat = fastBlocks(text).blocks;
  const readFlat = setFlatBlocksForTests(false);
  try {
    return { flat, markdownIt: fastBlocks(text).blocks, readFlat };
  } finally {
    setFlatBlocksForTests(true);
  }
}

/** Text a line may hold: plain words, inline syntax, non-ASCII, and what only looks like a heading. */
const words = fc.constantFrom('p37', 'Word', 'two words', 'ünï', '日本語', '\u00a0nbsp', 'x*y*', 'a_b_', 'a `b`', 'x\\y', '&amp;', '#tag', '#######', '####### x', 'a # b', 'a #', '-dash', '=eq', 'x  ', 'x\t', 'ends:');
/** Lines aimed at the edges of what flat-blocks accepts; with `others`, also lines it sends back to markdown-it. */
const lineOf = (others: boolean) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.constantFrom('', ' ', '   '), words).map(([indent, w]) => indent + w) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom('', ' ', '   '), fc.integer({ min: 1, max: 7 }), fc.constantFrom(' ', '\t', '', '  '), fc.constantFrom('', 'h1', 'Two words', 'x*y', 'a `b`', '#', 'é'), fc.constantFrom('', ' #', ' ##', '#', '  ', '\t', ' # ', 'x #'))
        .map(([indent, level, gap, text, close]) => `${indent}${'#'.repeat(level)}${gap}${text}${close}`),
    },
    // Underlines, which flat-blocks takes only after a paragraph (of one line or more), and
    // thematic breaks (`---` is one where it underlines nothing).
    { weight: 2, arbitrary: fc.constantFrom('---', '===', '--- ', '---\t', '  ===', '-- -', '***', '* * *', '___', ' _\t_ _', '- - -', '  ****', ...(others ? ['- x', '=x', '-', '=', '**', '* x', '__', '_x_', '*-*'] : [])) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('    ', '      ', ...(others ? ['\t', ' \t'] : [])), words).map(([indent, w]) => indent + w) },
    { weight: 4, arbitrary: fc.constantFrom('', '', '  ', '    ', ...(others ? ['\t'] : [])) },
    ...(others ? [{ weight: 1, arbitrary: fc.constantFrom('> q', '1. x', '* x', '```', '<div>', '[a]: /u', 'a | b', '***', '2) y') }] : []),
  );
const doc = fc
  .tuple(
    fc.constantFrom('', '', '---\ntitle: T\n---\n', '+++\nx = 1\n+++\n'),
    fc.boolean().chain((others) => fc.array(lineOf(others), { maxLength: 30 })),
    fc.constantFrom('\n', '\n', '\n', '\r\n'),
    fc.boolean(),
  )
  .map(([front, lines, eol, endsWithBreak]) => front + lines.join(eol) + (endsWithBreak ? eol : ''));

describe('flat-blocks (issue 15: the block-dense documents without markdown-it)', () => {
  it('gives the blocks markdown-it does, on documents aimed at the edges of what it reads', () => {
    let read = 0;
    let runs = 0;
    fc.assert(
      fc.property(doc, (text) => {
        const { flat, markdownIt, readFlat } = bothWays(text);
        expect(flat).toEqual(markdownIt);
        read += readFlat;
        runs++;
      }),
      { numRuns: 3000 },
    );
    // The generator reaches the flat path often enough for the comparison to mean something.
    expect(read).toBeGreaterThan(runs / 5);
  });

  it('reads the block-dense shapes, and what markdown-it reads as paragraphs and headings', () => {
    const cases = [
      Array.from({ length: 300 }, (_, i) => `p${i % 100}\n\n`).join(''),
      Array.from({ length: 300 }, (_, i) => `# h${i % 100}\n`).join(''),
      Array.from({ length: 300 }, (_, i) => `h${i % 100}\n---\n\n`).join(''),
      `# Lines\n\n## One\n\n${Array.from({ length: 300 }, (_, i) => `x${i % 10}\n`).join('')}`,
      'para\n    ---\nmore\n', // an indented `---` continues the paragraph
      '#tag is text\n####### seven\n# closed ##\n#\tTabbed\n#\n  ## spaced  #  \n',
      'one\n===\ntwo\n---\n\n\u00a0lead\n日本語\n',
      'a\nb\n---\n', // a heading of two lines
      'a  \n  b\t\nc\n===\n\nx \n    y\n---\n', // hard and soft breaks, an indented continuation
      Array.from({ length: 300 }, (_, i) => `a${i % 100}\nb\n===\n`).join(''),
      'a\n***\nb\n- - -\n\n---\n___\n  * * *\n', // thematic breaks, one ending a paragraph
      `# T\n\n${'***\n'.repeat(300)}`,
      '# a *b*\n### `options` and &amp;\nx *y*\n---\n', // headings with inline syntax but no `[`
    ];
    for (const text of cases) {
      const { flat, markdownIt, readFlat } = bothWays(text);
      expect(readFlat, JSON.stringify(text.slice(0, 40))).toBe(1);
      expect(flat).toEqual(markdownIt);
    }
    expect(bothWays('para\n    ---\nmore\n').flat.map((b) => [b.type, b.startLine, b.endLine])).toEqual([['paragraph', 0, 2]]);
  });

  it('sends anything else to markdown-it', () => {
    for (const text of ['a\n- b\n', 'a | b\n', 'a [b]\nc\n---\n', '\tcode\n', '    code\n', '1. x\n', 'a\n> q\n', '# a [b]\n', 'x\r\ny\n', 'a\0b\n', '* x\n', '**\n', '=\n', '[a]: /u\n']) {
      const { flat, markdownIt, readFlat } = bothWays(text);
      expect(readFlat, JSON.stringify(text)).toBe(0);
      expect(flat).toEqual(markdownIt);
    }
  });

  it('leaves chunkDocument\'s records as they were', () => {
    const text = Array.from({ length: 2000 }, (_, i) => (i % 7 === 0 ? `## h${i % 50}\n\n` : `Line ${i} of prose, with words.\n\n`)).join('');
    const flat = chunkDocument(text, { docName: 'flat' });
    setFlatBlocksForTests(false);
    try {
      expect(chunkDocument(text, { docName: 'flat' })).toEqual(flat);
    } finally {
      expect(setFlatBlocksForTests(true)).toBe(0);
    }
  });
});
