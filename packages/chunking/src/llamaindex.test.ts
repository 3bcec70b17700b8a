/**
 * The LlamaIndex.TS node parser against the real llamaindex package: a NodeParser, TextNodes
 * with exact offsets and chunkyard's links as relationships, and VectorStoreIndex over
 * LlamaIndex's in-memory SimpleVectorStore, with a BaseEmbedding subclass over chunkyard's
 * offline lexical embedder (llamaindex ships no offline embedding model).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BaseEmbedding, Document, FileReader, MetadataMode, NodeParser, SentenceSplitter, Settings, TextNode, VectorStoreIndex } from 'llamaindex';
import { createProvider } from '@chunkyard/embeddings';
import { describe, expect, it, onTestFinished } from 'vitest';
import { chunkDocument } from './index.js';
import { ChunkyardNodeParser } from './llamaindex.js';

const DOCS = join(import.meta.dirname, '../../../docs');
const POLY = 'libraries/system-text-json-polymorphism/golden-reference.md';
const AOT = 'deployment/native-aot/golden-reference.md';
const read = (rel: string) => readFileSync(join(DOCS, rel), 'utf8');
const docOf = (rel: string) => new Document({ id_: rel, text: read(rel), metadata: { file_name: 'golden-reference.md', topic: rel.split('/').slice(0, 2).join('/') } });

class LocalEmbedding extends BaseEmbedding {
  private readonly provider = createProvider({ provider: 'local' });
  // BaseEmbedding's constructor is protected.
  constructor() {
    super();
  }
  async getTextEmbedding(text: string): Promise<number[]> {
    const [v] = await this.provider.embed([text]);
    return Array.from(v!);
  }
}

describe('ChunkyardNodeParser (LlamaIndex.TS)', () => {
  it('is a NodeParser: one TextNode per chunk, exact offsets, stable ids, the document as SOURCE, prev/next links', () => {
    const parser = new ChunkyardNodeParser();
    expect(parser).toBeInstanceOf(NodeParser);
    const doc = docOf(POLY);
    const nodes = parser.getNodesFromDocuments([doc]);
    const chunks = chunkDocument(doc.text, { docName: 'golden-reference', sourceFile: 'golden-reference.md' }).chunks;
    expect(nodes.map((n) => n.text)).toEqual(chunks.map((c) => c.originalText));
    for (const [i, node] of nodes.entries()) {
      const c = chunks[i]!;
      expect(node).toBeInstanceOf(TextNode);
      expect(node.id_).toBe(`${POLY}/${c.id}`);
      expect([node.startCharIdx, node.endCharIdx]).toEqual([c.sourcePosition.charStart, c.sourcePosition.charEnd]);
      if (!c.splitUnit) expect(doc.text.slice(node.startCharIdx, node.endCharIdx)).toBe(node.text);
      expect(node.sourceNode?.nodeId).toBe(POLY);
      expect(node.prevNode?.nodeId).toBe(c.prevId ? `${POLY}/${c.prevId}` : undefined);
      expect(node.nextNode?.nodeId).toBe(c.nextId ? `${POLY}/${c.nextId}` : undefined);
      // chunkyard's metadata and the document's; of chunkyard's keys only the breadcrumb reaches
      // the embedded text (the document's keys do, as LlamaIndex does with every document).
      expect(node.metadata).toMatchObject({ chunkId: c.id, headerBreadcrumb: c.headerBreadcrumb, tokens: c.tokenStats.tokens, charStart: c.sourcePosition.charStart, topic: 'libraries/system-text-json-polymorphism' });
      const prefix = `file_name: golden-reference.md\nheaderBreadcrumb: ${c.headerBreadcrumb}\ntopic: libraries/system-text-json-polymorphism`;
      expect(node.getContent(MetadataMode.EMBED)).toBe(`${prefix}\n\n${c.originalText}`.trim());
    }
    // Deterministic: a second run gives the same ids (LlamaIndex's own parsers draw UUIDs).
    expect(parser.getNodesFromDocuments([docOf(POLY)]).map((n) => n.id_)).toEqual(nodes.map((n) => n.id_));
  });

  it('hierarchical chunks: PARENT and CHILD relationships between sections and their snippets', () => {
    const nodes = new ChunkyardNodeParser({ strategy: 'hierarchical' }).getNodesFromDocuments([docOf(AOT)]);
    const byId = new Map(nodes.map((n) => [n.id_, n]));
    const sections = nodes.filter((n) => n.metadata.tier === 'section');
    const snippets = nodes.filter((n) => n.metadata.tier === 'snippet');
    expect(sections.length).toBeGreaterThan(0);
    expect(snippets.length).toBeGreaterThan(sections.length);
    for (const s of snippets) {
      const parent = byId.get(s.parentNode!.nodeId)!;
      expect(parent.metadata.tier).toBe('section');
      expect((parent.childNodes ?? []).map((c) => c.nodeId)).toContain(s.id_);
      // A snippet lies inside its section.
      expect(s.startCharIdx!).toBeGreaterThanOrEqual(parent.startCharIdx ?? 0);
      expect(s.endCharIdx!).toBeLessThanOrEqual(parent.endCharIdx!);
      // Its neighbours are snippets (links stay within a tier, whatever the list order).
      if (s.nextNode) expect(byId.get(s.nextNode.nodeId)!.metadata.tier).toBe('snippet');
    }
    // A section's parent is the document: SOURCE, not PARENT.
    for (const s of sections) expect(s.relationships.PARENT).toBeUndefined();
  });

  it('VectorStoreIndex over the parsed nodes, in the in-memory SimpleVectorStore, then queried', async () => {
    // VectorStoreIndex.init with the nodes, not fromDocuments with Settings.nodeParser: in
    // llamaindex 0.12.1 the indices module carries its own Settings object, so a node parser set
    // through the Settings that `llamaindex` exports never reaches fromDocuments (it splits with
    // its default SentenceSplitter). The embedding model goes through the shared core Settings.
    const nodes = new ChunkyardNodeParser().getNodesFromDocuments([docOf(POLY), docOf(AOT)]);
    const index = await Settings.withEmbedModel(new LocalEmbedding(), () => VectorStoreIndex.init({ nodes }));
    const retrieve = (query: string) => Settings.withEmbedModel(new LocalEmbedding(), () => index.asRetriever({ similarityTopK: 3 }).retrieve({ query }));
    const aot = await retrieve('How do I publish a native AOT app and what are its limitations?');
    expect(aot).toHaveLength(3);
    expect(aot[0]!.node.sourceNode?.nodeId).toBe(AOT);
    expect(String(aot[0]!.node.id_)).toMatch(/^deployment\/native-aot\/golden-reference\.md\/doc:golden-reference#2::ch\d+$/);
    const poly = await retrieve('type discriminator for polymorphic deserialization of derived classes');
    expect(poly[0]!.node.sourceNode?.nodeId).toBe(POLY);
  });

  it('a blank document gives no nodes; bad options fail at construction', () => {
    expect(new ChunkyardNodeParser().getNodesFromDocuments([new Document({ text: '  \n' })])).toEqual([]);
    expect(() => new ChunkyardNodeParser({ maxTokens: 10 })).toThrow();
  });

  it('offsets index the document\'s text as given, leading blank lines and BOM included (s47 probe: getText() trimmed them, every offset short)', () => {
    const text = '\uFEFF\n\n  \n# Title\n\nFirst paragraph of the body.\n\n## Part\n\n' + 'More words here. '.repeat(60) + '\n\n';
    const nodes = new ChunkyardNodeParser({ maxTokens: 100, targetTokens: 40, minTokens: 10 }).getNodesFromDocuments([new Document({ id_: 'd', text })]);
    expect(nodes.length).toBeGreaterThan(2);
    for (const n of nodes) expect(text.slice(n.startCharIdx, n.endCharIdx)).toBe(n.text);
    expect(nodes[0]!.startCharIdx).toBeGreaterThan(0);
  });

  it('honours NodeParser\'s includePrevNextRel and includeMetadata switches (s47 probe: PREVIOUS/NEXT stayed when switched off)', () => {
    const doc = new Document({ id_: 'd', text: read(AOT), metadata: { file_name: 'golden-reference.md', team: 'docs' } });
    const parser = new ChunkyardNodeParser({ strategy: 'hierarchical' });
    const linked = parser.getNodesFromDocuments([doc]);
    expect(linked.some((n) => n.relationships.NEXT)).toBe(true);
    parser.includePrevNextRel = false;
    parser.includeMetadata = false;
    const plain = parser.getNodesFromDocuments([doc]);
    expect(plain).toHaveLength(linked.length);
    for (const n of plain) {
      expect(n.relationships.PREVIOUS).toBeUndefined();
      expect(n.relationships.NEXT).toBeUndefined();
      expect(n.sourceNode?.nodeId).toBe('d');
      expect(n.metadata.team).toBeUndefined();
    }
    expect(plain.some((n) => n.relationships.PARENT)).toBe(true);
  });
  // LlamaIndex's parsers give every node its document's exclusions whether or not they merge the
  // document's metadata (buildNodeFromSplits copies them; includeMetadata only skips the merge).
  it('keeps the document\'s metadata exclusions with includeMetadata off, as SentenceSplitter does', () => {
    const make = () => new Document({ id_: 'q', text: '# Guide\n\n## Part\n\nBody words.\n', metadata: { team: 'docs' }, excludedEmbedMetadataKeys: ['headerBreadcrumb'], excludedLlmMetadataKeys: ['fileTitle'] });
    const theirs = new SentenceSplitter();
    theirs.includeMetadata = false;
    const [their] = theirs.getNodesFromDocuments([make()]);
    expect(their!.excludedEmbedMetadataKeys).toContain('headerBreadcrumb');
    const parser = new ChunkyardNodeParser();
    parser.includeMetadata = false;
    const nodes = parser.getNodesFromDocuments([make()]);
    expect(nodes.length).toBeGreaterThan(0);
    for (const n of nodes) {
      expect(n.metadata.team).toBeUndefined();
      expect(n.excludedEmbedMetadataKeys).toContain('headerBreadcrumb');
      expect(n.excludedLlmMetadataKeys).toContain('fileTitle');
      expect(n.getContent(MetadataMode.EMBED)).toBe(n.text);
      // chunkyard's own exclusions stay: ids and offsets never reach the embedding.
      expect(n.excludedEmbedMetadataKeys).toContain('chunkId');
    }
  });
  // LlamaIndex's FileReader (SimpleDirectoryReader's readers) sets file_path (absolute),
  // file_name (the base name) and id_ `<path>_<n>`, one Document per page for paged formats. The
  // name came from file_name alone, so two README.md files, or the pages of one file, had the
  // same chunkId, parentId, prevId and nextId in their metadata (the node ids differed), and a
  // user following chunkyard's ids, or grouping by parentId, mixed documents.
  it('names a FileReader document by its whole path and numbers pages of one file, so chunk ids in metadata are unique', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunkyard-li-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const body = (t: string) => `# ${t}\n\n## Part\n\n` + `Words of ${t}. `.repeat(150);
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    writeFileSync(join(dir, 'a/README.md'), body('Alpha'));
    writeFileSync(join(dir, 'b/README.md'), body('Beta'));
    writeFileSync(join(dir, 'manual.md'), [body('One'), body('Two')].join('\f'));
    /** A reader of markdown with form-feed page breaks: one Document per page, as PDF readers give. */
    class PagedMarkdownReader extends FileReader<Document> {
      async loadDataAsContent(content: Uint8Array): Promise<Document[]> {
        return new TextDecoder().decode(content).split('\f').map((text) => new Document({ text }));
      }
    }
    const reader = new PagedMarkdownReader();
    const documents = (await Promise.all(['a/README.md', 'b/README.md', 'manual.md'].map((f) => reader.loadData(join(dir, f))))).flat();
    expect(documents).toHaveLength(4);
    const nodes = new ChunkyardNodeParser({ maxTokens: 120, targetTokens: 60, minTokens: 16 }).getNodesFromDocuments(documents);
    const chunkIds = nodes.map((n) => n.metadata.chunkId as string);
    expect(new Set(chunkIds).size).toBe(nodes.length);
    expect(chunkIds[0]).toBe(`doc:${join(dir, 'a/README').replace(/\\/g, '/')}::ch0`);
    // chunkyard's links in the metadata name the same nodes as the relationships.
    const byChunk = new Map(nodes.map((n) => [n.metadata.chunkId as string, n]));
    for (const n of nodes) {
      for (const [key, rel] of [['prevId', 'PREVIOUS'], ['nextId', 'NEXT']] as const) {
        const id = n.metadata[key] as string | null;
        expect(id === null ? undefined : byChunk.get(id)?.id_, key).toBe((n.relationships[rel] as { nodeId: string } | undefined)?.nodeId);
      }
    }
    // The same files give the same ids again.
    expect(new ChunkyardNodeParser({ maxTokens: 120, targetTokens: 60, minTokens: 16 }).getNodesFromDocuments(documents).map((n) => n.id_)).toEqual(nodes.map((n) => n.id_));
  });
  // The name from file_path is the whole path, numbered for a file's second page: as the title
  // of a text without one, it put `fileTitle: /home/u/proj/manual#2` in what was embedded.
  it('titles a document without a heading by its file name, not by the path or a page number in its chunk ids', () => {
    const pages = [1, 2].map((n) => new Document({ id_: `/home/u/proj/manual.txt_${n}`, text: `Plain page ${n} without headings.\n\nMore words here.\n`, metadata: { file_path: '/home/u/proj/manual.txt', file_name: 'manual.txt' } }));
    const nodes = new ChunkyardNodeParser().getNodesFromDocuments(pages);
    expect(nodes.map((n) => n.metadata.chunkId)).toEqual(['doc:/home/u/proj/manual::ch0', 'doc:/home/u/proj/manual#2::ch0']);
    for (const n of nodes) {
      expect(n.metadata.fileTitle).toBe('manual');
      expect(n.getContent(MetadataMode.EMBED)).toMatch(/^fileTitle: manual\n/);
    }
    // A title the caller gives still wins; so does a docName, numbered but not in the title.
    expect(new ChunkyardNodeParser({ fallbackTitle: 'Manual' }).getNodesFromDocuments(pages).map((n) => n.metadata.fileTitle)).toEqual(['Manual', 'Manual']);
    expect(new ChunkyardNodeParser({ docName: 'kb' }).getNodesFromDocuments(pages).map((n) => [n.metadata.chunkId, n.metadata.fileTitle])).toEqual([['doc:kb::ch0', 'kb'], ['doc:kb#2::ch0', 'kb']]);
  });
});
