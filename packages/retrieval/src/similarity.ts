/**
 * Embedding search, the pure part: cosine similarity of a query vector against chunk
 * vectors, best first. Vectors are compared as given (no normalisation assumed).
 */

/** Cosine similarity; 0 when either vector is all zeros (no direction to compare). */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`cannot compare vectors of ${a.length} and ${b.length} dimensions`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 0;
  // Rounding can push |cos| a hair past 1 for (anti)parallel vectors.
  return Math.max(-1, Math.min(1, dot / Math.sqrt(na * nb)));
}

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
