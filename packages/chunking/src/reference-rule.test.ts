import fc from 'fast-check';
import MarkdownIt, { type MarkdownIt as Md } from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { PLAIN_URL } from './fast-blocks.js';
import { referenceRule } from './reference-rule.js';

fc.configureGlobal({ seed: 20261128 });

/** markdown-it as fast-blocks configures it, with the stock reference rule or the port. */
function parser(ported: boolean): Md {
  const md = new MarkdownIt('default', { html: true, linkify: false, typographer: false });
  if (ported) md.block.ruler.at('reference', referenceRule(md, PLAIN_URL));
  return md;
}
const stock = parser(false);
const port = parser(true);

/** What a parse gives that anything downstream could read: every token's fields, and the definitions. */
function parsed(md: Md, src: string): unknown {
  const env: Record<string, unknown> = {};
  const tokens = md.parse(src, env).map((t) => ({ type: t.type, map: t.map, meta: t.meta, content: t.content, level: t.level, hidden: t.hidden, children: t.children?.map((c) => [c.type, c.content, c.attrs]) }));
  return { tokens, references: env.references };
}

const labels = fc.oneof(
  fc.constantFrom('a', 'Foo', 'FOO', 'foo bar', ' spaced ', 'Foo\nBar', 'ẞ', 'ß', 'ÄÖü', 'İ', 'ǅ', 'a\\]b', 'a\\\\', 'x-y_z./:w', 'ref1', 'Ref1', '', '  ', 'a[b', '日本', 'ｆｕｌｌ'),
  fc.string({ unit: fc.constantFrom('a', 'B', '1', '-', '_', '.', '/', ':', ' ', '\t', 'é', 'ß', '\\', ']', '*'), maxLength: 12 }),
);
const destinations = fc.oneof(
  fc.constantFrom('/u', 'https://example.com/page/1', 'http://EXAMPLE.com/x', 'https://ex.com:8080/a?b=c#d', '<>', '<a b>', '<a\nb>', 'javascript:alert(1)', 'JavaScript:x', 'vbscript:x', 'file:///etc', 'data:image/png;base64,AAA', 'data:text/html,x', '/%20x', '/a b', 'mailto:a@b.c', 'http://ünï.com/', '/a\\)', '(/u)', '', '#frag', '?q=1'),
  fc.string({ unit: fc.constantFrom('a', '/', ':', '%', '(', ')', '<', '>', '\\', '&amp;', '.', '#', '?'), maxLength: 10 }),
);
const titles = fc.constantFrom('', ' "title"', " 'title'", ' (title)', '\n"title"', '\n  "title"', "\n'two\nlines'", ' "unclosed', '\n"title" junk', ' "t" junk', '\n(paren', ' ("mixed")', '\n"a\n\nb"');
const definition = fc.tuple(fc.constantFrom('', ' ', '   ', '    ', '\t'), labels, fc.constantFrom(': ', ':', ':\n', ':  \n  '), destinations, titles).map(([indent, l, colon, d, t]) => `${indent}[${l}]${colon}${d}${t}`);
const other = fc.constantFrom('', 'text', '# heading', '> quote', '> [q]: /u', '- item', '- [i]: /u', '1. one', '***', '---', '===', '"quoted line', "'single", '(paren line', '    code', '```', '<div>', '| a | b |\n|---|---|', '[link][a]', '[a]', '[Foo Bar]');
const documents = fc.array(fc.oneof({ arbitrary: definition, weight: 3 }, { arbitrary: other, weight: 2 }), { maxLength: 12 }).map((lines) => lines.join('\n'));

describe('referenceRule (reference-rule.ts)', () => {
  it('gives the tokens and definitions markdown-it 15\'s own rule gives', () => {
    fc.assert(
      fc.property(documents, (src) => {
        expect(parsed(port, src)).toEqual(parsed(stock, src));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads each kind the shortcuts touch as the stock rule does', () => {
    const cases = [
      // A title on the next line, one that is not (stepped onto only when it may be), a rejected scheme.
      '[a]: /u\n"title"\n\n[b]: /v\n# heading\n\n[c]: javascript:alert(1)\n',
      '[a]: https://example.com/1\n[b]: https://example.com/2 "t"\n[Ref-1.x/y:z]: /w\n\n[link][ref-1.X/Y:Z] [b]\n',
      '> [a]: /u\n"lazy title"\n\n- [b]: /v\n  (title)\n',
      '[ẞ]: /sharp\n[SS]: /ss\n[Foo\n Bar]: /fb\n\n[ß] [ss] [foo bar]\n',
    ];
    for (const src of cases) expect(parsed(port, src)).toEqual(parsed(stock, src));
    // And a definition is made at all (a test of nothing would pass the line above).
    const env: Record<string, unknown> = {};
    port.parse(cases[1]!, env);
    expect(Object.keys(env.references as object)).toEqual(['A', 'B', 'REF-1.X/Y:Z']);
  });
});
