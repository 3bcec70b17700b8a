/**
 * Neighbour expansion (seed 004): a retrieved chunk joined with the chunks
 * around it, separated by `[CHUNK BOUNDARY]` lines. Where neighbours overlap
 * (token-window's 100 tokens, semantic's repeated sentences) the shared text
 * is shown once, at the end of the earlier chunk, by cutting the later
 * chunk's text where the earlier one's source range ends.
 */
import { shownValue } from './options.js';

export const CHUNK_BOUNDARY = '[CHUNK BOUNDARY]';

/** What expansion needs of a chunk: any chunk record (or a stored row shaped like one). */
export interface Expandable {
  originalText: string;
  sourcePosition: { charStart: number; charEnd: number };
}

/**
 * Chunk `index` with up to `k` chunks on each side (fewer at the ends of the
 * document), in document order. `chunks` must be one document's chunks in
 * order; an index outside them is an error rather than an empty string, so a
 * stale index cannot go unnoticed, and so is a neighbour that cannot follow the
 * row before it (rows in a search result's order, or of two documents): a
 * RangeError saying which row.
 */
export function expandNeighbors(chunks: readonly Expandable[], index: number, k = 1): string {
  if (!Array.isArray(chunks)) throw new TypeError(`expandNeighbors: chunks must be an array of chunk records, got ${shownValue(chunks)}`);
  // The values as given: an index or k of "1" was shown as 1, so "no chunk 0 (have 1)" and
  // "k must be an integer >= 0, got 1" read as if the function were wrong.
  if (typeof index !== 'number' || !Number.isInteger(index)) throw new TypeError(`expandNeighbors: index must be an integer, got ${shownValue(index)}`);
  if (index < 0 || index >= chunks.length) throw new RangeError(`expandNeighbors: no chunk ${shownValue(index)} (have ${chunks.length})`);
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 0) throw new RangeError(`expandNeighbors: k must be an integer >= 0, got ${shownValue(k)}`);
  const parts: string[] = [];
  let shownEnd = -1;
  for (let i = Math.max(0, index - k); i <= Math.min(chunks.length - 1, index + k); i++) {
    const c = chunks[i]!;
    // A row of another shape (LangChain's Document keeps the offsets in metadata) threw
    // "Cannot destructure property 'charStart' of 'c.sourcePosition' as it is undefined".
    if (!isExpandable(c)) {
      throw new TypeError(`expandNeighbors: chunks[${i}] must have originalText (a string) and sourcePosition.charStart/charEnd (numbers), got ${shownValue(c)}`);
    }
    const { charStart, charEnd } = c.sourcePosition;
    if (i > Math.max(0, index - k)) outOfOrder(chunks[i - 1] as Expandable, c, i);
    let text = c.originalText;
    // A rebuilt piece of a split code block or table is not a source slice (its
    // length gives it away) and never overlaps its neighbours: it is shown whole.
    if (shownEnd > charStart && charEnd - charStart === text.length) {
      text = text.slice(Math.min(text.length, shownEnd - charStart));
    }
    if (parts.length) parts.push(CHUNK_BOUNDARY);
    parts.push(text);
    shownEnd = Math.max(shownEnd, charEnd);
  }
  return parts.join('\n');
}

/**
 * Refuses a row that cannot follow the one before it in one document's chunks: rows in a search
 * result's order (or a result's hits sorted, with the chunks between them missing) gave other
 * chunks than the neighbours, and cut their text at the wrong place, with nothing said. Where
 * both rows carry `chunkNumber` (every chunk record does) the row must be the next chunk, of a
 * document as long (`sourcePosition.totalChars`); a row without must start no earlier in the
 * source than the one before it. (By number, not offset, where there is one: a hierarchical
 * section starts, by its overlap, before the last snippet of the section it follows.)
 */
function outOfOrder(before: Expandable, c: Expandable, i: number): void {
  const fault = (why: string): never => {
    throw new RangeError(
      `expandNeighbors: chunks must be one document's chunks in document order (all of them, e.g. sorted by chunkNumber), but chunks[${i}] ${why}`,
    );
  };
  const p = before.sourcePosition as Expandable['sourcePosition'] & { totalChars?: unknown };
  const q = c.sourcePosition as Expandable['sourcePosition'] & { totalChars?: unknown };
  if (typeof p.totalChars === 'number' && typeof q.totalChars === 'number' && p.totalChars !== q.totalChars) {
    fault(`is of a document of ${q.totalChars} characters, chunks[${i - 1}] of one of ${p.totalChars}`);
  }
  const m = (before as { chunkNumber?: unknown }).chunkNumber;
  const n = (c as { chunkNumber?: unknown }).chunkNumber;
  if (typeof m === 'number' && typeof n === 'number') {
    if (n !== m + 1) fault(`is chunk ${shownValue(n)}, not the one after chunks[${i - 1}] (chunk ${shownValue(m)})`);
  } else if (q.charStart < p.charStart) {
    fault(`starts at ${q.charStart}, before chunks[${i - 1}] (at ${p.charStart})`);
  }
}

function isExpandable(c: unknown): c is Expandable {
  if (typeof c !== 'object' || c === null) return false;
  const { originalText, sourcePosition: p } = c as Partial<Expandable>;
  return typeof originalText === 'string' && typeof p === 'object' && p !== null && typeof p.charStart === 'number' && typeof p.charEnd === 'number';
}
