/**
 * BM25's terms of Chinese, Japanese and Korean (CJK) text, cut inside a run.
 *
 * bm25Terms (the local model's words) keeps a run of CJK letters whole: Chinese and Japanese
 * put no space between words, so 如何配置服务器 is one term, and a query for 配置
 * ("configure") scored 0 on the text holding it; Korean glues particles to its words (서버를
 * is 서버 "server" + 를), so 서버 missed 서버를. bm25Terms stays as it is (docs-store stores its
 * output at ingest, and the local model's vectors and simhash read the same words); each term
 * holding a CJK letter is cut when BM25 reads it:
 *
 *   in a document (bm25DocumentTerms)  each character of a run, then its overlapping pairs:
 *     配置服务 → 配 置 服 务 配置 置服 服务
 *   in a query (bm25QueryTerms)  a run's pairs only (配置服务 → 配置 置服 服务), so a word
 *     scores where it occurs, not wherever one of its characters does; a run of one
 *     character is that character, which the document side holds wherever it occurs.
 *
 * Overlapping pairs are Lucene's CJKBigramFilter, the classic CJK full-text approach (the
 * store's units_cjk indexes the same pairs for FTS5). Latin letters or digits glued to a run
 * in one term (json配置, 第7节) are read as bm25Terms reads words (stems, stop words dropped);
 * whole identifiers (`id:`) stay as they are. A term without CJK letters is unchanged, so a
 * text without any has exactly the terms it had.
 *
 * Used by Bm25Index (docs-query's search) and by the store's routed search (docs-store), so
 * both read a run the same way.
 */
import { bm25Terms } from './hybrid.js';

const CJK_LETTER = String.raw`(?=[\p{L}\p{N}])[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]`;
/** A run of CJK letters and digits (ー, 々 and 〇 included; punctuation such as 。 and 、 not). */
const CJK_RUN = new RegExp(`(?:${CJK_LETTER})+`, 'gu');
const HAS_CJK = new RegExp(CJK_LETTER, 'u');

/**
 * Every CJK letter is at U+1100 or above (Hangul Jamo is the first), so text of other
 * characters is passed over by a plain class first: the store reads every stored unit's terms
 * through hasCjk, and the Unicode-property class alone took 4 µs a kilobyte of them (0.8 s
 * more to load 100,000 chunks).
 */
const BEYOND_U10FF = /[^\u0000-\u10ff]/;

/** Whether `text` holds a CJK letter (Han, Hiragana, Katakana or Hangul). */
export function hasCjk(text: string): boolean {
  return BEYOND_U10FF.test(text) && HAS_CJK.test(text);
}

/** The runs of CJK letters and digits in `text`, in order, each with its index. */
export function cjkRuns(text: string): IterableIterator<RegExpExecArray> {
  return text.matchAll(CJK_RUN);
}

/** Which side of BM25 a term is read for: a text searched, or the query. */
export type CjkSide = 'document' | 'query';

/** `term` as BM25 reads it on `side`, pushed onto `out` (see the module's comment). */
function cjkTermsOf(term: string, side: CjkSide, out: string[]): void {
  if (term.startsWith('id:') || !hasCjk(term)) {
    out.push(term);
    return;
  }
  let at = 0;
  for (const m of cjkRuns(term)) {
    if (m.index > at) out.push(...bm25Terms(term.slice(at, m.index)));
    const chars = [...m[0]];
    if (side === 'document' || chars.length === 1) out.push(...chars);
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
    at = m.index + m[0].length;
  }
  if (at < term.length) out.push(...bm25Terms(term.slice(at)));
}

/** `terms` (bm25Terms' output), each term holding a CJK letter cut as a document's or a query's. */
export function cutCjkTerms(terms: readonly string[], side: CjkSide): string[] {
  const out: string[] = [];
  for (const t of terms) cjkTermsOf(t, side, out);
  return out;
}

/** A searched text's BM25 terms: bm25Terms with CJK runs cut into characters and pairs. */
export function bm25DocumentTerms(text: string): string[] {
  const terms = bm25Terms(text);
  return hasCjk(text) ? cutCjkTerms(terms, 'document') : terms;
}

/** A query's BM25 terms: bm25Terms with CJK runs cut into pairs (a one-character run kept). */
export function bm25QueryTerms(text: string): string[] {
  const terms = bm25Terms(text);
  return hasCjk(text) ? cutCjkTerms(terms, 'query') : terms;
}

/**
 * Whether every word the local model reads in `query` (bm25Terms, its unigrams and
 * identifiers) holds a CJK letter, and there is one: 配置, 如何配置防火墙, 서버를 설정; not
 * `polymorphism 配置` or a query without CJK text. The local model hashes each such word as a
 * whole run, so the query's vector shares a feature only with a text holding that exact run,
 * which its pairs' BM25 already scores; with any other text its cosine is a hash collision.
 */
export function onlyCjkWords(query: string): boolean {
  if (!hasCjk(query)) return false;
  const terms = bm25Terms(query);
  return terms.length > 0 && terms.every((t) => hasCjk(t));
}

/**
 * The cosines' weight in a hybrid ranking of `query` over vectors of `model`: 0 for a query of
 * CJK words alone (onlyCjkWords) under the local lexical model (`local-lexical-…`), else 1.
 * Its cosine with a text is positive where the text holds the exact run, which the BM25 of the
 * run's pairs scores already, and a hash collision elsewhere: max-normalised, the noisiest
 * chunk's cosine counted as much as the BM25 of the chunk holding the word and tied with it
 * (配置 inside 如何配置服务器 tied with an English chunk, first only by input order). The
 * store's routed search leaves them out the same way.
 */
export function cjkCosineWeight(query: string, model: string): number {
  return model.startsWith('local-lexical-') && onlyCjkWords(query) ? 0 : 1;
}
