import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { usePlainStates } from './markdown-it-states.js';

const options = { html: true, linkify: false, typographer: false } as const;
type Tokens = ReturnType<InstanceType<typeof MarkdownIt>['parse']>;
/** Tokens as plain data (own fields, children too): the classes differ, the objects must not. */
const data = (tokens: Tokens): unknown => tokens.map((t) => ({ ...t, children: t.children?.map((c) => ({ ...c })) ?? null }));

describe('usePlainStates', () => {
  const stock = new MarkdownIt('default', options);
  const plain = new MarkdownIt('default', options);
  usePlainStates(plain);
  // Every character an inline rule starts with, next to text, line breaks and block markers.
  const piece = fc.constantFrom('a', ' ', '*', '_', '**', '`', '[', ']', '(', ')', '![', '<', '>', '&amp;', '\\', '\n', '# ', '- ', '1. ', '> ', '|', '---', '~~', '[^1]', '<a>', 'http://x.y', 'é', '😀');
  const text = fc.array(piece, { maxLength: 40 }).map((p) => p.join(''));

  it("gives markdown-it's own tokens, from parse and parseInline", () => {
    fc.assert(
      fc.property(text, (src) => {
        expect(data(plain.parseInline(src, {}))).toEqual(data(stock.parseInline(src, {})));
        expect(data(plain.parse(src, {}))).toEqual(data(stock.parse(src, {})));
      }),
      { numRuns: 3000 },
    );
  });

  it("makes tokens with markdown-it's Token prototype, that render as markdown-it's do", () => {
    const [inline] = plain.parseInline('*a* [b](c) `d`', {});
    expect(inline!.children!.map((t) => t.type)).toEqual(['em_open', 'text', 'em_close', 'text', 'link_open', 'text', 'link_close', 'text', 'code_inline']);
    expect(Object.getPrototypeOf(inline!.children![0])).toBe(Object.getPrototypeOf(stock.parseInline('x', {})[0]));
    expect(plain.render('# *a* [b](c)\n')).toBe(stock.render('# *a* [b](c)\n'));
  });
});
