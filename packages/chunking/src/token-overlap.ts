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
import { noneRebuilt } from './pack.js';
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
    if (!previous || !noneRebuilt(draft.table, draft.from, draft.to)) return draft;
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
      overlapChars: draft.table.start(draft.from) - best.start,
      overlapTokens: ctx.tokens.count(best.start, previous.end),
    };
  });
}

/**
 * Safe starting points in `draft`, latest first. Stops at a rebuilt piece (not
 * a source slice) and at a part of a split atomic unit (a quote or list item
 * larger than the cap): overlap into it would put part of that unit into a
 * chunk not marked `splitUnit`. Parts of a split paragraph are fine: prose is
 * not atomic.
 */
function* candidates(draft: DraftChunk, ctx: TokenOverlapContext): Generator<number> {
  const { table } = draft;
  for (let i = draft.to - 1; i >= draft.from; i--) {
    const type = table.unit(i).type;
    if (table.rebuiltText(i) !== null || (table.splitUnit(i) && type !== 'paragraph')) return;
    const start = table.start(i);
    if (type === 'paragraph') {
      const end = table.end(i);
      const starts = sentenceStarts(ctx.source.slice(start, end));
      for (let s = starts.length - 1; s >= 1; s--) {
        const at = skipWhitespace(ctx.source, start + starts[s]!, end);
        if (at < end) yield at;
      }
    }
    yield start;
  }
}
