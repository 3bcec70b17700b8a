// Chonkie's RecursiveChunker (WASM core) with a cl100k_base tokenizer object.
// @chonkiejs/core ships only a character tokenizer; named tokenizers need
// @chonkiejs/token, which downloads from the Hugging Face hub. create() also
// accepts a tokenizer object (countTokens/encode/decode/decodeBatch), so cl100k
// works offline through that. Default rules (paragraph, sentence, punctuation,
// word, token); no overlap support.
import { RecursiveChunker } from '@chonkiejs/core';
import { pkgVersion } from '../lib/pkg.mjs';
import { cl100kTokenizer } from '../lib/tokens.mjs';

export const name = 'chonkie-recursive-cl100k';
export const peer = '@chonkiejs/core';
export const version = pkgVersion(peer);
export const description =
  'RecursiveChunker.create({ chunkSize: max, tokenizer: <cl100k object> }), default rules';

/** @type {RecursiveChunker} */
let chunker;

/** @param {{ maxTokens: number }} opts */
export async function setup({ maxTokens }) {
  chunker = await RecursiveChunker.create({ chunkSize: maxTokens, tokenizer: cl100kTokenizer });
  return {
    chunkSize: maxTokens,
    rules: 'default',
    tokenizer: `cl100k_base object (gpt-tokenizer ${pkgVersion('gpt-tokenizer')})`,
    chunkWasm: pkgVersion('@chonkiejs/chunk'),
  };
}

/** @param {string} text */
export function chunk(text) {
  return chunker.chunk(text);
}

/** @param {import('@chonkiejs/core').Chunk[]} raw */
export function toChunks(raw) {
  return raw.map((c) => ({ text: c.text, start: c.startIndex, end: c.endIndex, reportedTokens: c.tokenCount }));
}
