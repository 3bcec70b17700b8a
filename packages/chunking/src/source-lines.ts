/**
 * Seed 002's optional `source { filePath, startLine, endLine }`: the 1-based,
 * inclusive lines of the source file that a chunk's `sourcePosition` covers.
 *
 * The line table is the parse's own (one pass over the source, already built)
 * unless boilerplate was cut, when the strategy saw other text; each chunk then
 * costs two binary searches, O(n + c log lines) for the document.
 */
import { lineOf, lineTable, type LineTable } from './lines.js';
import type { ChunkRecord } from './types.js';

/** Sets `source` on every record, in place. `lines` must be the line table of `source`. */
export function attachSourceLines(chunks: ChunkRecord[], source: string, sourceFile: string, lines: LineTable = lineTable(source)): void {
  for (let k = 0; k < chunks.length; k++) {
    const c = chunks[k]!;
    const { charStart, charEnd } = c.sourcePosition;
    const startLine = lineOf(lines, charStart) + 1;
    // The last character of the range; an empty range ends on the line it starts on.
    const endLine = charEnd > charStart ? lineOf(lines, charEnd - 1) + 1 : startLine;
    c.source = { filePath: sourceFile, startLine, endLine };
  }
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

  constructor(private readonly source: string) {}

  /** A line starts at p: after `\n`, or after a `\r` that no `\n` follows. */
  private startsLine(p: number): boolean {
    const c = this.source.charCodeAt(p - 1);
    return c === 10 || (c === 13 && this.source.charCodeAt(p) !== 10);
  }

  lineOf(offset: number): number {
    let { pos, line } = this;
    while (pos < offset) {
      pos++;
      if (this.startsLine(pos)) line++;
    }
    while (pos > offset) {
      if (this.startsLine(pos)) line--;
      pos--;
    }
    this.pos = pos;
    this.line = line;
    return line;
  }

  /** attachSourceLines for one record. */
  attach(c: ChunkRecord, filePath: string): void {
    const { charStart, charEnd } = c.sourcePosition;
    const startLine = this.lineOf(charStart) + 1;
    const endLine = charEnd > charStart ? this.lineOf(charEnd - 1) + 1 : startLine;
    c.source = { filePath, startLine, endLine };
  }
}
