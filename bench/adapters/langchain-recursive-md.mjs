// LangChain's markdown recursive splitter sized in exact cl100k tokens (the harness's
// gpt-tokenizer length function). Overlap 10% of the target, as in the peer notes.
// LangChain reports only line ranges (createDocuments' loc.lines), so the harness
// locates the chunk texts itself; splitText() is used to keep glue out of the timing.
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import { pkgVersion } from '../lib/pkg.mjs';
import { countTokens } from '../lib/tokens.mjs';

export const name = 'langchain-recursive-md';
export const peer = '@langchain/textsplitters';
export const version = pkgVersion(peer);
export const description = "RecursiveCharacterTextSplitter.fromLanguage('markdown', { chunkSize: max, chunkOverlap: round(target/10), lengthFunction: cl100k })";

/** @type {RecursiveCharacterTextSplitter} */
let splitter;

/** @param {{ maxTokens: number, targetTokens: number }} opts */
export async function setup({ maxTokens, targetTokens }) {
  const chunkOverlap = Math.round(targetTokens / 10);
  splitter = RecursiveCharacterTextSplitter.fromLanguage('markdown', { chunkSize: maxTokens, chunkOverlap, lengthFunction: countTokens });
  return { chunkSize: maxTokens, chunkOverlap, lengthFunction: 'cl100k (gpt-tokenizer)', core: pkgVersion('@langchain/core') };
}

/** @param {string} text */
export function chunk(text) {
  return splitter.splitText(text);
}

/** @param {string[]} raw */
export function toChunks(raw) {
  return raw.map((t) => ({ text: t }));
}
