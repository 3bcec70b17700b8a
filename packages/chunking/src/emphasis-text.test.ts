import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { emphasisOnlyText } from './emphasis-text.js';
import { parsedPlainText } from './fast-blocks.js';

const { utils } = new MarkdownIt();
const env = { env: {} };

describe('emphasisOnlyText', () => {
  // Delimiter runs of every length next to every class scanDelims tells apart: spaces (NBSP and
  // the U+2000 block too), ASCII and Unicode punctuation, symbols, letters, astral characters
  // and lone surrogates, and the dead starters (`!`, `<`, `&`) with and without their closers.
  const piece = fc.constantFrom(
    '*', '**', '***', '****', '_', '__', '___', '*_', '_*',
    'a', 'word', 'é', '1', ' ', '  ', '\u00a0', '\u2003', '\t',
    '.', ',', '"', '(', ')', '-', '#', ':', '?', '!', '<', '>', '&', ';', ']',
    '\u2014', '\u00bf', '\u00a9', '$', '\ud83d\ude00', '\ud835\udc00', '\ud83d', '\ude00', '\u{1f4a9}',
    'x*', '*x', '_x_', 'snake_case', '\u3001', '\u0300',
  );
  const inline = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''));

  it('gives markdown-it\'s own plain text wherever it answers', () => {
    let answered = 0;
    let runs = 0;
    fc.assert(
      fc.property(inline, (src) => {
        runs++;
        const text = emphasisOnlyText(src, utils);
        if (text === null) return;
        answered++;
        expect(text).toBe(parsedPlainText(src, env));
      }),
      { numRuns: 6000 },
    );
    // Most generated texts have no live `<…>` or `&…;`: the shortcut must answer them, or the
    // comparison above proves nothing.
    expect(answered).toBeGreaterThan(runs * 0.5);
  });

  it('pairs as the rule of three and the openers\' bottoms say, on known cases', () => {
    const cases = ['*a **b** c*', '***a* b**', '*a**b*', 'a*"b"*', '_foo_bar_', '__a_b__c_', '*a _b* c_', '**a*', '*(*foo*)*', 'foo*bar*', '_ _a_ _', '* a *'];
    for (const src of cases) expect(emphasisOnlyText(src, utils)).toBe(parsedPlainText(src, env));
    expect(emphasisOnlyText('*a **b** c*', utils)).toBe('a b c');
    expect(emphasisOnlyText('snake_case_name', utils)).toBe('snake_case_name');
  });

  it('leaves texts with other live syntax to the parser', () => {
    for (const src of ['`*a*`', '\\*a*', '[a] *b*', '~~a~~', '<b>*x*</b>', '&amp; *x*', '*a*\n*b*', 'a\r*b*', 'a\0*b*']) {
      expect(emphasisOnlyText(src, utils)).toBeNull();
    }
    for (const src of ['a < b *c*', 'a > b *c*', 'AT&T *x*', 'a; *b*', 'Hi! *x*']) expect(emphasisOnlyText(src, utils)).toBe(parsedPlainText(src, env));
  });

  it('reads a long heading of emphasis in time linear in it', () => {
    // Nested and unmatched runs at scale, checked against the parser once: the pairing must not
    // look back past spans already paired (the jumps) nor past the openers' bottoms.
    const words = Array.from({ length: 20_000 }, (_, i) => ['*a*', '**b', '_c_', '***d**', 'e*', '*f', '__g__'][i % 7]).join(' ');
    expect(emphasisOnlyText(words, utils)).toBe(parsedPlainText(words, env));
  });

  it('gives Latin-1 text as a one-byte string, and any other as it is', () => {
    // V8's serializer tags a one-byte string `"` and a two-byte one `c` (after its two header bytes).
    const oneByte = (text: string): boolean => v8.serialize(text)[2] === 0x22;
    expect(oneByte('plain')).toBe(true);
    expect(oneByte('\u2014')).toBe(false);
    // Past about a megabyte Node makes the text of a UTF-16LE buffer an external two-byte string.
    const latin = emphasisOnlyText('*word* and **caf\u00e9** '.repeat(100_000), utils)!;
    expect(latin).toBe('word and caf\u00e9 '.repeat(100_000));
    expect(oneByte(latin)).toBe(true);
    const wide = emphasisOnlyText('*word* \u2014 **x** \ud83d'.repeat(100_000), utils)!;
    expect(wide).toBe('word \u2014 x \ud83d'.repeat(100_000));
    expect(oneByte(wide)).toBe(false);
  });
});
