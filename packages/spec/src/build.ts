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
}

export function buildTopicSpec(input: BuildSpecInput): TopicSpec {
  if (!(input.promptThreshold >= -1 && input.promptThreshold <= 1)) {
    throw new RangeError(`promptThreshold must be within [-1, 1], got ${input.promptThreshold}`);
  }
  // One matcher for the topic: each entry's term key is worked out once, not once per chunk
  // (matchKeywords per chunk took 42 s for a words.md of 100,000 keywords and 56 chunks), and
  // text the chunks repeat is scanned once. Same entries as matchKeywords gives.
  const matcher = new KeywordMatcher(input.keywords);
  const questions: SpecQuestion[] = input.questions.map((q) => ({ hash: toHex(simhash64(q.question)), question: q.question }));
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
      count: d.chunks.length,
      baseline_conceptual: 0,
      ...(technical ? { baseline_technical: 1 as const } : {}),
    });
    d.chunks.forEach((c, i) => {
      const v = d.vectors[i]!;
      const hashes = new Set<string>();
      input.questions.forEach((q, qi) => {
        if (cosine(q.vector, v) >= input.promptThreshold) hashes.add(questions[qi]!.hash);
      });
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
