/** index.json, seed 001's HAL+JSON shape ("Index.json Schema Extensions"). */

export interface Link {
  href: string;
}

export interface IndexKeyword {
  name: string;
  score: number;
}

export interface IndexItem {
  index: number;
  /** Relative to the folder of the index.json. */
  href: string;
  title: string;
  is_code: boolean;
  tokens: number;
  similarity_conceptual: number;
  similarity_technical?: number;
  keywords: IndexKeyword[];
  prompt_hashes?: string[];
  /**
   * SHA-256 (64 lowercase hex digits) of the chunk file at `href` when this index was built:
   * of its text as a reader gets it, UTF-8 with a leading byte order mark left out (see
   * chunkTextSha256). A reader that reads the chunk file without the manifest (retrieval's
   * DocsClient.chunkText) compares it, so a file the chunk step rewrote since is refused
   * instead of shown under this item's title. Absent in indexes built before it was added.
   */
  sha256?: string;
}

export interface IndexDocument {
  source: string;
  /** The chunk manifest (`_chunks/{doc}.json`), relative to the folder of the index.json. */
  manifest: string;
  /**
   * The manifest's sourceSha256 when this index was built. The chunk step rewrites
   * `_chunks/` before the index step rewrites index.json, so in between (a rebuild under
   * way) the index describes other chunks than the files now hold; a reader that finds the
   * manifest's hash differs knows it (retrieval's DocsClient says so instead of mixing them).
   */
  source_sha256: string;
  count: number;
  baseline_conceptual: 0;
  baseline_technical?: 1;
  stripe_order: number[];
  stripe_order_technical?: number[];
  items: IndexItem[];
}

export interface IndexQuestion {
  /** 16 hex digits, as in `prompt_hashes`. */
  hash: string;
  question: string;
}

/** A child in `_embedded.topics`. */
export interface IndexChild {
  id: string;
  kind: 'topic' | 'section';
  title: string;
  _links: { self: Link };
}

export interface IndexJson {
  /** Path of the folder under the docs root, `/`-separated; `""` for the root. */
  id: string;
  kind: 'topic' | 'section';
  title: string;
  /** Topics: the first sentence of the topic's first chunk (what llms.txt shows); absent when it has no prose. */
  description?: string;
  _links: { self: Link; parent?: Link };
  _embedded: {
    topics: IndexChild[];
    chunks?: Record<string, IndexDocument>;
    /** Topics only, when it has qa-pairs: the questions whose SimHashes are the items' `prompt_hashes`. */
    questions?: IndexQuestion[];
  };
}
