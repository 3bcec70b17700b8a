/**
 * For tests only: encodeWithOffsets as it was, through gpt-tokenizer's `encode`, the
 * independent reference the counter's own encoder (token-offsets.ts, token-boundaries.ts) is
 * held to. Quadratic in the length of a pre-token (tiktoken's merge loop): keep its inputs short.
 */
import bpeRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import type { EncodedText } from './token-offsets.js';

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

/** gpt-tokenizer's cl100k ids of `text`, with the UTF-16 offset of every token boundary (-1 inside a character). */
export function gptTokenizerEncodeWithOffsets(text: string): EncodedText {
  const tokens = encode(text, PLAIN_TEXT);
  const lengths = tokenByteLengths();
  const offsets = new Int32Array(tokens.length + 1);
  let bytes = 0;
  let char = 0;
  let charBytes = 0;
  for (let i = 0; i < tokens.length; i++) {
    bytes += lengths[tokens[i]!]!;
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
        charBytes += 3;
        char += 1;
      }
    }
    offsets[i + 1] = charBytes === bytes ? char : -1;
  }
  return { tokens, offsets };
}
