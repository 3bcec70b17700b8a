// LlamaIndex's SentenceSplitter with its default tokenizer (cl100k via gpt-tokenizer when
// installed, which bench/package.json pins to 2.x: @llamaindex/env loads its main export,
// cl100k_base in 2.x). Very slow on long files (see the peer notes): expect ~1 min a pass.
import { SentenceSplitter } from '@llamaindex/core/node-parser';
import { Document } from '@llamaindex/core/schema';
import { pkgVersion } from '../lib/pkg.mjs';

export const name = 'llamaindex-sentence';
export const peer = '@llamaindex/core';
export const version = pkgVersion(peer);
export const description = 'new SentenceSplitter({ chunkSize: max, chunkOverlap: round(target/10) }), default tokenizer';

/** @type {SentenceSplitter} */
let splitter;

/** @param {{ maxTokens: number, targetTokens: number }} opts */
export async function setup({ maxTokens, targetTokens }) {
  const chunkOverlap = Math.round(targetTokens / 10);
  splitter = new SentenceSplitter({ chunkSize: maxTokens, chunkOverlap });
  return { chunkSize: maxTokens, chunkOverlap, tokenizer: `default (gpt-tokenizer ${pkgVersion('gpt-tokenizer')})` };
}

/** @param {string} text */
export function chunk(text) {
  return splitter.getNodesFromDocuments([new Document({ text })]);
}

/** @param {any[]} raw */
export function toChunks(raw) {
  return raw.map((n) => ({ text: n.text, start: n.startCharIdx ?? undefined, end: n.endCharIdx ?? undefined }));
}
