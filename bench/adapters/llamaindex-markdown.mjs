// LlamaIndex's MarkdownNodeParser: one node per heading section, no size limit.
// @llamaindex/node-parser 2.x (deprecated) only exports html/code parsers now; the
// markdown and sentence parsers live in its peer @llamaindex/core (node-parser entry).
import { MarkdownNodeParser } from '@llamaindex/core/node-parser';
import { Document } from '@llamaindex/core/schema';
import { pkgVersion } from '../lib/pkg.mjs';

export const name = 'llamaindex-markdown';
export const peer = '@llamaindex/core';
export const version = pkgVersion(peer);
export const description = 'new MarkdownNodeParser().getNodesFromDocuments([new Document({ text })]) (no size limit)';

const parser = new MarkdownNodeParser();

export async function setup() {
  return { sizeLimit: 'none', nodeParserPackage: pkgVersion('@llamaindex/node-parser') };
}

/** @param {string} text */
export function chunk(text) {
  return parser.getNodesFromDocuments([new Document({ text })]);
}

/** @param {any[]} raw */
export function toChunks(raw) {
  return raw.map((n) => ({ text: n.text, start: n.startCharIdx ?? undefined, end: n.endCharIdx ?? undefined, meta: n.metadata }));
}
