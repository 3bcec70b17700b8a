// A store whose stored vector is not the store's dimensions (a row written by another program,
// a damaged page that SQLite still reads): search and ingest --index ivf died with a RangeError
// and its stack trace ("vector of art_… has 0.5 dimensions, the store 512"), or a TypeError for
// a NULL one; over MCP the tool error named no store. Now one line naming the store, the unit
// and what to do (exit 1). Real SQLite files, the CLI in process and the bin over raw frames.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runStore } from './test-run.js';
import { ensureBuilt, REPO } from './test-build.js';
import { initialize, INITIALIZED, rawMcp } from './test-mcp.js';

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-damaged-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  for (const [topic, text] of [
    ['whole', '# Native AOT\n\nNative AOT apps cannot load code at run time.\n'],
    ['chunked', `# Trimming\n\n${Array.from({ length: 60 }, (_, i) => `## Part ${i}\n\nTrimming removes unused code from library ${i}, and the trimmer warns about reflection ${i}.\n`).join('\n')}`],
    ['later', '# Later\n\nA document stored after the damage.\n'],
  ]) {
    mkdirSync(join(ws, 'docs', topic!), { recursive: true });
    writeFileSync(join(ws, 'docs', topic!, 'golden-reference.md'), text!);
  }
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const run = (args: string[]) => runStore(ws, args);

const DAMAGE = {
  'a whole document of 2 bytes': { sql: "UPDATE artifacts SET embedding = x'0000' WHERE is_chunked = 0", what: 'is 2 bytes' },
  'a whole document with none': { sql: 'UPDATE artifacts SET embedding = NULL WHERE is_chunked = 0', what: 'is missing' },
  'a chunk of 2052 bytes': { sql: "UPDATE artifact_chunks SET embedding = zeroblob(2052) WHERE chunk_index = 3", what: 'is 2052 bytes' },
} as const;

/** A store of the whole and the chunked document, with `sql` run on it; returns its path and the damaged unit's id. */
async function damagedStore(sql: string): Promise<{ db: string; unit: string }> {
  const db = join(ws, 'store.db');
  expect((await run(['ingest', 'docs/whole', 'docs/chunked', '--db', db])).code).toBe(0);
  const d = new Database(db);
  try {
    const before = new Map((d.prepare("SELECT id, embedding FROM artifacts WHERE is_chunked = 0 UNION ALL SELECT id, embedding FROM artifact_chunks").raw().all() as [string, Buffer | null][]));
    d.exec(sql);
    const after = d.prepare("SELECT id, embedding FROM artifacts WHERE is_chunked = 0 UNION ALL SELECT id, embedding FROM artifact_chunks").raw().all() as [string, Buffer | null][];
    const changed = after.filter(([id, e]) => !(e && before.get(id)?.equals(e)));
    expect(changed).toHaveLength(1);
    return { db, unit: changed[0]![0] };
  } finally {
    d.close();
  }
}

const message = (db: string, unit: string, what: string) =>
  `docs-store: ${db}: the stored vector of ${unit} ${what}, where the store's 512 dimensions take 2048; the store is damaged: rebuild it with "docs-store ingest" into a new --db\n`;

describe.each(Object.entries(DAMAGE))('%s', (_name, { sql, what }) => {
  it('search (routed, --no-routes, vector exact and ivf) and ingest --index ivf say so in one line, exit 1', async () => {
    const { db, unit } = await damagedStore(sql);
    for (const args of [
      ['search', 'trimming reflection', '--db', db],
      ['search', 'trimming reflection', '--no-routes', '--db', db],
      ['search', 'trimming reflection', '--mode', 'vector', '--index', 'exact', '--db', db],
      ['search', 'trimming reflection', '--mode', 'vector', '--index', 'ivf', '--db', db],
      ['ingest', 'docs/later', '--index', 'ivf', '--db', db],
    ]) {
      const r = await run(args);
      expect(r, args.join(' ')).toEqual({ code: 1, stdout: expect.any(String), stderr: message(db, unit, what) });
    }
    // Full-text search reads no vector, and is still served.
    const fts = await run(['search', 'trimming reflection', '--mode', 'fts', '--db', db]);
    expect(fts.code, fts.stderr).toBe(0);
  });
});

it('over MCP (raw stdio frames) search_docs is a tool error naming the store, and the server goes on', async () => {
  const { db, unit } = await damagedStore(DAMAGE['a chunk of 2052 bytes'].sql);
  await ensureBuilt();
  const frames = [
    initialize(0),
    INITIALIZED,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_docs', arguments: { query: 'trimming reflection' } } },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_docs', arguments: { query: 'trimming reflection', mode: 'fts' } } },
  ];
  const r = rawMcp<{ id: number; result: { content: { text: string }[]; isError?: boolean } }>(ws, frames, { args: ['--db', db] });
  expect(r.status, r.stderr).toBe(0);
  const replies = new Map(r.replies.map((m) => [m.id, m.result]));
  expect(replies.get(1)).toEqual({ content: [{ type: 'text', text: message(db, unit, DAMAGE['a chunk of 2052 bytes'].what).replace(/^docs-store: /, '').trimEnd() }], isError: true });
  expect(replies.get(2)?.isError).toBeUndefined();
}, 60_000);
