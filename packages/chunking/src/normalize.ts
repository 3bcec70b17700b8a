/**
 * Stage 6: draft chunks → their final text. Ranges are trimmed to their first
 * and last non-whitespace characters and empty drafts are dropped. The text is
 * `source.slice(start, end)` unless a piece was rebuilt (a split code block or
 * table), in which case it is the pieces' texts joined by the source between them.
 * Nothing else is rewritten: line endings, tabs and trailing spaces inside a
 * chunk are kept, so offsets stay exact.
 */
import { hasNonJsSpace, skipWhitespace, trimEndOffset } from './lines.js';
import { noneRebuilt, runText } from './pack.js';
import type { DraftChunk } from './pieces.js';
import { countTokens, type TokenIndex } from './tokens.js';

/** A draft whose `text` and `exact` normalize has set, and whose range it has trimmed. */
export type NormalizedChunk = DraftChunk;

/**
 * The drafts that are not empty, each trimmed and given its text in place (the same objects,
 * `drafts` itself left as it was): a draft is its chunk's until the records are made, and a
 * copy of each was one more object per chunk to allocate and to carry through every scavenge.
 */
export function normalize(drafts: DraftChunk[], source: string, tokens: TokenIndex): NormalizedChunk[] {
  const out: NormalizedChunk[] = [];
  // Indexed loops: a `for…of` made an iterator result per chunk (issue 15).
  for (let k = 0; k < drafts.length; k++) {
    const draft = drafts[k]!;
    const start = skipWhitespace(source, draft.start, draft.end);
    const end = trimEndOffset(source, start, draft.end);
    const { table, from, to } = draft;
    const exact = noneRebuilt(table, from, to);
    // Trimmed of ASCII whitespace only, so that offsets stay where markdown puts them; but a
    // range of nothing else (a paragraph of no-break spaces, a lone BOM) is no chunk, as
    // validate reads it.
    if (end <= start || (exact && !hasNonJsSpace(source, start, end))) continue;
    draft.text = exact ? source.slice(start, end) : source.slice(start, table.start(from)) + runText(table, from, to, source);
    // A part cut inside a run of spaces ends (or starts) in whitespace that goes here: its count
    // was of the untrimmed range (s36 probe: "tokens 6 recorded, 5 counted"). A rebuilt text
    // loses only what precedes its first piece.
    if (exact ? start !== draft.start || end !== draft.end : start !== draft.start) draft.tokens = exact ? tokens.count(start, end) : countTokens(draft.text);
    draft.start = start;
    draft.end = end;
    draft.exact = exact;
    out.push(draft);
  }
  return out;
}

