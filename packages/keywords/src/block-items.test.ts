// blockItems reads markdown-it's block tokens as the parse makes them and drops each one (issue
// 15: a long list's tokens all lived until the end of the parse). It must read exactly what a
// plain markdown-it parse yields, on documents built to stress the drain and the line marks:
// lists (tight and loose, nested, holding headings, code and quotes), quotes, tables, fences,
// indented code, link references defined after their use, tabs, lines of only spaces, CRLF.
import fc from 'fast-check';
import MarkdownIt, { type Env } from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { BODY, blockItems, CODE, HEADING, quoteLinesMarkedForTests, type BlockItems } from './block-items.js';

const plain = new MarkdownIt('default', { html: true, linkify: false, typographer: false });
plain.core.ruler.disable(['inline', 'linkify', 'replacements', 'smartquotes', 'text_join']);

/** What blockItems should give: read from markdown-it's own tokens after its whole parse. */
function expected(text: string, env: Env): BlockItems {
  const kinds: number[] = [];
  const contents: string[] = [];
  let inHeading = false;
  for (const token of plain.parse(text, env)) {
    if (token.type === 'heading_open') inHeading = true;
    else if (token.type === 'heading_close') inHeading = false;
    else if (token.type === 'inline') {
      kinds.push(inHeading ? HEADING : BODY);
      contents.push(token.content);
    } else if (token.type === 'fence' || token.type === 'code_block') {
      kinds.push(CODE);
      contents.push(token.content);
    }
  }
  return { kinds, contents };
}

const LINES = [
  '- item', '* star', '1. one', '2) two', '  - nested', '    - deeper', '\t- tabbed', '- # heading in item', '- ```js', '```', '  ```',
  '  code in item', '> quote', '> - quoted item', '>> deep', '# Title', '## Sub', 'Setext', '===', '---', '| a | b |', '|---|---|',
  '| 1 | 2 |', '    indented code', '\tcode after tab', '[ref]: https://x.y', 'see [text][ref]', '<div>', '</div>', '', '', '   ',
  ' \t ', 'plain words here', 'lazy continuation', '+ plus', '- [ ] task', '~~~', 'x\0y', 'word\r',
  // ATX headings at the edges of markdown-it's heading rule (blockItems has its own copy of it).
  '#', '#\tTab', '####### seven', '###### six', '# closing ##', '# closing # ', '#no space', '   # indented', '# \u00a0nbsp\u00a0 ', '## #',
  '# a \\#', '>#', '- #',
  // Quotes ended by a lazy line (a line without `>` that no paragraph takes), and quoted
  // definitions whose title or destination may be on the lazy line (quoteItems scans lazily).
  '> # quoted heading', '> ---', '> ```', '> [q]: /quoted', '> [t]:', '/dest', '"title"', '> > nested', '>     code', '> [u]: /v "open', 'closed"', '> ===',
];
const doc = fc
  .tuple(fc.array(fc.constantFrom(...LINES), { maxLength: 80 }), fc.constantFrom('\n', '\r\n'), fc.constantFrom('', '\n', '  ', '\t'))
  .map(([lines, eol, tail]) => lines.join(eol) + tail);

describe('blockItems', () => {
  it('reads what markdown-it parses, with the same link references, on hostile documents', () => {
    fc.assert(
      fc.property(fc.oneof(doc, fc.string({ maxLength: 300 })), (text) => {
        const env: Env = {};
        const want: Env = {};
        expect(blockItems(text, env)).toEqual(expected(text, want));
        expect(env.references).toEqual(want.references);
      }),
      { numRuns: 3000 },
    );
  });

  // Each of these quotes ends at a lazy line no paragraph takes; markdown-it's rule marked every
  // line after each of them first (the rest of the document: quadratic, issue 15).
  const endedByLazyLines = [
    (i: number) => `> # h${i}\nlazy ${i}\n`,
    (i: number) => `> ***\nlazy ${i}\n`,
    (i: number) => `> \`\`\`\n> c${i}\n> \`\`\`\nlazy ${i}\n`,
    (i: number) => `> [d${i}]: /u\nlazy ${i}\n`,
    (i: number) => `> a ${i}\nlazy\n> # h\nlazy ${i}\n`,
    (i: number) => `- > # h${i}\n  lazy ${i}\n`,
    (i: number) => (i % 2 ? `lazy ${i}\n` : `> line ${i}\n`),
  ];

  it('reads quotes each ended by a lazy line, and a quoted paragraph taking thousands of lazy lines, as markdown-it does', () => {
    for (const unit of endedByLazyLines) {
      const text = Array.from({ length: 400 }, (_, i) => unit(i)).join('');
      const env: Env = {};
      const want: Env = {};
      expect(blockItems(text, env)).toEqual(expected(text, want));
      expect(env.references).toEqual(want.references);
    }
    const text = '> [d]: /u\n"title"\n> [e]:\n/v\n> # h\nlazy\n';
    const env: Env = {};
    const want: Env = {};
    expect(blockItems(text, env)).toEqual(expected(text, want));
    expect(env.references).toEqual(want.references);
  });

  it('marks lines in proportion to the document, not to its square, on quotes each ended by a lazy line', () => {
    for (const unit of endedByLazyLines) {
      const marked = [1000, 2000, 4000].map((n) => {
        const text = Array.from({ length: n }, (_, i) => unit(i)).join('');
        const before = quoteLinesMarkedForTests();
        blockItems(text, {});
        return quoteLinesMarkedForTests() - before;
      });
      expect(marked[0]).toBeGreaterThan(0);
      expect(marked[1]! / marked[0]!, unit(0)).toBeLessThan(2.3);
      expect(marked[2]! / marked[1]!, unit(0)).toBeLessThan(2.3);
    }
  });

  // Quotes nested up to markdown-it's limit with lazy lines at many depths (a line of fewer `>`
  // is lazy for every quote deeper than it): a quote whose content may take its lazy line parses
  // that content again, and each nested quote began its own stops again from its first line,
  // multiplying the parses level by level (fuzzed: 32 KB took 7 s in hierarchical's matching).
  it("gives markdown-it's items on quotes nested deep with lazy lines at many depths, marking lines in proportion to depth × lines", () => {
    for (const seed of [1, 2, 3]) {
      for (const lines of [15, 30, 60]) {
        const text = Array.from({ length: lines }, (_, i) => {
          const r = (Math.imul(seed * 1000 + i, 2654435761) >>> 0) % 97;
          // Under markdown-it's nesting limit (100), past which its own parse drops content.
          return i % 3 === 1 ? `${'>'.repeat(5 + (r % 40))} lazy ${i} text` : `${'>'.repeat(50 + (r % 45))} ${['- item', '```', '# h', 'para'][r % 4]} ${i}`;
        }).join('\n');
        const before = quoteLinesMarkedForTests();
        const env = {};
        const items = blockItems(text, env);
        const marked = quoteLinesMarkedForTests() - before;
        // Each line marked by each quote open on it (at most 100 deep) some tens of times over,
        // not once per parse of every quote around it (growing with the lines).
        expect(marked, `seed ${seed}, ${lines} lines`).toBeLessThan(40 * 100 * lines);
        const want: Env = {};
        expect(items).toEqual(expected(text, want));
      }
    }
  });

  it('reads a long list item by item, the headings and code inside it included', () => {
    const text = Array.from({ length: 3000 }, (_, i) => (i % 100 === 0 ? `- ## Part ${i}\n` : i % 7 === 0 ? `-     code ${i}\n` : `- item ${i}\n`)).join('');
    const items = blockItems(text, {});
    expect(items).toEqual(expected(text, {}));
    expect(items.kinds.filter((k) => k === HEADING)).toHaveLength(30);
    expect(items.kinds.filter((k) => k === CODE).length).toBeGreaterThan(400);
  });

  it('gives nothing for an empty document or one of only blank lines', () => {
    expect(blockItems('', {})).toEqual({ kinds: [], contents: [] });
    expect(blockItems('\n \n\t\n  ', {})).toEqual({ kinds: [], contents: [] });
  });
});
