/**
 * Line table of a source string. Lines end at `\n`, `\r\n` or a lone `\r`, as in
 * CommonMark; `lineEnd` excludes the line break.
 */
export interface LineTable {
  readonly starts: number[];
  readonly ends: number[];
}

export function lineTable(source: string): LineTable {
  const starts: number[] = [0];
  const ends: number[] = [];
  if (!source.includes('\r')) {
    // Only `\n` breaks: let indexOf find them (much faster than a char loop).
    for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) {
      ends.push(i);
      starts.push(i + 1);
    }
    ends.push(source.length);
    return { starts, ends };
  }
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 10 || c === 13) {
      ends.push(i);
      if (c === 13 && source.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    }
  }
  ends.push(source.length);
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
