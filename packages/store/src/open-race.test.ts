// Opening a store while another process creates it (s47 probe): refuseForeign read the schema
// version and the table list one after the other, and a store committed between the two reads
// looked like version 0 with tables, another program's database. Real SQLite files; a second
// real connection commits the store's creation at the moment between those reads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DocStore } from './store.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';

let dir: string;
const realPrepare = Database.prototype.prepare;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkyard-store-open-race-'));
});
afterEach(() => {
  Database.prototype.prepare = realPrepare;
  rmSync(dir, { recursive: true, force: true });
});

/** An empty WAL database at `path` (what a writer has made before its first migration commits). */
function emptyWal(path: string): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.close();
}

/** Has another connection create the store the first time the table list is read. */
function createStoreAtTableRead(path: string): void {
  let done = false;
  Database.prototype.prepare = function (this: Database.Database, sql: string) {
    if (!done && sql.includes("type = 'table'")) {
      done = true;
      const other = new Database(path);
      other.transaction(() => {
        for (const m of MIGRATIONS) m.up(other);
        other.pragma(`user_version = ${SCHEMA_VERSION}`);
      })();
      other.close();
    }
    return realPrepare.call(this, sql) as Database.Statement;
  } as typeof realPrepare;
}

it.each([
  ['read-only', { readonly: true }],
  ['for writing', {}],
] as const)('a store created by another connection while it is opened %s is not called another program\'s database', (_, options) => {
  const path = join(dir, 'store.db');
  emptyWal(path);
  createStoreAtTableRead(path);
  let error: unknown;
  try {
    DocStore.open(path, options).close();
  } catch (err) {
    error = err;
  }
  // Read-only, the state before the creation is what it saw: an empty database, said so.
  if (error !== undefined) expect(String(error)).toMatch(/an empty database/);
  expect(String(error)).not.toMatch(/not a docs-store database/);
  // Whatever it saw, the store is whole and opens.
  const store = DocStore.open(path, { readonly: true });
  expect(store.stats().schemaVersion).toBe(SCHEMA_VERSION);
  store.close();
});
