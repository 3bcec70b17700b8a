/**
 * Hybrid ranking, the pure part: each chunk's cosine similarity to the query plus its Okapi
 * BM25 score over the collection searched, each divided by its maximum for the query, summed.
 *
 * Why: the local embedder hashes words into few dimensions, so unrelated words collide and
 * every word counts alike; BM25 weighs each query term by its rarity in the collection
 * (idf), saturates repeats (k1) and normalises by chunk length (b). On `npm run eval` (issue
 * 17, eval/README.md) the default chunking with the local embedder gains 13.4 [10.2, 16.5]
 * recall points on the Chroma set and 5.5 [0.0, 11.0] on the held-out docs set, IoU unchanged.
 * BM25's statistics come from the chunks being searched at query time, never from a cache,
 * so a topic's stored vectors still depend on its own text alone.
 */
import { lexicalFeatures } from '@chunkyard/embeddings';
import { bm25QueryTerms, cutCjkTerms, hasCjk } from './cjk-terms.js';
import { checkCount, cosine, shownValue } from './similarity.js';

/**
 * The words BM25 reads: the local embedder's own features (lower-cased Porter stems of
 * words without English stop words, camelCase and snake_case parts, and whole identifiers),
 * so both rankers read a text the same way. A run of CJK letters is one word here, as it is to
 * the local embedder; Bm25Index cuts it further (cjk-terms.ts: bm25DocumentTerms,
 * bm25QueryTerms), so a word inside a run scores.
 */
export function bm25Terms(text: string): string[] {
  const f = lexicalFeatures(text);
  return [...f.unigrams, ...f.identifiers];
}

/** BM25's default length normalisation. */
export const DEFAULT_BM25_B = 0.75;

/** A query term's idf in a collection of `n` texts, `df` of which hold it: ln(1 + (n − df + 0.5) / (df + 0.5)). */
export function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * One term's BM25 contribution to a text of `length` terms holding it `tf` times:
 * idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · length / avgLength)). Every BM25 score here
 * (Bm25Index, the store's routed search) adds these, so they agree to the last bit.
 */
export function bm25Weight(idf: number, tf: number, length: number, avgLength: number, k1: number, b: number): number {
  const norm = k1 * (1 - b + (b * length) / avgLength);
  return (idf * tf * (k1 + 1)) / (tf + norm);
}

export interface Bm25Options {
  /** Term-frequency saturation (default 1.2). */
  k1?: number;
  /** Length normalisation, 0..1 (default 0.75). */
  b?: number;
}

/**
 * BM25 over a fixed collection of texts: a text's terms are bm25DocumentTerms, a query's
 * bm25QueryTerms (a CJK run cut into characters and pairs, and into pairs; see cjk-terms.ts).
 * A text's length is its bm25Terms count, before the cut, as the store's routed search counts
 * it: the cut would lengthen every text holding CJK letters, and with them the average
 * length, so English queries over a collection holding some would score differently.
 */
export class Bm25Index {
  private readonly postings = new Map<string, { doc: number; tf: number }[]>();
  private readonly lengths: Float64Array;
  private readonly avg: number;
  private readonly k1: number;
  private readonly b: number;

  constructor(docs: readonly string[], options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? DEFAULT_BM25_B;
    // k1 finite: Infinity passed `k1 >= 0` and made every score Infinity / Infinity, NaN.
    // b a number: a string "0.5" passed the comparisons (coerced) and was taken.
    if (!(Number.isFinite(this.k1) && this.k1 >= 0) || !(typeof this.b === 'number' && this.b >= 0 && this.b <= 1)) {
      throw new RangeError(`BM25 needs a finite k1 ≥ 0 and 0 ≤ b ≤ 1, got k1 ${shownValue(this.k1)}, b ${shownValue(this.b)}`);
    }
    this.lengths = new Float64Array(docs.length);
    let total = 0;
    docs.forEach((d, doc) => {
      const words = bm25Terms(d);
      const terms = hasCjk(d) ? cutCjkTerms(words, 'document') : words;
      this.lengths[doc] = words.length;
      total += words.length;
      const tf = new Map<string, number>();
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, c] of tf) {
        let p = this.postings.get(t);
        if (!p) this.postings.set(t, (p = []));
        p.push({ doc, tf: c });
      }
    });
    this.avg = total > 0 ? total / docs.length : 1;
  }

  /**
   * Every document's score: the sum over the query's distinct terms of
   * idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · |d| / avg|d|)), idf = ln(1 + (n − df + 0.5) / (df + 0.5)).
   */
  scores(query: string): Float64Array {
    const n = this.lengths.length;
    const out = new Float64Array(n);
    for (const t of new Set(bm25QueryTerms(query))) {
      const p = this.postings.get(t);
      if (!p) continue;
      const idf = bm25Idf(n, p.length);
      for (const { doc, tf } of p) out[doc]! += bm25Weight(idf, tf, this.lengths[doc]!, this.avg, this.k1, this.b);
    }
    return out;
  }
}

/**
 * The weighted sum of score lists, each divided by its own maximum first (negative scores
 * count as 0; a list whose maximum is not positive adds nothing).
 */
export function fuseMaxNormalised(lists: readonly { scores: ArrayLike<number>; weight: number }[]): Float64Array {
  const n = lists[0]?.scores.length ?? 0;
  const out = new Float64Array(n);
  for (const { scores, weight } of lists) {
    if (scores.length !== n) throw new RangeError(`score lists differ in length: ${scores.length} and ${n}`);
    let max = 0;
    for (let i = 0; i < n; i++) if (scores[i]! > max) max = scores[i]!;
    if (!(max > 0) || weight === 0) continue;
    // Divide first: weight / max overflows for a subnormal max.
    for (let i = 0; i < n; i++) out[i]! += weight * (Math.max(0, scores[i]!) / max);
  }
  return out;
}

/** rankHybrid's options: BM25's, and how much the cosines count. */
export interface HybridOptions extends Bm25Options {
  /**
   * The cosines' weight in the fusion (default 1; BM25's is 1). search() gives 0 for a query of
   * CJK words alone under the local model (cjkCosineWeight): its cosines there are hash
   * collisions. The cosines are still reported.
   */
  cosineWeight?: number;
}

/** A cosine weight, checked: a finite number ≥ 0 (Infinity made every fused score Infinity or NaN). */
export function checkCosineWeight(weight: number): number {
  if (!(typeof weight === 'number' && Number.isFinite(weight) && weight >= 0)) throw new RangeError(`the cosine weight must be a finite number ≥ 0, got ${shownValue(weight)}`);
  return weight;
}

export interface HybridScored<T> {
  ref: T;
  /** The fused score, 0..2. */
  score: number;
  similarity: number;
  bm25: number;
}

/**
 * The `n` best `items` by hybrid score (cosine + BM25, each max-normalised), ties in input
 * order. `n` is a whole number 0..2^53 − 1 (checkCount); more than there are items returns
 * them all, in time and memory of the items, not of `n`.
 */
export function rankHybrid<T>(
  query: string,
  queryVector: Float32Array,
  items: readonly { ref: T; vector: Float32Array; text: string }[],
  n: number,
  options: HybridOptions = {},
): HybridScored<T>[] {
  checkCount('n', n);
  const { cosineWeight = 1, ...bm25Options } = options;
  checkCosineWeight(cosineWeight);
  const similarity = items.map((it) => cosine(queryVector, it.vector));
  const bm25 = new Bm25Index(
    items.map((it) => it.text),
    bm25Options,
  ).scores(query);
  const fused = fuseMaxNormalised([
    { scores: similarity, weight: cosineWeight },
    { scores: bm25, weight: 1 },
  ]);
  return items
    .map((it, i) => ({ ref: it.ref, score: fused[i]!, similarity: similarity[i]!, bm25: bm25[i]!, i }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, n)
    .map(({ ref, score, similarity: s, bm25: b }) => ({ ref, score, similarity: s, bm25: b }));
}
