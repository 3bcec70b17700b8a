/**
 * Embedding search, the pure part: cosine similarity of a query vector against chunk
 * vectors, best first. Vectors are compared as given (no normalisation assumed).
 */

import { cosine } from '@chunkyard/embeddings';

// One cosine for the whole project; re-exported here as part of the client's API.
export { cosine };

export interface Scored<T> {
  ref: T;
  score: number;
}

/** The `n` best `items` by cosine similarity to `query`, ties in input order. */
export function rankBySimilarity<T>(query: Float32Array, items: readonly { ref: T; vector: Float32Array }[], n: number): Scored<T>[] {
  return items
    .map((it, i) => ({ ref: it.ref, score: cosine(query, it.vector), i }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, Math.max(0, n))
    .map(({ ref, score }) => ({ ref, score }));
}
