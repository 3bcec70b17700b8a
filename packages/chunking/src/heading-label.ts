/**
 * A heading's label: the text records carry for it (`headerPath`, `sectionTitle`,
 * `headerBreadcrumb`, the slugs, `fileTitle`). Every record under a heading repeats its label, so
 * an unbounded label makes the output grow with (heading length × chunks under it): a 200 KB
 * heading, which is valid markdown, made some 800 MB of records and failed with `Invalid string
 * length` (issue 15). The chunk texts still hold the whole heading; only the label is bounded.
 */

import { isWhitespaceCode } from './lines.js';

/** The longest label, in UTF-16 code units (the `…` included). Real headings stay far below it. */
export const HEADING_LABEL_MAX = 256;

/**
 * `text` itself when it has at most HEADING_LABEL_MAX code units; otherwise its longest prefix
 * of whole words that fits with the `…` after it (or, when the first word alone is longer, as
 * much of it, never half a surrogate pair), then `…`. A label is its own label, so applying it
 * twice (a title derived, then passed on) changes nothing.
 */
export function headingLabel(text: string): string {
  if (text.length <= HEADING_LABEL_MAX) return text;
  let end = HEADING_LABEL_MAX - 1;
  // Cut at the last space within the limit when the next character does not start a word.
  if (!isSpace(text.charCodeAt(end))) {
    let space = end;
    while (space > 0 && !isSpace(text.charCodeAt(space - 1))) space--;
    if (space > 0) end = space;
  }
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
  // A lone high surrogate would make the label invalid UTF-16 (and its JSON an escape).
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

function isSpace(c: number): boolean {
  return isWhitespaceCode(c) || c === 0xa0;
}
