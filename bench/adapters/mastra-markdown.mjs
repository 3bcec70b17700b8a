// Mastra's 'markdown' chunking strategy on MDocument.fromMarkdown, sized in exact cl100k
// tokens (the harness's length function), overlap 10% of the target, addStartIndex for
// offsets. @mastra/rag 2.x declares node >= 22.13; the strategies used here run on
// Node 20 (see the peer notes).
// Its default separators are regexes; a split drops the matched heading marker and
// merged pieces are re-joined with the regex source (`#{1,6}`): the harness's
// verbatim and offset columns show it.
import { MDocument } from '@mastra/rag';
import { pkgVersion } from '../lib/pkg.mjs';
import { countTokens } from '../lib/tokens.mjs';

export const name = 'mastra-markdown';
export const peer = '@mastra/rag';
export const version = pkgVersion(peer);
export const description = "MDocument.fromMarkdown(text).chunk({ strategy: 'markdown', maxSize: max, overlap: round(target/10), lengthFunction: cl100k, addStartIndex: true })";

/** @type {Record<string, unknown>} */
let options = {};

/** @param {{ maxTokens: number, targetTokens: number }} opts */
export async function setup({ maxTokens, targetTokens }) {
  options = { strategy: 'markdown', maxSize: maxTokens, overlap: Math.round(targetTokens / 10), lengthFunction: countTokens, addStartIndex: true };
  return { ...options, lengthFunction: 'cl100k (gpt-tokenizer)', core: pkgVersion('@mastra/core') };
}

/** @param {string} text */
export function chunk(text) {
  return MDocument.fromMarkdown(text).chunk(/** @type {any} */ (options));
}

/** @param {any[]} raw */
export function toChunks(raw) {
  return raw.map((d) => {
    const start = d.metadata?.startIndex;
    return { text: d.text, start: typeof start === 'number' && start >= 0 ? start : undefined, meta: d.metadata };
  });
}
