/**
 * GFM footnote definitions (`[^label]: text`) as markdown-it block containers, read as
 * micromark-extension-gfm-footnote reads them (remark-gfm, the reference parser): markdown-it
 * has no footnote rule, so its reference rule took `[^1]: note` as a link definition of label
 * `^1` and everything after the first line fell out of the footnote: a lazy line became a
 * paragraph of its own, and a second paragraph indented four columns (the GFM way to continue
 * a footnote) became indented code.
 *
 * The container's content starts after the label's `]:` and the spaces after it (no indented
 * code there), and goes on over blank lines and lines indented four columns, with lazy
 * paragraph lines, as a list item's does; it interrupts a paragraph. The tokens are
 * FOOTNOTE_OPEN and FOOTNOTE_CLOSE around the content's own, fast-blocks' toBlock makes the
 * `footnoteDefinition` block of them.
 */
import type { StateBlock } from 'markdown-it';
import { withEnclosingIndent } from './enclosing-indents.js';

export const FOOTNOTE_OPEN = 'footnote_definition_open';
export const FOOTNOTE_CLOSE = 'footnote_definition_close';

/** Columns of indentation that continue a footnote's content (micromark's, exactly four). */
const CONTENT_INDENT = 4;
/** micromark's longest label: it gives up past this many characters. */
const MAX_LABEL = 999;

/**
 * The position just after `]:` of a footnote label starting at `pos` (`[^`), or -1 where
 * micromark does not read one: an empty label, whitespace or `[` in it, no `:` right after
 * it, or more than MAX_LABEL characters. `\` escapes `[`, `\` and `]`.
 */
export function footnoteLabelEnd(src: string, pos: number, max: number): number {
  if (src.charCodeAt(pos) !== 0x5b || src.charCodeAt(pos + 1) !== 0x5e) return -1;
  let size = 0;
  let p = pos + 2;
  for (;;) {
    if (p >= max || size > MAX_LABEL) return -1;
    const c = src.charCodeAt(p);
    if (c === 0x5d) {
      if (size === 0) return -1;
      break;
    }
    if (c === 0x5b || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) return -1;
    size++;
    p++;
    if (c === 0x5c && p < max) {
      const next = src.charCodeAt(p);
      if (next === 0x5b || next === 0x5c || next === 0x5d) {
        size++;
        p++;
      }
    }
  }
  // p is at `]`.
  return p + 1 < max && src.charCodeAt(p + 1) === 0x3a ? p + 2 : -1;
}

/**
 * The open token's `meta` when nothing follows the label on its line: the line holds no
 * content (fast-blocks reads no definition there), and micromark makes no paragraph of it.
 */
export const LABEL_ALONE = Object.freeze({ labelAlone: true });

/** The block rule (markdown-it's signature). */
export function footnoteDefinition(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  const start = state.bMarks[startLine]! + state.tShift[startLine]!;
  const max = state.eMarks[startLine]!;
  const afterColon = footnoteLabelEnd(state.src, start, max);
  if (afterColon < 0) return false;
  if (silent) return true;

  let pos = afterColon;
  while (pos < max) {
    const c = state.src.charCodeAt(pos);
    if (c !== 0x20 && c !== 0x09) break;
    pos++;
  }
  const open = state.push(FOOTNOTE_OPEN, '', 1);
  const map: [number, number] = [startLine, startLine];
  open.map = map;
  if (pos === max) open.meta = LABEL_ALONE;

  const oldBMark = state.bMarks[startLine]!;
  const oldTShift = state.tShift[startLine]!;
  const oldSCount = state.sCount[startLine]!;
  const oldParentType = state.parentType;
  const oldBlkIndent = state.blkIndent;
  const oldListIndent = state.listIndent;
  // The first line's content starts where its text does, at the content's own indentation:
  // micromark eats every space after the marker, so that it never opens indented code.
  state.bMarks[startLine] = afterColon;
  state.tShift[startLine] = pos - afterColon;
  // Lines continue it four columns past its container's content, wherever its own label stood.
  state.blkIndent = oldBlkIndent + CONTENT_INDENT;
  state.sCount[startLine] = state.blkIndent;
  state.parentType = 'footnote' as typeof state.parentType;
  // Not a list's: markdown-it's list rule reads a line indented four columns past `listIndent`,
  // but less than blkIndent, as a lazy paragraph line rather than a new list, and the
  // footnote's blkIndent is not its list's (in `- [^1]: a` then `    - x`, micromark closes the
  // footnote and nests the list in the item).
  state.listIndent = -1;
  try {
    withEnclosingIndent(oldBlkIndent, () => state.md.block.tokenize(state, startLine, endLine));
  } finally {
    state.bMarks[startLine] = oldBMark;
    state.tShift[startLine] = oldTShift;
    state.sCount[startLine] = oldSCount;
    state.blkIndent = oldBlkIndent;
    state.listIndent = oldListIndent;
    state.parentType = oldParentType;
  }
  // An empty first line and nothing indented after it: the definition is its first line alone.
  if (state.line <= startLine) state.line = startLine + 1;
  map[1] = state.line;
  state.push(FOOTNOTE_CLOSE, '', -1);
  return true;
}
