/**
 * ChunkyardTextSplitter's Documents where a LangChain.js user sends them next: a vector store
 * (LangChain's in-memory FakeVectorStore, with a deterministic Embeddings subclass), a cache or
 * docstore that JSON-serialises them, and stores such as Chroma that take flat metadata only
 * (LangChain's Chroma flattens `loc.lines` itself, and nothing else).
 */
import { Document } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';
import { FakeVectorStore } from '@langchain/core/utils/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { chunkMetadata } from './interop.js';
import { ChunkyardTextSplitter } from './langchain.js';
import { mutateDeep, nestedMetadata as nested, wordVector } from './test-helpers.js';

/** A deterministic offline embedding: word hashes into 32 buckets. */
class HashEmbeddings extends Embeddings {
  constructor() {
    super({});
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((text) => wordVector(text, 32));
  }
  async embedQuery(text: string): Promise<number[]> {
    return (await this.embedDocuments([text]))[0]!;
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

describe('ChunkyardTextSplitter Documents downstream', () => {
  it('carry flat metadata but for LangChain\'s own loc, and come back from JSON unchanged (issue 15 probe: headerPath, sourcePosition, tokenStats and sourceLines were objects)', async () => {
    await fc.assert(
      fc.asyncProperty(hostileMarkdown, fc.constantFrom(...strategies), async (text, strategy) => {
        const splitter = new ChunkyardTextSplitter({ strategy, maxTokens: 120, targetTokens: 60, minTokens: 16 });
        const docs = await splitter.splitDocuments([new Document({ pageContent: text, metadata: { source: 'notes/guide.md' } })]);
        for (const d of docs) {
          for (const [key, value] of Object.entries(d.metadata)) {
            if (key === 'loc') continue;
            expect(value === null || typeof value !== 'object', `${key}: ${JSON.stringify(value)}`).toBe(true);
            expect(value, key).not.toBeUndefined();
          }
          // LangChain's caches and docstores store Documents as JSON.
          const back = new Document(JSON.parse(JSON.stringify(d)) as Document);
          expect(back.metadata).toEqual(d.metadata);
          expect(back.id).toBe(d.id);
          expect(back.pageContent).toBe(d.pageContent);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('indexed in LangChain\'s in-memory store with a local embedding and found by similarity search, with their offsets', async () => {
    const inputs = [
      new Document({ pageContent: '# Install\r\n\r\n' + 'Download the package and run the installer binary. '.repeat(40), metadata: { source: 'install.md' } }),
      new Document({ pageContent: '# Cooking\n\n## Pasta 😀\n\n' + 'Boil water, add salt and pasta, stir. '.repeat(40), metadata: { source: 'cook.md' } }),
    ];
    const docs = await new ChunkyardTextSplitter({ maxTokens: 200, targetTokens: 100, minTokens: 20 }).splitDocuments(inputs);
    const store = await FakeVectorStore.fromDocuments(docs, new HashEmbeddings());
    const [top] = await store.similaritySearch('boil pasta water salt', 1);
    expect(top!.metadata.source).toBe('cook.md');
    expect(top!.metadata.headerBreadcrumb).toMatch(/Cooking/);
    const text = inputs[1]!.pageContent;
    expect(text.slice(top!.metadata.charStart as number, top!.metadata.charEnd as number)).toBe(top!.pageContent);
  });

  it('keep every metadata key the input Document had, chunkyard\'s keys filling in around them (issue 15 probe: contentType, strategy, tier and chunkId the user set were replaced without a word)', async () => {
    const chunkyardKeys = Object.keys(chunkMetadata(chunkDocument('# T\n\nx\n', { strategy: 'hierarchical' }).chunks[0]!));
    const userKey = fc.oneof(fc.constantFrom(...chunkyardKeys, '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'loc', 'source', ''), fc.string({ maxLength: 8 }));
    const userValue = fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 3 }));
    await fc.assert(
      fc.asyncProperty(fc.dictionary(userKey, userValue, { maxKeys: 8 }), fc.constantFrom(...strategies), async (given, strategy) => {
        // As a JSON-loaded Document has them: own keys, `__proto__` included.
        const metadata = JSON.parse(JSON.stringify(given)) as Record<string, unknown>;
        const text = '# Guide\n\nIntro.\n\n## Install\n\n' + 'Run it. '.repeat(60);
        const docs = await new ChunkyardTextSplitter({ strategy, maxTokens: 120, targetTokens: 60, minTokens: 16 }).splitDocuments([new Document({ pageContent: text, metadata })]);
        expect(docs.length).toBeGreaterThan(0);
        for (const d of docs) {
          expect(Object.getPrototypeOf(d.metadata)).toBe(Object.prototype);
          for (const [key, value] of Object.entries(metadata)) {
            if (key === 'loc') continue;
            expect(Object.hasOwn(d.metadata, key), key).toBe(true);
            expect(d.metadata[key], key).toEqual(value);
          }
          // LangChain's loc: the input's fields kept, lines set as its own splitters set them.
          const loc = d.metadata.loc as Record<string, unknown>;
          expect(loc.lines).toMatchObject({ from: expect.any(Number), to: expect.any(Number) });
          if (typeof metadata.loc === 'object' && metadata.loc !== null && !Array.isArray(metadata.loc)) {
            for (const [k, v] of Object.entries(metadata.loc)) if (k !== 'lines') expect(loc[k]).toEqual(v);
          }
          for (const key of chunkyardKeys) if (!Object.hasOwn(metadata, key) && key !== 'tier') expect(Object.hasOwn(d.metadata, key), key).toBe(true);
        }
        // The Document ids stay chunkyard's, whatever chunkId the input carried.
        expect(new Set(docs.map((d) => d.id)).size).toBe(docs.length);
        expect(docs.every((d) => typeof d.id === 'string' && d.id.includes('::'))).toBe(true);
      }),
      { numRuns: 80 },
    );
  });

  it('a loader\'s own metadata survives next to chunkyard\'s: a Confluence page\'s contentType and title, a PDF page\'s loc.pageNumber', async () => {
    const input = new Document({ pageContent: '# Release notes\n\nWhat changed.\n', metadata: { source: 'wiki/release.md', contentType: 'page', title: 'Release notes', loc: { pageNumber: 4 } } });
    const [d] = await new ChunkyardTextSplitter().splitDocuments([input]);
    expect(d!.metadata).toMatchObject({ source: 'wiki/release.md', contentType: 'page', title: 'Release notes', loc: { pageNumber: 4, lines: { from: 1, to: 3 } }, chunkId: 'doc:wiki/release::ch0', headerBreadcrumb: 'Release notes' });
  });
  // A loader's metadata holds objects and arrays (a PDF's `pdf.info`, tags, a bbox in `loc`).
  // Every Document shared them with the input and with each other, so a user tagging one chunk
  // (`d.metadata.tags.push(…)`) or a store normalising one in place changed all of them.
  it('give every Document metadata of its own: changing one Document\'s nested values changes no other, nor the input', async () => {
    await fc.assert(
      fc.asyncProperty(nested, fc.constantFrom(...strategies), async (extra, strategy) => {
        const metadata: Record<string, unknown> = { ...JSON.parse(JSON.stringify(extra)), source: 'manual.pdf', pdf: { info: { Title: 'Manual' }, totalPages: 3 }, tags: ['a', { k: [1] }], loc: { pageNumber: 2, bbox: [1, 2, 3, 4] } };
        const before = JSON.stringify(metadata);
        const text = '# Guide\n\nIntro.\n\n## Install\n\n' + 'Run it now. '.repeat(400);
        const docs = await new ChunkyardTextSplitter({ strategy, maxTokens: 120, targetTokens: 60, minTokens: 16 }).splitDocuments([new Document({ pageContent: text, metadata })]);
        expect(docs.length).toBeGreaterThan(strategy === 'paginate' ? 0 : 1);
        const others = docs.slice(1).map((d) => JSON.stringify(d.metadata));
        mutateDeep(docs[0]!.metadata);
        expect(JSON.stringify(metadata)).toBe(before);
        expect(docs.slice(1).map((d) => JSON.stringify(d.metadata))).toEqual(others);
      }),
      { numRuns: 40 },
    );
    // A loader's metadata that refers to itself still splits, and the copy refers to itself.
    const cyclic: Record<string, unknown> = { source: 'c.md', info: { n: 1 } };
    (cyclic.info as Record<string, unknown>).self = cyclic.info;
    const [d] = await new ChunkyardTextSplitter().splitDocuments([new Document({ pageContent: '# T\n\nBody.\n', metadata: cyclic })]);
    const info = d!.metadata.info as Record<string, unknown>;
    expect(info).not.toBe(cyclic.info);
    expect(info.self).toBe(info);
    // Metadata nested deeper than the stack allows recursion still splits (it was shared before).
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 50_000; i++) deep = (deep.next = { i }) as Record<string, unknown>;
    const [deepDoc] = await new ChunkyardTextSplitter().splitDocuments([new Document({ pageContent: '# T\n\nBody.\n', metadata: { source: 'deep.md', root } })]);
    expect(deepDoc!.metadata.root !== root).toBe(true);
  });
});
