/**
 * Cosine similarity of two embeddings, compared as given (no normalisation assumed). One
 * definition for everything that compares vectors: TopicSpec's chunk/question similarities
 * (@chunkyard/spec) and the retrieval client's embedding fallback (@chunkyard/retrieval).
 */

/** Cosine of two vectors of one length; 0 when either is all zeros (no direction to compare). */
export function cosine(a: Float32Array, b: Float32Array): number {
  // Any array-like of numbers works (a plain array too); null failed reading `length`.
  if (typeof a?.length !== 'number' || typeof b?.length !== 'number') throw new TypeError('cosine: both vectors must be arrays of numbers (Float32Array)');
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
