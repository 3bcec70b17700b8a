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

  // FTS5 keeps stopwords (the store's tokenizer has no list), so full-text search finds "the"
  // where it is written, a real match; the routed hybrid's BM25 and the local model drop it.
  it('finds nothing for a stopword where the ranking has no word for it: vector search and the routed hybrid', async () => {
    for (const options of [MODES[0]!, MODES[2]!, MODES[3]!]) {
      expect(await store.search('the', { ...options, limit: 10, embedder: localProvider() }), JSON.stringify(options)).toEqual([]);
    }
    expect((await store.search('the', { mode: 'fts', limit: 3 })).length).toBeGreaterThan(0);
  });

  it('still finds a query with words, in every mode', async () => {
    for (const options of MODES) {
      const hits = await store.search('polymorphic type discriminator', { ...options, limit: 3, embedder: localProvider() });
      expect(hits.length, JSON.stringify(options)).toBeGreaterThan(0);
      expect(hits.every((h) => h.score > 0)).toBe(true);
    }
  });
});
