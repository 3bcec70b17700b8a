/**
 * Stage 1 (reference route): markdown → mdast with positions, through
 * unified + remark-parse + remark-gfm. This is the parser every other block
 * producer is checked against (see `fast-blocks.conformance.test.ts`).
 */
import type { Root } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { blankOut, findFrontMatter, type FrontMatter } from './front-matter.js';

export interface ParsedDocument {
  source: string;
  frontMatter: FrontMatter | null;
  tree: Root;
}

const processor = unified().use(remarkParse).use(remarkGfm);

export function parse(source: string): ParsedDocument {
  const frontMatter = findFrontMatter(source);
  // Front matter is blanked rather than cut so that positions stay those of `source`.
  const tree = processor.parse(blankOut(source, frontMatter));
  return { source, frontMatter, tree };
}
