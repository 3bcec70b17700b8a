/**
 * chunkyard as a LangChain.js text splitter: a `TextSplitter` (from @langchain/textsplitters)
 * whose cuts are chunkyard's, with chunkyard's metadata on every Document.
 *
 *   import { MarkdownTextSplitter } from '@chunkyard/chunking/langchain'; // was '@langchain/textsplitters'
 *   const docs = await new MarkdownTextSplitter().splitDocuments(loaded);
 *
 * @langchain/textsplitters and @langchain/core are optional peer dependencies of
 * @chunkyard/chunking: only this entry point imports them.
 */
import { Document } from '@langchain/core/documents';
import { TextSplitter, type TextSplitterChunkHeaderOptions, type TextSplitterParams } from '@langchain/textsplitters';
import { chunkDocument, ChunkOptionsError, DEFAULT_OPTIONS, resolveOptions, type ChunkOptions, type ChunkRecord } from '@chunkyard/chunking';
import { chunkMetadata, contentDocName, detachedMetadata, lineRanges, PER_DOCUMENT_OPTIONS, pageContentOf, pageContentProblem, plainOptions, splitterOptionsProblem, uniqueNamer, visibleDocName, type PageContent } from '@chunkyard/chunking/interop';

/** LangChain's TextSplitter fields: taken (so a MarkdownTextSplitter call runs unchanged), not steering the cut. */
const LANGCHAIN_FIELDS = ['chunkSize', 'chunkOverlap', 'keepSeparator', 'lengthFunction'];

/** The splitter's own fields, neither chunkyard's chunking options nor LangChain's. */
const SPLITTER_FIELDS = ['pageContent'];

/**
 * A text LangChain passed on, or a TypeError naming where it came from: a loader that left
 * `pageContent` a number or null got "text.trim is not a function" from deep inside.
 */
function textAt(text: unknown, where: string): string {
  if (typeof text === 'string') return text;
  throw new TypeError(`${where} must be a string, got ${text === null ? 'null' : Array.isArray(text) ? 'an array' : typeof text}`);
}

/**
 * The metadata of text `i`, or a TypeError naming it: a string's characters were spread into
 * every Document's metadata (`{ 0: 'a', 1: 'b', … }`), an array's items likewise, and a number
 * was taken as none. null and undefined are no metadata, as before.
 */
function metadataAt(metadata: unknown, i: number): Record<string, unknown> {
  if (metadata === undefined || metadata === null) return {};
  if (typeof metadata === 'object' && !Array.isArray(metadata)) return metadata as Record<string, unknown>;
  const kind = Array.isArray(metadata) ? 'an array' : typeof metadata === 'string' ? 'a string' : typeof metadata;
  throw new TypeError(`createDocuments: metadatas[${i}] must be an object, got ${kind}`);
}

/**
 * chunkyard's chunking options (sizes in exact cl100k tokens: `maxTokens`, `targetTokens`,
 * `strategy`, …) and LangChain's splitter fields. LangChain's `chunkSize`, `chunkOverlap`,
 * `keepSeparator` and `lengthFunction` are accepted, so a `MarkdownTextSplitter` call compiles
 * unchanged, but they do not steer the cut: chunkyard's token options do.
 */
export type ChunkyardTextSplitterParams = Partial<TextSplitterParams> &
  Partial<ChunkOptions> & {
    /**
     * The text each Document's `pageContent` (and `splitText`'s strings) hold, which is what a
     * LangChain vector store embeds: `'original'` (default) the chunk as the source has it,
     * `'embed'` chunkyard's `embedText`, the chunk behind its heading breadcrumb (what chunkyard
     * itself embeds). See `PageContent` in `@chunkyard/chunking/interop`.
     */
    pageContent?: PageContent;
  };

/**
 * The document name a loader's metadata suggests: its `source` path without the extension
 * (the whole path, so chunk ids of two files named README.md differ), and the file name for
 * `sourceFile` (a `.txt` name turns on chunkyard's plain-text handling). Each shows a control
 * character as U+FFFD (visibleDocName): `sourceFile` kept a NUL or an ESC of the path, and went
 * into every Document's metadata (and a store's, a log's) while the ids and title showed it.
 */
function nameOf(metadata: Record<string, unknown> | undefined): { docName: string; sourceFile: string; fallbackTitle: string } | null {
  const source = metadata?.source;
  if (typeof source !== 'string') return null;
  // A web loader's `source` is the page URL. Its host is no file name (`example.com` is not a
  // `.com` file), and its query and fragment tell pages apart (`list.php?page=2`) without being
  // part of the file name. A trailing `/` (`https://docs.example.com/guide/`, `https://x.com/`)
  // is dropped: the name was the default `document` for every such page, so pages split in
  // separate calls shared their ids and a store upserting by id kept one of them.
  const url = /^([a-z][a-z\d+.-]*:\/\/[^/?#]*)([^?#]*)(.*)$/is.exec(source);
  // Credentials in the URL (`https://user:token@host/…`) are no part of the page's name, which
  // opens every chunk id that stores, logs and manifests keep: the user information goes (up to
  // the authority's last `@`, as a URL parser reads it).
  const [origin, tail] = url ? [url[1]!.replace(/^([^:]*:\/\/)[^/?#]*@/s, '$1'), url[3]!] : ['', ''];
  const path = (url ? url[2]! : source).replace(/\\/g, '/').replace(/\/+$/, '');
  const file = path.split('/').pop() ?? '';
  if (file === '') {
    // A bare host (`https://docs.example.com/`) is named by it; `/` or `file:///` by nothing.
    const host = origin.slice(origin.indexOf('//') + 2);
    return host === '' ? null : { docName: visibleDocName(origin + tail), sourceFile: visibleDocName(host), fallbackTitle: visibleDocName(host) };
  }
  // A file name that is all extension (`.md`) keeps it: without, the name was empty, and
  // chunkDocument refused it.
  const stem = path.replace(/\.[^./]*$/, '');
  // The title of a text without a heading is the file's name: the whole (often absolute) path,
  // numbered for a PDF's second page, was the first line of what `pageContent: 'embed'` embedded.
  const title = file.replace(/\.[^.]*$/, '') || file;
  return { docName: visibleDocName(origin + (stem === '' || stem.endsWith('/') ? path : stem) + tail), sourceFile: visibleDocName(file), fallbackTitle: visibleDocName(title) };
}


export class ChunkyardTextSplitter extends TextSplitter {
  static override lc_name(): string {
    return 'ChunkyardTextSplitter';
  }

  /** The chunkyard options every text is chunked with (a loader's `source` adds the document name). */
  readonly chunkOptions: Partial<ChunkOptions>;

  /** Which text of a chunk `pageContent` holds: `original` (`originalText`) or `embed` (`embedText`). */
  readonly pageContent: PageContent;

  constructor(fields: ChunkyardTextSplitterParams = {}) {
    // Checked before the destructuring, which threw "Cannot destructure property 'chunkSize' of
    // 'fields' as it is null", and took a string's characters as options.
    const problem = splitterOptionsProblem(fields, [...Object.keys(DEFAULT_OPTIONS), ...SPLITTER_FIELDS], LANGCHAIN_FIELDS);
    if (problem !== null) throw new ChunkOptionsError(`ChunkyardTextSplitter: ${problem}`);
    const given = plainOptions(fields, [...Object.keys(DEFAULT_OPTIONS), ...PER_DOCUMENT_OPTIONS, ...SPLITTER_FIELDS, ...LANGCHAIN_FIELDS]) as ChunkyardTextSplitterParams;
    const { chunkSize, chunkOverlap, keepSeparator, lengthFunction, pageContent = 'original', ...chunkOptions } = given;
    const contentProblem = pageContentProblem(pageContent);
    if (contentProblem !== null) throw new ChunkOptionsError(`ChunkyardTextSplitter: ${contentProblem}`);
    super({
      ...(chunkSize !== undefined ? { chunkSize } : {}),
      ...(chunkOverlap !== undefined ? { chunkOverlap } : {}),
      ...(keepSeparator !== undefined ? { keepSeparator } : {}),
      ...(lengthFunction !== undefined ? { lengthFunction } : {}),
    });
    // A bad option fails here, as LangChain's own splitters fail on theirs, not at the first document.
    resolveOptions(chunkOptions);
    this.chunkOptions = chunkOptions;
    this.pageContent = pageContent;
  }

  /** chunkyard's records for one text (none for a blank one), named as `createDocuments` names it. */
  chunkRecords(text: string, metadata?: Record<string, unknown>): ChunkRecord[] {
    const given = textAt(text, 'chunkRecords: text');
    return this.recordsAs(given, this.optionsFor(given, metadata));
  }

  /**
   * The options a text is chunked with. Unless `docName` was given, the loader's `source` names
   * it; else the input Document's `id`; else its content (`contentDocName`: `document-<12 hex>`,
   * titled `document` as before), so that different texts without either get different chunk ids
   * and the same text the same ids in every run.
   */
  private optionsFor(text: string, metadata: Record<string, unknown> | undefined, id?: unknown): Partial<ChunkOptions> {
    if (this.chunkOptions.docName !== undefined) return { ...this.chunkOptions };
    const named =
      nameOf(metadata) ??
      (typeof id === 'string' && id !== '' ? { docName: visibleDocName(id) } : { docName: contentDocName(text), fallbackTitle: DEFAULT_OPTIONS.docName });
    return { ...named, ...this.chunkOptions };
  }

  private recordsAs(text: string, options: Partial<ChunkOptions>): ChunkRecord[] {
    if (text.trim() === '') return [];
    return chunkDocument(text, options).chunks;
  }

  /**
   * Each chunk's `originalText`: the exact source slice (a split oversized code block or table is
   * rebuilt whole); its `embedText` with `pageContent: 'embed'`.
   */
  async splitText(text: string): Promise<string[]> {
    return this.chunkRecords(textAt(text, 'splitText: text')).map((c) => pageContentOf(c, this.pageContent));
  }

  /**
   * One Document per chunk (its `pageContent` the chunk's `originalText`, or its `embedText` with
   * `pageContent: 'embed'`), with the input's metadata, LangChain's `loc.lines`, and chunkyard's
   * (`chunkId`, `headerBreadcrumb`, `charStart`, `tokens`, … see `chunkMetadata`) under any key
   * the input does not set itself (the input's value is kept). Each
   * Document's `id` is the chunk id (`doc:<name>::ch<n>`, the name from `docName`, from the
   * loader's `metadata.source`, from the input Document's `id` (`splitDocuments`), else
   * `document-<12 hex>` from the text, see `contentDocName`), unique in the call: a name that an
   * earlier text of the same call had (two pages of one PDF share their `source`; copies of one
   * text share its content name) is numbered, `<name>#2`, `#3`, … in order, so that a vector
   * store upserting by id keeps them all.
   */
  override async createDocuments(
    texts: string[],
    metadatas: Record<string, unknown>[] = [],
    chunkHeaderOptions: TextSplitterChunkHeaderOptions = {},
  ): Promise<Document[]> {
    if (!Array.isArray(texts)) throw new TypeError(`createDocuments: texts must be an array of strings, got ${texts === null ? 'null' : typeof texts}`);
    // null is taken as no metadata (LangChain's own splitter threw reading its length).
    if (metadatas !== null && !Array.isArray(metadatas)) throw new TypeError(`createDocuments: metadatas must be an array of objects, got ${typeof metadatas}`);
    return this.documentsOf(texts, metadatas, chunkHeaderOptions, []);
  }

  /**
   * TextSplitter's splitDocuments (Documents without `pageContent` skipped), with each input
   * Document's `id` passed on to name a text that has no `source`: LangChain's own went through
   * createDocuments, which takes no ids. `transformDocuments` comes here too.
   */
  override async splitDocuments(documents: Document[], chunkHeaderOptions: TextSplitterChunkHeaderOptions = {}): Promise<Document[]> {
    const selected = documents.filter((doc) => doc.pageContent !== undefined);
    return this.documentsOf(
      selected.map((doc) => doc.pageContent),
      selected.map((doc) => doc.metadata),
      chunkHeaderOptions,
      selected.map((doc) => doc.id),
    );
  }

  private documentsOf(texts: string[], metadatas: Record<string, unknown>[] | null, chunkHeaderOptions: TextSplitterChunkHeaderOptions | null, ids: readonly unknown[]): Document[] {
    const { chunkHeader = '', chunkOverlapHeader = "(cont'd) ", appendChunkOverlapHeader = false } = chunkHeaderOptions ?? {};
    const out: Document[] = [];
    const uniqueName = uniqueNamer();
    texts.forEach((given, i) => {
      // splitDocuments passes each Document's pageContent here.
      const text = textAt(given, `createDocuments: texts[${i}] (a Document's pageContent)`);
      const base = metadataAt(metadatas?.[i], i);
      const options = this.optionsFor(text, base, ids[i]);
      const name = options.docName ?? DEFAULT_OPTIONS.docName;
      const docName = uniqueName(name);
      // A numbered name is no title: a text without a heading keeps the name as it was.
      const records = this.recordsAs(text, docName === name ? options : { fallbackTitle: name, ...options, docName });
      const lineRange = lineRanges(text);
      records.forEach((c, n) => {
        // Each Document's own copy: nested objects shared with the input and with each other
        // changed them all when one Document's were changed (LangChain's own splitters share them).
        const own = detachedMetadata(base);
        const loc = typeof own.loc === 'object' && own.loc !== null ? { ...(own.loc as Record<string, unknown>) } : {};
        loc.lines = lineRange(c.sourcePosition.charStart, c.sourcePosition.charEnd);
        const header = chunkHeader + (n > 0 && appendChunkOverlapHeader ? chunkOverlapHeader : '');
        // The input's keys win, as in LlamaIndex's NodeParser (and ChunkyardNodeParser): a
        // loader's `contentType` or `title` is what the user filters on, and chunkyard's keys
        // spread last replaced it without a word. `loc` merges, as LangChain's splitters do.
        out.push(new Document({ pageContent: header + pageContentOf(c, this.pageContent), metadata: { ...chunkMetadata(c), ...own, loc }, id: c.id }));
      });
    });
    return out;
  }
}

/**
 * The same class under the name of the splitter it replaces, so switching is one import:
 * `import { MarkdownTextSplitter } from '@chunkyard/chunking/langchain'`.
 */
export { ChunkyardTextSplitter as MarkdownTextSplitter };
