// A content_hints filter that repeats its hints (issue 15 probe, helper 91): search_docs takes
// the list from an MCP client, and fts and --no-routes bound one SQL variable per entry, so
// 40,000 copies of "code" failed with "too many SQL variables" where hybrid and vector searched.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocStore } from './store.js';
import { DOCS, localProvider, makeTempDir, readDoc } from './test-helpers.js';
import type { ContentHint } from '@chunkyard/chunking';

const HINTS: ContentHint[] = ['prose', 'table', 'code', 'list', 'quote', 'mixed'];

describe('a content hints filter with repeated hints', () => {
  const tmp = makeTempDir();
  let store: DocStore;
  beforeAll(async () => {
    store = DocStore.open(`${tmp.dir}/store.db`);
    await store.ingest(
      [DOCS.polymorphism, DOCS.nativeAot].map((d) => ({ content: readDoc(d), sourceSystem: 'file', sourceId: d })),
      localProvider(),
    );
  });
  afterAll(() => {
    store.close();
    tmp.cleanup();
  });

  for (const mode of ['fts', 'hybrid-rrf'] as const) {
    it(`${mode}: 40,000 copies of a hint search as the hint once does`, async () => {
      const opts = mode === 'fts' ? ({ mode: 'fts' } as const) : ({ mode: 'hybrid', routes: false, embedder: localProvider() } as const);
      const once = await store.search('native AOT limitations', { ...opts, limit: 5, filters: { contentHints: ['prose'] } });
      expect(once.length).toBeGreaterThan(0);
      const many = await store.search('native AOT limitations', { ...opts, limit: 5, filters: { contentHints: Array<ContentHint>(40_000).fill('prose') } });
      expect(many).toEqual(once);
    });
  }

  it('fts: any list of hints, repeated any number of times, searches as its distinct hints', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.constantFrom(...HINTS), { minLength: 1 }), fc.integer({ min: 1, max: 40_000 }), async (distinct, copies) => {
        const repeated = Array.from({ length: Math.max(copies, distinct.length) }, (_, i) => distinct[i % distinct.length]!);
        const want = await store.search('serialize derived type', { mode: 'fts', limit: 10, filters: { contentHints: distinct } });
        expect(await store.search('serialize derived type', { mode: 'fts', limit: 10, filters: { contentHints: repeated } })).toEqual(want);
      }),
      { numRuns: 30 },
    );
  });
});
