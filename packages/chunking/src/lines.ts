import type { BlockPool } from './block-pool.js';
/**
 * Line table of a source string. Lines end at `\n`, `\r\n` or a lone `\r`, as in
 * CommonMark; `lineEnd` excludes the line break.
 */
export interface LineTable {
  /**
   * Typed (arrays grown by `push` over every line were a third of the allocation on a document
   * of tiny lines, issue 15), and views of exactly the line count into buffers that may be
   * longer. A JS string is shorter than 2^31, so offsets fit.
   */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
}

/**
 * One pass over the breaks, into buffers doubled as they fill (a first pass to count the breaks
 * and a second to fill arrays of that size read every line twice: with `indexOf`, whose cost per
 * call is most of a 3-character line's, 2.5 ms of 1 MB of tiny lines against 1.5 ms).
 */
export function lineTable(source: string, pool: BlockPool | null = null): LineTable {
  return source.includes('\r') ? anyBreaks(source, pool) : lineFeeds(source, pool);
}

/**
 * A class, one instance of which lives as long as the module: a document's table is its only
 * one, so the hidden class of a literal (or of a class, reached by transitions V8 holds weakly)
 * died with it at a full GC between documents, deoptimizing every stage that reads `starts`
 * (shape-anchor.ts).
 */
class Lines implements LineTable {
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  constructor(starts: Int32Array, ends: Int32Array) {
    this.starts = starts;
    this.ends = ends;
  }
}
/** Keeps Lines' hidden class alive (see Lines). */
export const EMPTY_LINES: LineTable = new Lines(new Int32Array(1), new Int32Array(1));

/** A guess of a line per 64 characters (prose's lines are longer; the shapes with shorter ones double a few times). */
const initialCapacity = (source: string): number => (source.length >> 6) + 16;

/** Only `\n` breaks: indexOf finds them (much faster than a char loop on long lines). */
function lineFeeds(source: string, pool: BlockPool | null): LineTable {
  let starts = column(initialCapacity(source), pool);
  let ends = column(starts.length, pool);
  let line = 0;
  starts[0] = 0;
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) {
    if (line + 2 > starts.length) {
      const capacity = extrapolated(line, i, source.length);
      starts = grown(starts, capacity, pool);
      ends = grown(ends, capacity, pool);
    }
    ends[line++] = i;
    starts[line] = i + 1;
  }
  ends[line] = source.length;
  return linesOf(starts, ends, line + 1, pool);
}

function anyBreaks(source: string, pool: BlockPool | null): LineTable {
  let starts = column(initialCapacity(source), pool);
  let ends = column(starts.length, pool);
  let line = 0;
  starts[0] = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 10 || c === 13) {
      if (line + 2 > starts.length) {
        const capacity = extrapolated(line, i, source.length);
        starts = grown(starts, capacity, pool);
        ends = grown(ends, capacity, pool);
      }
      ends[line++] = i;
      if (c === 13 && source.charCodeAt(i + 1) === 10) i++;
      starts[line] = i + 1;
    }
  }
  ends[line] = source.length;
  return linesOf(starts, ends, line + 1, pool);
}

/**
 * A column of at least `length` entries, its contents unspecified: the pool's spare when the
 * call holds a pool (chunkDocument's own parse, whose line table nothing reads once the pool is
 * handed back), else a new one.
 */
function column(length: number, pool: BlockPool | null): Int32Array<ArrayBuffer> {
  return pool?.spareColumn(length) ?? new Int32Array(length);
}

/** The table of the first `count` lines of `starts` and `ends`, whose buffers a pool's call lends it. */
function linesOf(starts: Int32Array<ArrayBuffer>, ends: Int32Array<ArrayBuffer>, count: number, pool: BlockPool | null): LineTable {
  if (pool !== null) {
    pool.lendColumn(starts);
    pool.lendColumn(ends);
  }
  return new Lines(starts.subarray(0, count), ends.subarray(0, count));
}

/**
 * A capacity for the lines of a source of `length` characters when `lines` lines have filled
 * `at` of them: the rate so far over the whole source, and an eighth more (a tenth of the lines
 * more than that rate is a second growth, not one a doubling; on tiny lines doubling from the
 * first guess grew five times, allocating and copying twice the final size). At least double,
 * so that a source whose lines shorten as it goes still grows geometrically.
 */
function extrapolated(lines: number, at: number, length: number): number {
  const rate = Math.ceil(((lines + 2) / (at + 1)) * length * 1.125) + 16;
  return Math.max(rate, (lines + 2) * 2);
}

function grown(array: Int32Array, capacity: number, pool: BlockPool | null): Int32Array<ArrayBuffer> {
  const bigger = column(capacity, pool);
  bigger.set(array);
  return bigger;
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

/**
 * The column of `source[offset]` on the line that starts at `lineStart`: a tab advances to the
 * next multiple of four (CommonMark's tab stops), every other character one column. Where a tab
 * is only partly taken by a container marker, the parsers need the column, not the offset.
 */
export function columnAt(source: string, lineStart: number, offset: number): number {
  let column = 0;
  for (let i = lineStart; i < offset; i++) column += source.charCodeAt(i) === 9 ? 4 - (column % 4) : 1;
  return column;
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

/** Whether source[start, end) holds a character that is not JS whitespace (`\s`, what trim removes). */
export function hasNonJsSpace(source: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isJsTrimmed(source.charCodeAt(i))) return true;
  return false;
}

/** Whether String.prototype.trim removes this UTF-16 unit (ECMAScript's WhiteSpace and LineTerminator). */
export function isJsTrimmed(c: number): boolean {
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/** Whether `source.slice(start, end).trim()` is empty, without slicing. */
export function isJsBlank(source: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isJsTrimmed(source.charCodeAt(i))) return false;
  return true;
}
