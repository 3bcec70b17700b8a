/**
 * Sentence boundaries through ICU's sentence segmenter (Intl.Segmenter, built
 * into Node), used for the sentence overlap and for splitting oversized prose.
 */
const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Start offsets (relative to `text`) of each sentence, first one 0. */
export function sentenceStarts(text: string): number[] {
  const starts: number[] = [];
  for (const s of segmenter.segment(text)) starts.push(s.index);
  return starts.length ? starts : [0];
}
