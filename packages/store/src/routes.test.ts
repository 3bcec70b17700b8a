// Routed search in the store against docs-query's own retrieval (issue 17): the same built
// docs (real chunking-tool output, real local embedder, real SQLite file) go into a store,
// and store.search must return the units @chunkyard/retrieval's search() returns.
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackend, DocsClient, openSource, search as retrievalSearch, type EmbeddingBackend } from '@chunkyard/retrieval';
import { buildFixtureDocs, SAMPLE_QUESTIONS, SAMPLE_TOPICS, type FixtureDocs } from '../../retrieval/src/test-fixture-docs.js';
import { SCHEMA_VERSION } from './schema.js';
import { fuseRrf, searchFts } from './search.js';
import { DocStore } from './store.js';
import { readBuiltTopic } from './built.js';
import { embedPlans } from './ingest.js';
import { ingestBuiltTopics } from './test-helpers.js';
import { VectorIndex } from './vector-index.js';
import type { SearchHit } from './types.js';

let fx: FixtureDocs;
let backend: EmbeddingBackend;
let store: DocStore;
let dbPath: string;

const QUESTIONS = [
  ...SAMPLE_QUESTIONS.map((q) => q.question),
  ...SAMPLE_QUESTIONS.flatMap((q) => q.paraphrases.slice(0, 1)),
  'How do I publish a self-contained app with native AOT and what breaks?',
  'JsonSerializerOptions TypeInfoResolver',
];

beforeAll(async () => {
  fx = await buildFixtureDocs();
  backend = createBackend({ folder: fx.docs });
  dbPath = join(fx.workspace, 'store.db');
  store = DocStore.open(dbPath);
  await ingestBuiltTopics(store, fx.docs, SAMPLE_TOPICS, backend.provider);
}, 120_000);

afterAll(() => {
  store?.close();
  fx?.cleanup();
});

/** What identifies a returned unit on both sides: topic/document, best chunk, chunk range, text. */
interface Key {
  doc: string;
  index: number;
  from: number;
  to: number;
  text: string;
}

async function queryUnits(query: string, options: { n?: number; k?: number; topic?: string } = {}): Promise<Key[]> {
  const client = new DocsClient(openSource(fx.docs));
  const r = await retrievalSearch(client, { query, n: options.n ?? 5, k: options.k ?? 0, maxDistance: 0, embeddings: () => backend, ...(options.topic ? { topic: options.topic } : {}) });
  expect(r.method).toBe('embedding');
  return r.chunks.map((c) => ({ doc: `${c.topic}/${c.doc}.md`, index: c.index, from: c.span.from, to: c.span.to, text: c.text }));
}

// Stored as topic (deployment/native-aot) and source file (deployment/native-aot/golden-reference.md).
const storeDoc = (h: SearchHit) => h.sourceFile!;

const storeKeys = (hits: SearchHit[]): Key[] =>
  hits.map((h) => {
    expect(h.unit?.chunks).not.toBeNull();
    return { doc: storeDoc(h), index: h.chunkIndex!, from: h.unit!.chunks!.from, to: h.unit!.chunks!.to, text: h.unit!.text };
  });

describe('routed search (the default) returns the units docs-query returns', () => {
  it.each(QUESTIONS)('%s', async (q) => {
    const expected = await queryUnits(q);
    const hits = await store.search(q, { limit: 5, embedder: backend.provider });
    expect(hits.length).toBeGreaterThan(0);
    expect(storeKeys(hits)).toEqual(expected);
    // Some question merges adjacent chunks into one unit somewhere; checked over all below.
    for (const h of hits) expect(h.unit!.text.length).toBeGreaterThan(0);
  });

  it('some unit spans more than one chunk (small-to-big ran), and never more units than the limit', async () => {
    let merged = 0;
    for (const q of QUESTIONS) {
      const hits = await store.search(q, { limit: 3, embedder: backend.provider });
      expect(hits.length).toBeLessThanOrEqual(3);
      merged += hits.filter((h) => h.unit!.chunks!.to > h.unit!.chunks!.from).length;
    }
    expect(merged).toBeGreaterThan(0);
  });

  it('with a topic filter, expansion (k = 2) and another n, as docs-query with --topic, -k and -n', async () => {
    const topic = 'libraries/system-text-json-polymorphism';
    for (const q of QUESTIONS.slice(0, 4)) {
      const expected = await queryUnits(q, { n: 3, k: 2, topic });
      const hits = await store.search(q, { limit: 3, expand: 2, embedder: backend.provider, filters: { topic } });
      expect(storeKeys(hits)).toEqual(expected);
    }
  });

  it('each part of the routes turns off or changes as in retrieval (merge off, trim 0, no windows; a radius-3 window, k1 1.2)', async () => {
    const client = new DocsClient(openSource(fx.docs));
    const variants = [{ merge: false as const, trim: 0, windows: [] }, { windows: [{ weight: 0.5, radius: 3 }], bm25K1: 1.2 }];
    for (const [routes, q] of variants.flatMap((v) => QUESTIONS.slice(0, 3).map((q) => [v, q] as const))) {
      const r = await retrievalSearch(client, { query: q, n: 4, maxDistance: 0, embeddings: () => backend, routes });
      const hits = await store.search(q, { limit: 4, embedder: backend.provider, routes });
      expect(hits.map((h) => [storeDoc(h), h.chunkIndex, h.unit!.chunks, h.unit!.text])).toEqual(r.chunks.map((c) => [`${c.topic}/${c.doc}.md`, c.index, c.span, c.text]));
      if (routes.merge === false) for (const h of hits) expect(h.unit!.chunks!.from).toBe(h.unit!.chunks!.to);
    }
  });

  // As retrieval's windowScores: weight Infinity gave Infinity or NaN scores, and a radius of a
  // million summed the whole document for every chunk's window (quadratic in its chunks).
  it('refuses the window scores and k1 that retrieval refuses, naming the setting', async () => {
    for (const routes of [{ windows: [{ weight: Infinity, radius: 1 }] }, { windows: [{ weight: 1, radius: 1e6 }] }, { bm25K1: Infinity }, { bm25K1: Number.NaN }]) {
      await expect(store.search(QUESTIONS[0]!, { limit: 2, embedder: backend.provider, routes }), JSON.stringify(routes)).rejects.toThrow(/a window score needs a finite weight ≥ 0 and an integer radius from 1 to 32|BM25 needs a finite k1 ≥ 0/);
    }
  });
});

describe('property: any query of the docs\' words', () => {
  const WORDS = ['serialize', 'JSON', 'options', 'native', 'AOT', 'trimming', 'polymorphic', 'converter', 'dictionary', 'source', 'generation', 'reflection',
    'property', 'name', 'the', 'warnings', 'publish', 'JsonSerializerOptions', 'discriminator', 'startup', 'enum', 'null', 'camelCase', 'collection'];
  it('store and retrieval give the same units; at most limit units, disjoint and not touching within a document, none empty', async () => {
    const client = new DocsClient(openSource(fx.docs));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 8 }), async (words, limit) => {
        const query = words.join(' ');
        const r = await retrievalSearch(client, { query, n: limit, maxDistance: 0, embeddings: () => backend });
        const hits = await store.search(query, { limit, embedder: backend.provider });
        expect(storeKeys(hits)).toEqual(r.chunks.map((c) => ({ doc: `${c.topic}/${c.doc}.md`, index: c.index, from: c.span.from, to: c.span.to, text: c.text })));
        expect(hits.length).toBeLessThanOrEqual(limit);
        for (const h of hits) expect(h.unit!.text.length).toBeGreaterThan(0);
        for (const a of hits) {
          for (const b of hits) {
            if (a === b || a.artifactId !== b.artifactId) continue;
            expect(a.unit!.chunks!.to + 1 < b.unit!.chunks!.from || b.unit!.chunks!.to + 1 < a.unit!.chunks!.from).toBe(true);
          }
        }
      }),
      { numRuns: 25, seed: 17 },
    );
  }, 120_000);
});

describe('routes: false is the reciprocal-rank fusion of before', () => {
  it('same ids, scores and ranks as FTS5 BM25 and the exact vector list fused by RRF', async () => {
    for (const q of QUESTIONS.slice(0, 5)) {
      const hits = await store.search(q, { limit: 7, embedder: backend.provider, routes: false });
      const [qv] = await backend.provider.embed([q]);
      const pool = 50;
      const fts = searchFts(store.db, q, {}, pool);
      const index = store.vectorIndex();
      const vec = index.search(qv!, pool).map((m) => ({ unitId: index.units[m.row]!.unitId, score: m.score }));
      const fused = fuseRrf([fts, vec]).slice(0, 7);
      expect(hits.map((h) => [h.unitId, h.score, h.ranks.fts, h.ranks.vector])).toEqual(
        fused.map((f) => [f.unitId, f.score, f.ranks[0] || undefined, f.ranks[1] || undefined]),
      );
      for (const h of hits) expect(h.unit).toBeUndefined();
    }
  });
});

describe('a store written before schema 3', () => {
  it('a schema 2 store opened read-only: routed search says what to do, in one line; routes: false works; a write-open migrates it', async () => {
    const path = join(fx.workspace, 'v2.db');
    const v2 = DocStore.open(path);
    const topic = SAMPLE_TOPICS[1];
    const built = readBuiltTopic({ topicDir: join(fx.docs, topic), topic, sourceSystem: topic, displayOf: (s) => `${topic}/${s}`, sourceIdOf: (s) => s });
    await v2.ingestPlans(built.map((b) => b.plan), backend.provider.model, (pending) => embedPlans(pending, backend.provider));
    v2.db.exec(`ALTER TABLE artifact_chunks DROP COLUMN overlap_chars; ALTER TABLE artifact_chunks DROP COLUMN embed_terms;
      ALTER TABLE artifact_chunks DROP COLUMN content_terms; ALTER TABLE artifacts DROP COLUMN route_terms; PRAGMA user_version = 2;`);
    v2.close();
    const reader = DocStore.open(path, { readonly: true });
    const err = await reader.search(QUESTIONS[0]!, { embedder: backend.provider }).then(() => null, (e: Error) => e);
    expect(err?.name).toBe('StoreError');
    expect(err?.message).toMatch(/v2\.db: written by an older docs-store .*"docs-store ingest" on the same documents.*--no-routes/);
    expect(err?.message).not.toContain('\n');
    expect((await reader.search(QUESTIONS[0]!, { embedder: backend.provider, routes: false })).length).toBeGreaterThan(0);
    reader.close();
    const writer = DocStore.open(path);
    expect(writer.stats().schemaVersion).toBe(SCHEMA_VERSION);
    // Migrated, but its rows lack the terms until ingested again.
    await expect(writer.search(QUESTIONS[0]!, { embedder: backend.provider })).rejects.toThrow(/written by an older docs-store/);
    const [again] = await writer.ingestPlans(built.map((b) => b.plan), backend.provider.model, (pending) => embedPlans(pending, backend.provider));
    expect(again!.status).toBe('replaced');
    expect((await writer.search(QUESTIONS[0]!, { embedder: backend.provider, filters: { topic } })).length).toBeGreaterThan(0);
    writer.close();
  });

  it('routed search names the store and what to do; routes: false still works; ingest again upgrades it', async () => {
    // From another connection, as an older docs-store's write would come (our own writes patch the index).
    const other = DocStore.open(dbPath);
    other.db.prepare('UPDATE artifact_chunks SET embed_terms = NULL WHERE chunk_index = 0').run();
    other.close();
    await expect(store.search(QUESTIONS[0]!, { embedder: backend.provider })).rejects.toThrow(/store\.db: \d+ stored units were written by an older docs-store.*docs-store ingest.*--no-routes/);
    expect((await store.search(QUESTIONS[0]!, { embedder: backend.provider, routes: false })).length).toBeGreaterThan(0);
    // An unchanged document lacking the terms is rewritten, not skipped.
    const topic = SAMPLE_TOPICS[0];
    const built = readBuiltTopic({ topicDir: join(fx.docs, topic), topic, sourceSystem: topic, displayOf: (s) => `${topic}/${s}`, sourceIdOf: (s) => s });
    const [outcome] = await store.ingestPlans(built.map((b) => b.plan), backend.provider.model, (pending) => embedPlans(pending, backend.provider));
    expect(outcome!.status).toBe('replaced');
    for (const t of SAMPLE_TOPICS.slice(1)) {
      const b = readBuiltTopic({ topicDir: join(fx.docs, t), topic: t, sourceSystem: t, displayOf: (s) => `${t}/${s}`, sourceIdOf: (s) => s });
      await store.ingestPlans(b.map((x) => x.plan), backend.provider.model, (pending) => embedPlans(pending, backend.provider));
    }
    expect(storeKeys(await store.search(QUESTIONS[0]!, { limit: 5, embedder: backend.provider })).length).toBeGreaterThan(0);
  });
});

describe('VectorIndex.norms', () => {
  it('keeps each row\'s length before normalising, also through withChanges (which copies normalised rows)', () => {
    const unit = (id: string) => ({ unitId: id, artifactId: id.split(':')[0]!, topic: null, artifactType: 'doc', contentHints: 'prose' });
    const bytes = (v: number[]) => new Uint8Array(Float32Array.from(v).buffer);
    const index = VectorIndex.fromRows(2, [{ unit: unit('a:1'), embedding: bytes([3, 4]) }, { unit: unit('b:1'), embedding: bytes([0, 2]) }], 2);
    expect(Array.from(index.norms)).toEqual([5, 2]);
    const changed = index.withChanges(new Set(['b']), [{ unit: unit('c:1'), vector: Float32Array.from([6, 8]) }]);
    expect(Array.from(changed.norms)).toEqual([5, 10]);
    expect(Array.from(changed.scoreAll(Float32Array.from([1, 0]))).map((x) => +x.toFixed(6))).toEqual([0.6, 0.6]);
  });
});
