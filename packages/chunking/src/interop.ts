/**
 * Chunk records in the shapes RAG libraries load: LangChain.js `Document`s and LlamaIndex.TS
 * `TextNode`s, as plain JSON. Pure and free of those libraries, so `docs-export` (which writes
 * JSON lines) needs neither installed; the splitters in `langchain.ts` and `llamaindex.ts` build
 * the libraries' own objects from the same fields, so a chunk carries the same metadata
 * whichever way it reaches a vector store.
 *
 *   import { chunkMetadata, toLangChainDocument, toTextNode } from '@chunkyard/chunking/interop';
 */
import { createHash } from 'node:crypto';
import type { ChunkRecord } from '@chunkyard/chunking';
import { nearestName } from './nearest-name.js';

// One definition of the control characters a document name may not hold (doc-name-controls.ts):
// resolveOptions, visibleDocName and @chunkyard/topic-io's docNameProblem all read it.
export { docNameControl, visibleDocName } from './doc-name-controls.js';

/** What a chunk's metadata says about where it came from, beyond the record itself. */
export interface ChunkContext {
  /** The topic folder, relative to the docs root (`libraries/json`); omitted when not in a docs tree. */
  topic?: string;
  /** The source file as the consumer names it (a path under the docs root, or a loader's `source`). */
  source?: string;
  /** The manifest's `strategyKey` (the chunking that made the record). */
  strategyKey?: string;
}

/**
 * The metadata every exported chunk carries: chunkyard's ids and links, heading context,
 * offsets, source lines and token counts. Flat: every value a string, number, boolean or null.
 * LlamaIndex's stores for Chroma, Milvus, Weaviate, MongoDB Atlas, AstraDB and Firestore refuse
 * a node whose metadata holds an object or array (`nodeToMetadata(…, flatMetadata = true)`:
 * "Value for metadata headerPath must not be another object"), and Chroma behind LangChain does
 * too; LlamaIndex's own parsers give flat keys (`Header_1`). So the heading path is the one
 * string `headerBreadcrumb`, and the record's `sourcePosition`, `tokenStats` and `source` are
 * spread into `charStart`/`charEnd`/`totalChars`, `tokens`/`estimatedTokens`/`embedTokens` and
 * `startLine`/`endLine`. No `embedText`/`originalText`: the text is the document's own content.
 */
export function chunkMetadata(record: ChunkRecord, context: ChunkContext = {}): Record<string, string | number | boolean | null> {
  const meta: Record<string, string | number | boolean | null> = {
    chunkId: record.id,
    parentId: record.parentId,
    prevId: record.prevId,
    nextId: record.nextId,
    chunkNumber: record.chunkNumber,
    contentType: record.contentType,
    sourceFile: record.metadata.sourceFile,
    fileTitle: record.fileTitle,
    sectionTitle: record.sectionTitle,
    headerBreadcrumb: record.headerBreadcrumb,
    sectionSlug: record.sectionSlug,
    charStart: record.sourcePosition.charStart,
    charEnd: record.sourcePosition.charEnd,
    totalChars: record.sourcePosition.totalChars,
    tokens: record.tokenStats.tokens,
    estimatedTokens: record.tokenStats.estimatedTokens,
    embedTokens: record.tokenStats.embedTokens,
    contentHints: record.contentHints,
    isCode: record.isCode,
    containsTable: record.containsTable,
    splitUnit: record.splitUnit,
    overlapChars: record.overlapChars,
    strategy: record.metadata.chunkingOptions.strategy,
  };
  // Hierarchical records say which tier they are; a consumer filters sections from snippets by it.
  if (record.tier) meta.tier = record.tier.level;
  // Seed 002's source lines (1-based, inclusive); absent in manifests written before them.
  if (record.source) {
    meta.startLine = record.source.startLine;
    meta.endLine = record.source.endLine;
  }
  if (context.strategyKey !== undefined) meta.strategyKey = context.strategyKey;
  if (context.topic !== undefined) meta.topic = context.topic;
  if (context.source !== undefined) meta.source = context.source;
  return meta;
}

/**
 * Which text of a chunk a LangChain `Document`'s `pageContent` holds. LangChain has no field
 * for "what is embedded" apart from "what is shown": its vector stores embed `pageContent`.
 * - `original` (the default): `originalText`, the chunk as the source has it;
 * - `embed`: `embedText`, what chunkyard itself embeds: the chunk behind its heading breadcrumb
 *   (`Guide > Installing > Windows`, as `breadcrumbMode` says) or, for a hierarchical record,
 *   its `[DOC: …][PATH: …][CONCEPTS: …]` prefix. A store then embeds the heading context
 *   chunkyard's own retrieval has, and the LLM is shown it too.
 * The metadata is the same either way: `charStart`/`charEnd` and `loc.lines` are the chunk's
 * place in the source, not in `pageContent`.
 */
export type PageContent = 'original' | 'embed';

/** The `pageContent` choices, as options and flags take them. */
export const PAGE_CONTENTS: readonly PageContent[] = ['original', 'embed'];

/** The problem with a `pageContent` option, or null. */
export function pageContentProblem(value: unknown): string | null {
  if ((PAGE_CONTENTS as readonly unknown[]).includes(value)) return null;
  const shown = typeof value === 'string' ? quotedKey(value) : value === null ? 'null' : typeof value;
  return `pageContent must be ${PAGE_CONTENTS.map((p) => `'${p}'`).join(' or ')}, got ${shown}`;
}

/** The text of `record` a Document's `pageContent` holds (see PageContent). */
export function pageContentOf(record: Pick<ChunkRecord, 'originalText' | 'embedText'>, pageContent: PageContent = 'original'): string {
  return pageContent === 'embed' ? record.embedText : record.originalText;
}

/** A LangChain.js `Document` as JSON: `new Document(json)` takes it as it is. */
export interface LangChainDocumentJSON {
  pageContent: string;
  metadata: Record<string, unknown>;
  id: string;
}

/**
 * `id`: the id the document gets (chunk ids repeat across topics, so an export prefixes them).
 * The metadata has LangChain's `loc.lines` (`{ from, to }`, 1-based) from the record's source
 * lines, as ChunkyardTextSplitter and LangChain's own splitters set it: it is where LangChain's
 * stores and citation code look (Chroma's store keeps it as `locFrom`/`locTo`). The splitter
 * counts as LangChain does, `\n` only, so a chunk ending in a line break or holding a lone `\r`
 * reads one line apart there; the record has no source text to count that way from.
 * `options.pageContent`: `original` (default, `originalText`) or `embed` (`embedText`, what
 * chunkyard embeds; see PageContent).
 */
export function toLangChainDocument(record: ChunkRecord, context: ChunkContext = {}, id: string = record.id, options: { pageContent?: PageContent } = {}): LangChainDocumentJSON {
  const { pageContent = 'original' } = options;
  const problem = pageContentProblem(pageContent);
  if (problem !== null) throw new TypeError(`toLangChainDocument: ${problem}`);
  const metadata: Record<string, unknown> = chunkMetadata(record, context);
  if (record.source) metadata.loc = { lines: { from: record.source.startLine, to: record.source.endLine } };
  return { pageContent: pageContentOf(record, pageContent), metadata, id };
}

/** LlamaIndex.TS's `RelatedNodeInfo`, as `BaseNode.asRelatedNodeInfo()` gives it. */
export interface RelatedNodeJSON {
  nodeId: string;
  nodeType?: 'TEXT' | 'DOCUMENT';
  metadata: Record<string, unknown>;
}

/** LlamaIndex.TS's relationship keys (its `NodeRelationship` enum values). */
export type Relationship = 'SOURCE' | 'PREVIOUS' | 'NEXT' | 'PARENT' | 'CHILD';

/**
 * A LlamaIndex.TS `TextNode` as `JSON.stringify(node)` writes it (camelCase fields and
 * `type: "TEXT"`), so `new TextNode(json)` and `jsonToNode(json)` read it back, but for a start
 * offset of 0: llamaindex 0.12's TextNode constructor tests `startCharIdx` for truthiness and
 * leaves the first chunk's undefined (set `node.startCharIdx = json.startCharIdx` after, as
 * ChunkyardNodeParser does; interop.test.ts pins the library's behaviour). The offsets are
 * also given as `start_char_idx`/`end_char_idx`, the field names of LlamaIndex's Python
 * `TextNode`.
 */
export interface TextNodeJSON {
  id_: string;
  type: 'TEXT';
  text: string;
  metadata: Record<string, unknown>;
  excludedEmbedMetadataKeys: string[];
  excludedLlmMetadataKeys: string[];
  relationships: Partial<Record<Exclude<Relationship, 'CHILD'>, RelatedNodeJSON>> & { CHILD?: RelatedNodeJSON[] };
  startCharIdx: number;
  endCharIdx: number;
  start_char_idx: number;
  end_char_idx: number;
  metadataSeparator: string;
  textTemplate: string;
  embedding?: number[];
}

/**
 * The metadata keys of a chunk that LlamaIndex shows the embedding (`MetadataMode.EMBED`) and the
 * LLM (`MetadataMode.LLM`): the `key: value` lines `getContent` puts before the text. They are
 * chunkyard's heading breadcrumb, the context its own `embedText` carries (`breadcrumbMode:
 * 'always'`'s prefix, as labelled lines):
 * - `headerBreadcrumb`, the heading path, unless it is empty (a chunk before any heading): the
 *   line was `headerBreadcrumb:` alone, a word of noise in every chunk of a heading-less text;
 * - `fileTitle`, when chunkyard's breadcrumb starts with it, that is when the heading path does
 *   not (a front-matter or fallback title, `npm-install` over `### Synopsis`, or a text without
 *   headings): chunkyard embeds `npm-install > Synopsis`, LlamaIndex got `Synopsis` alone.
 * With `breadcrumbMode: 'none'` chunkyard embeds the bare chunk, and so does LlamaIndex: the keys
 * are shown to the LLM only. Ids, offsets and counts are never shown: noise to an embedding model.
 */
export function shownMetadataKeys(record: Pick<ChunkRecord, 'fileTitle' | 'headerPath' | 'headerBreadcrumb' | 'metadata'>): { embed: string[]; llm: string[] } {
  const llm: string[] = [];
  if (record.fileTitle !== '' && record.headerPath[0] !== record.fileTitle) llm.push('fileTitle');
  if (record.headerBreadcrumb !== '') llm.push('headerBreadcrumb');
  return { embed: record.metadata.chunkingOptions.breadcrumbMode === 'none' ? [] : llm, llm };
}

/**
 * Metadata LlamaIndex leaves out of the text it embeds and shows the LLM: all but the heading
 * breadcrumb. LlamaIndex prepends `key: value` lines for every other key, and ids, offsets and
 * counts are noise to an embedding model (objects would even print as `[object Object]`).
 * `toTextNode` uses `shownMetadataKeys`, which decides per record (the file title, an empty
 * breadcrumb, `breadcrumbMode: 'none'`).
 */
export function excludedMetadataKeys(metadata: Record<string, unknown>): string[] {
  return Object.keys(metadata).filter((k) => k !== 'headerBreadcrumb');
}

export interface TextNodeLinks {
  /** The node id of a chunk id of the same document (see `nodeIdOf` in `textNodesOf`). */
  nodeId: (chunkId: string) => string;
  /** The SOURCE relationship: the document the chunks came from. */
  sourceId: string;
  sourceMetadata?: Record<string, unknown>;
  /** Ids of the chunks of this document, to tell a parent chunk from the parent document. */
  chunkIds: ReadonlySet<string>;
  /** chunk id -> ids of the chunks whose parentId it is (hierarchical sections -> snippets). */
  children: ReadonlyMap<string, readonly string[]>;
}

/**
 * One chunk as a TextNode. PREVIOUS and NEXT come from `prevId`/`nextId`; PARENT from
 * `parentId` when that is a chunk (a hierarchical snippet's section) — a `parentId` naming
 * the document is the SOURCE relationship instead; CHILD lists the chunks whose parent this
 * chunk is.
 */
export function toTextNode(record: ChunkRecord, links: TextNodeLinks, context: ChunkContext = {}): TextNodeJSON {
  const metadata = chunkMetadata(record, context);
  const related = (chunkId: string): RelatedNodeJSON => ({ nodeId: links.nodeId(chunkId), nodeType: 'TEXT', metadata: {} });
  const relationships: TextNodeJSON['relationships'] = {
    SOURCE: { nodeId: links.sourceId, nodeType: 'DOCUMENT', metadata: links.sourceMetadata ?? {} },
  };
  if (record.prevId) relationships.PREVIOUS = related(record.prevId);
  if (record.nextId) relationships.NEXT = related(record.nextId);
  if (links.chunkIds.has(record.parentId)) relationships.PARENT = related(record.parentId);
  const children = links.children.get(record.id);
  if (children && children.length > 0) relationships.CHILD = children.map(related);
  const { charStart, charEnd } = record.sourcePosition;
  const shown = shownMetadataKeys(record);
  return {
    id_: links.nodeId(record.id),
    type: 'TEXT',
    text: record.originalText,
    metadata,
    excludedEmbedMetadataKeys: Object.keys(metadata).filter((k) => !shown.embed.includes(k)),
    excludedLlmMetadataKeys: Object.keys(metadata).filter((k) => !shown.llm.includes(k)),
    relationships,
    startCharIdx: charStart,
    endCharIdx: charEnd,
    start_char_idx: charStart,
    end_char_idx: charEnd,
    metadataSeparator: '\n',
    textTemplate: '',
  };
}

/**
 * Every chunk of one document as TextNodes, with the document's links worked out once.
 * `nodeIdOf` maps a chunk id to its node id (default: the chunk id itself).
 */
export function textNodesOf(
  chunks: readonly ChunkRecord[],
  source: { id: string; metadata?: Record<string, unknown> },
  context: ChunkContext = {},
  nodeIdOf: (chunkId: string) => string = (id) => id,
): TextNodeJSON[] {
  const chunkIds = new Set(chunks.map((c) => c.id));
  const children = new Map<string, string[]>();
  for (const c of chunks) {
    if (!chunkIds.has(c.parentId)) continue;
    const list = children.get(c.parentId) ?? [];
    list.push(c.id);
    children.set(c.parentId, list);
  }
  const links: TextNodeLinks = { nodeId: nodeIdOf, sourceId: source.id, chunkIds, children, ...(source.metadata ? { sourceMetadata: source.metadata } : {}) };
  return chunks.map((c) => toTextNode(c, links, context));
}

/**
 * 1-based line numbers of `[start, end)` in `text`, counted as LangChain's splitters count
 * `loc.lines`: `to` is `from` plus the line breaks inside the range. For many ranges of one
 * text, `lineRanges(text)` once: this counts from the start of the text on every call.
 */
export function lineRange(text: string, start: number, end: number): { from: number; to: number } {
  return lineRanges(text)(start, end);
}

/**
 * The document name of a text its input names in no way (a LangChain text without `source` or
 * `id`): `document-` and the first 12 hex digits of the SHA-256 of its UTF-8 text. The same text
 * gets the same name in every call and every run, so splitting it again updates a vector store's
 * entries by id; different texts get different names, where every such text was `document` and
 * two split in separate calls shared the ids `doc:document::ch0`, … (a store upserting by id kept
 * the last one). 48 bits: two of a million such texts share a name with odds of about 1 in 560.
 * Copies of one text in one call share the name and are numbered by `uniqueNamer`.
 */
export function contentDocName(text: string): string {
  return `document-${createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 12)}`;
}

/**
 * A namer for one splitter call: each name as it is the first time, then `<name>#2`, `#3`, … in
 * order (a name that reads `<name>#2` itself takes the next number free), so that two inputs of
 * one name (copies, a reader's pages under the file's name) never share chunk or node ids, which
 * a vector store upserting by id would keep only one of. The last number per name is kept, so
 * many copies of one name stay linear.
 */
export function uniqueNamer(): (name: string) => string {
  const used = new Set<string>();
  const numbered = new Map<string, number>();
  return (name) => {
    let unique = name;
    if (used.has(name)) {
      let n = numbered.get(name) ?? 1;
      do unique = `${name}#${++n}`;
      while (used.has(unique));
      numbered.set(name, n);
    }
    used.add(unique);
    return unique;
  };
}

/**
 * `lineRange` for many ranges of one text: the line breaks are found once and each range is
 * two binary searches. Counting from the text's start per chunk made a splitter's Documents
 * quadratic in the text (a file of 200,000 lines took minutes for its `loc.lines`).
 */
export function lineRanges(text: string): (start: number, end: number) => { from: number; to: number } {
  const breaks: number[] = [];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) breaks.push(i);
  /** How many line breaks lie before `at`. */
  const before = (at: number): number => {
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (breaks[mid]! < at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return (start, end) => {
    const from = 1 + before(start);
    return { from, to: from + Math.max(0, before(end) - before(start)) };
  };
}

/**
 * A copy of a document's metadata for one chunk, sharing none of its plain objects and arrays
 * (nested ones included), so that changing one chunk's `tags` or `pdf.info` changes no other
 * chunk and not the input; LangChain's and LlamaIndex's own splitters share them. Own
 * enumerable keys are copied (symbols and an own `__proto__` too) with their property
 * descriptors, so a getter stays a getter, not called; a Date is copied; other class instances
 * (a URL, a Buffer, a Map) are kept as they are; a reference cycle stays a cycle in the copy.
 */
export function detachedMetadata<T>(value: T): T {
  const copies = new Map<object, unknown>();
  // Objects copied but not filled yet: a loop, not recursion, so metadata nested thousands deep
  // (which a splitter shared without reading) does not overflow the stack.
  const pending: [object, object, boolean][] = [];
  const shell = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    const done = copies.get(v);
    if (done !== undefined) return done;
    if (v instanceof Date) return new Date(v.getTime());
    const proto = Object.getPrototypeOf(v) as object | null;
    const isArray = Array.isArray(v);
    if (!isArray && proto !== Object.prototype && proto !== null) return v;
    const out: object = isArray ? [] : proto === null ? Object.create(null) : {};
    copies.set(v, out);
    pending.push([v, out, isArray]);
    return out;
  };
  const root = shell(value);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [from, to, isArray] = next;
    for (const key of Reflect.ownKeys(from)) {
      const desc = Object.getOwnPropertyDescriptor(from, key);
      if (!desc || !desc.enumerable || (isArray && key === 'length')) continue;
      if ('value' in desc) Object.defineProperty(to, key, { value: shell(desc.value), enumerable: true, writable: true, configurable: true });
      else Object.defineProperty(to, key, { ...desc, configurable: true });
    }
  }
  return root as T;
}

/** The options a splitter takes per document rather than per configuration (they skip DEFAULT_OPTIONS). */
export const PER_DOCUMENT_OPTIONS: readonly string[] = ['fileTitle', 'fallbackTitle', 'sourceFile', 'sourceId', 'sourceSystem'];

/**
 * The options as a plain object: the own keys, and each of `names` read by name through the
 * prototype chain below Object.prototype, as resolveOptions reads them. Spreading the caller's
 * object kept only own enumerable keys, so a class instance's getters (or Object.create(defaults))
 * gave the defaults without a word.
 */
export function plainOptions(options: object, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...options };
  for (const key of names) {
    if (Object.hasOwn(out, key)) continue;
    for (let o: object | null = options; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
      if (Object.hasOwn(o, key)) {
        const v = (options as Record<string, unknown>)[key];
        if (v !== undefined) out[key] = v;
        break;
      }
    }
  }
  return out;
}

/** A key as a message quotes it: cut to 60 characters, with the escapes JSON leaves out. */
function quotedKey(key: string): string {
  const cut = key.length > 60 ? `${key.slice(0, 60)}…` : key;
  return JSON.stringify(cut).replace(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The problem with a splitter's options object, or null: it must be an object, and every key must
 * be one of chunkyard's options (`optionNames`, DEFAULT_OPTIONS' keys) or one of `accepted` (the
 * library's own fields that the splitter takes). chunkDocument ignores keys it does not know, so a
 * misspelt `maxToken: 256` or LlamaIndex's `chunkSize` gave the default sizes with nothing said;
 * a splitter is constructed once, so saying so there costs nothing per document.
 */
export function splitterOptionsProblem(options: unknown, optionNames: readonly string[], accepted: readonly string[] = []): string | null {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    const shown = options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options === 'string' ? quotedKey(options) : typeof options;
    return `options must be an object (or left out), got ${shown}`;
  }
  const known = new Set([...optionNames, ...PER_DOCUMENT_OPTIONS]);
  for (const key of Object.keys(options)) {
    if (known.has(key) || accepted.includes(key)) continue;
    const near = nearestName(key, [...known, ...accepted]);
    const hint = near !== undefined ? ` (did you mean ${near}?)` : '';
    return `unknown option ${quotedKey(key)}${hint}; chunkyard's options are ${[...known].join(', ')}${accepted.length > 0 ? `, and ${accepted.join(', ')} (accepted, not used)` : ''}`;
  }
  return null;
}
