/**
 * Stage 1 (reference route): markdown → mdast with positions, through
 * unified + remark-parse + remark-gfm. This is the parser every other block
 * producer is checked against (see `fast-blocks.conformance.test.ts`).
 *
 * The remark stack is loaded on first use (Node ≥ 20.19 can `require` ES
 * modules): the default path never needs it, and loading it costs about 0.1 s
 * at every CLI start, once per Nx topic task.
 */
import { createRequire } from 'node:module';
import type { Root } from 'mdast';
import type remarkGfmType from 'remark-gfm';
import type remarkParseType from 'remark-parse';
import type { unified as unifiedType } from 'unified';
import { blankOut, findFrontMatter, type FrontMatter } from './front-matter.js';

export interface ParsedDocument {
  source: string;
  frontMatter: FrontMatter | null;
  tree: Root;
}

/** The one method of a unified processor this stage uses. */
interface MarkdownParser {
  parse(markdown: string): unknown;
}
let processor: MarkdownParser | null = null;

function remark(): MarkdownParser {
  if (!processor) {
    const require = createRequire(import.meta.url);
    const { unified } = require('unified') as { unified: typeof unifiedType };
    const remarkParse = (require('remark-parse') as { default: typeof remarkParseType }).default;
    const remarkGfm = (require('remark-gfm') as { default: typeof remarkGfmType }).default;
    processor = unified().use(remarkParse).use(remarkGfm);
  }
  return processor;
}

export function parse(source: string): ParsedDocument {
  const frontMatter = findFrontMatter(source);
  // Front matter is blanked rather than cut so that positions stay those of `source`.
  const tree = remark().parse(blankOut(source, frontMatter)) as Root;
  return { source, frontMatter, tree };
}
