/**
 * Texts that name themselves in no way: a LangChain Document without `metadata.source` (text
 * from a database row, an API, a chat) was named `document`, so two such texts split in separate
 * calls got the same chunk ids `doc:document::ch0`, …, and a store keyed by Document id (LangChain's
 * InMemoryStore, the docstore of MultiVectorRetriever/ParentDocumentRetriever; any vector store's
 * `addDocuments(docs, { ids })`) kept only the text split last.
 */
import { Document } from '@langchain/core/documents';
import { InMemoryStore } from '@langchain/core/stores';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkyardTextSplitter } from './langchain.js';

/** Documents put into a real LangChain store keyed by their ids, as an upserting store keeps them. */
async function stored(batches: Document[][]): Promise<Map<string, string>> {
  const store = new InMemoryStore<Document>();
  for (const docs of batches) await store.mset(docs.map((d) => [d.id!, d]));
  const out = new Map<string, string>();
  for await (const key of store.yieldKeys()) out.set(key, (await store.mget([key]))[0]!.pageContent);
  return out;
}

const ALPHA = '# Alpha\n\nThe alpha release notes say what changed.\n';
const BETA = '# Beta\n\nThe beta release notes say something else.\n';

describe('ChunkyardTextSplitter names a text without a source', () => {
  it('by its content: two texts split in separate calls keep both in a store keyed by id, and splitting one again updates it', async () => {
    const splitter = new ChunkyardTextSplitter();
    const a = await splitter.splitDocuments([new Document({ pageContent: ALPHA })]);
    const b = await splitter.createDocuments([BETA]);
    expect(new Set([...a, ...b].map((d) => d.id)).size).toBe(a.length + b.length);
    const kept = await stored([a, b]);
    expect([...kept.values()].sort()).toEqual([...a, ...b].map((d) => d.pageContent).sort());
    // The same text again (a re-index, another process) has the same ids: the store updates it.
    const again = await new ChunkyardTextSplitter().splitDocuments([new Document({ pageContent: ALPHA })]);
    expect(again.map((d) => d.id)).toEqual(a.map((d) => d.id));
    expect((await stored([a, b, again])).size).toBe(kept.size);
    expect(a[0]!.id).toMatch(/^doc:document-[0-9a-f]{12}::ch0$/);
    expect(a[0]!.metadata.chunkId).toBe(a[0]!.id);
    // The name is no title: a text without a heading is still titled `document`.
    const [plain] = await splitter.createDocuments(['Plain words without a heading.\n']);
    expect(plain!.metadata.fileTitle).toBe('document');
    // chunkRecords names a text as createDocuments does.
    expect(splitter.chunkRecords(ALPHA).map((c) => c.id)).toEqual(a.map((d) => d.id));
  });

  it('copies of one text in one call are numbered, as texts sharing a source are', async () => {
    const docs = await new ChunkyardTextSplitter().createDocuments([ALPHA, BETA, ALPHA]);
    const [first, , third] = docs.map((d) => d.id!);
    expect(third).toBe(first!.replace('::ch0', '#2::ch0'));
    expect(new Set(docs.map((d) => d.id)).size).toBe(3);
  });

  it('by the input Document\'s id when it has one, before its content; a source still comes first', async () => {
    const splitter = new ChunkyardTextSplitter();
    const [byId] = await splitter.splitDocuments([new Document({ pageContent: ALPHA, id: 'kb-42' })]);
    expect(byId!.id).toBe('doc:kb-42::ch0');
    // One id, new text: the same ids, so a store replaces the old version of that document.
    const [edited] = await splitter.splitDocuments([new Document({ pageContent: BETA, id: 'kb-42' })]);
    expect(edited!.id).toBe('doc:kb-42::ch0');
    const [bySource] = await splitter.splitDocuments([new Document({ pageContent: ALPHA, id: 'kb-42', metadata: { source: 'notes/a.md' } })]);
    expect(bySource!.id).toBe('doc:notes/a::ch0');
    // An id holding a control character is shown, not refused (chunkDocument refuses it in docName).
    const [shown] = await splitter.splitDocuments([new Document({ pageContent: ALPHA, id: 'kb\n42' })]);
    expect(shown!.id).toBe('doc:kb\ufffd42::ch0');
    // transformDocuments is splitDocuments; a given docName still names every text.
    expect((await splitter.transformDocuments([new Document({ pageContent: ALPHA, id: 'kb-42' })]))[0]!.id).toBe('doc:kb-42::ch0');
    expect((await new ChunkyardTextSplitter({ docName: 'kb' }).splitDocuments([new Document({ pageContent: ALPHA, id: 'x' })]))[0]!.id).toBe('doc:kb::ch0');
  });

  it('gives different texts split in separate calls disjoint ids, and one text the same ids every time (property)', async () => {
    const splitter = new ChunkyardTextSplitter({ maxTokens: 60, targetTokens: 30, minTokens: 8 });
    const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '#', '😀', '.', 'Z'), minLength: 1, maxLength: 200 }).filter((t) => t.trim() !== '');
    await fc.assert(
      fc.asyncProperty(text, text, async (x, y) => {
        fc.pre(x !== y);
        const [dx, dy, dx2] = await Promise.all([x, y, x].map((t) => splitter.splitDocuments([new Document({ pageContent: t })])));
        const idsX = dx!.map((d) => d.id);
        expect(dx2!.map((d) => d.id)).toEqual(idsX);
        for (const d of dy!) expect(idsX).not.toContain(d.id);
      }),
      { numRuns: 80 },
    );
  });
});
