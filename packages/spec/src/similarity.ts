/**
 * Cosine similarity, and the baseline detection of seed 001 §7. Similarities are rounded to
 * 4 decimals when stored: enough to order chunks, and stable text in topic-spec.md.
 */

/** Cosine of two vectors of one length; 0 when either is all zeros (no signal, not "orthogonal"). */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`cosine: vectors of ${a.length} and ${b.length} dimensions`);
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
  return Math.max(-1, Math.min(1, dot / Math.sqrt(na * nb)));
}

export function roundSimilarity(x: number): number {
  const r = Math.round(x * 10_000) / 10_000;
  return Object.is(r, -0) ? 0 : r;
}

/**
 * Seed 001 §7: chunk 1 is the technical baseline when its title names a reference section
 * ("Quick Reference", "API Reference", "Cheat Sheet", or "Reference" as a word).
 */
export const TECHNICAL_TITLE = /\b(?:quick\s+reference|api\s+reference|cheat[\s-]?sheet|reference)\b/i;

export function isTechnicalBaselineTitle(title: string): boolean {
  return TECHNICAL_TITLE.test(title);
}
