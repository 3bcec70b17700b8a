/**
 * Maps chunk texts back to character spans in their corpus the way the Chroma
 * evaluation does (`rigorous_document_search`), so every chunker — ours and the
 * baselines — is scored from its texts alone, by one rule:
 *
 * 1. drop one trailing `.`, then exact search (first occurrence);
 * 2. else a case-insensitive search where any whitespace between the chunk's
 *    words may be any (or no) whitespace in the corpus.
 *
 * Chroma's third step, a fuzzy sentence match (fuzzywuzzy token_sort_ratio ≥ 98),
 * is not reproduced; a chunk that neither step finds is reported as unmapped
 * (the caller decides; Chroma itself raises when a chunk cannot be found).
 */
export interface Span {
  start: number;
  end: number;
  method: 'exact' | 'whitespace';
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function locateChunk(corpus: string, text: string): Span | null {
  const target = text.endsWith('.') ? text.slice(0, -1) : text;
  const at = corpus.indexOf(target);
  if (at !== -1) return { start: at, end: at + target.length, method: 'exact' };
  const words = target.split(/\s+/).filter((w) => w.length > 0);
  if (words.length === 0) return null;
  // Python's re.escape + '\s*' join, with re.IGNORECASE.
  const re = new RegExp(words.map(escapeRegExp).join('\\s*'), 'i');
  const m = re.exec(corpus);
  if (m) return { start: m.index, end: m.index + m[0].length, method: 'whitespace' };
  return null;
}
