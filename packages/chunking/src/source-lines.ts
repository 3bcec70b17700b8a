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
  for (const c of chunks) {
    const { charStart, charEnd } = c.sourcePosition;
    const startLine = lineOf(lines, charStart) + 1;
    // The last character of the range; an empty range ends on the line it starts on.
    const endLine = charEnd > charStart ? lineOf(lines, charEnd - 1) + 1 : startLine;
    c.source = { filePath: sourceFile, startLine, endLine };
  }
}
