// The IVF index inside a real store: persisted in the same SQLite file, reused by the next
// connection, repaired after writes, rebuilt when damaged.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DocStore } from './store.js';
import { SCHEMA_VERSION } from './schema.js';
import { makeTempDir } from './test-helpers.js';
import type { ArtifactPlan } from './types.js';

const DIMS = 24;
let tmp: ReturnType<typeof makeTempDir>;
beforeEach(() => (tmp = makeTempDir()));
afterEach(() => tmp.cleanup());

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
}
const centres = (() => {
  const rand = lcg(99);
  return Array.from({ length: 10 }, () => Float32Array.from({ length: DIMS }, rand));
})();
const clustered = (rand: () => number, i: number) => Float32Array.from({ length: DIMS }, (_, d) => centres[i % 10]![d]! + 0.3 * rand());

/** `count` artifacts of 50 chunks with clustered vectors; artifact ids from `from`. */
async function ingest(store: DocStore, from: number, count: number, seed: number): Promise<void> {
  const rand = lcg(seed);
  const plans: ArtifactPlan[] = Array.from({ length: count }, (_, j) => {
    const a = from + j;
    const id = `art_${a.toString(16).padStart(8, '0')}`;
    return {
      id, artifactType: 'doc', sourceSystem: 'test', sourceId: String(a), sourceFile: `t/${a}.md`, topic: `t/${a % 3}`, title: `Doc ${a}`,
      content: '', tokenCount: 50, contentHash: `${seed}`.padStart(64, '0'), isChunked: true, strategyKey: 'test', contentHints: 'prose',
      units: Array.from({ length: 50 }, (_, k) => ({
        id: `${id}::chunk::${String(k).padStart(3, '0')}::00000000`, chunkIndex: k, recordId: null, content: `word${k} text`, embedText: `word${k} text`,
        startChar: 0, endChar: 5, tokenCount: 1, contentHash: '0'.repeat(64), sectionTitle: '', headerBreadcrumb: '', contentHints: 'prose', isCode: false,
      })),
    };
  });
  await store.ingestPlans(plans, 'test-model', async (pending) => pending.map((plan) => ({ plan, vectors: plan.units.map((_, k) => clustered(rand, k)) })));
}

const queries = (n: number) => {
  const rand = lcg(7);
  return Array.from({ length: n }, (_, i) => clustered(rand, i));
};

function recall(store: DocStore, k = 10): number {
  let found = 0;
  let total = 0;
  for (const q of queries(20)) {
    const exact = new Set(store.searchWith('', q, { mode: 'vector', limit: k, index: 'exact' }).map((h) => h.unitId));
    const ann = store.searchWith('', q, { mode: 'vector', limit: k, index: 'ivf' });
    expect(ann).toHaveLength(k);
    for (const h of ann) if (exact.has(h.unitId)) found++;
    total += exact.size;
  }
  return found / total;
}

describe('IVF index in the store', { timeout: 60_000 }, () => {
  it('is built, persisted in the same file, and reused by a later read-only connection', async () => {
    const path = `${tmp.dir}/s.db`;
    const store = DocStore.open(path, { vectorIndex: 'ivf' });
    await ingest(store, 0, 40, 1);
    expect(store.prepareVectorIndex()).toMatchObject({ kind: 'ivf', rows: 2000, rebuilt: 'no persisted index', persisted: true });
    expect(recall(store)).toBeGreaterThanOrEqual(0.95);
    store.close();

    const reader = DocStore.open(path, { readonly: true, vectorIndex: 'ivf' });
    const hits = reader.searchWith('', queries(1)[0]!, { mode: 'vector', limit: 5 });
    expect(hits).toHaveLength(5);
    expect(reader.annStatus).toMatchObject({ rebuilt: null, reused: 2000, assigned: 0, removed: 0, persisted: false });
    reader.close();
  });

  it('a stale index (units written or removed since) is repaired: new units placed, gone ones dropped, and persisted', async () => {
    const path = `${tmp.dir}/s.db`;
    const store = DocStore.open(path, { vectorIndex: 'ivf' });
    await ingest(store, 0, 40, 1);
    store.prepareVectorIndex();
    // Another connection writes 5 artifacts and removes one: this store's index is stale.
    const other = DocStore.open(path);
    await ingest(other, 40, 5, 2);
    other.remove('art_00000000');
    other.close();
    expect(recall(store)).toBeGreaterThanOrEqual(0.95);
    expect(store.annStatus).toMatchObject({ rebuilt: null, reused: 1950, assigned: 250, removed: 50, persisted: true, rows: 2200 });
    const newcomer = store.searchWith('', store.vectorIndex().matrix.slice(0, DIMS), { mode: 'vector', limit: 1, index: 'ivf' });
    expect(newcomer).toHaveLength(1);
    store.close();
    const again = DocStore.open(path, { readonly: true });
    again.searchWith('', queries(1)[0]!, { mode: 'vector', limit: 3, index: 'ivf' });
    expect(again.annStatus).toMatchObject({ rebuilt: null, reused: 2200, assigned: 0, removed: 0 });
    again.close();
  });

  it('a damaged persisted index is detected by its checksum and rebuilt', async () => {
    const path = `${tmp.dir}/s.db`;
    const store = DocStore.open(path);
    await ingest(store, 0, 20, 1);
    store.prepareVectorIndex('ivf');
    store.db.prepare("UPDATE vector_ann SET assignments = zeroblob(length(assignments)) WHERE kind = 'ivf'").run();
    store.close();
    const reopened = DocStore.open(path, { vectorIndex: 'ivf' });
    expect(recall(reopened)).toBeGreaterThanOrEqual(0.95);
    expect(reopened.annStatus).toMatchObject({ rebuilt: 'the persisted index is damaged (checksum mismatch)', persisted: true });
    reopened.close();
  });

  it('many new units (over a quarter) rebuild the index rather than patch it', async () => {
    const path = `${tmp.dir}/s.db`;
    const store = DocStore.open(path, { vectorIndex: 'ivf' });
    await ingest(store, 0, 10, 1);
    store.prepareVectorIndex();
    await ingest(store, 10, 10, 3);
    expect(recall(store)).toBeGreaterThanOrEqual(0.95);
    expect(store.annStatus?.rebuilt).toBe('500 of 1000 units are newer than the persisted index');
    store.close();
  });

  it('a version 1 store (no vector_ann) is still readable, with the index in memory; opening it for writing migrates it', async () => {
    const path = `${tmp.dir}/s.db`;
    const store = DocStore.open(path);
    await ingest(store, 0, 4, 1);
    // What version 1 lacked: vector_ann (version 2) and the route columns (version 3).
    store.db.exec(`DROP TABLE vector_ann; ALTER TABLE artifact_chunks DROP COLUMN overlap_chars; ALTER TABLE artifact_chunks DROP COLUMN embed_terms;
      ALTER TABLE artifact_chunks DROP COLUMN content_terms; ALTER TABLE artifacts DROP COLUMN route_terms; PRAGMA user_version = 1;`);
    store.close();
    const reader = DocStore.open(path, { readonly: true });
    expect(reader.searchWith('', queries(1)[0]!, { mode: 'vector', limit: 3, index: 'ivf' })).toHaveLength(3);
    expect(reader.annStatus).toMatchObject({ rebuilt: 'no persisted index', persisted: false });
    expect(reader.stats()).toMatchObject({ schemaVersion: 1, ann: null });
    reader.close();
    const writer = DocStore.open(path);
    expect(writer.stats()).toMatchObject({ schemaVersion: SCHEMA_VERSION, ann: null });
    writer.prepareVectorIndex('ivf');
    expect(writer.stats().ann).toMatchObject({ kind: 'ivf', rows: 200 });
    writer.close();
  });

  it('auto is exact search for a small store; an empty store needs no index', async () => {
    const store = DocStore.open(`${tmp.dir}/s.db`);
    expect(store.prepareVectorIndex('ivf')).toBeNull();
    await ingest(store, 0, 2, 1);
    expect(store.resolveIndexKind()).toBe('exact');
    expect(store.resolveIndexKind('ivf')).toBe('ivf');
    expect(store.prepareVectorIndex()).toBeNull();
    // Decided from counts: no vector was read to learn that exact search is the answer.
    expect(store.indexLoads).toBe(0);
    expect(store.db.prepare('SELECT count(*) AS n FROM vector_ann').get()).toEqual({ n: 0 });
    store.close();
  });
});
