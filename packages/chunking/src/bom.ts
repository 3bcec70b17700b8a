/**
 * A leading byte order mark (U+FEFF): many files saved on Windows start with one, and a
 * caller that reads a file as UTF-8 (`readFileSync(path, 'utf8')`, a LangChain loader) passes
 * it on. It is not content. The chunkers run on the text after it and their records are
 * moved back onto the caller's string here: before, the fast parser read `\uFEFF# Title` as a
 * paragraph (no heading, no sectionTitle) and remark's positions, counted without the mark,
 * cut every chunk one character short (a probe, session 37). A run of marks (a file
 * concatenated from two) is taken as one, so that no part of the text after it starts with one.
 */
import type { ChunkRecord, RemovedSpan, SourceRange } from './types.js';

/** The length of the run of marks `source` starts with (usually 0 or 1): where the text the chunkers see starts. */
export function bomLength(source: string): number {
  let n = 0;
  while (source.charCodeAt(n) === 0xfeff) n++;
  return n;
}

/**
 * A record made from `source.slice(shift)`, in `source`: its offsets `shift` further, its
 * total the source's. Lines stay: a mark holds no line break. Text, tokens and ids are the body's.
 */
export function recordPastBom(record: ChunkRecord, shift: number, totalChars: number): ChunkRecord {
  const { charStart, charEnd } = record.sourcePosition;
  record.sourcePosition = { charStart: charStart + shift, charEnd: charEnd + shift, totalChars };
  if (record.removed) record.removed = record.removed.map((r) => rangePastBom(r, shift));
  return record;
}

/** A result's front matter and removed spans, of `source.slice(shift)`, in `source` (chunkDocument's and the stream's). */
export function spansPastBom<T extends { frontMatter: SourceRange | null; removed?: RemovedSpan[] }>(result: T, shift: number): T {
  return {
    ...result,
    frontMatter: result.frontMatter && rangePastBom(result.frontMatter, shift),
    ...(result.removed ? { removed: result.removed.map((r) => rangePastBom(r, shift)) } : {}),
  };
}

/** A range of `source.slice(shift)`, in `source`. */
export function rangePastBom<T extends SourceRange>(range: T, shift: number): T {
  return { ...range, start: range.start + shift, end: range.end + shift };
}
