/**
 * The typed data between the store's stages:
 *
 *   ArtifactInput ─plan→ ArtifactPlan ─embed→ EmbeddedArtifact ─write→ IngestOutcome
 *
 * Planning is pure (validation, hashing, chunking), embedding is the only slow or remote
 * step, and writing is one SQLite transaction, so a failure in either of the last two
 * leaves the database as it was (seed 004's two-phase write).
 */
import type { ContentHint } from '@chunkyard/chunking';

/** One document to ingest, as text (bytes go through `decodeDocument` first). */
export interface ArtifactInput {
  content: string;
  /** Document title; default: front matter `title`, else the first H1, else the source name. */
  title?: string;
  /** Content type (seed 004 `artifact_type`); default `doc`. */
  artifactType?: string;
  /** Where it came from (seed 004 `source_system`), e.g. `file`, `mcp`; default `inline`. */
  sourceSystem?: string;
  /** Stable id within the source system (e.g. a workspace-relative path). Derives the artifact id. */
  sourceId?: string;
  /** Path shown with search hits. */
  sourceFile?: string;
  /** Topic folder (workspace-relative), used as a search filter. */
  topic?: string | null;
}

/** One searchable, embeddable piece: a chunk, or the whole artifact when it is not chunked. */
export interface UnitPlan {
  /** `{artifactId}::chunk::{index:03}::{sha256[:8]}` for chunks; the artifact id for a whole artifact. */
  id: string;
  /** Position within the artifact; null for a whole artifact. */
  chunkIndex: number | null;
  /** The chunker's own record id (e.g. `doc:guide::ch3`), linking back to `_chunks/` manifests. */
  recordId: string | null;
  /** Exact text (seed 004 `content`). */
  content: string;
  /** Text that is embedded and full-text indexed (may carry a breadcrumb). */
  embedText: string;
  /** UTF-16 offsets of `content` in the source. */
  startChar: number;
  endChar: number;
  /** How many leading characters of `content` repeat the chunk before (sentence overlap; default 0). */
  overlapChars?: number;
  /** Exact cl100k tokens of `content`. */
  tokenCount: number;
  /** sha256 hex of `content`. */
  contentHash: string;
  sectionTitle: string;
  headerBreadcrumb: string;
  contentHints: ContentHint;
  isCode: boolean;
}

export interface ArtifactPlan {
  id: string;
  artifactType: string;
  sourceSystem: string;
  sourceId: string | null;
  sourceFile: string | null;
  topic: string | null;
  title: string;
  /** Full text when stored whole; '' when chunked (seed 004 keeps metadata only then). */
  content: string;
  /** Exact cl100k tokens of the whole document. */
  tokenCount: number;
  /** sha256 hex of the whole document. */
  contentHash: string;
  isChunked: boolean;
  /** `whole` for an unchunked artifact, else the chunker's strategy key. */
  strategyKey: string;
  contentHints: ContentHint;
  units: UnitPlan[];
}

/**
 * A document to ingest whose units are read when a stage needs them: ingest --built reads a
 * manifest again for embedding and again for writing instead of holding every document's
 * chunks at once, so its memory follows the largest document, not the tree (a tree of 16
 * 9 MB documents peaked at 2.3 GB and 64 would pass the default heap).
 */
export interface PlanRef {
  /** The plan without its units (`units` is empty): what deciding to skip or write needs. */
  head: ArtifactPlan;
  /** The ids of its units, in order: what an outcome lists as stored. */
  unitIds: string[];
  /** The whole plan; throws (an InputError naming the file) when its document changed since `head` was read. */
  load(): ArtifactPlan;
}

export interface EmbeddedArtifact {
  plan: ArtifactPlan;
  /** One per unit, in order. */
  vectors: Float32Array[];
}

export type IngestStatus = 'created' | 'replaced' | 'unchanged';

export interface IngestOutcome {
  artifactId: string;
  sourceFile: string | null;
  status: IngestStatus;
  isChunked: boolean;
  numChunks: number;
  tokenCount: number;
  /** The artifact id plus every chunk id (seed 004 `stored_ids`). */
  storedIds: string[];
}

export type SearchMode = 'fts' | 'vector' | 'hybrid';

export interface SearchFilters {
  /** Topic path, or its last segment (the topic folder's name). */
  topic?: string;
  contentType?: string;
  /** Any of these hints. */
  contentHints?: ContentHint[];
}

/** A unit found by a search, with what a caller needs to cite it. */
export interface SearchHit {
  unitId: string;
  artifactId: string;
  chunkIndex: number | null;
  /** Chunks in the artifact (0 for a whole artifact). */
  numChunks: number;
  sourceFile: string | null;
  title: string;
  sectionTitle: string;
  topic: string | null;
  contentType: string;
  contentHints: ContentHint;
  content: string;
  startChar: number;
  endChar: number;
  tokenCount: number;
  /** Higher is better; its scale depends on the mode (see README). */
  score: number;
  /** 1-based ranks in the lists that found it. */
  ranks: { fts?: number; vector?: number };
  /** With `expand`: the unit and its ±k neighbours joined by `[CHUNK BOUNDARY]`. */
  expanded?: string;
  /**
   * Routed search (hybrid, by default): the small-to-big unit this hit stands for, as
   * docs-query returns it. The hit's own fields are its best chunk's (the one that opened
   * the unit); `score` is the fused route score.
   */
  unit?: RoutedSpan;
}

export interface RoutedSpan {
  /** The chunk indices the text spans, first and last (null for a document stored whole). */
  chunks: { from: number; to: number } | null;
  /** The unit's chunks joined by `[CHUNK BOUNDARY]` (with `expand`, ±k neighbours too), edge sentences that share no term with the query trimmed. */
  text: string;
  /** How many ranked chunks merged into the unit. */
  hits: number;
  /** The best chunk's own cosine similarity and BM25 score. */
  similarity: number;
  bm25: number;
}

export interface Expansion {
  unitId: string;
  artifactId: string;
  /** Chunk indices included, in order (empty for a whole artifact). */
  chunkIndices: number[];
  text: string;
}

export interface StoreStats {
  path: string;
  schemaVersion: number;
  artifacts: number;
  chunkedArtifacts: number;
  chunks: number;
  /** Searchable units: chunks plus whole artifacts. */
  units: number;
  tokens: number;
  embeddingModel: string | null;
  dimensions: number | null;
  topics: { topic: string | null; artifacts: number }[];
  fileBytes: number;
  /** The persisted approximate index (table `vector_ann`), or null when none was built. */
  ann: { kind: 'ivf'; lists: number; rows: number; bytes: number; builtAt: string } | null;
}
