/**
 * The cl100k encoding of a text with the UTF-16 offset of every token
 * boundary, for token-window: a window may end only where a token ends and a
 * character ends (a token can hold part of a multi-byte UTF-8 character, e.g.
 * half of an emoji or of a CJK character).
 */
import bpeRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';

// Special-token text such as `<|endoftext|>` in a document is ordinary text to us.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

let byteLengths: Uint32Array | null = null;

/** UTF-8 byte length of every cl100k token, by rank (built once, on first use). */
function tokenByteLengths(): Uint32Array {
  if (byteLengths) return byteLengths;
  const ranks = bpeRanks as readonly (string | readonly number[])[];
  const out = new Uint32Array(ranks.length);
  const encoder = new TextEncoder();
  ranks.forEach((value, rank) => {
    // A rank is a string when its bytes are valid UTF-8, else the raw bytes.
    out[rank] = typeof value === 'string' ? encoder.encode(value).length : value.length;
  });
  byteLengths = out;
  return out;
}

export interface EncodedText {
  tokens: number[];
  /**
   * `offsets[i]` = UTF-16 offset where token `i` starts (`offsets[n]` = text
   * length), or -1 when that boundary falls inside a character.
   */
  offsets: Int32Array;
}

export function encodeWithOffsets(text: string): EncodedText {
  const tokens = encode(text, PLAIN_TEXT);
  const lengths = tokenByteLengths();
  const offsets = new Int32Array(tokens.length + 1);
  let bytes = 0;
  // The character walk: `charBytes` UTF-8 bytes lie before UTF-16 offset `char`.
  let char = 0;
  let charBytes = 0;
  offsets[0] = 0;
  for (let i = 0; i < tokens.length; i++) {
    const len = lengths[tokens[i]!];
    if (len === undefined) throw new Error(`token ${tokens[i]} is not a cl100k rank`);
    bytes += len;
    while (charBytes < bytes && char < text.length) {
      const c = text.charCodeAt(char);
      if (c < 0x80) {
        charBytes += 1;
        char += 1;
      } else if (c < 0x800) {
        charBytes += 2;
        char += 1;
      } else if (c >= 0xd800 && c <= 0xdbff && isLow(text.charCodeAt(char + 1))) {
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
  return { tokens, offsets };
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
