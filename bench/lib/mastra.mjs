// The adapter behind mastra-<strategy>.mjs: @mastra/rag's MDocument.fromMarkdown(text).chunk()
// with one of its strategies, sized in exact cl100k tokens (the harness's length function),
// overlap 10% of the target, addStartIndex for offsets. @mastra/rag 2.x declares
// node >= 22.13; the strategies used here run on Node 20 (see the peer notes).
import { MDocument } from '@mastra/rag';
import { pkgVersion } from './pkg.mjs';
import { countTokens } from './tokens.mjs';

/** @param {'markdown' | 'recursive'} strategy */
export function mastraAdapter(strategy) {
  /** @type {Record<string, unknown>} */
  let options = {};
  return {
    name: `mastra-${strategy}`,
    peer: '@mastra/rag',
    version: pkgVersion('@mastra/rag'),
    description: `MDocument.fromMarkdown(text).chunk({ strategy: '${strategy}', maxSize: max, overlap: round(target/10), lengthFunction: cl100k, addStartIndex: true })`,
    /** @param {{ maxTokens: number, targetTokens: number }} opts */
    async setup({ maxTokens, targetTokens }) {
      options = { strategy, maxSize: maxTokens, overlap: Math.round(targetTokens / 10), lengthFunction: countTokens, addStartIndex: true };
      return { ...options, lengthFunction: 'cl100k (gpt-tokenizer)', core: pkgVersion('@mastra/core') };
    },
    /** @param {string} text */
    chunk(text) {
      return MDocument.fromMarkdown(text).chunk(/** @type {any} */ (options));
    },
    /** @param {any[]} raw */
    toChunks(raw) {
      return raw.map((d) => {
        const start = d.metadata?.startIndex;
        return { text: d.text, start: typeof start === 'number' && start >= 0 ? start : undefined, meta: d.metadata };
      });
    },
  };
}
