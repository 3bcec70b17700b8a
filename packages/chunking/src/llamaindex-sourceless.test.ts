/**
 * Documents that name themselves in no way: a LlamaIndex Document built with `id_: ''` and no
 * `file_path`, `file_name` (text from a database row, an API, a chat) was named `document`, so two
 * such documents parsed in separate calls got the same node ids `/doc:document::ch0`, …, and a
 * store keyed by node id (LlamaIndex's SimpleDocumentStore, any vector store) kept only the
 * document parsed last. They are named by their content now, as ChunkyardTextSplitter names a
 * text without source or id (langchain-sourceless.test.ts).
 */
import { Document, SimpleDocumentStore } from 'llamaindex';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentDocName } from './interop.js';
import { ChunkyardTextSplitter } from './langchain.js';
import { ChunkyardNodeParser } from './llamaindex.js';

const ALPHA = '# Alpha\n\nThe alpha release notes say what changed.\n';
const BETA = '# Beta\n\nThe beta release notes say something else.\n';

const parse = (text: string, id_ = '') => new ChunkyardNodeParser().getNodesFromDocuments([new Document({ id_, text })]);

describe('ChunkyardNodeParser names a Document with an empty id_ and no file', () => {
  it('by its content: two documents parsed in separate calls keep both in a real SimpleDocumentStore, and parsing one again updates it', async () => {
    const a = parse(ALPHA);
    const b = parse(BETA);
    expect(new Set([...a, ...b].map((n) => n.id_)).size).toBe(a.length + b.length);
    const store = new SimpleDocumentStore();
    await store.addDocuments(a, true);
    await store.addDocuments(b, true);
    const kept = Object.values(await store.docs()).map((n) => (n as Document).text);
    expect(kept.sort()).toEqual([...a, ...b].map((n) => n.text).sort());
    // The same text again (a re-index, another process) has the same node ids: the store updates it.
    const again = parse(ALPHA);
    expect(again.map((n) => n.id_)).toEqual(a.map((n) => n.id_));
    await store.addDocuments(again, true);
    expect(Object.keys(await store.docs())).toHaveLength(kept.length);
    expect(a[0]!.id_).toBe(`/doc:${contentDocName(ALPHA)}::ch0`);
    expect(a[0]!.metadata.chunkId).toBe(`doc:${contentDocName(ALPHA)}::ch0`);
  });

  it('by the same name the LangChain splitter gives that text, and titles a text without a heading `document`', async () => {
    const [lc] = await new ChunkyardTextSplitter().createDocuments([ALPHA]);
    expect(parse(ALPHA)[0]!.metadata.chunkId).toBe(lc!.id);
    // The content name is no title.
    const [plain] = parse('Plain words without a heading.\n');
    expect(plain!.metadata.fileTitle).toBe('document');
  });

  it('still by a non-empty id_ first, a file first of all; copies in one call are numbered', () => {
    expect(parse(ALPHA, 'kb-42')[0]!.id_).toBe('kb-42/doc:kb-42::ch0');
    const [file] = new ChunkyardNodeParser().getNodesFromDocuments([new Document({ id_: '', text: ALPHA, metadata: { file_name: 'notes.md' } })]);
    expect(file!.id_).toBe('/doc:notes::ch0');
    const nodes = new ChunkyardNodeParser().getNodesFromDocuments([ALPHA, BETA, ALPHA].map((text) => new Document({ id_: '', text })));
    const name = contentDocName(ALPHA);
    expect(nodes.map((n) => n.metadata.chunkId)).toEqual([`doc:${name}::ch0`, `doc:${contentDocName(BETA)}::ch0`, `doc:${name}#2::ch0`]);
    expect(new Set(nodes.map((n) => n.id_)).size).toBe(3);
  });

  it('gives different texts parsed in separate calls disjoint node ids, and one text the same ids every time (property)', () => {
    const parser = new ChunkyardNodeParser({ maxTokens: 60, targetTokens: 30, minTokens: 8 });
    const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '#', '😀', '.', 'Z'), minLength: 1, maxLength: 200 }).filter((t) => t.trim() !== '');
    fc.assert(
      fc.property(text, text, (x, y) => {
        fc.pre(x !== y);
        const [nx, ny, nx2] = [x, y, x].map((t) => parser.getNodesFromDocuments([new Document({ id_: '', text: t })]));
        const idsX = nx!.map((n) => n.id_);
        expect(nx2!.map((n) => n.id_)).toEqual(idsX);
        for (const n of ny!) expect(idsX).not.toContain(n.id_);
      }),
      { numRuns: 80 },
    );
  });
});
