// Exact cl100k_base token counting for the harness and for adapters that need a
// tokenizer (gpt-tokenizer; same counts as tiktoken). Special-token text such as
// `<|endoftext|>` in a document is counted as ordinary text instead of throwing.
import {
  countTokens as countCl100k,
  decode as decodeCl100k,
  encode as encodeCl100k,
} from 'gpt-tokenizer/encoding/cl100k_base';

const PLAIN_TEXT = { disallowedSpecial: new Set() };

/** @param {string} text @returns {number} exact cl100k_base token count */
export function countTokens(text) {
  return text.length === 0 ? 0 : countCl100k(text, PLAIN_TEXT);
}

/**
 * A tokenizer object with the shape Chonkie (and similar peers) accept instead
 * of a model name: countTokens / encode / decode / decodeBatch.
 */
export const cl100kTokenizer = {
  /** @param {string} text */
  countTokens: (text) => countTokens(text),
  /** @param {string} text */
  encode: (text) => encodeCl100k(text, PLAIN_TEXT),
  /** @param {number[]} ids */
  decode: (ids) => decodeCl100k(ids),
  /** @param {number[][]} batch */
  decodeBatch: (batch) => batch.map((ids) => decodeCl100k(ids)),
};
