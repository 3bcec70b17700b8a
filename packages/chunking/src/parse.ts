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
import { MAX_BLOCK_DEPTH } from './flatten.js';
import { blankOut, findFrontMatter, type FrontMatter } from './front-matter.js';
import { makeConsumeLinear, micromarkEditMap } from './micromark-linear.js';

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
    let unified: typeof unifiedType, remarkParse: typeof remarkParseType, remarkGfm: typeof remarkGfmType;
    try {
      ({ unified } = require('unified') as { unified: typeof unifiedType });
      remarkParse = (require('remark-parse') as { default: typeof remarkParseType }).default;
      remarkGfm = (require('remark-gfm') as { default: typeof remarkGfmType }).default;
    } catch (error) {
      // Yarn PnP (its runtime sets process.versions.pnp): the stack is ES modules in zip
      // archives, and Node 20's require of an ES module resolves their imports with its own
      // resolver, past Yarn's loader, so unified's `./lib/index.js` is "Cannot find module".
      // No synchronous load exists there, and an await would change chunkDocument's signature.
      if (!process.versions.pnp) throw error;
      const code = (error as { code?: unknown }).code;
      throw new Error(
        `parser 'remark' cannot load under Yarn Plug'n'Play: @chunkyard/chunking requires its remark stack (unified, ES modules), and Node resolves those past Yarn's PnP loader${typeof code === 'string' ? ` (${code})` : ''}. ` +
          "Add `nodeLinker: node-modules` to .yarnrc.yml and run `yarn install`, or use the default parser 'fast'",
        { cause: error },
      );
    }
    // pruneDeepContainers first: its transform runs before remark-gfm's.
    processor = unified().use(remarkParse).use(pruneDeepContainers).use(remarkGfm);
    // micromark 4.0.3 is quadratic in the number of top-level quotes and lists without it.
    const editMap = micromarkEditMap();
    if (editMap) makeConsumeLinear(editMap);
  }
  return processor;
}

/**
 * The mdast depth below which flatten reads nothing: it converts nodes down to depth
 * MAX_BLOCK_DEPTH + 1 (a container there keeps no children), and reads the positions of that
 * depth's children (a list item's end, fitItemToChildren), so children of containers deeper
 * than this are never read.
 */
const READ_DEPTH = MAX_BLOCK_DEPTH + 2;
const CONTAINERS = new Set(['blockquote', 'list', 'listItem', 'footnoteDefinition']);

/**
 * A unified plugin whose mdast transform drops the children of block containers deeper than
 * READ_DEPTH, before remark-gfm's transforms walk the tree: its autolink-literal transform
 * recurses once per level (unist-util-visit-parents), and a quote nested 8,000 deep overflowed
 * the stack (fuzz seed 1103028, session 43: valid markdown rejected under `parser: 'remark'`).
 * flatten's blocks are the same with or without what is dropped. A worklist, not recursion.
 */
function pruneDeepContainers(this: { data(key: string): unknown; data(key: string, value: unknown): void }): void {
  const extensions = (this.data('fromMarkdownExtensions') as unknown[] | undefined) ?? [];
  this.data('fromMarkdownExtensions', [...extensions, { transforms: [pruneTree] }]);
}

function pruneTree(tree: Root): Root {
  const stack: { node: { type: string; children?: unknown[] }; depth: number }[] = [{ node: tree, depth: 0 }];
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    if (!Array.isArray(node.children)) continue;
    if (depth > READ_DEPTH && CONTAINERS.has(node.type)) {
      node.children = [];
      continue;
    }
    for (const child of node.children as { type: string; children?: unknown[] }[]) stack.push({ node: child, depth: depth + 1 });
  }
  return tree;
}

export function parse(source: string): ParsedDocument {
  const frontMatter = findFrontMatter(source);
  // Front matter is blanked rather than cut so that positions stay those of `source`.
  return { source, frontMatter, tree: remarkTree(blankOut(source, frontMatter)) };
}

/** The mdast of `markdown` (no front matter handling): remark-windows.ts parses a window at a time with it. */
export function remarkTree(markdown: string): Root {
  return remark().parse(markdown) as Root;
}
