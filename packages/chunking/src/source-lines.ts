/**
 * Seed 002's optional `source { filePath, startLine, endLine }`: the 1-based,
 * inclusive lines of the source file that a chunk's `sourcePosition` covers.
 *
 * The line table is the parse's own (one pass over the source, already built)
 * unless boilerplate was cut, when the strategy saw other text; each chunk then
 * costs two binary searches, O(n + c log lines) for the document.
 */
import { lineTable, type LineTable } from './lines.js';
import type { ChunkRecord } from './types.js';

/** Sets `source` on every record, in place. `lines` must be the line table of `source`. */
export function attachSourceLines(chunks: ChunkRecord[], source: string, sourceFile: string, lines: LineTable = lineTable(source)): void {
  const { starts } = lines;
  // Records come in document order, overlap stepping back a few sentences: each line is sought
  // from the previous answer, outward, not by a binary search over the whole table, whose
  // probes of a large table missed the cache (a document of tiny lines has a record per few
  // dozen of its hundreds of thousands of lines, issue 15).
  let at = 0;
  for (let k = 0; k < chunks.length; k++) {
    const c = chunks[k]!;
    const { charStart, charEnd } = c.sourcePosition;
    at = lineNear(starts, at, charStart);
    const startLine = at + 1;
    // The last character of the range; an empty range ends on the line it starts on.
    const endLine = charEnd > charStart ? lineNear(starts, at, charEnd - 1) + 1 : startLine;
    c.source = { filePath: sourceFile, startLine, endLine };
  }
}

/**
 * lineOf(table, offset) for a table of line starts, searched from line `from`: steps of
 * doubling size bracket the answer, then a binary search inside the bracket, O(log distance).
 */
export function lineNear(starts: Int32Array, from: number, offset: number): number {
  const n = starts.length;
  if (n === 0) return 0;
  let lo: number;
  let hi: number; // the answer lies in [lo, hi]
  if (from < n && starts[from]! <= offset) {
    lo = from;
    let step = 1;
    while (lo + step < n && starts[lo + step]! <= offset) {
      lo += step;
      step *= 2;
    }
    hi = Math.min(n - 1, lo + step - 1);
  } else {
    // The answer lies before `from`: steps of doubling size back to a line that starts at or
    // before `offset`, or to line 0 (lineOf's answer also when no line does).
    hi = Math.min(from, n) - 1;
    if (hi <= 0) return 0;
    lo = hi;
    let step = 1;
    while (lo > 0 && starts[lo]! > offset) {
      hi = lo - 1;
      lo = Math.max(0, lo - step);
      step *= 2;
    }
  }
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * lineOf without a line table, for records that stream out in order (stream.ts): the 0-based
 * line of an offset, found by counting line starts from the previous answer. Records come in
 * document order and overlap moves back only a few sentences, so a document costs about one
 * pass over its characters and no table of its lines.
 */
export class LineCursor {
  private pos = 0;
  private line = 0;
  /** The source has no `\r`: lines start only after `\n`, which indexOf finds (see lineOf). */
  private readonly feedsOnly: boolean;
  /** The first `\n` at or after `pos` (source.length: none), or -1 when not looked for since pos last moved back. */
  private nextFeed = -1;

  constructor(private readonly source: string) {
    this.feedsOnly = source.indexOf('\r') < 0;
  }

  /** A line starts at p: after `\n`, or after a `\r` that no `\n` follows. */
  private startsLine(p: number): boolean {
    const c = this.source.charCodeAt(p - 1);
    return c === 10 || (c === 13 && this.source.charCodeAt(p) !== 10);
  }

  lineOf(offset: number): number {
    let { pos, line } = this;
    if (this.feedsOnly && offset > pos) {
      // A line starts after each `\n` in [pos, offset). indexOf finds them several times faster
      // than a test of every character (which was 5% of a streamed megabyte of prose), and
      // the one it finds at or past `offset` is kept, so that no stretch is searched twice
      // (a search past the end of a megabyte line, once a record, would be quadratic).
      let k = this.nextFeed >= pos ? this.nextFeed : this.feedAt(pos);
      // (k is the source's length when no feed is left: an offset past it finds no more.)
      while (k < offset && k < this.source.length) {
        line++;
        k = this.feedAt(k + 1);
      }
      this.nextFeed = k;
      pos = offset;
    }
    while (pos < offset) {
      pos++;
      if (this.startsLine(pos)) line++;
    }
    if (pos > offset) this.nextFeed = -1;
    while (pos > offset) {
      if (this.startsLine(pos)) line--;
      pos--;
    }
    this.pos = pos;
    this.line = line;
    return line;
  }

  /** The first `\n` at or after `from`, or the source's length. */
  private feedAt(from: number): number {
    const k = this.source.indexOf('\n', from);
    return k < 0 ? this.source.length : k;
  }

  /** attachSourceLines for one record. */
  attach(c: ChunkRecord, filePath: string): void {
    const { charStart, charEnd } = c.sourcePosition;
    const startLine = this.lineOf(charStart) + 1;
    const endLine = charEnd > charStart ? this.lineOf(charEnd - 1) + 1 : startLine;
    c.source = { filePath, startLine, endLine };
  }
}
