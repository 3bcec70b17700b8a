/**
 * For tests only: encodeWithOffsets as it was, through gpt-tokenizer's `encode`, the
 * independent reference the counter's own encoder (token-offsets.ts, token-boundaries.ts) is
 * held to: its tokens are gpt-tokenizer's (split and merges), its byte lengths its ranks'; only
 * the walk from byte to character offsets is shared (boundaryOffsets). Quadratic in the length
 * of a pre-token (tiktoken's merge loop): keep its inputs short.
 */
import bpeRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { boundaryOffsets, type EncodedText } from './token-offsets.js';

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
  return { tokens, offsets: boundaryOffsets(text, tokens, (t) => lengths[t]!) };
}
