// A query that shares nothing with any stored chunk: punctuation or stopwords embed to a zero
// vector under the local model and hold no FTS term. Every unit scored 0, and search returned
// `limit` of them in storage order as if ranked; the routed hybrid merged all 30 of the merge's
// depth into one unit (s55 probe, docs-store search "!!!"). Real SQLite, the real local model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocStore } from './store.js';
import { DOCS, localProvider, makeTempDir, readDoc } from './test-helpers.js';

let tmp: ReturnType<typeof makeTempDir>;
let store: DocStore;
beforeAll(async () => {
  tmp = makeTempDir();
  store = DocStore.open(`${tmp.dir}/store.db`);
  await store.ingest(
    Object.values(DOCS).map((rel) => ({ content: readDoc(rel), sourceSystem: 'file', sourceId: rel })),
    localProvider(),
  );
});
afterAll(() => {
  store?.close();
  tmp?.cleanup();
});

const MODES = [
  { mode: 'hybrid' as const },
  { mode: 'hybrid' as const, routes: false as const },
  { mode: 'vector' as const },
  { mode: 'vector' as const, index: 'ivf' as const },
  { mode: 'fts' as const },
];

describe('search', () => {
  it('finds nothing for a query of punctuation, in every mode', async () => {
    for (const query of ['!!!', '?? -- ..']) {
      for (const options of MODES) {
        expect(await store.search(query, { ...options, limit: 10, embedder: localProvider() }), `${query} ${JSON.stringify(options)}`).toEqual([]);
      }
    }
  });

  // FTS5 keeps stopwords (the store's tokenizer has no list), and full-text search OR-ed them:
  // `how do I` ranked every chunk by how often it says "the", "do" and "i" (helper 102 probe).
  // The query now leaves out the stop words the local model and the routed BM25 skip.
  it('finds nothing for a query of stopwords alone, in every mode', async () => {
    for (const query of ['the', 'how do I', 'a an of', 'NOT a AND', 'OR', "don't"]) {
      for (const options of MODES) {
        expect(await store.search(query, { ...options, limit: 10, embedder: localProvider() }), `${query} ${JSON.stringify(options)}`).toEqual([]);
      }
    }
  });

  it('full-text search ranks a question by its words, not its stopwords: the same hits as the words alone', async () => {
    const words = await store.search('use polymorphic discriminator type', { mode: 'fts', limit: 20 });
    expect(words.length).toBe(20);
    expect(await store.search('How do I use the polymorphic discriminator of a type?', { mode: 'fts', limit: 20 })).toEqual(words);
  });

  it('still finds a query with words, in every mode', async () => {
    for (const options of MODES) {
      const hits = await store.search('polymorphic type discriminator', { ...options, limit: 3, embedder: localProvider() });
      expect(hits.length, JSON.stringify(options)).toBeGreaterThan(0);
      expect(hits.every((h) => h.score > 0)).toBe(true);
    }
  });
});
