// Template for a new adapter: copy to adapters/<name>.mjs (files starting with `_`
// are ignored). The harness calls setup() once, then chunk() once per corpus file
// inside the timed loop, then toChunks() on the last pass's outputs (not timed).
import { pkgVersion } from '../lib/pkg.mjs';
// import { cl100kTokenizer, countTokens } from '../lib/tokens.mjs'; // cl100k_base, if the tool takes a tokenizer

export const name = 'my-tool';                 // shown in the tables; keep it equal to the file name
export const peer = 'my-tool';                 // package name, for the record
export const version = pkgVersion(peer);       // or a literal
export const description = 'which API / configuration is exercised';

/** @param {{ maxTokens: number, targetTokens: number }} opts */
export async function setup({ maxTokens, targetTokens }) {
  // Build the chunker here (not timed). Return the settings used; they go into the JSON.
  return { chunkSize: maxTokens, targetTokens };
}

/**
 * Timed: return the tool's raw output for one file, sync or as a promise.
 * Do no conversion here; that belongs in toChunks().
 * @param {string} text
 * @param {{ docName: string, fileName: string }} ctx
 */
export function chunk(text, ctx) {
  return [{ content: text, offset: 0 }];
}

/**
 * Not timed: convert one file's raw output into the harness's chunk shape, in
 * document order. `text` is required; `start`/`end` are character offsets into
 * the file (UTF-16, end exclusive) if the tool gives them; `splitUnit: true`
 * marks a chunk whose text is rebuilt by design (excluded from "offsets exact").
 * @param {any} raw
 * @param {string} source the file text
 */
export function toChunks(raw, source) {
  return raw.map((/** @type {any} */ c) => ({ text: c.content, start: c.offset, end: c.offset + c.content.length }));
}
