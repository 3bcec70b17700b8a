/**
 * Neighbour expansion (seed 004): a retrieved chunk joined with the chunks
 * around it, separated by `[CHUNK BOUNDARY]` lines. Where neighbours overlap
 * (token-window's 100 tokens, semantic's repeated sentences) the shared text
 * is shown once, at the end of the earlier chunk, by cutting the later
 * chunk's text where the earlier one's source range ends.
 */
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
 * stale index cannot go unnoticed.
 */
export function expandNeighbors(chunks: readonly Expandable[], index: number, k = 1): string {
  if (!Number.isInteger(index) || index < 0 || index >= chunks.length) {
    throw new RangeError(`expandNeighbors: no chunk ${index} (have ${chunks.length})`);
  }
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`expandNeighbors: k must be an integer >= 0, got ${k}`);
  const parts: string[] = [];
  let shownEnd = -1;
  for (let i = Math.max(0, index - k); i <= Math.min(chunks.length - 1, index + k); i++) {
    const c = chunks[i]!;
    const { charStart, charEnd } = c.sourcePosition;
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
