/**
 * Build-time MMR by stripe ordering (seed 001 §4), exactly as SPEC.md settles the seed's
 * contradictions:
 *  - the list is every chunk except the baseline(s); N is its length;
 *  - sort by similarity to the baseline, descending, ties by chunk index ascending;
 *  - N < 8: that sorted list; else f = max(2, min(floor(N/2), ceil(sqrt(N)))) — ceil, not the
 *    seed's round(), because only ceil gives all four of its examples (8→3, 12→4, 16→4, 25→5);
 *  - stripe s takes ranks s, s+f, s+2f, …; the order is stripe 0, then 1, ….
 * Requesting n chunks returns the first n of the order.
 */

export const STRIPE_MIN_CHUNKS = 8;

/** The stripe factor for a list of n chunks (1 below the threshold: no striping). */
export function stripeFactor(n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`stripeFactor: expected a whole number, got ${n}`);
  if (n < STRIPE_MIN_CHUNKS) return 1;
  return Math.max(2, Math.min(Math.floor(n / 2), Math.ceil(Math.sqrt(n))));
}

/**
 * The stripe order of chunk indexes. `similarity[i]` is chunk i's similarity to the baseline;
 * `exclude` holds the baseline index(es), which are not ordered.
 */
export function stripeOrder(similarity: readonly number[], exclude: readonly number[]): number[] {
  const skip = new Set(exclude);
  // NaN compares as neither above nor below anything, so the sort put such a chunk wherever
  // the engine's merge left it, and the order silently depended on the chunks around it.
  const bad = similarity.findIndex((s, i) => !skip.has(i) && !(typeof s === 'number' && Number.isFinite(s)));
  if (bad >= 0) throw new RangeError(`stripeOrder: chunk ${bad}'s similarity is ${String(similarity[bad])}, not a finite number`);
  const ranked = similarity
    .map((s, index) => ({ s, index }))
    .filter((x) => !skip.has(x.index))
    .sort((a, b) => b.s - a.s || a.index - b.index)
    .map((x) => x.index);
  const f = stripeFactor(ranked.length);
  if (f === 1) return ranked;
  const order: number[] = [];
  for (let s = 0; s < f; s++) for (let r = s; r < ranked.length; r += f) order.push(ranked[r]!);
  return order;
}
