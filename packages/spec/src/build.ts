/**
 * The `spec` stage: from a topic's chunk manifests, their embeddings, the keyword table and
 * the embedded qa-pairs questions to a TopicSpec. Pure: vectors come in, numbers go out.
 */
import { KeywordMatcher, type KeywordEntry } from '@chunkyard/keywords';
import { SIMHASH_VERSION, simhash64, toHex } from '@chunkyard/simhash';
import { cosine, isTechnicalBaselineTitle, roundSimilarity } from './similarity.js';
import type { SpecChunk, SpecDocument, SpecQuestion, TopicSpec } from './types.js';

/** The fields of a chunk record (a `_chunks/{doc}.json` manifest entry) that `spec` uses. */
export interface ManifestChunk {
  chunkNumber: number;
  originalText: string;
  sectionTitle: string;
  isCode: boolean;
  tokenStats: { tokens: number };
}

export interface SpecInputDocument {
  /** `golden-reference` for `golden-reference.md`. */
  doc: string;
  source: string;
  strategyKey: string;
  sourceSha256: string;
  /** SHA-256 of the manifest's text (SpecDocument.manifestSha256), when the caller read one. */
  manifestSha256?: string;
  fileTitle: string;
  chunks: ManifestChunk[];
  /** One per chunk, in order: the embedding of its embedText. */
  vectors: Float32Array[];
}

export interface SpecInputQuestion {
  question: string;
  vector: Float32Array;
}

export interface BuildSpecInput {
  title: string;
  embedding: { provider: string; model: string; dimensions: number };
  documents: SpecInputDocument[];
  keywords: readonly KeywordEntry[];
  questions: SpecInputQuestion[];
  /** A question's hash goes on every chunk whose similarity to it is at least this. */
  promptThreshold: number;
  /** At most this many (question, chunk) pairs are stored; more is a PromptHashLimitError. Default MAX_PROMPT_HASHES. */
  maxPromptHashes?: number;
}

/**
 * How many (question, chunk) pairs a spec stores at most. Every pair is about 25 characters of
 * topic-spec.md and 35 of index.json, so this keeps them near 50 and 70 MB. The pairs are at
 * most questions × chunks, both growing with a topic: 10,000 questions on 2,594 chunks stored
 * 24 million, and topic-spec ran 144 s to die on V8's string limit with a stack trace
 * (RangeError: Invalid string length).
 */
export const MAX_PROMPT_HASHES = 2_000_000;

/** Too many (question, chunk) pairs reach the prompt threshold for one topic-spec.md; nothing is built. */
export class PromptHashLimitError extends Error {
  override name = 'PromptHashLimitError';
  constructor(
    readonly limit: number,
    readonly questions: number,
    readonly chunks: number,
    readonly threshold: number,
  ) {
    super(
      `more than ${limit.toLocaleString('en-US')} (question, chunk) pairs reach the prompt threshold ${threshold} ` +
        `(${questions.toLocaleString('en-US')} questions, ${chunks.toLocaleString('en-US')} chunks), over what one topic-spec.md holds ` +
        `(about 25 characters a pair, and 35 more in index.json); raise spec.promptThreshold (or --prompt-threshold), ` +
        `or split the topic or its qa-pairs.md`,
    );
  }
}

export function buildTopicSpec(input: BuildSpecInput): TopicSpec {
  if (!(input.promptThreshold >= -1 && input.promptThreshold <= 1)) {
    throw new RangeError(`promptThreshold must be within [-1, 1], got ${input.promptThreshold}`);
  }
  if (input.maxPromptHashes !== undefined && !(Number.isInteger(input.maxPromptHashes) && input.maxPromptHashes >= 0)) {
    throw new RangeError(`maxPromptHashes must be a whole number, 0 or more, got ${input.maxPromptHashes}`);
  }
  // One matcher for the topic: each entry's term key is worked out once, not once per chunk
  // (matchKeywords per chunk took 42 s for a words.md of 100,000 keywords and 56 chunks), and
  // text the chunks repeat is scanned once. Same entries as matchKeywords gives.
  const limit = input.maxPromptHashes ?? MAX_PROMPT_HASHES;
  const chunkCount = input.documents.reduce((n, d) => n + d.chunks.length, 0);
  // Counted as they are found, so a topic over the limit stops at the limit, not after every pair.
  let stored = 0;
  const matcher = new KeywordMatcher(input.keywords);
  const questions: SpecQuestion[] = input.questions.map((q) => ({ hash: toHex(simhash64(q.question)), question: q.question }));
  const prompts = new PromptMatcher(input.questions.map((q) => q.vector));
  const documents: SpecDocument[] = [];
  const chunks: SpecChunk[] = [];
  for (const d of input.documents) {
    if (d.vectors.length !== d.chunks.length) {
      throw new RangeError(`${d.source}: ${d.chunks.length} chunks but ${d.vectors.length} vectors`);
    }
    const technical = d.chunks.length > 1 && isTechnicalBaselineTitle(titleOf(d.chunks[1]!, d.fileTitle));
    documents.push({
      doc: d.doc,
      source: d.source,
      manifest: `_chunks/${encodeURIComponent(d.doc)}.json`,
      strategyKey: d.strategyKey,
      sourceSha256: d.sourceSha256,
      ...(d.manifestSha256 !== undefined ? { manifestSha256: d.manifestSha256 } : {}),
      count: d.chunks.length,
      baseline_conceptual: 0,
      ...(technical ? { baseline_technical: 1 as const } : {}),
    });
    d.chunks.forEach((c, i) => {
      const v = d.vectors[i]!;
      const hashes = new Set<string>();
      prompts.match(v, input.promptThreshold, (qi) => hashes.add(questions[qi]!.hash));
      stored += hashes.size;
      if (stored > limit) throw new PromptHashLimitError(limit, input.questions.length, chunkCount, input.promptThreshold);
      const chunk: SpecChunk = {
        doc: d.doc,
        index: i,
        href: `_chunks/${encodeURIComponent(d.doc)}-${i}.md`,
        title: titleOf(c, d.fileTitle),
        is_code: c.isCode,
        tokens: c.tokenStats.tokens,
        similarity_conceptual: roundSimilarity(cosine(v, d.vectors[0]!)),
        ...(technical ? { similarity_technical: roundSimilarity(cosine(v, d.vectors[1]!)) } : {}),
        keywords: matcher.match(c.originalText).map((k) => ({ name: k.name, score: k.score })),
      };
      if (hashes.size) chunk.prompt_hashes = [...hashes].sort();
      chunks.push(chunk);
    });
  }
  return {
    schemaVersion: 1,
    title: input.title,
    embedding: input.embedding,
    promptMatching: { simhash: SIMHASH_VERSION, threshold: input.promptThreshold },
    documents,
    chunks,
    questions,
  };
}

/** A chunk's title: its section heading, or the document title before the first heading. */
function titleOf(c: ManifestChunk, fileTitle: string): string {
  return c.sectionTitle.trim() || fileTitle;
}

/**
 * The questions' vectors, ready to be compared with every chunk: each question's squared norm
 * and its non-zero dimensions, taken once. `match` gives exactly the questions whose
 * `cosine(question, chunk)` reaches the threshold, with a chunk's norm taken once and each dot
 * product over the question's non-zero dimensions only. Prompt matching is questions × chunks
 * cosines, and cosine() sums three products over every dimension: 3,200 questions on a topic of
 * 3,200 sections spent 24 s there (helper-85 probe), though a question the local provider
 * embeds has 5 or so non-zero dimensions of 512.
 *
 * The same numbers as cosine(): its sums run over the dimensions in order from +0, and a term
 * x·y with x = ±0 (y finite) is ±0, which leaves such a sum as it was (the sum is never -0),
 * so skipping those terms changes no bit; the norms are the same sums, taken once. A vector that
 * is not a Float32Array or Float64Array, or holds NaN or an infinity (its squared norm is then
 * not finite, where 0·y is NaN), and vectors of two sizes (cosine's RangeError) go to cosine().
 */
class PromptMatcher {
  private readonly prepared: ({ norm: number; at: Int32Array; values: Float64Array } | null)[];

  constructor(private readonly vectors: readonly Float32Array[]) {
    this.prepared = vectors.map((q) => {
      if (!isFloatArray(q)) return null;
      const norm = squaredNorm(q);
      if (!Number.isFinite(norm)) return null;
      let nonZero = 0;
      for (let i = 0; i < q.length; i++) if (q[i] !== 0) nonZero++;
      const at = new Int32Array(nonZero);
      const values = new Float64Array(nonZero);
      for (let i = 0, k = 0; i < q.length; i++) {
        if (q[i] !== 0) {
          at[k] = i;
          values[k++] = q[i]!;
        }
      }
      return { norm, at, values };
    });
  }

  /** Calls `found(qi)` for each question qi whose cosine to `v` is at least `threshold`, in order. */
  match(v: Float32Array, threshold: number, found: (qi: number) => void): void {
    const vNorm = isFloatArray(v) ? squaredNorm(v) : Number.NaN;
    const fast = Number.isFinite(vNorm);
    for (let qi = 0; qi < this.vectors.length; qi++) {
      const q = this.prepared[qi];
      let similarity: number;
      if (!fast || q === null || q === undefined || this.vectors[qi]!.length !== v.length) {
        similarity = cosine(this.vectors[qi]!, v);
      } else if (q.norm === 0 || vNorm === 0) {
        similarity = 0;
      } else {
        const { at, values } = q;
        let dot = 0;
        for (let k = 0; k < at.length; k++) dot += values[k]! * v[at[k]!]!;
        similarity = Math.max(-1, Math.min(1, dot / Math.sqrt(q.norm * vNorm)));
      }
      if (similarity >= threshold) found(qi);
    }
  }
}

function isFloatArray(v: unknown): v is Float32Array | Float64Array {
  return v instanceof Float32Array || v instanceof Float64Array;
}

/** The sum of the squares, in index order from +0, as cosine() sums a vector's norm. */
function squaredNorm(v: Float32Array | Float64Array): number {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  return n;
}
