/**
 * The Chroma chunking-evaluation metric ("Evaluating Chunking Strategies for
 * Retrieval", Smith & Troynikov 2024), as its evaluation code computes it; see
 * shared/eval/chroma/README.md. All quantities are in characters.
 *
 *   O          = union of (retrieved chunk ∩ reference), own-corpus chunks only
 *   recall     = |O| / Σ reference lengths
 *   precision  = |O| / Σ lengths of all k retrieved chunks (any corpus, no merge)
 *   IoU        = |O| / (Σ retrieved lengths + reference chars no own-corpus retrieved chunk covers)
 *   precision_Ω= |O_all| / |∪ (own-corpus chunks touching a reference) ∪ uncovered reference chars|
 *
 * Scores are fractions in [0, 1]; the report prints percentages.
 */
import { difference, intersect, sum, union, type Range } from './ranges.js';

export interface Reference {
  start: number;
  end: number;
}

export interface Question {
  /** Stable id (row number or `topic#n`). */
  id: string;
  text: string;
  corpusId: string;
  references: Reference[];
}

/** A chunk's span in its corpus. */
export interface ChunkSpan {
  corpusId: string;
  start: number;
  end: number;
}

export interface QuestionScores {
  recall: number;
  precision: number;
  iou: number;
}

interface OverlapState {
  numerator: Range[];
  unused: Range[];
  touchingChunks: Range[];
}

/** Walks chunks of the question's corpus against its references (Chroma's inner loop). */
function overlap(question: Question, chunks: readonly ChunkSpan[]): OverlapState {
  // Chroma grows each list with a union or difference per hit, which is quadratic in the hits:
  // precision_Ω of a reference spanning a document's 10,000 chunks (blank lines between them,
  // so no two touch) took 16 s, and with the scores over 20,000 chunks 213 s. The union of all
  // hits at once is the same merged list, and each reference less that union has the same
  // length as Chroma's repeated differences, which is all the scores read of it (fast-check
  // against Chroma's loop in metric.linear.test.ts).
  const references = question.references.map((r) => [r.start, r.end] as const);
  const hits: Range[] = [];
  const touching: Range[] = [];
  for (const c of chunks) {
    if (c.corpusId !== question.corpusId) continue;
    for (const r of references) {
      const hit = intersect([c.start, c.end], r);
      if (hit === null) continue;
      hits.push(hit);
      touching.push([c.start, c.end]);
    }
  }
  // A reference that ends before it starts is no span the parsers give; where it sorts among
  // the others decides what Chroma's union makes of it, so such a question keeps Chroma's loop.
  if (references.some(([start, end]) => start > end)) return chromaOverlap(references, hits, touching);
  const numerator = union(hits);
  return { numerator, unused: references.flatMap((r) => uncovered(r, numerator)), touchingChunks: union(touching) };
}

/** Chroma's loop, over the hits in the order found and the chunk each came from. */
function chromaOverlap(references: readonly Range[], hits: readonly Range[], touching: readonly Range[]): OverlapState {
  let numerator: Range[] = [];
  let unused: Range[] = [...references];
  let touchingChunks: Range[] = [];
  hits.forEach((hit, i) => {
    unused = difference(unused, hit);
    numerator = union([hit, ...numerator]);
    touchingChunks = union([touching[i]!, ...touchingChunks]);
  });
  return { numerator, unused, touchingChunks };
}

/**
 * The parts of `range` outside `merged` (sorted, merged ranges, as union returns them), in time
 * logarithmic in `merged` plus the ranges it crosses.
 */
function uncovered(range: Range, merged: readonly Range[]): Range[] {
  const [start, end] = range;
  // The first merged range that ends at or after `start` (ends ascend, since they are merged).
  let lo = 0;
  let hi = merged.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (merged[mid]![1] < start) lo = mid + 1;
    else hi = mid;
  }
  const out: Range[] = [];
  // An empty reference stays unless a hit holds it, as Chroma's differences keep it.
  if (start === end) return lo < merged.length && merged[lo]![0] <= start ? [] : [range];
  let at = start;
  for (let i = lo; i < merged.length && merged[i]![0] < end; i++) {
    const [s, e] = merged[i]!;
    if (s > at) out.push([at, s]);
    at = Math.max(at, e);
  }
  if (at < end) out.push([at, end]);
  return out;
}

const ratio = (n: number, d: number): number => (d > 0 ? n / d : 0);

/** Recall, precision and IoU of one question given its k retrieved chunks (best first). */
export function scoreRetrieval(question: Question, retrieved: readonly ChunkSpan[]): QuestionScores {
  const { numerator, unused } = overlap(question, retrieved);
  const o = sum(numerator);
  const refTotal = sum(question.references.map((r) => [r.start, r.end] as const));
  const retrievedTotal = sum(retrieved.map((c) => [c.start, c.end] as const));
  return {
    recall: ratio(o, refTotal),
    precision: ratio(o, retrievedTotal),
    iou: ratio(o, retrievedTotal + sum(unused)),
  };
}

/**
 * precision_Ω: the precision an oracle retriever would get with perfect recall,
 * from every chunk of the collection (Chroma's `_full_precision_score`).
 */
export function precisionOmega(question: Question, allChunks: readonly ChunkSpan[]): number {
  const { numerator, unused, touchingChunks } = overlap(question, allChunks);
  if (numerator.length === 0) return 0;
  return ratio(sum(numerator), sum(union([...touchingChunks, ...unused])));
}

export interface Stat {
  mean: number;
  /** Population standard deviation (numpy's np.std default). */
  std: number;
  n: number;
}

export function stat(values: readonly number[]): Stat {
  const n = values.length;
  if (n === 0) return { mean: 0, std: 0, n: 0 };
  let s = 0;
  for (const v of values) s += v;
  const mean = s / n;
  let sq = 0;
  for (const v of values) sq += (v - mean) ** 2;
  return { mean, std: Math.sqrt(sq / n), n };
}

export interface PerQuestion extends QuestionScores {
  id: string;
  corpusId: string;
  precisionOmega: number;
}

export interface Summary {
  recall: Stat;
  precision: Stat;
  iou: Stat;
  precisionOmega: Stat;
}

export function summarize(rows: readonly PerQuestion[]): Summary {
  return {
    recall: stat(rows.map((r) => r.recall)),
    precision: stat(rows.map((r) => r.precision)),
    iou: stat(rows.map((r) => r.iou)),
    precisionOmega: stat(rows.map((r) => r.precisionOmega)),
  };
}

/** Pooled summary plus one per corpus (in first-seen order). */
export function summarizeByCorpus(rows: readonly PerQuestion[]): { all: Summary; corpora: Record<string, Summary> } {
  const groups = new Map<string, PerQuestion[]>();
  for (const r of rows) {
    const g = groups.get(r.corpusId);
    if (g) g.push(r);
    else groups.set(r.corpusId, [r]);
  }
  const corpora: Record<string, Summary> = {};
  for (const [id, g] of groups) corpora[id] = summarize(g);
  return { all: summarize(rows), corpora };
}
