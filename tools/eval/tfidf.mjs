// A tf-idf retriever as scikit-learn's TfidfVectorizer computes it (lower-cased, tokens =
// runs of two or more word characters, smooth idf = ln((1 + n) / (1 + df)) + 1,
// L2-normalised rows), fitted on the pooled collection being searched, with its
// stop_words and sublinear_tf variants. It is the lexical embedder of the published
// comparison in issue 17, so `npm run eval -- --embedder tfidf` rows compare with that
// table. Evaluation only: its weights depend on the whole collection, which is exactly
// what a per-topic cache cannot have.

const TOKEN = /[\p{L}\p{N}\p{M}_]{2,}/gu;

/**
 * @param {string} text
 * @returns {string[]}
 */
export function tfidfTokens(text) {
  return text.toLowerCase().match(TOKEN) ?? [];
}

/**
 * @param {readonly string[]} docs the collection, in retrieval order
 * @param {{ stopWords?: ReadonlySet<string> | null, sublinear?: boolean, bigrams?: boolean }} [options]
 *   scikit-learn's stop_words, sublinear_tf (1 + ln tf) and ngram_range=(1, 2)
 * @returns {{ search(query: string, k: number): number[], scores(query: string): Float64Array, vocabulary: number }}
 */
export function fitTfidf(docs, options = {}) {
  const { stopWords = null, sublinear = false, bigrams = false } = options;
  /** @param {string} text */
  const terms = (text) => {
    let t = tfidfTokens(text);
    if (stopWords) t = t.filter((w) => !stopWords.has(w));
    if (bigrams) t = [...t, ...t.slice(1).map((w, i) => `${t[i]} ${w}`)];
    return t;
  };
  /** @param {number} c */
  const tfw = (c) => (sublinear ? 1 + Math.log(c) : c);
  /** @type {Map<string, number>} */
  const vocab = new Map();
  /** @type {number[]} */
  const df = [];
  const counted = docs.map((d) => {
    /** @type {Map<number, number>} */
    const tf = new Map();
    for (const t of terms(d)) {
      let id = vocab.get(t);
      if (id === undefined) {
        id = vocab.size;
        vocab.set(t, id);
        df.push(0);
      }
      tf.set(id, (tf.get(id) ?? 0) + 1);
    }
    for (const id of tf.keys()) df[id] = (df[id] ?? 0) + 1;
    return tf;
  });
  const n = docs.length;
  const idf = df.map((f) => Math.log((1 + n) / (1 + f)) + 1);
  /** @type {{ doc: number, w: number }[][]} */
  const postings = df.map(() => []);
  counted.forEach((tf, doc) => {
    let norm = 0;
    for (const [id, c] of tf) norm += (tfw(c) * (idf[id] ?? 0)) ** 2;
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (const [id, c] of tf) postings[id]?.push({ doc, w: tfw(c) * (idf[id] ?? 0) * inv });
  });
  return {
    vocabulary: vocab.size,
    /** Indexes of the k best documents, best first; ties to the lower index, as topK. */
    search(query, k) {
      const scores = scoresOf(query);
      const order = Array.from({ length: n }, (_, i) => i);
      order.sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b);
      return order.slice(0, k);
    },
    /**
     * Every document's score for the query (the dot product with the query's unnormalised
     * tf-idf vector: cosine times a per-query constant), for routes that combine rankings.
     * @param {string} query
     */
    scores: (query) => scoresOf(query),
  };
  /** @param {string} query */
  function scoresOf(query) {
    /** @type {Map<number, number>} */
    const q = new Map();
    for (const t of terms(query)) {
      const id = vocab.get(t);
      if (id !== undefined) q.set(id, (q.get(id) ?? 0) + 1);
    }
    const scores = new Float64Array(n);
    // The query's norm does not change the ranking; it is left out.
    for (const [id, c] of q) {
      const w = tfw(c) * (idf[id] ?? 0);
      for (const p of postings[id] ?? []) scores[p.doc] = (scores[p.doc] ?? 0) + w * p.w;
    }
    return scores;
  }
}
