/** The data `topic-spec.md` holds: what `spec` computes and `index` reads. Names follow seed 001. */

export interface SpecKeyword {
  name: string;
  score: number;
}

/** One chunk, with seed 001's item names (plus `doc` and `tokens`). */
export interface SpecChunk {
  /** Document the chunk belongs to (`golden-reference`): its manifest is `_chunks/{doc}.json`. */
  doc: string;
  index: number;
  /** Relative to the topic folder. */
  href: string;
  title: string;
  is_code: boolean;
  /** Exact cl100k tokens of the chunk's text. */
  tokens: number;
  similarity_conceptual: number;
  /** Present only when the document has a technical baseline. */
  similarity_technical?: number;
  keywords: SpecKeyword[];
  /** SimHashes (16 hex digits) of the qa-pairs.md questions close to this chunk; absent when none. */
  prompt_hashes?: string[];
}

export interface SpecDocument {
  doc: string;
  source: string;
  manifest: string;
  strategyKey: string;
  sourceSha256: string;
  /**
   * SHA-256 of the manifest's text as topic-spec read it (a leading BOM left out). index-tool
   * compares it with the manifest it finds: a chunk step run again with other settings (same
   * source, so the same sourceSha256) is caught. Absent in specs written before session 56.
   */
  manifestSha256?: string;
  count: number;
  baseline_conceptual: 0;
  /** 1 when chunk 1's title names a reference section; absent otherwise. */
  baseline_technical?: 1;
}

export interface SpecQuestion {
  hash: string;
  question: string;
}

export interface TopicSpec {
  schemaVersion: 1;
  title: string;
  embedding: { provider: string; model: string; dimensions: number };
  promptMatching: { simhash: string; threshold: number };
  documents: SpecDocument[];
  chunks: SpecChunk[];
  /** qa-pairs.md questions and their hashes, in file order (for people and the inspector). */
  questions: SpecQuestion[];
}
