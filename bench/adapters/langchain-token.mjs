// LangChain's TokenTextSplitter: the naive fixed-window baseline, exactly `target`
// tokens per chunk. Offline: it would download its BPE ranks over HTTP at first use,
// so it gets js-tiktoken's bundled cl100k_base ranks (the same data) before the first call.
import { TokenTextSplitter } from '@langchain/textsplitters';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { pkgVersion } from '../lib/pkg.mjs';

export const name = 'langchain-token';
export const peer = '@langchain/textsplitters';
export const version = pkgVersion(peer);
export const description = "TokenTextSplitter({ encodingName: 'cl100k_base', chunkSize: target, chunkOverlap: round(target/10) }), js-tiktoken ranks";

/** @type {TokenTextSplitter} */
let splitter;

/** @param {{ targetTokens: number }} opts */
export async function setup({ targetTokens }) {
  const chunkOverlap = Math.round(targetTokens / 10);
  splitter = new TokenTextSplitter({ encodingName: 'cl100k_base', chunkSize: targetTokens, chunkOverlap });
  splitter.tokenizer = new Tiktoken(cl100k);
  return { chunkSize: targetTokens, chunkOverlap, tokenizer: `js-tiktoken ${pkgVersion('js-tiktoken')} cl100k_base (bundled ranks)` };
}

/** @param {string} text */
export function chunk(text) {
  return splitter.splitText(text);
}

/** @param {string[]} raw */
export function toChunks(raw) {
  return raw.map((t) => ({ text: t }));
}
