/**
 * tokenBoundaries gives the token starts gpt-tokenizer's encode gives (reference-offsets.ts), by
 * the counter's own scanner and backtracking BPE, linear where encode is quadratic (issue 15).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gptTokenizerEncodeWithOffsets } from './reference-offsets.js';
import { realDocuments } from './test-corpus.js';
import { unspacedRun } from './test-helpers.js';
import { tokenBoundaries } from './token-boundaries.js';

/** Both, as plain arrays; gpt-tokenizer departs from tiktoken on U+FEFF and U+0085 (bpe.ts), which the generators leave out. */
function both(text: string): { ours: number[]; reference: number[] } {
  const { count, offsets } = tokenBoundaries(text);
  const ref = gptTokenizerEncodeWithOffsets(text);
  return { ours: Array.from(offsets.subarray(0, count + 1)), reference: Array.from(ref.offsets) };
}

const pieces = fc.constantFrom(
  ' ', '  ', '\n', '\r\n', '\t', 'word', ' Word', "'s", "'ll", '123456', '٣٤', 'é', '日本語', '😀', '\u{1F468}\u{200D}\u{1F469}',
  '\ud800', '\udc00', '::', '!?', '```', '|', '-->', 'aaaaaaaaaaaa', 'base64+/=', 'ſ', 'ǅ', '\u00a0',
);

describe('tokenBoundaries', () => {
  it('agrees with gpt-tokenizer on the real documents of the test corpus', () => {
    for (const [name, text] of realDocuments()) {
      const { ours, reference } = both(text);
      expect(ours.length, name).toBe(reference.length);
      expect(ours, name).toEqual(reference);
    }
  });

  it('property: agrees on hostile mixes (scripts, emoji, lone surrogates, contractions, CRLF)', () => {
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 200 }), (parts) => {
        const { ours, reference } = both(parts.join(''));
        expect(ours).toEqual(reference);
      }),
      { numRuns: 400 },
    );
  });

  it('property: agrees on long unspaced runs (one pre-token of thousands of characters)', () => {
    fc.assert(
      fc.property(unspacedRun(3000), (text) => {
        const { ours, reference } = both(text);
        expect(ours).toEqual(reference);
      }),
      { numRuns: 40 },
    );
  });

  it('an empty text has no tokens', () => {
    expect(tokenBoundaries('')).toEqual({ count: 0, offsets: Int32Array.of(0) });
  });
});
