/**
 * ChunkyardNodeParser's nodes where a LlamaIndex.TS user sends them next: the vector stores.
 * Chroma, Milvus, Weaviate, MongoDB Atlas, AstraDB, Firestore and Cosmos DB run every node
 * through `nodeToMetadata(node, true, key, flatMetadata = true)`, which refuses a metadata value
 * that is an object or an array; LlamaIndex's own parsers give flat metadata
 * (MarkdownNodeParser's `Header_1: "Guide"`). Run here with llamaindex's own function.
 */
import { BaseEmbedding, Document, MarkdownNodeParser, metadataDictToNode, MetadataMode, nodeToMetadata, SentenceSplitter, Settings, TextNode, VectorStoreIndex } from 'llamaindex';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { chunkMetadata } from './interop.js';
import { ChunkyardNodeParser } from './llamaindex.js';
import { mutateDeep, nestedMetadata as nested, wordVector } from './test-helpers.js';

/** A deterministic offline embedding: word hashes into 32 buckets. */
class HashEmbedding extends BaseEmbedding {
  // BaseEmbedding's constructor is protected.
  constructor() {
    super();
  }
  async getTextEmbedding(text: string): Promise<number[]> {
    return wordVector(text, 32);
  }
}

/** Markdown with headings, code, tables, lists, surrogate pairs, combining marks and CRLF. */
const hostileMarkdown = fc
  .array(
    fc.oneof(
      fc.constantFrom('# Guide', '## Install ⚙️', '### e\u0301tape > deux', '```ts\nconst x = 1;\n```', '| a | b |\n| - | - |\n| 1 | 2 |', '- item\n- item two', '> quote'),
      fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\r\n', '😀', 'e\u0301', '#', '|', '`', '.', 'Z'), maxLength: 120 }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join('\n\n'));

const strategies = ['semantic', 'hierarchical', 'token-window', 'paginate'] as const;

describe('ChunkyardNodeParser nodes in LlamaIndex vector stores', () => {
  it('have flat metadata, which nodeToMetadata(node, …, flatMetadata = true) takes and metadataDictToNode gives back (issue 15 probe: headerPath, sourcePosition, tokenStats and sourceLines were objects, "Value for metadata headerPath must not be another object")', () => {
    fc.assert(
      fc.property(hostileMarkdown, fc.constantFrom(...strategies), (text, strategy) => {
        const nodes = new ChunkyardNodeParser({ strategy, maxTokens: 120, targetTokens: 60, minTokens: 16 }).getNodesFromDocuments([
          new Document({ id_: 'guide.md', text, metadata: { file_name: 'guide.md' } }),
        ]);
        for (const node of nodes) {
          for (const [key, value] of Object.entries(node.metadata)) expect(value === null || typeof value !== 'object', `${key}: ${JSON.stringify(value)}`).toBe(true);
          const stored = nodeToMetadata(node, true, 'text', true);
          const back = metadataDictToNode(stored) as TextNode;
          expect(back.id_).toBe(node.id_);
          expect(back.metadata).toEqual(node.metadata);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('keep offsets, heading and token facts as flat keys, out of the embedded and LLM text but for the breadcrumb', () => {
    const text = '# Guide\r\n\r\nIntro 😀.\r\n\r\n## Install\r\n\r\n' + 'Run the installer with care. '.repeat(80) + '\r\n';
    const nodes = new ChunkyardNodeParser({ maxTokens: 200, targetTokens: 100, minTokens: 20 }).getNodesFromDocuments([new Document({ id_: 'g', text })]);
    expect(nodes.length).toBeGreaterThan(1);
    for (const n of nodes) {
      const m = n.metadata;
      expect([m.charStart, m.charEnd]).toEqual([n.startCharIdx, n.endCharIdx]);
      expect(m.totalChars).toBe(text.length);
      expect(typeof m.tokens).toBe('number');
      expect(typeof m.startLine).toBe('number');
      expect(m.endLine as number).toBeGreaterThanOrEqual(m.startLine as number);
      expect(m.headerBreadcrumb).toMatch(/^Guide/);
      for (const mode of [MetadataMode.EMBED, MetadataMode.LLM]) {
        const content = n.getContent(mode);
        expect(content).toBe(`headerBreadcrumb: ${String(m.headerBreadcrumb)}\n\n${n.text}`.trim());
        // The breadcrumb once: not doubled by the text or by another key.
        expect(content.split(String(m.headerBreadcrumb)).length - 1).toBeGreaterThanOrEqual(1);
        expect(content).not.toContain('charStart');
      }
    }
  });

  it('indexed in VectorStoreIndex with a local embedding and retrieved, every relationship naming a node of the output', async () => {
    const docs = [
      new Document({ id_: 'install.md', text: '# Install\n\n' + 'Download the package and run the installer binary. '.repeat(40) }),
      new Document({ id_: 'install.md', text: '# Install (copy)\n\n' + 'Download the package and run the installer binary. '.repeat(40) }),
      new Document({ id_: 'cook.md', text: '# Cooking\n\n## Pasta\n\n' + 'Boil water, add salt and pasta, stir. '.repeat(40) }),
    ];
    const nodes = new ChunkyardNodeParser({ strategy: 'hierarchical' }).getNodesFromDocuments(docs);
    const ids = new Set(nodes.map((n) => n.id_));
    expect(ids.size).toBe(nodes.length);
    for (const n of nodes) {
      for (const [kind, rel] of Object.entries(n.relationships)) {
        for (const r of [rel].flat()) expect(kind === 'SOURCE' ? ['install.md', 'cook.md'] : [...ids], `${n.id_} ${kind}`).toContain(r!.nodeId);
      }
    }
    const hits = await Settings.withEmbedModel(new HashEmbedding(), async () => {
      const index = await VectorStoreIndex.init({ nodes });
      return index.asRetriever({ similarityTopK: 2 }).retrieve({ query: 'boil pasta water salt' });
    });
    expect(hits[0]!.node.sourceNode?.nodeId).toBe('cook.md');
    expect(hits[0]!.node.metadata.headerBreadcrumb).toMatch(/Cooking/);
  });

  it('put the document\'s own metadata in the embedded and LLM text as LlamaIndex\'s SentenceSplitter does, even under a key chunkyard also sets (issue 15 probe: a document\'s contentType or title-like key named like one of chunkyard\'s was hidden by chunkyard\'s exclusions)', () => {
    const chunkyardKeys = Object.keys(chunkMetadata(chunkDocument('# T\n\nx\n', { strategy: 'hierarchical' }).chunks[0]!));
    const key = fc.oneof(fc.constantFrom(...chunkyardKeys, 'file_name', 'title', 'constructor'), fc.stringMatching(/^[a-z_]{1,8}$/));
    const value = fc.oneof(fc.stringMatching(/^[a-z ]{0,12}$/), fc.integer(), fc.boolean());
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 6 }), fc.subarray(['contentType', 'title', 'tokens', 'file_name']), fc.subarray(['contentType', 'title', 'strategy']), (metadata, embedHidden, llmHidden) => {
        const make = () => new Document({ id_: 'd', text: '# Guide\n\n## Part\n\nSome words here.\n', metadata, excludedEmbedMetadataKeys: embedHidden, excludedLlmMetadataKeys: llmHidden });
        const [theirs] = new SentenceSplitter().getNodesFromDocuments([make()]);
        const ours = new ChunkyardNodeParser().getNodesFromDocuments([make()]);
        expect(ours.length).toBeGreaterThan(0);
        for (const mode of [MetadataMode.EMBED, MetadataMode.LLM]) {
          const expected = new Set(theirs!.getMetadataStr(mode).split('\n').filter(Boolean));
          for (const node of ours) {
            const got = new Set(node.getMetadataStr(mode).split('\n').filter(Boolean));
            // The document's lines, and chunkyard's breadcrumb unless the document has that key.
            if (!Object.hasOwn(metadata, 'headerBreadcrumb')) expect(got.delete(`headerBreadcrumb: ${String(node.metadata.headerBreadcrumb)}`)).toBe(true);
            expect([...got].sort()).toEqual([...expected].sort());
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  // LlamaIndex's parsers copy a document's metadataSeparator and textTemplate to every node
  // (buildNodeFromSplits); ChunkyardNodeParser gave each node '\n' and '', so a document set up
  // for one-line metadata (`a: 1 | b: 2`) was embedded and shown to the LLM another way.
  it('carry the document\'s metadataSeparator and textTemplate to its nodes, as SentenceSplitter and MarkdownNodeParser do', () => {
    fc.assert(
      fc.property(fc.constantFrom(' | ', '\n', '; ', ''), fc.constantFrom('', 'META[{metadata_str}]\n{content}'), fc.constantFrom('semantic', 'hierarchical', 'token-window', 'paginate'), (separator, template, strategy) => {
        const make = () =>
          new Document({ id_: 'd', text: '# Guide\n\n## Part\n\n' + 'Some words here. '.repeat(40), metadata: { file_name: 'guide.md', team: 'docs' }, metadataSeparator: separator, textTemplate: template });
        for (const theirs of [...new SentenceSplitter().getNodesFromDocuments([make()]), ...new MarkdownNodeParser().getNodesFromDocuments([make()])]) {
          expect([theirs.metadataSeparator, theirs.textTemplate]).toEqual([separator, template]);
        }
        const ours = new ChunkyardNodeParser({ strategy, maxTokens: 60, targetTokens: 40, minTokens: 10 }).getNodesFromDocuments([make()]);
        expect(ours.length).toBeGreaterThan(0);
        for (const node of ours) {
          expect([node.metadataSeparator, node.textTemplate]).toEqual([separator, template]);
          const lines = Object.keys(node.metadata).sort().filter((k) => !node.excludedEmbedMetadataKeys.includes(k)).map((k) => `${k}: ${String(node.metadata[k])}`);
          expect(node.getContent(MetadataMode.EMBED)).toBe(`${lines.join(separator).trim()}\n\n${node.text}`.trim());
        }
      }),
      { numRuns: 30 },
    );
  });
  // A reader's metadata holds objects and arrays; every node shared them with the document and
  // with each other (SentenceSplitter's nodes do too), so tagging one node changed them all.
  it('give every node metadata of its own: changing one node\'s nested values changes no other, nor the document', () => {
    fc.assert(
      fc.property(nested, fc.constantFrom(...strategies), (extra, strategy) => {
        const metadata: Record<string, unknown> = { ...JSON.parse(JSON.stringify(extra)), file_name: 'guide.md', tags: ['a', { k: [1] }], pdf: { info: { Title: 'Manual' } } };
        const before = JSON.stringify(metadata);
        const text = '# Guide\n\nIntro.\n\n## Install\n\n' + 'Run it now. '.repeat(400);
        const nodes = new ChunkyardNodeParser({ strategy, maxTokens: 120, targetTokens: 60, minTokens: 16 }).getNodesFromDocuments([new Document({ id_: 'd', text, metadata })]);
        expect(nodes.length).toBeGreaterThan(strategy === 'paginate' ? 0 : 1);
        const others = nodes.slice(1).map((n) => JSON.stringify(n.metadata));
        mutateDeep(nodes[0]!.metadata);
        expect(JSON.stringify(metadata)).toBe(before);
        expect(nodes.slice(1).map((n) => JSON.stringify(n.metadata))).toEqual(others);
      }),
      { numRuns: 40 },
    );
  });
});
