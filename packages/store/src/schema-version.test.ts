// A store whose user_version (the schema version) is negative: no docs-store writes one, so
// another program changed the header. Read, it was told "open it once for writing to migrate";
// opened for writing, migrate() took it for older than version 1 and ran the first migration
// again, failing with SQLite's "table store_meta already exists". Both opens now say what the
// file is, and leave it as it was. Real SQLite files.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StoreError } from './errors.js';
import { SCHEMA_VERSION } from './schema.js';
import { DocStore } from './store.js';
import { localProvider, makeTempDir } from './test-helpers.js';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => (temp = makeTempDir()));
afterEach(() => temp.cleanup());

it.each([-1, -3, -2147483648])('a store with user_version %i is refused by both opens, naming it, and left as it was', async (version) => {
  const file = join(temp.dir, 'store.db');
  const store = DocStore.open(file);
  await store.ingest([{ content: '# WAL\n\nThe store runs SQLite in WAL mode.\n', sourceSystem: 'test' }], localProvider());
  store.close();
  const d = new Database(file);
  d.pragma('journal_mode = DELETE');
  d.pragma(`user_version = ${version}`);
  d.close();
  const before = readFileSync(file);
  const expected = new StoreError(
    `${file}: schema version ${version}, which no docs-store writes (they write 1 to ${SCHEMA_VERSION}): another program changed the file's header; rebuild the store with "docs-store ingest" into a new --db`,
  );
  expect(() => DocStore.open(file, { readonly: true })).toThrow(expected);
  expect(() => DocStore.open(file)).toThrow(expected);
  expect(readFileSync(file).equals(before)).toBe(true);
  expect(existsSync(`${file}-wal`)).toBe(false);
});
