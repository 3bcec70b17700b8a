import fc from 'fast-check';
import MarkdownIt, { type MarkdownIt as Md } from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { PLAIN_URL } from './fast-blocks.js';
import { hasDefinitions, referenceRule } from './reference-rule.js';

fc.configureGlobal({ seed: 20261128 });

/** markdown-it as fast-blocks configures it, with the stock reference rule or the port (with or without top-level tokens). */
function parser(ported: boolean, topLevelTokens = true): Md {
  const md = new MarkdownIt('default', { html: true, linkify: false, typographer: false });
  if (ported) md.block.ruler.at('reference', referenceRule(md, PLAIN_URL, topLevelTokens));
  return md;
}
const stock = parser(false);
const port = parser(true);
const portWithoutTopTokens = parser(true, false);

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

  it('without top-level tokens, leaves out exactly the top-level definitions\' tokens and keeps every definition', () => {
    // The block parse alone: md.parse's core drops definition tokens (strip_references).
    const blockParsed = (md: Md, src: string, keep: (t: { type: string; level: number }) => boolean = () => true): unknown => {
      const env: Record<string, unknown> = {};
      const tokens: Parameters<Md['block']['parse']>[3] = [];
      md.block.parse(src, md, env, tokens);
      return { tokens: tokens.filter(keep).map((t) => ({ type: t.type, map: t.map, meta: t.meta, content: t.content, level: t.level, hidden: t.hidden })), references: { ...(env.references as object) } };
    };
    const notTopDefinition = (t: { type: string; level: number }): boolean => !(t.type === 'reference_definition' && t.level === 0);
    fc.assert(
      fc.property(documents, (src) => {
        expect(blockParsed(portWithoutTopTokens, src)).toEqual(blockParsed(stock, src, notTopDefinition));
        expect(blockParsed(port, src)).toEqual(blockParsed(stock, src));
      }),
      { numRuns: 1000 },
    );
    // Some were left out, and a quoted one kept (the property above would hold of a rule that pushed none).
    const src = '[a]: /u\n\n> [b]: /v\n';
    const definitions = (md: Md): number => (blockParsed(md, src) as { tokens: { type: string }[] }).tokens.filter((t) => t.type === 'reference_definition').length;
    expect(definitions(stock)).toBe(2);
    expect(definitions(port)).toBe(2);
    expect(definitions(portWithoutTopTokens)).toBe(1);
  });

  it('writes definitions out when they are first read, the first of each label winning, and goes on adding after a read', () => {
    const md = port;
    const env: Record<string, unknown> = {};
    expect(hasDefinitions(env)).toBe(false);
    md.block.parse('[a]: /first\n[A]: /second\n[b]: /b "t"\n', md, env, []);
    expect(hasDefinitions(env)).toBe(true);
    const references = env.references as Record<string, { href: string; title: string }>;
    expect(references.A).toEqual({ title: '', href: '/first' });
    expect('B' in references).toBe(true);
    expect('C' in references).toBe(false);
    // A later parse with the same environment (stream.ts parses a document's sections so): its
    // definitions are seen by the next read, and an earlier label still wins.
    md.block.parse('[c]: /c\n[a]: /third\n', md, env, []);
    expect(Object.keys(references)).toEqual(['A', 'B', 'C']);
    expect(references.A!.href).toBe('/first');
    expect(Object.entries(references)).toEqual([
      ['A', { title: '', href: '/first' }],
      ['B', { title: 't', href: '/b' }],
      ['C', { title: '', href: '/c' }],
    ]);
    // The inline link rule reads them as it read a plain object.
    expect(md.renderInline('[x][c] [y][a]', env)).toBe('<a href="/c">x</a> <a href="/first">y</a>');
    expect(JSON.stringify(references)).toBe('{"A":{"title":"","href":"/first"},"B":{"title":"t","href":"/b"},"C":{"title":"","href":"/c"}}');
  });

  it('writes out thousands of definitions across its runs as the stock rule keeps them', () => {
    // 3,500 definitions (runs of 1,024), every seventh repeating an earlier label with another
    // destination, read once in the middle of the document's parses and once at the end.
    const lines = Array.from({ length: 3500 }, (_, i) => (i % 7 === 6 ? `[Ref${i - 2000 > 0 ? i - 2000 : i}]: /again/${i}` : `[ref${i}]: /page/${i} "t${i % 3}"`));
    const first = lines.slice(0, 1500).join('\n');
    const rest = lines.slice(1500).join('\n');
    const stockEnv: Record<string, unknown> = {};
    stock.block.parse(first, stock, stockEnv, []);
    const env: Record<string, unknown> = {};
    port.block.parse(first, port, env, []);
    expect({ ...(env.references as object) }).toEqual({ ...(stockEnv.references as object) });
    stock.block.parse(rest, stock, stockEnv, []);
    port.block.parse(rest, port, env, []);
    expect({ ...(env.references as object) }).toEqual(stockEnv.references);
    expect(Object.keys(env.references as object)).toEqual(Object.keys(stockEnv.references as object));
    expect(Object.keys(env.references as object).length).toBeGreaterThan(3000);
  });

  it('answers hasDefinitions of environments it did not fill', () => {
    expect(hasDefinitions({ references: {} })).toBe(false);
    expect(hasDefinitions({ references: { A: { title: '', href: '/a' } } })).toBe(true);
    expect(hasDefinitions({ references: null })).toBe(false);
  });
});
