/**
 * Pooled exact nearest-neighbour retrieval by cosine similarity. Chroma searches
 * an HNSW index (approximate, squared-L2 by default); for unit vectors L2 and
 * cosine rank identically, and an exact search removes the index's noise, so
 * every chunker is compared on the same, deterministic retrieval.
 */
import { precisionOmega, scoreRetrieval, type ChunkSpan, type PerQuestion, type Question } from './metric.js';

export type Vector = ArrayLike<number>;

function unit(v: Vector): Float64Array {
  const out = new Float64Array(v.length);
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * inv;
  return out;
}

/** Indexes of the k most similar vectors, best first; ties go to the lower index. */
export function topK(query: Vector, vectors: readonly Float64Array[], k: number): number[] {
  const q = unit(query);
  const scored: { i: number; s: number }[] = [];
  for (let i = 0; i < vectors.length; i++) {
    const v = vectors[i]!;
    if (v.length !== q.length) throw new Error(`vector ${i} has ${v.length} dimensions, the query ${q.length}`);
    let s = 0;
    for (let d = 0; d < q.length; d++) s += q[d]! * v[d]!;
    scored.push({ i, s });
  }
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  return scored.slice(0, k).map((x) => x.i);
}

export interface EvaluationInput {
  questions: readonly Question[];
  /** Every chunk of every corpus: one pooled collection. */
  chunks: readonly ChunkSpan[];
  chunkVectors: readonly Vector[];
  questionVectors: readonly Vector[];
  k: number;
}

export function evaluate(input: EvaluationInput): PerQuestion[] {
  const { questions, chunks, chunkVectors, questionVectors, k } = input;
  if (chunks.length !== chunkVectors.length) throw new Error(`${chunks.length} chunks but ${chunkVectors.length} vectors`);
  if (questions.length !== questionVectors.length) throw new Error(`${questions.length} questions but ${questionVectors.length} vectors`);
  if (!Number.isInteger(k) || k < 1) throw new Error(`k must be a positive integer, got ${k}`);
  const units = chunkVectors.map(unit);
  return questions.map((q, i) => {
    const retrieved = topK(questionVectors[i]!, units, k).map((j) => chunks[j]!);
    return { id: q.id, corpusId: q.corpusId, ...scoreRetrieval(q, retrieved), precisionOmega: precisionOmega(q, chunks) };
  });
}
