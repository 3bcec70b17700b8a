// Okapi BM25 over a pooled collection, for the hybrid query-time route of `npm run eval`
// (issue 17). Terms: tf-idf's tokens (lower-cased runs of two or more word characters),
// without the given stop words, Porter-stemmed when asked (so "runs" meets "running").
// BM25 saturates repeated terms (k1) and normalises by length relative to the collection's
// mean (b), unlike a cosine over tf-idf weights. Evaluation only, like tfidf.mjs: its idf
// depends on the whole collection.
import { stemmer } from 'stemmer';
import { tfidfTokens } from './tfidf.mjs';

/** @type {Map<string, string>} */
const stems = new Map();
/** @param {string} w */
function stem(w) {
  let s = stems.get(w);
  if (s === undefined) {
    // Porter is an English stemmer: numbers, identifiers and other scripts stay as written.
    s = w.length > 2 && /^[a-z]+$/.test(w) ? stemmer(w) : w;
    stems.set(w, s);
  }
  return s;
}

/**
 * @param {string} text
 * @param {{ stopWords?: ReadonlySet<string> | null, stem?: boolean }} options
 * @returns {string[]}
 */
export function bm25Terms(text, options = {}) {
  let t = tfidfTokens(text);
  if (options.stopWords) {
    const sw = options.stopWords;
    t = t.filter((w) => !sw.has(w));
  }
  return options.stem ? t.map(stem) : t;
}

/**
 * @param {readonly string[]} docs
 * @param {{ stopWords?: ReadonlySet<string> | null, stem?: boolean, k1?: number, b?: number }} [options]
 *   defaults k1 = 1.2, b = 0.75 (Robertson's; Lucene's)
 * @returns {{ scores(query: string): Float64Array }}
 *   every document's BM25 score; each distinct query term counts once,
 *   idf = ln(1 + (n − df + 0.5) / (df + 0.5)) (never negative)
 */
export function fitBm25(docs, options = {}) {
  const { k1 = 1.2, b = 0.75 } = options;
  const n = docs.length;
  /** @type {Map<string, { doc: number, tf: number }[]>} */
  const postings = new Map();
  const lengths = new Float64Array(n);
  docs.forEach((d, doc) => {
    const terms = bm25Terms(d, options);
    lengths[doc] = terms.length;
    /** @type {Map<string, number>} */
    const tf = new Map();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, c] of tf) {
      let p = postings.get(t);
      if (!p) postings.set(t, (p = []));
      p.push({ doc, tf: c });
    }
  });
  let total = 0;
  for (const l of lengths) total += l;
  const avg = n > 0 && total > 0 ? total / n : 1;
  return {
    scores(query) {
      const scores = new Float64Array(n);
      for (const t of new Set(bm25Terms(query, options))) {
        const p = postings.get(t);
        if (!p) continue;
        const idf = Math.log(1 + (n - p.length + 0.5) / (p.length + 0.5));
        for (const { doc, tf } of p) {
          const norm = k1 * (1 - b + (b * (lengths[doc] ?? 0)) / avg);
          scores[doc] = (scores[doc] ?? 0) + (idf * tf * (k1 + 1)) / (tf + norm);
        }
      }
      return scores;
    },
  };
}
