// What the environment can do to the store, on real files: a file that is not a database, a
// folder that cannot be created or written, and a caller asking for absurdly many hits.
// Each must be a StoreError naming the path (which the CLI prints without a trace), or a
// bounded answer, never a raw SqliteError or a RangeError from a giant allocation.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from './errors.js';
import { SCHEMA_VERSION } from './schema.js';
import { DocStore } from './store.js';
import { DOCS, localProvider, makeTempDir, readDoc } from './test-helpers.js';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir();
});
afterEach(() => {
  chmodSync(temp.dir, 0o755);
  temp.cleanup();
});

const isRoot = process.getuid?.() === 0;

describe('opening', () => {
  it('a file that is not a database is a StoreError naming it, for reading and for writing', () => {
    const file = join(temp.dir, 'notes.txt');
    writeFileSync(file, 'these are my notes, not a database\n'.repeat(100));
    for (const readonly of [true, false]) {
      const open = () => DocStore.open(file, { readonly });
      expect(open).toThrow(StoreError);
      expect(open).toThrow(`${file}: not a docs-store database (file is not a database); pass --db with the store's path, or move this file away`);
    }
  });

  it('a store from a newer schema version is refused for writing and left byte for byte as it was (s46 probe: it was switched to WAL first)', () => {
    // A newer docs-store's file in rollback-journal mode: the write-open set journal_mode = WAL
    // (a change to its header, and -wal and -shm beside it) before migrate() read the version.
    const file = join(temp.dir, 'newer.db');
    const newer = new Database(file);
    newer.exec('CREATE TABLE artifacts (x); CREATE TABLE store_meta (k); PRAGMA user_version = 99');
    newer.close();
    const before = readFileSync(file);
    for (const readonly of [false, true]) {
      expect(() => DocStore.open(file, { readonly }), `readonly=${readonly}`).toThrow(new StoreError(`${file}: schema version 99 is newer than this docs-store knows (${SCHEMA_VERSION}); upgrade chunkyard`));
    }
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it("another program's SQLite database is refused and left byte for byte as it was (issue 15)", () => {
    // --db at an application's database got the store's tables (and WAL mode) added to it; one
    // with its own user_version was told to upgrade chunkyard.
    for (const [name, setup, shown] of [
      ['app.db', 'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, \'ann\');', 'the tables users'],
      ['versioned.db', 'CREATE TABLE a (x); CREATE TABLE b (y); PRAGMA user_version = 7;', 'the tables a, b, user_version 7'],
      ['old-looking.db', 'CREATE TABLE artifacts (x); PRAGMA user_version = 2;', 'the tables artifacts, user_version 2'],
      // Views count too (s34 probe): refuseForeign counted tables only, so a database of views
      // (over an attached database, say) looked empty and got the store's tables beside them.
      ['views.db', 'CREATE VIEW chunks AS SELECT 1 AS x; CREATE VIEW b AS SELECT 2 AS y;', 'the views b, chunks'],
      ['v7.db', 'CREATE VIEW v AS SELECT 1; PRAGMA user_version = 7;', 'the views v, user_version 7'],
    ] as const) {
      const file = join(temp.dir, name);
      const app = new Database(file);
      app.exec(setup);
      app.close();
      const before = readFileSync(file);
      for (const readonly of [true, false]) {
        expect(() => DocStore.open(file, { readonly }), `${name} readonly=${readonly}`).toThrow(
          new StoreError(`${file}: not a docs-store database (a SQLite database with ${shown}); it was left as it was: pass --db with the store's path, or a new file`),
        );
      }
      expect(readFileSync(file).equals(before), name).toBe(true);
      expect(existsSync(`${file}-wal`), name).toBe(false);
    }
    // An empty SQLite file is still a store to create.
    const empty = join(temp.dir, 'empty.db');
    new Database(empty).close();
    DocStore.open(empty).close();
    DocStore.open(empty, { readonly: true }).close();
  });

  it('a store never written (a 0-byte file, or SQLite without tables) read for search says it is empty and what to run (s33 probe: "schema version 0 … open it once for writing to migrate")', () => {
    const zero = join(temp.dir, 'zero.db');
    writeFileSync(zero, '');
    const fresh = join(temp.dir, 'fresh.db');
    new Database(fresh).close();
    for (const file of [zero, fresh]) {
      expect(() => DocStore.open(file, { readonly: true }), file).toThrow(
        new StoreError(`${file}: an empty database, no documents stored in it yet; store some first (docs-store ingest … --db ${file})`),
      );
    }
  });

  it('a file where a folder of the path belongs is named, for writing and reading (s37 probe: "(ENOTDIR) … fix the folder\'s permissions", "(EEXIST)", "run docs-store ingest first")', () => {
    const plain = join(temp.dir, 'plain-file');
    writeFileSync(plain, 'x');
    for (const db of [join(plain, 'sub', 'store.db'), join(plain, 'store.db')]) {
      const said = new StoreError(`${db}: ${plain} is a file, not a folder, so no store can be there; choose another --db, or move ${plain} away`);
      expect(() => DocStore.open(db), db).toThrow(said);
      expect(() => DocStore.open(db, { readonly: true }), db).toThrow(said);
    }
  });

  // s43 probe: a --db that is a symlink loop said "cannot open the store for writing
  // (SQLITE_CANTOPEN …); check that the folder exists and is writable" and, to read, "run
  // docs-store ingest first", though the folder was fine and ingest could not help.
  it('a --db that is a symlink loop is named as one, for writing and reading', () => {
    const a = join(temp.dir, 'loop-a.db');
    symlinkSync('loop-b.db', a);
    symlinkSync('loop-a.db', join(temp.dir, 'loop-b.db'));
    const said = new StoreError(`${a}: a symlink loop (it never reaches a file); fix or remove the link, or choose another --db`);
    expect(() => DocStore.open(a)).toThrow(said);
    expect(() => DocStore.open(a, { readonly: true })).toThrow(said);
  });

  // Node's mkdirSync({ recursive: true }) loops forever here: /proc answers ENOENT for a new folder.
  it.runIf(process.platform === 'linux')('a folder that cannot be created under /proc is a StoreError at once, not a hang', () => {
    const db = '/proc/chunkyard-no-such/sub/store.db';
    expect(() => DocStore.open(db)).toThrow(new StoreError(`${db}: cannot create the folder /proc/chunkyard-no-such/sub for the store (ENOENT); choose another --db or fix the folder's permissions`));
  });

  // /proc refuses new files even to root (tests here often run as root, where chmod does not bind).
  it.runIf(process.platform === 'linux')('a folder where no file can be created (/proc) is a StoreError naming the path', () => {
    const db = '/proc/chunkyard-store-test.db';
    expect(() => DocStore.open(db)).toThrow(
      new StoreError(`${db}: cannot open the store for writing (SQLITE_CANTOPEN: unable to open database file); check that the folder exists and is writable, or choose another --db`),
    );
  });

  it('a --db name too long for the -journal beside it says so, and leaves nothing behind (s34 probe: "check that the folder exists and is writable")', () => {
    // 250 bytes is a legal file name, but SQLite opens <name>-journal (258 bytes) beside it.
    const name = 'z'.repeat(250);
    const db = join(temp.dir, name);
    expect(() => DocStore.open(db)).toThrow(
      new StoreError(`${db}: a file name of 250 bytes is too long for a store: SQLite keeps files named with -journal, -wal and -shm added beside it, and a file name has at most 255 bytes; use a name of at most 247 bytes`),
    );
    expect(readdirSync(temp.dir)).toEqual([]);
    // 247 bytes fits, and the store works.
    const fits = join(temp.dir, 'f'.repeat(247));
    DocStore.open(fits).close();
    expect(existsSync(fits)).toBe(true);
  });

  it.skipIf(isRoot)('a folder that cannot be written is a StoreError naming the path', () => {
    const dir = join(temp.dir, 'locked');
    mkdirSync(dir);
    chmodSync(dir, 0o555);
    try {
      const db = join(dir, 'store.db');
      expect(() => DocStore.open(db)).toThrow(/locked\/store\.db: cannot open the store for writing \(SQLITE_CANTOPEN: unable to open database file\); check that the folder exists and is writable/);
    } finally {
      chmodSync(dir, 0o755);
    }
  });
});

describe('bounded search', () => {
  it('a limit far above the number of units returns them all, in every mode, without a giant allocation', async () => {
    const store = DocStore.open(join(temp.dir, 'store.db'));
    try {
      const provider = localProvider();
      await store.ingest([{ content: readDoc(DOCS.nativeAot), sourceSystem: 'file', sourceId: DOCS.nativeAot }], provider);
      const units = store.stats().units;
      const before = process.memoryUsage().arrayBuffers;
      for (const mode of ['vector', 'hybrid', 'fts'] as const) {
        const hits = await store.search('native AOT limitations', { mode, limit: 1e9, embedder: provider });
        expect(hits.length).toBeLessThanOrEqual(units);
        expect(hits.length).toBeGreaterThan(0);
      }
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024);
    } finally {
      store.close();
    }
  });
});
