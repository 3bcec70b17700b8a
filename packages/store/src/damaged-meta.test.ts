// A store that holds documents but whose store_meta names no embedding model (its rows deleted
// by another program): vector and hybrid search answered [] ("no results") as if the docs had
// been searched, where the vectors were simply never compared. Now a StoreError naming the
// store and the fix; full-text search, which reads no vector, still answers. Real SQLite files.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StoreError } from './errors.js';
import { DocStore } from './store.js';
import { localProvider, makeTempDir } from './test-helpers.js';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => (temp = makeTempDir()));
afterEach(() => temp.cleanup());

it.each([
  ['hybrid (routed)', { mode: 'hybrid' as const }],
  ['hybrid without routes', { mode: 'hybrid' as const, routes: false as const }],
  ['vector', { mode: 'vector' as const }],
])('%s search of a store with documents and no recorded model is an error naming the store', async (_name, options) => {
  const file = join(temp.dir, 'store.db');
  const embedder = localProvider();
  const writer = DocStore.open(file);
  await writer.ingest([{ content: '# WAL\n\nThe store runs SQLite in WAL mode.\n', sourceSystem: 'test' }], embedder);
  writer.close();
  const d = new Database(file);
  d.exec('DELETE FROM store_meta');
  d.close();
  const store = DocStore.open(file, { readonly: true });
  try {
    await expect(store.search('WAL mode', { ...options, embedder })).rejects.toThrow(
      new StoreError(`${file}: the store holds documents but records no embedding model (its store_meta table lost its rows), so their vectors cannot be searched; rebuild it with "docs-store ingest" into a new --db, or use full-text search`),
    );
    expect((await store.search('WAL mode', { mode: 'fts' })).map((h) => h.title)).toEqual(['WAL']);
  } finally {
    store.close();
  }
});

it('a store with no document still answers [] (nothing to search is not damage)', async () => {
  const store = DocStore.open(join(temp.dir, 'empty.db'));
  try {
    expect(await store.search('WAL mode', { mode: 'vector', embedder: localProvider() })).toEqual([]);
    expect(await store.search('WAL mode', { embedder: localProvider() })).toEqual([]);
  } finally {
    store.close();
  }
});
