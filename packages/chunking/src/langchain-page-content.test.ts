/**
 * `pageContent: 'embed'`: ChunkyardTextSplitter's Documents hold the text chunkyard embeds
 * (`embedText`, the chunk behind its heading breadcrumb), so that a LangChain vector store,
 * which embeds `pageContent` and nothing else, embeds it too. Run against @langchain/core's own
 * in-memory FakeVectorStore with an Embeddings subclass that records every text it is given.
 */
import { Document } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';
import { FakeVectorStore } from '@langchain/core/utils/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkOptionsError } from './index.js';
import { toLangChainDocument } from './interop.js';
import { chunkDocument } from './index.js';
import { ChunkyardTextSplitter, MarkdownTextSplitter } from './langchain.js';
import { wordVector } from './test-helpers.js';

/** A deterministic offline embedding (word hashes into 64 buckets) that keeps the texts it embedded. */
class RecordingEmbeddings extends Embeddings {
  readonly documents: string[] = [];
  constructor() {
    super({});
  }
  private vector(text: string): number[] {
    return wordVector(text, 64);
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.documents.push(...texts);
    return texts.map((t) => this.vector(t));
  }
  async embedQuery(text: string): Promise<number[]> {
    return this.vector(text);
  }
}

/**
 * Two sections whose last chunks read the same, word for word: only the heading above them
 * tells the Windows step from the Linux one, and it is far enough up to be in another chunk.
 */
const filler = (topic: string) =>
  Array.from({ length: 14 }, (_, i) => `Paragraph ${i} about ${topic} explains one more detail of the setup, with enough words to fill a chunk of its own.`).join('\n\n');
const GUIDE = `# Installing\n\nHow to get the tool.\n\n## Windows\n\n${filler('prerequisites')}\n\nRun \`npm install\` from the project folder, wait for it to finish, then restart the terminal before you go on.\n\n## Linux\n\n${filler('prerequisites')}\n\nRun \`npm install\` from the project folder, wait for it to finish, then restart the terminal before you go on.\n`;
const OPTIONS = { maxTokens: 120, targetTokens: 60, minTokens: 16, breadcrumbMode: 'always' } as const;

describe("ChunkyardTextSplitter's pageContent option", () => {
  it("default ('original'): a vector store embeds the bare chunks, originalText, as before", async () => {
    const splitter = new ChunkyardTextSplitter(OPTIONS);
    expect(splitter.pageContent).toBe('original');
    const input = new Document({ pageContent: GUIDE, metadata: { source: 'guide.md' } });
    const docs = await splitter.splitDocuments([input]);
    const records = splitter.chunkRecords(GUIDE, input.metadata);
    const embeddings = new RecordingEmbeddings();
    await FakeVectorStore.fromDocuments(docs, embeddings);
    expect(embeddings.documents).toEqual(records.map((r) => r.originalText));
    // The two last steps read the same: nothing in what was embedded says Windows or Linux.
    const steps = embeddings.documents.filter((t) => t.includes('npm install'));
    expect(steps).toHaveLength(2);
    expect(steps[0]).toBe(steps[1]);
    expect(steps[0]).not.toMatch(/Windows|Linux/);
  });

  it("'embed': the vector store embeds chunkyard's embedText, breadcrumb and all, and a query naming the section finds its chunk", async () => {
    const splitter = new MarkdownTextSplitter({ ...OPTIONS, pageContent: 'embed' });
    const input = new Document({ pageContent: GUIDE, metadata: { source: 'guide.md' } });
    const docs = await splitter.splitDocuments([input]);
    const records = splitter.chunkRecords(GUIDE, input.metadata);
    const embeddings = new RecordingEmbeddings();
    const store = await FakeVectorStore.fromDocuments(docs, embeddings);
    expect(embeddings.documents).toEqual(records.map((r) => r.embedText));
    expect(embeddings.documents.some((t, i) => t !== records[i]!.originalText)).toBe(true);
    const steps = embeddings.documents.filter((t) => t.includes('npm install'));
    expect(steps.map((t) => t.split('\n')[0])).toEqual(['Installing > Windows', 'Installing > Linux']);
    for (const [query, section] of [
      ['npm install restart on Linux', 'Installing > Linux'],
      ['npm install restart on Windows', 'Installing > Windows'],
    ]) {
      const [top] = await store.similaritySearch(query!, 1);
      expect(top!.pageContent).toContain('npm install');
      expect(top!.metadata.headerBreadcrumb).toBe(section);
      // The metadata still places the chunk in the source, whose slice is the original text.
      expect(GUIDE.slice(top!.metadata.charStart as number, top!.metadata.charEnd as number)).toBe(records.find((r) => r.id === top!.metadata.chunkId)!.originalText);
    }
  });

  it("every strategy and breadcrumb mode: pageContent is embedText with 'embed', originalText otherwise, splitText alike, chunkHeader still in front", async () => {
    const markdown = fc
      .array(fc.oneof(fc.constantFrom('# Guide', '## Install ⚙️', '### Windows', '```ts\nconst x = 1;\n```', '| a | b |\n| - | - |\n| 1 | 2 |', '- item\n- item two'), fc.lorem({ maxCount: 40 })), { maxLength: 10 })
      .map((parts) => parts.join('\n\n'));
    await fc.assert(
      fc.asyncProperty(
        markdown,
        fc.constantFrom('semantic', 'hierarchical', 'token-window', 'paginate'),
        fc.constantFrom('conditional', 'always', 'none'),
        fc.constantFrom('original', 'embed', undefined),
        async (text, strategy, breadcrumbMode, pageContent) => {
          const options = { strategy, breadcrumbMode, maxTokens: 120, targetTokens: 60, minTokens: 16 } as const;
          const splitter = new ChunkyardTextSplitter({ ...options, ...(pageContent ? { pageContent } : {}) });
          const records = splitter.chunkRecords(text, { source: 'notes/guide.md' });
          const want = records.map((r) => (pageContent === 'embed' ? r.embedText : r.originalText));
          const docs = await splitter.createDocuments([text], [{ source: 'notes/guide.md' }], { chunkHeader: 'FILE: guide\n' });
          expect(docs.map((d) => d.pageContent)).toEqual(want.map((t) => `FILE: guide\n${t}`));
          expect(await splitter.splitText(text)).toEqual(splitter.chunkRecords(text).map((r) => (pageContent === 'embed' ? r.embedText : r.originalText)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses a pageContent it does not know, and a misspelt key, in the constructor', () => {
    expect(() => new ChunkyardTextSplitter({ pageContent: 'embedText' as never })).toThrow(ChunkOptionsError);
    expect(() => new ChunkyardTextSplitter({ pageContent: 'embedText' as never })).toThrow(/pageContent must be 'original' or 'embed', got "embedText"/);
    expect(() => new ChunkyardTextSplitter({ pageContnet: 'embed' } as never)).toThrow(/did you mean pageContent\?/);
  });

  it("toLangChainDocument takes the same option (docs-export's langchain lines)", () => {
    const [record] = chunkDocument(GUIDE, { ...OPTIONS, docName: 'guide' }).chunks;
    expect(toLangChainDocument(record!).pageContent).toBe(record!.originalText);
    expect(toLangChainDocument(record!, {}, 'x', { pageContent: 'original' }).pageContent).toBe(record!.originalText);
    expect(toLangChainDocument(record!, {}, 'x', { pageContent: 'embed' }).pageContent).toBe(record!.embedText);
    expect(record!.embedText).not.toBe(record!.originalText);
    expect(() => toLangChainDocument(record!, {}, 'x', { pageContent: 'both' as never })).toThrow(/pageContent must be/);
  });
});
