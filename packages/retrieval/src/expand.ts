/**
 * Neighbour expansion (seed 004, "[CHUNK BOUNDARY]"): a chunk with up to k chunks either
 * side, joined as seed 004 joins them (`"\n".join` around a `[CHUNK BOUNDARY]` line). Where
 * chunks overlap (sentence overlap), each later chunk's first `overlapChars` characters
 * repeat the one before, so they are shown once: dropped from the later chunk. The
 * segments then are consecutive, disjoint slices of the source (see `Expansion`).
 */
import type { ManifestChunk } from './contract.js';
import { checkCount, shownValue } from './similarity.js';

export const CHUNK_BOUNDARY = '[CHUNK BOUNDARY]';
export const BOUNDARY_SEPARATOR = `\n${CHUNK_BOUNDARY}\n`;

export interface ExpandedSegment {
  index: number;
  /** The chunk's text, minus the overlap already shown by the segment before. */
  text: string;
  /** Source range of `text` (UTF-16 offsets). */
  charStart: number;
  charEnd: number;
}

export interface Expansion {
  center: number;
  from: number;
  to: number;
  segments: ExpandedSegment[];
  /** Segments joined with BOUNDARY_SEPARATOR. */
  text: string;
}

export function expand(chunks: readonly ManifestChunk[], center: number, k: number): Expansion {
  // checkCount, as search(): Number.isInteger took 1e300 and showed a string "3" as `got 3`.
  checkCount('k', k);
  if (!Number.isInteger(center) || center < 0 || center >= chunks.length) throw new RangeError(`no chunk ${shownValue(center)} (the document has ${chunks.length})`);
  return expandRange(chunks, center, center, k);
}

/** A run of chunks first..last (a small-to-big unit) with up to k chunks either side, joined as `expand` joins them. */
export function expandRange(chunks: readonly ManifestChunk[], first: number, last: number, k: number, center = first): Expansion {
  checkCount('k', k);
  if (!Number.isInteger(first) || !Number.isInteger(last) || first < 0 || last < first || last >= chunks.length) {
    throw new RangeError(`no chunks ${shownValue(first)}..${shownValue(last)} (the document has ${chunks.length})`);
  }
  const from = Math.max(0, first - k);
  const to = Math.min(chunks.length - 1, last + k);
  const segments: ExpandedSegment[] = [];
  for (let i = from; i <= to; i++) {
    const c = chunks[i]!;
    const trim = i === from ? 0 : Math.min(c.overlapChars, c.originalText.length);
    segments.push({ index: i, text: c.originalText.slice(trim), charStart: c.sourcePosition.charStart + trim, charEnd: c.sourcePosition.charEnd });
  }
  return { center, from, to, segments, text: segments.map((s) => s.text).join(BOUNDARY_SEPARATOR) };
}
