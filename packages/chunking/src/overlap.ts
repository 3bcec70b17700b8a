/**
 * Stage 5: sentence overlap. A chunk that continues the section of the chunk
 * before it (it does not open with a heading) starts earlier, at the last
 * `overlapSentences` sentences of the previous chunk's closing paragraph, as
 * many as fit the cap. Overlap only ever reaches back into prose: a code
 * block, table, list item or quote is never cut to make it. Because the
 * chunk's range just starts earlier, its text stays an exact source slice.
 */
import { skipWhitespace } from './lines.js';
import { budgetOf, type PackContext } from './pack.js';
import type { DraftChunk } from './pieces.js';
import { sentenceStarts } from './sentences.js';

export function addOverlap(drafts: DraftChunk[], overlapSentences: number, ctx: PackContext): DraftChunk[] {
  if (overlapSentences <= 0) return drafts;
  return drafts.map((draft, k) => {
    const previous = drafts[k - 1];
    const first = draft.pieces[0]!;
    if (!previous || draft.pieces.some((p) => p.rebuiltText !== null) || (first.unit.type === 'heading' && !first.splitUnit)) return draft;
    const tail = previous.pieces[previous.pieces.length - 1]!;
    if (tail.unit.type !== 'paragraph' || tail.rebuiltText !== null) return draft;
    const starts = sentenceStarts(ctx.source.slice(tail.start, tail.end));
    const cap = budgetOf(draft.pieces, ctx);
    for (let n = Math.min(overlapSentences, starts.length); n >= 1; n--) {
      const start = skipWhitespace(ctx.source, tail.start + starts[starts.length - n]!, tail.end);
      if (start >= tail.end) continue;
      const tokens = ctx.tokens.count(start, draft.end);
      if (tokens <= cap) {
        return { ...draft, start, tokens, overlapChars: first.start - start, overlapTokens: tokens - draft.tokens };
      }
    }
    return draft;
  });
}
