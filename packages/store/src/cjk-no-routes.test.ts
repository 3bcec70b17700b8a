// Hybrid search with routes off (`docs-store search --no-routes`) for a Chinese, Japanese or
// Korean word inside a run. It fuses the full-text list (which finds the word, units_cjk) with
// the vector list by reciprocal rank; under the local model (feature hashing of whole words)
// a query of CJK words alone has a cosine with another text only through a hash collision,
// and the collision's vector rank 1 tied the word's document's fts rank 1: 配置 put a chunk of
// the native AOT guide first, 如何配置防火墙 a chunk of the polymorphism guide. A remote
// model's cosine means something, and stays in the fusion. Real SQLite files, the real store,
// the real local provider, and the real ollama client against a local server.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProvider } from '@chunkyard/embeddings';
import { sendJson, startServer } from '../../embeddings/src/test-server.js';
import { cjkTerms, fuseRrf, RRF_K } from './search.js';
import { DocStore } from './store.js';
import { cjkStore, DOCS, localProvider, makeTempDir, sourceIdsOf } from './test-helpers.js';
import type { SearchHit } from './types.js';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => (temp = makeTempDir()));
afterEach(() => temp.cleanup());

const embedder = localProvider();
const noRoutes = (store: DocStore, query: string, limit = 5): Promise<SearchHit[]> => store.search(query, { embedder, limit, routes: false });

const WORDS_INSIDE_RUNS: [string, string][] = [
  ['配置', 'zh'], // inside 如何配置服务器的网络设置; a native AOT chunk came first
  ['网络', 'zh'],
  ['防火墙', 'zh'],
  ['如何配置防火墙', 'zh'], // a question typed as one run
  ['設定', 'ja'],
  ['変更', 'ja'],
  ['서버', 'ko'],
  ['설정', 'ko'],
  ['서버를', 'ko'],
  ['관리자 안내', 'ko'],
  ['压缩', 'zh-long'],
  ['压', 'zh-long'], // a chunk of zh-long without it came first
];

describe('hybrid, routes off, under the local model: a query of CJK words alone', () => {
  it.each(WORDS_INSIDE_RUNS)('%s ranks its document first, above every collision (%s)', async (word, source) => {
    const store = await cjkStore(`${temp.dir}/s.db`, embedder);
    try {
      const hits = await noRoutes(store, word);
      expect(sourceIdsOf(store, hits)[0]).toBe(source);
      // The full-text list alone ranks: its order, on the fused scale, no vector rank.
      const fts = await store.search(word, { mode: 'fts', limit: 5 });
      expect(hits.map((h) => h.unitId)).toEqual(fts.map((h) => h.unitId));
      expect(hits.map((h) => h.ranks)).toEqual(fts.map((_, i) => ({ fts: i + 1 })));
      expect(hits.map((h) => h.score)).toEqual(fts.map((_, i) => 1 / (RRF_K + i + 1)));
      // No English chunk (a collision) anywhere, nor a chunk of zh-long without the word.
      expect(sourceIdsOf(store, hits)).not.toContain(DOCS.nativeAot);
      expect(sourceIdsOf(store, hits)).not.toContain(DOCS.polymorphism);
      if (source === 'zh-long') for (const h of hits.filter((h) => h.artifactId === hits[0]!.artifactId)) expect(h.content).toContain(word);
    } finally {
      store.close();
    }
  });

  it('a CJK word in no document finds nothing; English, and English mixed with CJK, keep the vector list; a query vector of another model is refused', async () => {
    const store = await cjkStore(`${temp.dir}/s.db`, embedder);
    try {
      expect(await noRoutes(store, '数据库')).toEqual([]);
      for (const q of ['native AOT publish', 'polymorphism 配置']) {
        const hits = await noRoutes(store, q, 10);
        expect(hits.some((h) => h.ranks.vector !== undefined), q).toBe(true);
      }
      // The query vector is still checked against the store: another model's is refused as for English.
      for (const q of ['配置', 'native AOT']) {
        await expect(store.search(q, { embedder: localProvider(256), routes: false }), q).rejects.toThrow(/query embedding has 256 dimensions \(model local-lexical-v1-d256\)/);
      }
      // --mode vector is what it was asked to be: the cosines alone.
      expect((await store.search('配置', { embedder, mode: 'vector', limit: 3 })).every((h) => h.ranks.vector !== undefined)).toBe(true);
    } finally {
      store.close();
    }
  });
});

describe('hybrid, routes off, under a remote model', () => {
  it('a query of CJK words alone fuses the vector list with the full-text list', async () => {
    // An Ollama-speaking server whose model reads a CJK run's pairs as words (the local model
    // over the text and its units_cjk tokens): its cosine for 配置 counts the pair a text shares.
    const server = await startServer(async (req, res) => {
      const { input } = req.body as { input: string[] };
      const vectors = await embedder.embed(input.map((t) => `${t} ${cjkTerms(t)}`));
      sendJson(res, 200, { model: 'pairs', embeddings: vectors.map((v) => [...v]) });
    });
    try {
      const remote = createProvider({ provider: 'ollama', host: server.origin, model: 'pairs', maxRetries: 0 });
      const store = await cjkStore(`${temp.dir}/s.db`, remote);
      try {
        expect(store.stats()).toMatchObject({ embeddingModel: 'pairs' });
        for (const q of ['配置', '設定', '서버']) {
          const hits = await store.search(q, { embedder: remote, limit: 5, routes: false });
          // What the fusion of both lists, each searched on its own, gives.
          const pool = 50;
          const fts = await store.search(q, { mode: 'fts', limit: pool });
          const vector = await store.search(q, { embedder: remote, mode: 'vector', limit: pool });
          expect(vector.length, q).toBeGreaterThan(0);
          const fused = fuseRrf([fts, vector].map((l) => l.map((h) => ({ unitId: h.unitId, score: h.score }))));
          expect(hits.map((h) => [h.unitId, h.score]), q).toEqual(fused.slice(0, 5).map((f) => [f.unitId, f.score]));
          expect(hits[0]?.ranks.fts, q).toBe(1);
          expect(hits.filter((h) => h.ranks.vector !== undefined).length, q).toBeGreaterThan(0);
        }
      } finally {
        store.close();
      }
    } finally {
      await server.close();
    }
  });
});
