/**
 * Overlap measured in tokens (hierarchical's 120/80, paginate's page overlap),
 * for drafts made by `pack`: a chunk starts earlier, inside the chunk before
 * it, at the earliest safe point whose repeated text is at most `overlapTokens`
 * exact tokens and keeps the chunk within its budget. Safe points are the
 * starts of whole pieces and sentence starts inside prose, so overlap never
 * cuts a code block, table, quote or list item; the text stays an exact
 * source slice. (semantic's overlap counts sentences instead; it is its own stage.)
 */
import { skipWhitespace } from './lines.js';
import type { DraftChunk } from './pieces.js';
import { sentenceStarts } from './sentences.js';
import type { TokenIndex } from './tokens.js';

export interface TokenOverlapContext {
  source: string;
  tokens: TokenIndex;
  /** Largest originalText a chunk may have. */
  budget: number;
  overlapTokens: number;
  /** Overlap never reaches before this offset (a snippet stays inside its section). */
  floor?: number;
}

export function addTokenOverlap(drafts: DraftChunk[], ctx: TokenOverlapContext): DraftChunk[] {
  if (ctx.overlapTokens <= 0) return drafts;
  return drafts.map((draft, k) => {
    const previous = drafts[k - 1];
    if (!previous || draft.pieces.some((p) => p.rebuiltText !== null)) return draft;
    let best: { start: number; tokens: number } | null = null;
    for (const start of candidates(previous, ctx)) {
      if (start >= draft.start || start < (ctx.floor ?? 0)) continue;
      if (ctx.tokens.count(start, previous.end) > ctx.overlapTokens) break;
      const tokens = ctx.tokens.count(start, draft.end);
      if (tokens > ctx.budget) break;
      best = { start, tokens };
    }
    if (!best) return draft;
    return {
      ...draft,
      start: best.start,
      tokens: best.tokens,
      overlapChars: draft.pieces[0]!.start - best.start,
      overlapTokens: ctx.tokens.count(best.start, previous.end),
    };
  });
}

/** Safe starting points in `draft`, latest first; stops at the first rebuilt piece (not a source slice). */
function* candidates(draft: DraftChunk, ctx: TokenOverlapContext): Generator<number> {
  for (let i = draft.pieces.length - 1; i >= 0; i--) {
    const p = draft.pieces[i]!;
    if (p.rebuiltText !== null) return;
    if (p.unit.type === 'paragraph') {
      const starts = sentenceStarts(ctx.source.slice(p.start, p.end));
      for (let s = starts.length - 1; s >= 1; s--) {
        const at = skipWhitespace(ctx.source, p.start + starts[s]!, p.end);
        if (at < p.end) yield at;
      }
    }
    yield p.start;
  }
}
