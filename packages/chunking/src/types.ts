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

export type StrategyName = 'semantic';

/** Options of `chunkDocument`. Every field has a default. */
export interface ChunkOptions {
  /** Document name used in ids (`{contentType}:{docName}::ch{n}`); default `document`. */
  docName: string;
  /** Document title; default: front matter `title`, else the first H1, else `docName`. */
  fileTitle?: string;
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
}

/** The token side of a chunk: exact cl100k count and the seed 003 estimate. */
export interface TokenStats {
  tokens: number;
  estimatedTokens: number;
  /** Exact cl100k count of `embedText`. */
  embedTokens: number;
}

/** A chunk record as seed 002 defines it, plus the content analysis fields. */
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
    chunkingOptions: ResolvedChunkOptions;
    pipeline: { name: string; version: string };
  };
}

export type ResolvedChunkOptions = Omit<ChunkOptions, 'fileTitle' | 'sourceFile'>;

export interface ChunkDocumentResult {
  strategy: StrategyName;
  /** Identifies the chunking approach for caches, e.g. `semantic-64-400-512`. */
  strategyKey: string;
  options: ResolvedChunkOptions;
  fileTitle: string;
  /** Range of YAML front matter excluded from chunking, if any. */
  frontMatter: SourceRange | null;
  chunks: ChunkRecord[];
}
