/**
 * encodeWithOffsets: gpt-tokenizer's ids and token boundaries (tiktoken's where the two
 * differ), from the counter's own scanner and BPE, in time linear in a pre-token where
 * gpt-tokenizer's `encode` is quadratic (issue 15).
 */
import fc from 'fast-check';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { gptTokenizerEncodeWithOffsets } from './reference-offsets.js';
import { seededText, unspacedRun } from './test-helpers.js';
import { tokenBoundaries } from './token-boundaries.js';
import { encodeWithOffsets } from './token-offsets.js';
import { countTokens } from './tokens.js';

// gpt-tokenizer's encode, still itself, but watched: encodeWithOffsets must not go through it.
vi.mock('gpt-tokenizer/encoding/cl100k_base', async (importOriginal) => {
  const mod = await importOriginal<typeof import('gpt-tokenizer/encoding/cl100k_base')>();
  return { ...mod, encode: vi.fn(mod.encode) };
});

// Fixed seeds: a property that fails must fail on every run, not one run in fifty.
fc.configureGlobal({ seed: 20261124 });

const tiktoken = get_encoding('cl100k_base');
afterAll(() => tiktoken.free());

/** Both, as plain arrays. */
function both(text: string): { ours: { tokens: number[]; offsets: number[] }; reference: { tokens: number[]; offsets: number[] } } {
  const o = encodeWithOffsets(text);
  const r = gptTokenizerEncodeWithOffsets(text);
  return { ours: { tokens: o.tokens, offsets: Array.from(o.offsets) }, reference: { tokens: r.tokens, offsets: Array.from(r.offsets) } };
}

// gpt-tokenizer departs from tiktoken on U+FEFF and U+0085 (bpe.ts): left out here, checked against tiktoken below.
const pieces = fc.constantFrom(
  ' ', '  ', '\n', '\r\n', '\t', 'word', ' Word', "'s", "'ll", '123456', '٣٤', 'é', '日本語', '😀', '\u{1F468}\u{200D}\u{1F469}',
  '\ud800', '\udc00', '::', '!?', '```', '|', '-->', 'aaaaaaaaaaaa', 'base64+/=', 'ſ', 'ǅ', '\u00a0', '<|endoftext|>', '>>>>>>>>>>',
);

describe('encodeWithOffsets', () => {
  it('property: the ids and boundaries of gpt-tokenizer on hostile mixes (scripts, emoji, lone surrogates, contractions, CRLF)', () => {
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 200 }), (parts) => {
        const { ours, reference } = both(parts.join(''));
        expect(ours).toEqual(reference);
      }),
      { numRuns: 400 },
    );
  });

  it('property: the same on long unspaced runs (one pre-token of thousands of characters) between words', () => {
    fc.assert(
      fc.property(unspacedRun(3000), fc.array(pieces, { maxLength: 8 }), (run, around) => {
        const { ours, reference } = both(`${around.join('')}${run}${around.reverse().join('')}`);
        expect(ours).toEqual(reference);
      }),
      { numRuns: 40 },
    );
  });

  it("tiktoken's ids where gpt-tokenizer departs from them (the BOM, NEL)", () => {
    for (const text of ['\ufeff', ' \ufeff', '\ufeffabc', 'a\u0085b', ' \u0085\n', 'x\ufeff\u0085 y']) {
      expect(encodeWithOffsets(text).tokens, JSON.stringify(text)).toEqual(Array.from(tiktoken.encode(text, [], [])));
    }
  });

  it("does not go through gpt-tokenizer's encode, whose merge loop is quadratic in a pre-token", () => {
    // 200 KB of one unspaced run: encode took seconds on 100 KB, and never finished on 1 MB.
    const run = seededText('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/', 200_000, 7);
    vi.mocked(encode).mockClear();
    const { tokens, offsets } = encodeWithOffsets(run);
    expect(vi.mocked(encode)).not.toHaveBeenCalled();
    // The same tokens as the counter and token-window's boundaries, which are linear too.
    expect(tokens.length).toBe(countTokens(run));
    const b = tokenBoundaries(run);
    expect(Array.from(offsets)).toEqual(Array.from(b.offsets.subarray(0, b.count + 1)));
  });

  it('an empty text has no tokens', () => {
    expect(encodeWithOffsets('')).toEqual({ tokens: [], offsets: Int32Array.of(0) });
  });
});

describe('encodeWithOffsets names a text that is not a string (session 59 probe)', () => {
  it('refuses a number (no tokens and no error before), undefined, null and bytes; takes a String object as its string', () => {
    for (const [bad, shown] of [
      [5, '5'],
      [undefined, 'undefined'],
      [null, 'null'],
      [{ length: 3 }, 'an object'],
    ] as const) {
      expect(() => encodeWithOffsets(bad as never)).toThrow(new TypeError(`encodeWithOffsets: text must be a string, got ${shown}`));
    }
    expect(() => encodeWithOffsets(Buffer.from('ab') as never)).toThrow(/^encodeWithOffsets: text must be a string, got a Buffer of 2 bytes/);
    expect(encodeWithOffsets(new String('ab 🙂') as never)).toEqual(encodeWithOffsets('ab 🙂'));
  });
});
