/**
 * The blocks of a flat document, read line by line without markdown-it: a document whose every
 * line is blank, plain paragraph text, an ATX heading of plain text, the underline of a setext
 * heading of plain text, or a thematic break. Such documents are the block-dense ones (a heading
 * or a paragraph per line: 170,000–200,000 blocks per MB), where markdown-it's state, its line
 * marks and its rule chain per line were most of the parse (issue 15: 25–30 ms of about 100 per
 * MB of tiny headings or tiny paragraphs, against 7 ms to make the blocks themselves).
 *
 * Anything else, including what only might start another block, sends the whole document back
 * to markdown-it (null): a tab in the indentation, a line indented four columns outside a
 * paragraph, a first character that is not a letter, a non-ASCII character or `#` (a digit, a
 * list marker, `>`, a fence, `<`, `[`, `|`, …), a `-`/`=` line that neither underlines a
 * paragraph nor is a thematic break, a `*` or `_` line that is no thematic break, a heading text
 * with inline syntax that `inlineText` does not read (a `[`), and any `|` at all (a table's
 * header row). What this path accepts, markdown-it's rules read as paragraphs, headings and
 * thematic breaks only, and the blocks are made by the functions fast-blocks' own rules make them
 * with (direct-blocks).
 */
import { atxHeadingLine, headingBlock, leafBlock, paragraphBlock, type InlineText } from './direct-blocks.js';
import { BlockArray } from './fast-lists.js';
import type { LineTable } from './lines.js';
import type { Block } from './types.js';

/** atxHeadingLine's text range, reused (one object, not one per heading). */
const textRange = { pos: 0, max: 0 };

/**
 * The blocks of `src` (markdown-it's text of `source`: front matter blanked, no CR and no NUL,
 * so that its lines are those of `lines`), or null when it is not flat. `inlineText` reads a
 * heading's text with inline syntax (fast-blocks' directInlineText); without it such a heading
 * sends the document back.
 */
export function flatBlocks(src: string, source: string, lines: LineTable, inlineText: InlineText | null = null): Block[] | null {
  if (src.includes('|')) return null;
  const { starts, ends } = lines;
  const count = starts.length;
  const blocks = new BlockArray(count);
  // The open paragraph's first and last lines (-1: none), and where its first line's text starts.
  let first = -1;
  let last = -1;
  let firstText = 0;
  for (let line = 0; line < count; line++) {
    const lineEnd = ends[line]!;
    let p = starts[line]!;
    while (p < lineEnd && src.charCodeAt(p) === 0x20) p++;
    if (p === lineEnd) {
      if (first >= 0 && !closeParagraph(blocks, source, lines, first, last)) return null;
      first = -1;
      continue;
    }
    const c = src.charCodeAt(p);
    if (c === 0x09) return null;
    // Indented four columns or more: a paragraph's continuation, else indented code.
    if (p - starts[line]! >= 4) {
      if (first < 0) return null;
      last = line;
      continue;
    }
    if (c === 0x23) {
      const depth = atxHeadingLine(src, p, lineEnd, textRange);
      if (depth > 0) {
        if (first >= 0 && !closeParagraph(blocks, source, lines, first, last)) return null;
        first = -1;
        const heading = headingBlock(source, lines, src, line, line, depth, textRange.pos, textRange.max, inlineText);
        if (heading === null) return null;
        blocks.push(heading, line);
        continue;
      }
    } else if ((c === 0x2d || c === 0x3d) && first >= 0 && isUnderline(src, p, lineEnd, c)) {
      // The underline of a paragraph: its lines are the heading's text.
      const heading = headingBlock(source, lines, src, first, line, c === 0x3d ? 1 : 2, firstText, ends[last]!, inlineText);
      if (heading === null) return null;
      blocks.push(heading, first);
      first = -1;
      continue;
    } else if (c === 0x2d || c === 0x2a || c === 0x5f) {
      // A thematic break (which ends a paragraph), else a list item or text that may be one.
      if (!isThematicBreak(src, p, lineEnd, c)) return null;
      if (first >= 0 && !closeParagraph(blocks, source, lines, first, last)) return null;
      first = -1;
      const rule = leafBlock('thematicBreak', source, lines, line, line);
      if (rule === null) return null;
      blocks.push(rule, line);
      continue;
    } else if (c === 0x3d) {
      return null;
    } else if (!(c >= 0x80 || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a))) {
      return null;
    }
    if (first < 0) {
      first = line;
      firstText = p;
    }
    last = line;
  }
  if (first >= 0 && !closeParagraph(blocks, source, lines, first, last)) return null;
  return blocks.toArray();
}

function closeParagraph(blocks: BlockArray, source: string, lines: LineTable, first: number, last: number): boolean {
  const paragraph = paragraphBlock(source, lines, first, last);
  if (paragraph === null) return false;
  blocks.push(paragraph, first);
  return true;
}

/** markdown-it's thematic break rule on `src[pos, end)`: three or more of `c`, with only spaces and tabs between and after. */
function isThematicBreak(src: string, pos: number, end: number, c: number): boolean {
  let count = 0;
  for (; pos < end; pos++) {
    const d = src.charCodeAt(pos);
    if (d === c) count++;
    else if (d !== 0x20 && d !== 0x09) return false;
  }
  return count >= 3;
}

/** markdown-it's setext underline: `c` repeated from `pos`, then only spaces and tabs to `end`. */
function isUnderline(src: string, pos: number, end: number, c: number): boolean {
  while (pos < end && src.charCodeAt(pos) === c) pos++;
  while (pos < end && (src.charCodeAt(pos) === 0x20 || src.charCodeAt(pos) === 0x09)) pos++;
  return pos >= end;
}
