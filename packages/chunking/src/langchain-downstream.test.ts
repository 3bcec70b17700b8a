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
import { ChunkyardTextSplitter } from './langchain.js';

/** A deterministic offline embedding: word hashes into 32 buckets. */
class HashEmbeddings extends Embeddings {
  constructor() {
    super({});
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((text) => {
      const v = new Array<number>(32).fill(0);
      for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
        if (w === '') continue;
        let h = 0;
        for (const ch of w) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
        v[h % 32]! += 1;
      }
      return v;
    });
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
});
