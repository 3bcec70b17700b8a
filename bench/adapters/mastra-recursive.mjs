// Mastra's 'recursive' chunking strategy on MDocument.fromMarkdown, sized in exact cl100k
// tokens (the harness's length function), overlap 10% of the target, addStartIndex for
// offsets. @mastra/rag 2.x declares node >= 22.13; the strategies used here run on
// Node 20 (see the peer notes).
import { MDocument } from '@mastra/rag';
import { pkgVersion } from '../lib/pkg.mjs';
import { countTokens } from '../lib/tokens.mjs';

export const name = 'mastra-recursive';
export const peer = '@mastra/rag';
export const version = pkgVersion(peer);
export const description = "MDocument.fromMarkdown(text).chunk({ strategy: 'recursive', maxSize: max, overlap: round(target/10), lengthFunction: cl100k, addStartIndex: true })";

/** @type {Record<string, unknown>} */
let options = {};

/** @param {{ maxTokens: number, targetTokens: number }} opts */
export async function setup({ maxTokens, targetTokens }) {
  options = { strategy: 'recursive', maxSize: maxTokens, overlap: Math.round(targetTokens / 10), lengthFunction: countTokens, addStartIndex: true };
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
