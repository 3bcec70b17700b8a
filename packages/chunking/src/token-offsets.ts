/**
 * The cl100k encoding of a text with the UTF-16 offset of every token
 * boundary: a window may end only where a token ends and a character ends (a
 * token can hold part of a multi-byte UTF-8 character, e.g. half of an emoji
 * or of a CJK character).
 *
 * The ids are cl100k ranks, as gpt-tokenizer's `encode` returns them, from the
 * counter's own pre-token scanner (cl100k-count.ts) and BPE (bpe.ts). `encode`
 * merges each pre-token with tiktoken's loop, quadratic in its length: one
 * unspaced run of 100 KB took seconds (issue 15); the backtracking encoder
 * takes about the run's length. Special-token text such as `<|endoftext|>` is
 * ordinary text. Where gpt-tokenizer departs from tiktoken (U+FEFF, U+0085: see
 * bpe.ts), these are tiktoken's tokens.
 */
import { bpeTokenIdsInto } from './bpe.js';
import { nextPreTokenEnd } from './cl100k-count.js';
import { mergeTable } from './cl100k-merges.js';
import { sourceText } from './options.js';

export interface EncodedText {
  tokens: number[];
  /**
   * `offsets[i]` = UTF-16 offset where token `i` starts (`offsets[n]` = text
   * length), or -1 when that boundary falls inside a character.
   */
  offsets: Int32Array;
}

export function encodeWithOffsets(given: string): EncodedText {
  // A number gave no tokens and no error (the loop read its undefined length as no text), and
  // undefined threw "Cannot read properties of undefined (reading 'length')".
  const text = sourceText(given, 'encodeWithOffsets', 'text');
  const tokens: number[] = [];
  for (let a = 0; a < text.length; ) {
    const b = nextPreTokenEnd(text, a, text.length);
    bpeTokenIdsInto(text, a, b, tokens);
    a = b;
  }
  const { info } = mergeTable();
  return { tokens, offsets: boundaryOffsets(text, tokens, (t) => info[t << 2]!) };
}

/**
 * The UTF-16 offset where each of `tokens` (a text's tokens, in order, `byteLength(t)` UTF-8
 * bytes each) starts, and the text's length after the last: -1 for a boundary inside a
 * character (a token can hold part of one). Lone surrogates count as U+FFFD, 3 bytes.
 */
export function boundaryOffsets(text: string, tokens: readonly number[], byteLength: (token: number) => number): Int32Array {
  const offsets = new Int32Array(tokens.length + 1);
  let bytes = 0;
  // The character walk: `charBytes` UTF-8 bytes lie before UTF-16 offset `char`.
  let char = 0;
  let charBytes = 0;
  for (let i = 0; i < tokens.length; i++) {
    bytes += byteLength(tokens[i]!);
    while (charBytes < bytes && char < text.length) {
      const c = text.charCodeAt(char);
      if (c < 0x80) {
        charBytes += 1;
        char += 1;
      } else if (c < 0x800) {
        charBytes += 2;
        char += 1;
      } else if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(char + 1) & 0xfc00) === 0xdc00) {
        charBytes += 4;
        char += 2;
      } else {
        // BMP character, or a lone surrogate (encoded as U+FFFD, also 3 bytes).
        charBytes += 3;
        char += 1;
      }
    }
    offsets[i + 1] = charBytes === bytes ? char : -1;
  }
  return offsets;
}
