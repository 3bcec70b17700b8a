/**
 * chunkyard as a LlamaIndex.TS node parser: documents in, one `TextNode` per chunkyard chunk
 * out, with exact offsets, chunkyard's metadata and the SOURCE, PREVIOUS, NEXT, PARENT and
 * CHILD relationships from the records' links.
 *
 *   import { ChunkyardNodeParser } from '@chunkyard/chunking/llamaindex';
 *   const nodes = new ChunkyardNodeParser({ maxTokens: 400 }).getNodesFromDocuments(documents);
 *   const index = await VectorStoreIndex.init({ nodes });
 *
 * (Not `Settings.nodeParser` with `VectorStoreIndex.fromDocuments`: llamaindex 0.12's indices
 * module reads a Settings object of its own, which the exported Settings does not reach.)
 *
 * llamaindex is an optional peer dependency of @chunkyard/chunking: only this entry point
 * imports it.
 */
import { NodeParser, TextNode, type TextNodeParams } from 'llamaindex';
import { chunkDocument, ChunkOptionsError, DEFAULT_OPTIONS, resolveOptions, type ChunkOptions } from '@chunkyard/chunking';
import { contentDocName, detachedMetadata, PER_DOCUMENT_OPTIONS, plainOptions, splitterOptionsProblem, textNodesOf, uniqueNamer, visibleDocName } from '@chunkyard/chunking/interop';

/**
 * The document name a reader's metadata suggests: its `file_path` without the extension (the
 * whole path, as the LangChain splitter takes `source`, so two README.md files differ), else
 * its `file_name` (as SimpleDirectoryReader sets both), else the node id, else its content
 * (`document-<12 hex>`, contentDocName; a Document built with `id_: ''` was once refused with
 * "docName must be a non-empty string", an option its caller never gave, then named `document`).
 * Names and `sourceFile` show a control character as U+FFFD (visibleDocName): `sourceFile` kept
 * a NUL or an ESC of the path in every node's metadata.
 */
function nameOf(doc: TextNode): { docName: string; sourceFile?: string; fallbackTitle?: string } {
  const { file_path: path, file_name: file } = doc.metadata;
  const fileName = typeof file === 'string' && file !== '' ? file : undefined;
  if (typeof path === 'string' && path.replace(/[\\/]+$/, '') !== '') {
    const whole = path.replace(/\\/g, '/').replace(/\/+$/, '');
    const base = whole.split('/').pop()!;
    // A file name that is all extension (`.md`) keeps it.
    const stem = whole.replace(/\.[^./]*$/, '');
    // The title of a text without one is the file's name, not its whole path.
    const file = fileName ?? base;
    return { docName: visibleDocName(stem === '' || stem.endsWith('/') ? whole : stem), sourceFile: visibleDocName(file), fallbackTitle: visibleDocName(file.replace(/\.[^.]*$/, '') || file) };
  }
  if (fileName !== undefined) return { docName: visibleDocName(fileName.replace(/\.[^.]*$/, '') || fileName), sourceFile: visibleDocName(fileName) };
  if (typeof doc.id_ === 'string' && doc.id_ !== '') return { docName: visibleDocName(doc.id_) };
  // No path, file name or id_ (a Document built with `id_: ''`): named by its content, as
  // ChunkyardTextSplitter names a text without source or id (contentDocName). All such documents
  // were `document`, so two split in separate calls had the same node ids `/doc:document::ch0`
  // and a store keyed by node id kept only the last. The content name is no title: a text
  // without a heading is still titled `document`.
  const text: unknown = doc.text;
  return typeof text === 'string' ? { docName: contentDocName(text), fallbackTitle: DEFAULT_OPTIONS.docName } : { docName: DEFAULT_OPTIONS.docName };
}


/** What a wrong argument is, for a message (no value echoed). */
function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'string' ? 'a string' : typeof value;
}

export class ChunkyardNodeParser extends NodeParser<TextNode[]> {
  /** The chunkyard options every document is chunked with (sizes in exact cl100k tokens). */
  readonly chunkOptions: Partial<ChunkOptions>;

  /**
   * The document each node came from. NodeParser hands postProcessParsedNodes a map by id_, which
   * holds one of two documents sharing an id_: the other's nodes took its metadata and SOURCE.
   */
  private readonly documentOf = new WeakMap<TextNode, TextNode>();

  constructor(options: Partial<ChunkOptions> = {}) {
    super();
    // A bad option fails here, not at the first document; so does one chunkyard does not know
    // (SentenceSplitter's `chunkSize` was ignored without a word).
    const problem = splitterOptionsProblem(options, Object.keys(DEFAULT_OPTIONS));
    if (problem !== null) throw new ChunkOptionsError(`ChunkyardNodeParser: ${problem}`);
    const given = plainOptions(options, [...Object.keys(DEFAULT_OPTIONS), ...PER_DOCUMENT_OPTIONS]) as Partial<ChunkOptions>;
    resolveOptions(given);
    this.chunkOptions = given;
  }

  /**
   * NodeParser's own entry, with the documents checked first: null (or a string) threw "Cannot
   * read properties of null (reading 'map')" from LlamaIndex, a null document "reading 'id_'",
   * and a document whose metadata was set to null "reading 'file_name'" from inside the parser.
   */
  override getNodesFromDocuments(documents: TextNode[]): TextNode[] {
    if (!Array.isArray(documents)) throw new TypeError(`ChunkyardNodeParser: documents must be an array of Documents, got ${kindOf(documents)}`);
    documents.forEach((doc: unknown, i) => {
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new TypeError(`ChunkyardNodeParser: documents[${i}] must be a Document, got ${kindOf(doc)}`);
      const { metadata } = doc as { metadata?: unknown };
      if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
        throw new TypeError(`ChunkyardNodeParser: documents[${i}].metadata must be an object, got ${kindOf(metadata)}`);
      }
    });
    return super.getNodesFromDocuments(documents);
  }

  /**
   * Node ids are `<document id_>/<chunk id>`: stable across runs (LlamaIndex's own parsers
   * draw random UUIDs), and distinct for two documents whose chunk ids repeat. A document whose
   * id_ an earlier one of the call had is numbered, `<id_>#2/<chunk id>`, `#3`, … in order.
   */
  protected parseNodes(documents: TextNode[]): TextNode[] {
    /** Node id prefixes of this call: a document id_ seen before is numbered, `<id_>#2`. */
    const uniqueName = uniqueNamer();
    /** Document names of this call: the pages of one file (a reader's Documents share its path) are numbered, `<name>#2`. */
    const uniqueDocName = uniqueNamer();
    return documents.flatMap((doc, i) => {
      // The document's own text, not getText(): that trims it, so every offset was short by the
      // leading blank lines or BOM, and LlamaIndex measures offsets in `text` (its parsers'
      // indexOf runs on parentDoc.text). Trimming also turned a leading indented block into prose.
      const text: unknown = doc.text;
      if (typeof text !== 'string') throw new TypeError(`ChunkyardNodeParser: documents[${i}].text must be a string, got ${text === null ? 'null' : typeof text}`);
      if (text.trim() === '') return [];
      // Two documents with one id_ (copies, or a reader's pages given the file's id) gave the same
      // node ids, and a vector store keyed by node id kept only the last one's chunks.
      const prefix = uniqueName(String(doc.id_));
      // A name an earlier document of the call had is numbered, as ChunkyardTextSplitter numbers
      // it: the metadata's chunkId, parentId, prevId and nextId of two such documents were the same.
      // The title of a text without one stays the name as it was, unnumbered.
      const named = this.chunkOptions.docName === undefined ? nameOf(doc) : {};
      const options = { ...named, ...this.chunkOptions };
      const name = options.docName ?? DEFAULT_OPTIONS.docName;
      const { chunks } = chunkDocument(text, { fallbackTitle: name, ...options, docName: uniqueDocName(name) });
      return textNodesOf(chunks, { id: doc.id_ }, {}, (id) => `${prefix}/${id}`).map((json) => {
        // The JSON's relationship keys are NodeRelationship's values ('SOURCE', …), as strings.
        const node = new TextNode({ ...json, relationships: json.relationships as TextNodeParams['relationships'] });
        // TextNode's constructor drops a start offset of 0 (it tests truthiness).
        node.startCharIdx = json.startCharIdx;
        node.endCharIdx = json.endCharIdx;
        // How the node prints its metadata lines is the document's, as LlamaIndex's parsers copy
        // it (buildNodeFromSplits): every node got '\n' and '', whatever the document said.
        if (typeof doc.metadataSeparator === 'string') node.metadataSeparator = doc.metadataSeparator;
        if (typeof doc.textTemplate === 'string') node.textTemplate = doc.textTemplate;
        this.documentOf.set(node, doc);
        return node;
      });
    });
  }

  /**
   * NodeParser's default post-processing finds each node's offsets with `indexOf` (the first
   * occurrence, wrong for repeated or overlapping text) and relinks PREVIOUS/NEXT by list order
   * (wrong for hierarchical output, where sections and snippets interleave). The records' own
   * offsets and links are exact, so only the document's metadata is merged in, as LlamaIndex
   * does (document keys win, shown or hidden as the document says), and `includeMetadata`
   * and `includePrevNextRel` are honoured as there.
   */
  protected override postProcessParsedNodes(nodes: TextNode[], parentDocMap: Map<string, TextNode>): TextNode[] {
    for (const node of nodes) {
      const doc = this.documentOf.get(node) ?? parentDocMap.get(node.sourceNode?.nodeId ?? '');
      if (!doc) continue;
      node.relationships.SOURCE = doc.asRelatedNodeInfo();
      // NodeParser's switch for the chain links (its own post-processing adds them only when
      // set): `includePrevNextRel = false` still gave every node PREVIOUS and NEXT.
      if (!this.includePrevNextRel) {
        delete node.relationships.PREVIOUS;
        delete node.relationships.NEXT;
      }
      if (this.includeMetadata) {
        // A copy per node: nested objects shared with the document and with each other changed
        // them all when one node's were changed (SentenceSplitter's nodes share them).
        node.metadata = { ...node.metadata, ...detachedMetadata(doc.metadata) };
      }
      // chunkyard's exclusions are for chunkyard's values: a key the document sets holds the
      // document's value now, shown or hidden as the document says (a `contentType` or
      // `title`-like key of the user's, named like one of chunkyard's, was hidden from the
      // embedded text where LlamaIndex's own parsers show it). The document's exclusions hold
      // with `includeMetadata` off too, as LlamaIndex's parsers copy them to every node: a
      // document hiding `headerBreadcrumb` from its embedding had it embedded.
      const merged = this.includeMetadata ? doc.metadata : {};
      const own = (keys: string[], docKeys: unknown) => [...new Set([...keys.filter((k) => !Object.hasOwn(merged, k)), ...(Array.isArray(docKeys) ? (docKeys as string[]) : [])])];
      node.excludedEmbedMetadataKeys = own(node.excludedEmbedMetadataKeys, doc.excludedEmbedMetadataKeys);
      node.excludedLlmMetadataKeys = own(node.excludedLlmMetadataKeys, doc.excludedLlmMetadataKeys);
    }
    return nodes;
  }
}
