/**
 * Stage 5: sentence overlap. A chunk that continues the section of the chunk
 * before it (it does not open with a heading) starts earlier, at the last
 * `overlapSentences` sentences of the previous chunk's closing paragraph, as
 * many as fit the cap. Overlap only ever reaches back into prose: a code
 * block, table, list item or quote is never cut to make it. Because the
 * chunk's range just starts earlier, its text stays an exact source slice.
 */
import { skipWhitespace } from './lines.js';
import { budgetOf, noneRebuilt, type PackContext } from './pack.js';
import type { DraftChunk } from './pieces.js';
import { sentenceStarts } from './sentences.js';

export function addOverlap(drafts: DraftChunk[], overlapSentences: number, ctx: PackContext): DraftChunk[] {
  if (overlapSentences <= 0) return drafts;
  return drafts.map((draft, k) => {
    const previous = drafts[k - 1];
    const { table, from, to } = draft;
    if (!previous || !noneRebuilt(table, from, to) || table.isHeading(from)) return draft;
    const last = previous.to - 1;
    if (previous.table.unit(last).type !== 'paragraph' || previous.table.rebuiltText(last) !== null) return draft;
    const tailStart = previous.table.start(last);
    const tailEnd = previous.table.end(last);
    const starts = sentenceStarts(ctx.source.slice(tailStart, tailEnd));
    const cap = budgetOf(table, from, to, ctx);
    for (let n = Math.min(overlapSentences, starts.length); n >= 1; n--) {
      const start = skipWhitespace(ctx.source, tailStart + starts[starts.length - n]!, tailEnd);
      if (start >= tailEnd) continue;
      const tokens = ctx.tokens.count(start, draft.end);
      if (tokens <= cap) {
        return { ...draft, start, tokens, overlapChars: table.start(from) - start, overlapTokens: tokens - draft.tokens };
      }
    }
    return draft;
  });
}
