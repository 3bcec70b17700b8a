/**
 * Stage 2: mdast → the flattened, typed block list (see `Block` in types.ts).
 */
import type { Nodes, RootContent } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { columnAt, lineOf, lineTable, skipWhitespace, trimEndOffset, type LineTable } from './lines.js';
import type { ParsedDocument } from './parse.js';
import type { Block, BlockType } from './types.js';

const BLOCK_TYPES: Partial<Record<RootContent['type'], BlockType>> = {
  heading: 'heading',
  paragraph: 'paragraph',
  code: 'code',
  table: 'table',
  list: 'list',
  listItem: 'listItem',
  blockquote: 'blockquote',
  html: 'html',
  thematicBreak: 'thematicBreak',
  definition: 'definition',
  footnoteDefinition: 'footnoteDefinition',
};

export function flatten(doc: ParsedDocument): Block[] {
  const lines = lineTable(doc.source);
  return convertChildren(doc.tree.children, doc.source, lines, 'exact', 0, 0);
}

/**
 * The blocks of top-level `nodes` of a tree parsed from the part of `source` that starts at
 * `base` (or from text whose offset `-base` is the source's start: see remark-windows.ts), so
 * every position read is `base` on from the node's own.
 */
export function flattenNodes(nodes: readonly RootContent[], source: string, lines: LineTable, base: number): Block[] {
  return convertChildren(nodes, source, lines, 'exact', 0, base);
}

/**
 * Containers this deep keep no children: markdown-it's maxNesting (100), where the fast
 * parser's containers end likewise, so both parsers give every later stage trees of the same
 * bounded depth. Before, remark's tree went to any depth and its conversion recursed with it:
 * a quote 2,000 deep overflowed the stack (session 42's fuzz, seed 711823), valid markdown
 * rejected with a RangeError. The container's range still covers all of its text.
 */
export const MAX_BLOCK_DEPTH = 99;

type RangeMode = 'exact' | 'lines';

function childrenOf(parent: Nodes): readonly RootContent[] {
  return 'children' in parent ? (parent.children as RootContent[]) : [];
}

function convertChildren(children: readonly RootContent[], source: string, lines: LineTable, mode: RangeMode, level: number, base: number): Block[] {
  if (level > MAX_BLOCK_DEPTH) return [];
  const blocks: Block[] = [];
  for (const child of children) {
    const block = convert(child, source, lines, mode, level, base);
    if (!block) continue;
    const previous = blocks[blocks.length - 1];
    // remark lets a setext heading's position start before a link reference
    // definition that opened its paragraph; blocks must not overlap.
    if (previous && block.start < previous.end) {
      block.start = skipWhitespace(source, previous.end, block.end);
      block.startLine = lineOf(lines, block.start);
    }
    blocks.push(block);
  }
  return blocks;
}

/** The block of `node`, which stands `level` containers deep. */
function convert(node: RootContent, source: string, lines: LineTable, mode: RangeMode, level: number, base: number): Block | null {
  const type = BLOCK_TYPES[node.type];
  const pos = node.position;
  if (!type || !pos || pos.start.offset === undefined || pos.end.offset === undefined) return null;
  const nodeStart = base + pos.start.offset;
  const nodeEnd = base + pos.end.offset;
  const exactStart = skipWhitespace(source, nodeStart, nodeEnd);
  const exactEnd = trimEndOffset(source, exactStart, nodeEnd);
  if (exactEnd <= exactStart) return null;
  const startLine = lineOf(lines, exactStart);
  const endLine = lineOf(lines, exactEnd - 1);
  const start = mode === 'exact' ? exactStart : lines.starts[startLine]!;
  const block: Block = { type, start, end: exactEnd, startLine, endLine };
  switch (node.type) {
    case 'heading':
      block.depth = node.depth;
      // A setext heading's lines keep their CRLF or CR in mdast; markdown-it (the fast parser)
      // reads every line ending as `\n`, and a heading's text must not depend on the parser.
      block.text = toString(node).replace(/\r\n?/g, '\n');
      break;
    case 'code':
      block.fenced = isFenced(source, nodeStart, exactStart, lines.starts[lineOf(lines, nodeStart)]!);
      block.lang = block.fenced ? (node.lang ?? null) : null;
      break;
    case 'table': {
      const head = node.children[0];
      block.header = head ? head.children.map((cell) => toString(cell)) : [];
      break;
    }
    case 'list':
      block.ordered = node.ordered === true;
      // Items of a top-level list are packing units, so they keep exact ranges.
      block.children = convertChildren(childrenOf(node), source, lines, mode, level + 1, base);
      for (const item of block.children) item.ordered = block.ordered;
      break;
    case 'listItem':
    case 'blockquote':
    case 'footnoteDefinition':
      block.children = convertChildren(childrenOf(node), source, lines, 'lines', level + 1, base);
      if (node.type === 'listItem') fitItemToChildren(block, source, lines, mode);
      break;
    default:
      break;
  }
  return block;
}

/**
 * A list item runs from its marker to the end of its last child, as the fast parser reads it.
 * micromark's item position can start after an opening fence and end past the next item's
 * marker when the item's last block is a fence or HTML block that its container closes
 * (`- <script>` then `-  \`\`\`xml` then `- x`: session 42's fuzz, seed 817473), and the
 * chunk cut there split the fence, rejected as an invariant violation on valid markdown.
 */
function fitItemToChildren(item: Block, source: string, lines: LineTable, mode: RangeMode): void {
  const children = item.children!;
  if (children.length === 0) return;
  let end = children[0]!.end;
  for (const child of children) if (child.end > end) end = child.end;
  // The children's ranges are whole lines: the item's first line starts at its marker.
  const lineStart = children[0]!.start;
  if (lineStart < item.start) {
    item.start = mode === 'exact' ? skipWhitespace(source, lineStart, end) : lineStart;
    item.startLine = lineOf(lines, item.start);
  }
  item.end = end;
  item.endLine = lineOf(lines, end - 1);
}

/**
 * Fenced when the node opens with ``` or ~~~ after at most 3 columns of indentation. Columns,
 * not characters: a tab before the backticks is up to four (`\t````` is indented code), and
 * after a quote's `>` a tab that the marker's optional space took one column of gives the
 * content the rest (`>\t  ````` is indented code too; micromark starts the node after the tab).
 */
function isFenced(source: string, nodeStart: number, firstChar: number, lineStart: number): boolean {
  if (firstChar - nodeStart > 3) return false;
  let base = columnAt(source, lineStart, nodeStart);
  if (source.charCodeAt(nodeStart - 1) === 9 && source.charCodeAt(nodeStart - 2) === 0x3e && nodeStart - 2 >= lineStart) base = columnAt(source, lineStart, nodeStart - 2) + 2;
  else if (source.charCodeAt(nodeStart) === 9 && source.charCodeAt(nodeStart - 1) === 0x3e && nodeStart - 1 >= lineStart) base = columnAt(source, lineStart, nodeStart - 1) + 2;
  const indent = columnAt(source, lineStart, firstChar) - base;
  if (indent > 3) return false;
  const c = source.charCodeAt(firstChar);
  return (c === 96 || c === 126) && source.startsWith(c === 96 ? '```' : '~~~', firstChar);
}
