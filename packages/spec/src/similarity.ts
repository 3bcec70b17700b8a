/**
 * Similarity (cosine, from @chunkyard/embeddings), and the baseline detection of seed 001
 * §7. Similarities are rounded to 4 decimals when stored: enough to order chunks, and stable
 * text in topic-spec.md.
 */

// One cosine for the whole project; re-exported here as part of spec's similarity API.
export { cosine } from '@chunkyard/embeddings';

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
