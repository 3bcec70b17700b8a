/**
 * The database layout (seed 004's `artifacts` and `artifact_chunks`, as SQLite tables) and
 * its migrations. `PRAGMA user_version` holds the schema version; each migration runs in
 * its own transaction, so an interrupted upgrade leaves the previous version intact.
 */
import type Database from 'better-sqlite3';
import { StoreError } from './errors.js';
import { cjkTerms } from './search.js';

type DB = Database.Database;

interface Migration {
  version: number;
  description: string;
  up: (db: DB) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'artifacts, artifact_chunks, units_fts, store_meta',
    up: (db) =>
      db.exec(`
        CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;

        -- seq is a stable integer key (an INTEGER PRIMARY KEY survives VACUUM); id is seed 004's.
        CREATE TABLE artifacts (
          seq            INTEGER PRIMARY KEY,
          id             TEXT NOT NULL UNIQUE,
          artifact_type  TEXT NOT NULL,
          source_system  TEXT NOT NULL,
          source_id      TEXT,
          source_file    TEXT,
          topic          TEXT,
          title          TEXT NOT NULL,
          content        TEXT NOT NULL,          -- '' when chunked (seed 004: metadata only)
          token_count    INTEGER NOT NULL,
          is_chunked     INTEGER NOT NULL CHECK (is_chunked IN (0, 1)),
          num_chunks     INTEGER NOT NULL,
          content_hash   TEXT NOT NULL,
          strategy_key   TEXT NOT NULL,
          content_hints  TEXT NOT NULL,
          embedding      BLOB,                   -- Float32 LE; NULL when chunked
          ingested_at    TEXT NOT NULL
        ) STRICT;
        CREATE INDEX artifacts_topic ON artifacts (topic);

        CREATE TABLE artifact_chunks (
          seq            INTEGER PRIMARY KEY,
          id             TEXT NOT NULL UNIQUE,
          artifact_id    TEXT NOT NULL REFERENCES artifacts (id) ON DELETE CASCADE,
          chunk_index    INTEGER NOT NULL,
          record_id      TEXT,
          content        TEXT NOT NULL,
          embed_text     TEXT NOT NULL,
          start_char     INTEGER NOT NULL,
          end_char       INTEGER NOT NULL,
          token_count    INTEGER NOT NULL,
          content_hash   TEXT NOT NULL,
          section_title  TEXT NOT NULL,
          header_breadcrumb TEXT NOT NULL,
          content_hints  TEXT NOT NULL,
          is_code        INTEGER NOT NULL,
          embedding      BLOB NOT NULL,
          UNIQUE (artifact_id, chunk_index)
        ) STRICT;

        -- One row per searchable unit. rowid = artifact_chunks.seq for a chunk and
        -- -artifacts.seq for a whole artifact, so both kinds share one index and rows
        -- are deleted by key, never by scanning.
        CREATE VIRTUAL TABLE units_fts USING fts5 (
          title, headings, body,
          unit_id UNINDEXED, artifact_id UNINDEXED, topic UNINDEXED, artifact_type UNINDEXED, content_hints UNINDEXED,
          tokenize = 'porter unicode61 remove_diacritics 2'
        );
      `),
  },
  {
    version: 2,
    description: 'vector_ann: the persisted approximate (IVF) vector index',
    up: (db) =>
      db.exec(`
        -- One row per index kind. keys (Float64, one per unit: a 53-bit hash of the unit id)
        -- and assignments (Uint16 list numbers) are parallel arrays; checksum is the sha256
        -- of every other column, so a damaged row is detected and rebuilt, never trusted.
        CREATE TABLE vector_ann (
          kind         TEXT PRIMARY KEY,
          model        TEXT NOT NULL,
          dims         INTEGER NOT NULL,
          lists        INTEGER NOT NULL,
          rows         INTEGER NOT NULL,
          centroids    BLOB NOT NULL,
          keys         BLOB NOT NULL,
          assignments  BLOB NOT NULL,
          checksum     TEXT NOT NULL,
          built_at     TEXT NOT NULL
        ) STRICT;
      `),
  },
  {
    version: 3,
    description: 'what routed search needs: chunk overlaps and BM25 terms',
    up: (db) =>
      db.exec(`
        -- NULL in a row written before version 3: routed search refuses the store until the
        -- document is ingested again (ingest rewrites such a document even when unchanged).
        -- overlap_chars: how many leading characters repeat the chunk before (shown once in a unit).
        -- embed_terms / content_terms: bm25Terms of embed_text / content, space-separated, so
        -- a search does not tokenise every chunk again (about 65 µs a chunk).
        ALTER TABLE artifact_chunks ADD COLUMN overlap_chars INTEGER;
        ALTER TABLE artifact_chunks ADD COLUMN embed_terms TEXT;
        ALTER TABLE artifact_chunks ADD COLUMN content_terms TEXT;
        -- The same terms for a document stored whole (its embed text is its content).
        ALTER TABLE artifacts ADD COLUMN route_terms TEXT;
      `),
  },
  {
    version: 4,
    description: 'units_cjk: Chinese, Japanese and Korean text as overlapping bigrams, so full-text search finds a word inside a run',
    up: (db) => {
      db.exec(`
        -- unicode61 reads a run of CJK letters as one word (search.ts, cjkTerms): this table
        -- holds each run as its character pairs. rowid = units_fts.rowid; a row only for a
        -- unit whose title, headings or body holds CJK text, so a store without any stays as it was.
        -- One already there (a store whose user_version was set back by hand, as tests make an
        -- older store) is made again from units_fts, so this migration never fails on it.
        DROP TABLE IF EXISTS units_cjk;
        CREATE VIRTUAL TABLE units_cjk USING fts5 (title, headings, body, tokenize = 'unicode61 remove_diacritics 0');
      `);
      // The rows already stored, from units_fts's own copy of the text (the same text ingest
      // gave it), a page at a time: better-sqlite3 runs no statement while another iterates.
      // A store that lost units_fts (another program's damage) is left for the query that reads
      // it to name: failing here refused the whole store at open, the MCP server included.
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'units_fts'").get()) return;
      const page = db.prepare('SELECT rowid, title, headings, body FROM units_fts WHERE rowid > ? ORDER BY rowid LIMIT 500');
      const insert = db.prepare('INSERT INTO units_cjk (rowid, title, headings, body) VALUES (?, ?, ?, ?)');
      let after = Number.MIN_SAFE_INTEGER;
      for (;;) {
        const rows = page.all(after) as { rowid: number; title: string; headings: string; body: string }[];
        if (rows.length === 0) break;
        for (const r of rows) insertCjkRow(insert, r.rowid, r.title, r.headings, r.body);
        after = rows[rows.length - 1]!.rowid;
      }
    },
  },
];

/** Writes a unit's units_cjk row (see migration 4), or nothing when its text holds no CJK letter. */
export function insertCjkRow(insert: Database.Statement, rowid: number, title: string, headings: string, body: string): void {
  const terms = [cjkTerms(title), cjkTerms(headings), cjkTerms(body)];
  if (terms.some((t) => t !== '')) insert.run(rowid, ...terms);
}

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The tables every version of the store has: their absence marks another program's database. */
const STORE_TABLES = ['artifacts', 'store_meta'];

/**
 * Refuses a SQLite database that docs-store did not make, before anything is written to it
 * (journal mode included): `--db` pointed at an application's own database used to get the
 * store's tables added to it ("schema version 0 … open it once for writing to migrate"), and
 * one with its own user_version was told to upgrade chunkyard. A store has user_version 0 only
 * while it is still empty, since every migration sets it in the transaction that creates tables.
 * Returns the schema version it saw with those tables.
 */
export function refuseForeign(db: DB, path: string): number {
  const named = (type: string) =>
    (db.prepare(`SELECT name FROM sqlite_master WHERE type = '${type}' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
  // One read transaction, so the three reads see one state of the file: read one by one, a
  // store another process created between the first and the others looked like version 0
  // with tables, which is another program's database (s47 probe: a reader opening a store
  // while `docs-store ingest` made it was told "not a docs-store database").
  const { version, tables, views } = db.transaction(() => ({
    version: db.pragma('user_version', { simple: true }) as number,
    tables: named('table'),
    // Views count as well: a database of views only (over attached databases, say) had no
    // tables, looked like a store never written, and got the store's tables added beside them.
    views: named('view'),
  }))();
  if (version === 0 ? tables.length === 0 && views.length === 0 : STORE_TABLES.every((t) => tables.includes(t))) {
    // No docs-store writes a negative version: read, it was told to open the file for writing to
    // migrate, and migrate() then ran the first migration again ("table store_meta already exists").
    if (version < 0) {
      throw new StoreError(
        `${path}: schema version ${version}, which no docs-store writes (they write 1 to ${SCHEMA_VERSION}): another program changed the file's header; rebuild the store with "docs-store ingest" into a new --db`,
      );
    }
    return version;
  }
  const list = (kind: string, names: string[]) => `the ${kind} ${names.slice(0, 5).join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}`;
  const parts = [...(tables.length ? [list('tables', tables)] : []), ...(views.length ? [list('views', views)] : [])];
  const shown = parts.length === 0 ? 'no tables' : parts.join(' and ');
  throw new StoreError(
    `${path}: not a docs-store database (a SQLite database with ${shown}${version !== 0 ? `, user_version ${version}` : ''}); it was left as it was: pass --db with the store's path, or a new file`,
  );
}

/** Brings `db` up to SCHEMA_VERSION; refuses a database from a newer version. */
export function migrate(db: DB): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new StoreError(`${db.name}: schema version ${current} is newer than this docs-store knows (${SCHEMA_VERSION}); upgrade chunkyard`);
  }
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    db.transaction(() => {
      // Another process may have migrated while we waited for the write lock.
      if ((db.pragma('user_version', { simple: true }) as number) >= m.version) return;
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
  }
  return SCHEMA_VERSION;
}
