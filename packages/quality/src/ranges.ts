/**
 * Half-open character ranges [start, end) and the four set operations the Chroma
 * evaluation uses. They are reproduced with its exact edge behaviour, because the
 * published numbers depend on it:
 *
 * - `intersect` returns an (empty) range for ranges that merely touch (start === end):
 *   Chroma's `intersect_two_ranges` tests `start <= end`. An empty intersection adds
 *   nothing to an overlap but still marks a chunk as "containing a highlight" (that
 *   matters for precision_Ω's denominator).
 * - `union` merges ranges that touch, `sum` is a plain sum (no merge), and
 *   `difference` removes one range from a list of ranges.
 */
export type Range = readonly [start: number, end: number];

export function intersect(a: Range, b: Range): Range | null {
  const start = Math.max(a[0], b[0]);
  const end = Math.min(a[1], b[1]);
  return start <= end ? [start, end] : null;
}

/** Sorted, merged union (ranges that touch are merged). */
export function union(ranges: readonly Range[]): Range[] {
  if (ranges.length === 0) return [];
  const sorted = [...ranges].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [[sorted[0]![0], sorted[0]![1]]];
  for (let i = 1; i < sorted.length; i++) {
    const [s, e] = sorted[i]!;
    const last = out[out.length - 1]!;
    if (s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** Plain sum of lengths; overlapping ranges count once per range. */
export function sum(ranges: readonly Range[]): number {
  let total = 0;
  for (const [s, e] of ranges) total += e - s;
  return total;
}

/** Each range minus `target` (a range can split in two). */
export function difference(ranges: readonly Range[], target: Range): Range[] {
  const [ts, te] = target;
  const out: Range[] = [];
  for (const [s, e] of ranges) {
    if (e < ts || s > te) out.push([s, e]);
    else if (s < ts && e > te) out.push([s, ts], [te, e]);
    else if (s < ts) out.push([s, ts]);
    else if (e > te) out.push([te, e]);
  }
  return out;
}
