// A store whose store_meta `dimensions` is not a whole number of dimensions (another program's
// edit, a damaged page): every reader took it through Number() and went on, so a search said
// "the query embedding has 512 dimensions, but … holds NaN-dimension vectors", stats reported
// `dimensions: NaN`, and a 0 or a fraction was compared with real vectors. Now a StoreError that
// names the store, the value and the fix. Real SQLite files.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StoreError } from './errors.js';
import { DocStore } from './store.js';
import { localProvider, makeTempDir } from './test-helpers.js';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => (temp = makeTempDir()));
afterEach(() => temp.cleanup());

async function storeWithDimensions(value: string): Promise<string> {
  const file = join(temp.dir, 'store.db');
  const writer = DocStore.open(file);
  await writer.ingest([{ content: '# WAL\n\nThe store runs SQLite in WAL mode.\n', sourceSystem: 'test' }], localProvider());
  writer.close();
  const d = new Database(file);
  d.prepare("UPDATE store_meta SET value = ? WHERE key = 'dimensions'").run(value);
  d.close();
  return file;
}

it.each(['abc', '', '0', '-3', '1.5', '1e400', ' 512'])('store_meta dimensions %j is a StoreError naming the store and the value, for search and stats', async (value) => {
  const file = await storeWithDimensions(value);
  const store = DocStore.open(file, { readonly: true });
  const expected = new StoreError(
    `${file}: store_meta records ${JSON.stringify(value)} as the vectors' dimensions, not a whole number from 1; the store is damaged: rebuild it with "docs-store ingest" into a new --db`,
  );
  try {
    await expect(store.search('WAL mode', { mode: 'vector', embedder: localProvider() })).rejects.toThrow(expected);
    expect(() => store.stats()).toThrow(expected);
    // Full-text search reads no vector, so it still answers.
    expect((await store.search('WAL mode', { mode: 'fts' })).map((h) => h.title)).toEqual(['WAL']);
  } finally {
    store.close();
  }
});

it('a store with its real dimensions searches as before', async () => {
  const file = await storeWithDimensions('512');
  const store = DocStore.open(file, { readonly: true });
  try {
    expect((await store.search('WAL mode', { mode: 'vector', embedder: localProvider() })).map((h) => h.title)).toEqual(['WAL']);
    expect(store.stats().dimensions).toBe(512);
  } finally {
    store.close();
  }
});
