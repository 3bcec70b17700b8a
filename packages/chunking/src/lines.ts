/**
 * Line table of a source string. Lines end at `\n`, `\r\n` or a lone `\r`, as in
 * CommonMark; `lineEnd` excludes the line break.
 */
export interface LineTable {
  /**
   * Typed, and sized once after counting the breaks: arrays grown by `push` over every line
   * were a third of the allocation on a document of tiny lines (issue 15). A JS string is
   * shorter than 2^31, so offsets fit.
   */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
}

export function lineTable(source: string): LineTable {
  if (!source.includes('\r')) {
    // Only `\n` breaks: let indexOf find them (much faster than a char loop), once to count
    // them and once to fill the table.
    let breaks = 0;
    for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) breaks++;
    const starts = new Int32Array(breaks + 1);
    const ends = new Int32Array(breaks + 1);
    let line = 0;
    for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) {
      ends[line++] = i;
      starts[line] = i + 1;
    }
    ends[line] = source.length;
    return { starts, ends };
  }
  let breaks = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 10 || c === 13) {
      breaks++;
      if (c === 13 && source.charCodeAt(i + 1) === 10) i++;
    }
  }
  const starts = new Int32Array(breaks + 1);
  const ends = new Int32Array(breaks + 1);
  let line = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 10 || c === 13) {
      ends[line++] = i;
      if (c === 13 && source.charCodeAt(i + 1) === 10) i++;
      starts[line] = i + 1;
    }
  }
  ends[line] = source.length;
  return { starts, ends };
}

/** Index of the line holding `offset` (binary search). */
export function lineOf(table: LineTable, offset: number): number {
  const { starts } = table;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export function isWhitespaceCode(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11;
}

/** First offset in `[start, end)` holding a non-whitespace character, or `end`. */
export function skipWhitespace(source: string, start: number, end: number): number {
  let i = start;
  while (i < end && isWhitespaceCode(source.charCodeAt(i))) i++;
  return i;
}

/** One past the last non-whitespace character in `[start, end)`, or `start`. */
export function trimEndOffset(source: string, start: number, end: number): number {
  let i = end;
  while (i > start && isWhitespaceCode(source.charCodeAt(i - 1))) i--;
  return i;
}
