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

/** A value as an error message shows it: a string quoted and cut short (escaped: it may reach a terminal), anything else not a number by its type. */
export function shownValue(v: unknown): string {
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (v === null || v === undefined || typeof v === 'boolean') return String(v);
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/**
 * `v` when it is a count a caller may ask for: a whole number 0..2^53 − 1. `name` is the
 * option as the caller knows it. NaN, Infinity, negatives, fractions and non-numbers were
 * taken as they fell out of slice(): NaN or "abc" as 0 (nothing found, silently), 1.5 as 1,
 * Infinity as all.
 */
export function checkCount(name: string, v: number): number {
  if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer (0..2^53 − 1), got ${shownValue(v)}`);
  return v;
}

/**
 * The `n` best `items` by cosine similarity to `query`, ties in input order. `n` is a whole
 * number 0..2^53 − 1 (checkCount); more than there are items returns them all, in time and
 * memory of the items, not of `n`.
 */
export function rankBySimilarity<T>(query: Float32Array, items: readonly { ref: T; vector: Float32Array }[], n: number): Scored<T>[] {
  checkCount('n', n);
  return items
    .map((it, i) => ({ ref: it.ref, score: cosine(query, it.vector), i }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, n)
    .map(({ ref, score }) => ({ ref, score }));
}
