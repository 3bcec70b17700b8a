import fc from 'fast-check';
import { countTokens as gptCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { bpeTokenCount } from './bpe.js';

const tiktoken = get_encoding('cl100k_base');
afterAll(() => tiktoken.free());
const reference = (text: string): number => tiktoken.encode(text, [], []).length;

// Single pre-tokens of every kind: words with and without a leading space,
// punctuation runs, digits, whitespace runs, non-Latin words, the BOM.
const pieces = fc.constantFrom(
  'hello', ' world', ' internationalization', 'Ünïcödé', ' 日本語', '```', ');\n', '123', '   ', '\n\n', '😀', ' \ufeff', '\ufeff', '\ufeffabc',
  ' pneumonoultramicroscopicsilicovolcanoconiosis', "'ll", ' ((((', 'ℵ₀', '\u0085',
);

describe('bpeTokenCount', () => {
  it('counts single pre-tokens as tiktoken does, the BOM included', () => {
    expect(bpeTokenCount('\ufeff')).toBe(1); // rank 3305, which gpt-tokenizer misses
    expect(reference('\ufeff')).toBe(1);
    fc.assert(
      fc.property(pieces, (p) => {
        expect(bpeTokenCount(p)).toBe(reference(p));
      }),
      { numRuns: 200 },
    );
  });

  it('agrees with gpt-tokenizer on every pre-token of a real text without U+FEFF', () => {
    const text = 'The `fs.readFile()` method asynchronously reads the entire contents of a file. 日本語のテキスト, naïve café 😀 1234567.';
    for (const m of text.matchAll(/'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu)) {
      expect(bpeTokenCount(m[0])).toBe(gptCount(m[0]));
    }
  });
});
