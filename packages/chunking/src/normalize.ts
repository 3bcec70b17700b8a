/**
 * Stage 6: draft chunks → their final text. Ranges are trimmed to their first
 * and last non-whitespace characters and empty drafts are dropped. The text is
 * `source.slice(start, end)` unless a piece was rebuilt (a split code block or
 * table), in which case it is the pieces' texts joined by the source between them.
 * Nothing else is rewritten: line endings, tabs and trailing spaces inside a
 * chunk are kept, so offsets stay exact.
 */
import { skipWhitespace, trimEndOffset } from './lines.js';
import { runText } from './pack.js';
import type { DraftChunk } from './pieces.js';

export interface NormalizedChunk extends DraftChunk {
  text: string;
  /** `text === source.slice(start, end)`. */
  exact: boolean;
}

export function normalize(drafts: DraftChunk[], source: string): NormalizedChunk[] {
  const out: NormalizedChunk[] = [];
  for (const draft of drafts) {
    const start = skipWhitespace(source, draft.start, draft.end);
    const end = trimEndOffset(source, start, draft.end);
    if (end <= start) continue;
    const exact = draft.pieces.every((p) => p.rebuiltText === null);
    const text = exact
      ? source.slice(start, end)
      : source.slice(start, draft.pieces[0]!.start) + runText(draft.pieces, source);
    out.push({ ...draft, start, end, text, exact });
  }
  return out;
}
