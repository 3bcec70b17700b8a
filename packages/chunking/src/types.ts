/**
 * The typed data that flows between the stages of the semantic pipeline:
 *
 *   parse → flatten → splitOversized → pack → overlap → normalize → attachMetadata → validate
 *
 * All offsets are UTF-16 code units into the original source string (what
 * `String.prototype.slice` takes), so `source.slice(start, end)` is always the
 * text a range names.
 */

/** A half-open range `[start, end)` of UTF-16 code units in the source. */
export interface SourceRange {
  start: number;
  end: number;
}

export type BlockType =
  | 'heading'
  | 'paragraph'
  | 'code'
  | 'table'
  | 'list'
  | 'listItem'
  | 'blockquote'
  | 'html'
  | 'thematicBreak'
  | 'definition'
  | 'footnoteDefinition';

/**
 * One block of the flattened document: the contract between parsing and
 * everything after it. Top-level blocks and the items of top-level lists carry
 * their exact node range (first to last non-whitespace character, as remark's
 * positions give it). Blocks nested inside a container carry line-aligned
 * ranges instead (from the start of their first line, so container markers
 * such as `> ` or list indentation are included), because that is where a
 * boundary inside a container can cut while keeping the text exact.
 */
export interface Block extends SourceRange {
  type: BlockType;
  /** 0-based line of `start` and of the last character of the block. */
  startLine: number;
  endLine: number;
  /** Heading level 1–6. */
  depth?: number;
  /** Heading plain text (inline markup removed, as mdast-util-to-string gives it). */
  text?: string;
  /** Fenced code: the first word of the info string, or null. */
  lang?: string | null;
  /** Code: fenced (``` or ~~~) rather than indented. */
  fenced?: boolean;
  /** Table: header cell texts; the column count is `header.length`. */
  header?: string[];
  /** List and list item: ordered list. */
  ordered?: boolean;
  /** Containers (list, listItem, blockquote, footnoteDefinition): their children. */
  children?: Block[];
}

export type ParserName = 'fast' | 'remark';

export type BreadcrumbMode = 'conditional' | 'always' | 'none';

export type ContentHint = 'prose' | 'table' | 'code' | 'list' | 'quote' | 'mixed';

export type StrategyName = 'semantic' | 'token-window' | 'hierarchical' | 'paginate';

/** paginate's lead-in / lead-out lines: extractive (offline default) or none. */
export type LeadLines = 'extractive' | 'none';

/** Options of `chunkDocument`. Every field has a default. */
export interface ChunkOptions {
  /** Document name used in ids (`{contentType}:{docName}::ch{n}`); default `document`. */
  docName: string;
  /** Document title; default: front matter `title`, else the first H1, else `fallbackTitle`, else `docName`. */
  fileTitle?: string;
  /**
   * The title of a document that names none (no front matter `title`, no H1): what the caller
   * knows it by. chunking-tool gives a topic's folder name, since every topic's document is
   * golden-reference.md and that name told a reader and an embedding nothing. Default `docName`.
   */
  fallbackTitle?: string;
  /** Content type used in ids; default `doc`. */
  contentType: string;
  strategy: StrategyName;
  minTokens: number;
  targetTokens: number;
  maxTokens: number;
  /** Sentences of the previous chunk repeated at the start of a continuing chunk. */
  overlapSentences: number;
  breadcrumbMode: BreadcrumbMode;
  /** Block producer: `fast` (markdown-it, default) or `remark` (the reference). */
  parser: ParserName;
  /** Source file name recorded in `metadata.sourceFile`. */
  sourceFile?: string;

  // token-window (seed 004)
  /** Window size in exact cl100k tokens. */
  windowTokens: number;
  /** Tokens the end of one window shares with the start of the next. */
  windowOverlapTokens: number;
  /** A document of at most this many tokens is one chunk. */
  singlePieceMaxTokens: number;
  /** Seed 004's artifact id: `art_` + sha256(`{sourceSystem}:{sourceId}`)[:8] when given, else of the content. */
  sourceId?: string;
  sourceSystem?: string;

  // hierarchical (seed 003)
  sectionTargetTokens: number;
  sectionMaxTokens: number;
  sectionOverlapTokens: number;
  snippetTargetTokens: number;
  snippetMaxTokens: number;
  snippetOverlapTokens: number;
  /** Concept terms in a `[CONCEPTS: …]` prefix, at most. */
  maxConcepts: number;

  // paginate (seed 000)
  /** Model context size; Nmax = ctxSize − bufSize. */
  ctxSize: number;
  /** Tokens reserved for system prompts. */
  bufSize: number;
  /** Tokens a page repeats from the end of the page before it; at most 5% of Nmax. */
  pageOverlapTokens: number;
  leadLines: LeadLines;
}

/** The token side of a chunk: exact cl100k count and the seed 003 estimate. */
export interface TokenStats {
  tokens: number;
  estimatedTokens: number;
  /** Exact cl100k count of `embedText`. */
  embedTokens: number;
}

/**
 * A chunk record as seed 002 defines it, plus the content analysis fields.
 *
 * Records are plain JSON data, but the semantic strategy's records share what many of them hold
 * alike: empty arrays, `headerPath`, `headerSlugs`, `headerDepths` and `nodeTypes` lists, and
 * `metadata` itself (one object per document, its `chunkingOptions` and `pipeline` too) may be
 * one object for many records. The shared arrays and objects are frozen, so changing one in
 * place throws instead of changing other records: to change such a field, assign a new value
 * (`r.nodeTypes = [...]`, `r.metadata = { ...r.metadata, sourceFile }`).
 */
export interface ChunkRecord {
  id: string;
  parentId: string;
  chunkNumber: number;
  contentType: string;
  embedText: string;
  originalText: string;
  fileTitle: string;
  sectionTitle: string;
  headerPath: string[];
  headerBreadcrumb: string;
  headerDepths: number[];
  headerSlugs: string[];
  sectionSlug: string;
  sourcePosition: { charStart: number; charEnd: number; totalChars: number };
  tokenStats: TokenStats;
  prevId: string | null;
  nextId: string | null;
  nodeTypes: BlockType[];
  contentHints: ContentHint;
  containsTable: boolean;
  tableColumns: number[];
  isCode: boolean;
  /**
   * The chunk holds part of one atomic unit (code block, table, quote, HTML
   * block, list item) that was larger than `maxTokens` and was split along its
   * own structure. For code and tables the text is rebuilt (fence re-opened,
   * header repeated), so it is not an exact slice of the source.
   */
  splitUnit: boolean;
  /** Characters of `originalText` repeated from the previous chunk (sentence overlap). */
  overlapChars: number;
  metadata: {
    sourceFile: string;
    chunkingOptions: RecordedOptions;
    pipeline: { name: string; version: string };
  };
  /** token-window: seed 004's window record. */
  window?: WindowInfo;
  /** hierarchical: the tier and the parent/child links. */
  tier?: TierInfo;
  /** paginate: the page as emitted, with its continuity token. */
  page?: PageInfo;
  /** Boilerplate spans (seed 003) inside this chunk's range that `originalText` leaves out. */
  removed?: SourceRange[];
  /**
   * Seed 002's optional source location. `chunkDocument` sets it on every record of
   * every strategy; optional because manifests written before it lack it.
   */
  source?: SourceLocation;
}

/**
 * Where a chunk lies in its source file, in lines: `startLine` holds `charStart`, `endLine`
 * the last character before `charEnd` (its line break included). 1-based and inclusive, as
 * editors number lines; lines end at `\n`, `\r\n` or a lone `\r`.
 */
export interface SourceLocation {
  /** The source file name (`metadata.sourceFile`). */
  filePath: string;
  startLine: number;
  endLine: number;
}

export interface WindowInfo {
  artifactId: string;
  /** `{artifactId}::chunk::{index:03}::{sha256(originalText)[:8]}`. */
  chunkId: string;
  chunkIndex: number;
  /** sha256 hex of `originalText` (UTF-8). */
  contentHash: string;
  /** Token range `[startToken, endToken)` in the encoding of the document body. */
  startToken: number;
  endToken: number;
  /** Tokens shared with the previous window (0 for the first). */
  overlapTokens: number;
}

export interface TierInfo {
  level: 'section' | 'snippet';
  /** Section index (a snippet's: the section it lies in). */
  section: number;
  /** Snippet index within its section; null for a section. */
  snippet: number | null;
  /** The section's id for a snippet; null for a section (its parent is the document, `parentId`). */
  sectionId: string | null;
  /** A section's snippets; empty for a snippet. */
  childIds: string[];
  /** The `[DOC: …][PATH: …][CONCEPTS: …]` prefix of embedText. */
  retrievalPrefix: string;
  concepts: string[];
  /** Tokens at the start repeated from the previous chunk of the same tier. */
  overlapTokens: number;
}

/** Seed 000's continuity token. */
export interface ContinuityToken {
  id: string;
  prev: string | null;
  next: string | null;
}

export interface PageInfo {
  ct: ContinuityToken;
  leadIn: string | null;
  leadOut: string | null;
  /** The emitted chunk file: CT comment, lead-in, originalText, lead-out. */
  text: string;
  /** Exact cl100k tokens of `text`; at most Nmax. */
  tokens: number;
  nmax: number;
  /** schema.org CreativeWork record. */
  jsonLd: Record<string, unknown>;
  /** Tokens at the start repeated from the previous page. */
  overlapTokens: number;
}

export type ResolvedChunkOptions = Omit<ChunkOptions, 'fileTitle' | 'sourceFile' | 'sourceId' | 'sourceSystem'>;

/** The options a strategy reads (`recordedOptions`): what manifests and records show. */
export type RecordedOptions = Pick<ResolvedChunkOptions, 'docName' | 'contentType' | 'strategy'> & Partial<ResolvedChunkOptions>;

export interface ChunkDocumentResult {
  strategy: StrategyName;
  /** Identifies the chunking approach for caches, e.g. `semantic-64-400-512`. */
  strategyKey: string;
  options: RecordedOptions;
  fileTitle: string;
  /** Range of YAML front matter excluded from chunking, if any. */
  frontMatter: SourceRange | null;
  chunks: ChunkRecord[];
  /** Boilerplate removed before chunking (plain text, seed 003), with the reason. */
  removed?: RemovedSpan[];
  /** How headings were found: markdown syntax, or seed 003's heuristics for plain text. */
  headingDetection?: 'markdown' | 'heuristic';
}

export interface RemovedSpan extends SourceRange {
  reason: 'page-number' | 'header-footer' | 'toc' | 'index';
}
