// Where a chunk lies in its corpus, for the Chroma metric.
//
// The Chroma evaluation maps a chunk back to its span by searching for its text
// (`locateChunk`: first exact occurrence, then whitespace-insensitive). That is all
// a splitter that returns bare strings (LangChain) allows, so the baselines keep it.
// Our chunks carry their own range, `sourcePosition`, and searching for their text
// is wrong twice over:
//  - plain-text corpora (pubmed) lose page-number and header lines from
//    `originalText` (seed 003's boilerplate removal, listed in `removed`), so the
//    text is no longer a substring of the corpus and the chunk went "unmapped",
//    dropped from the collection (15–23 chunks per configuration);
//  - repeated text (finance holds the same filing passages more than once) maps to
//    its first occurrence, not to where the chunk is, so the chunk was scored
//    against the wrong characters (about 18% of the 120/200 semantic chunks).

/** @typedef {{ start: number, end: number, method: 'offsets' | 'exact' | 'whitespace' }} LocatedSpan */

/**
 * The span of one of our chunk records: its `sourcePosition`, which covers the text
 * the chunk stands for, including boilerplate lines its `originalText` leaves out.
 * @param {string} corpus
 * @param {{ sourcePosition: { charStart: number, charEnd: number } }} record
 * @returns {LocatedSpan | null} null for an empty or out-of-range position
 */
export function recordSpan(corpus, record) {
  const { charStart, charEnd } = record.sourcePosition;
  if (!Number.isInteger(charStart) || !Number.isInteger(charEnd) || charStart < 0 || charEnd > corpus.length || charEnd <= charStart) return null;
  return { start: charStart, end: charEnd, method: 'offsets' };
}
