// The MCP server's tool errors when the store cannot be written: a real second process holding
// a write transaction, and a store file this user may only read (the bin run as nobody, since
// root writes any file). Raw frames on the built bin's stdio.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { main } from './main.js';
import { BIN, ensureBuilt, REPO } from './test-build.js';

let ws: string;
beforeEach(async () => {
  await ensureBuilt();
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-mcp-errors-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  cpSync(join(REPO, 'docs/deployment/native-aot/golden-reference.md'), join(ws, 'a.md'));
  const quiet = { stdout: () => {}, stderr: () => {}, cwd: ws, env: { CI: '1' } };
  expect(await main(['ingest', 'a.md', '--db', 'store.db'], quiet)).toBe(0);
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

/** Starts `docs-store mcp` on `db` (optionally as another user), initializes, calls ingest_artifact, and returns its tool result text. */
async function ingestOverMcp(db: string, prefix: string[] = []): Promise<{ isError: boolean; text: string }> {
  const [command, ...args] = [...prefix, process.execPath, BIN, 'mcp', '--db', db];
  const child = spawn(command!, args, { cwd: ws, env: { PATH: process.env.PATH ?? '', CI: '1' } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
  try {
    send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ingest_artifact', arguments: { content: '# New\n\nEchidnas lay eggs.', source_id: 'new.md' } } });
    for (;;) {
      const next = await lines.next();
      if (next.done) throw new Error(`the server closed stdout; stderr: ${stderr}`);
      const r = JSON.parse(next.value) as { id?: number; result?: { content: { text: string }[]; isError?: boolean } };
      if (r.id === 1) return { isError: r.result?.isError === true, text: r.result!.content[0]!.text };
    }
  } finally {
    child.stdin.end();
    child.kill();
  }
}

it('ingest_artifact on a store another process is writing: a tool error naming the store, not "database is locked" (s46 probe)', async () => {
  const db = join(ws, 'store.db');
  // The other process: a real writer holding its transaction until told to stop.
  const holder = spawn(
    process.execPath,
    ['-e', `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))}); const d = new D(process.argv[1]); d.exec('BEGIN IMMEDIATE'); d.prepare("UPDATE store_meta SET value = value").run(); console.log('locked'); process.stdin.on('end', () => { d.exec('ROLLBACK'); d.close(); }); process.stdin.resume();`, db],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  try {
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const r = await ingestOverMcp(db);
    expect(r.isError).toBe(true);
    expect(r.text).toBe(`${db}: the store is locked by another process (database is locked); try again when it finishes`);
  } finally {
    holder.stdin.end();
    await new Promise((resolve) => holder.once('exit', resolve));
  }
  // Nothing was lost: the document stored before is there, and the new one can be stored now.
  const d = new Database(db, { readonly: true });
  expect((d.prepare('SELECT count(*) AS n FROM artifacts').get() as { n: number }).n).toBe(1);
  d.close();
  expect(await ingestOverMcp(db)).toMatchObject({ isError: false });
}, 120_000);

const canSetpriv = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v setpriv']).status === 0;
it.runIf(canSetpriv)('ingest_artifact on a store file this user may only read: a tool error naming the store and its permissions (s46 probe)', async () => {
  const db = join(ws, 'store.db');
  chmodSync(ws, 0o777);
  chmodSync(db, 0o444);
  const r = await ingestOverMcp(db, ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']);
  expect(r.isError).toBe(true);
  expect(r.text).toBe(`${db}: cannot write the store: the file is read-only to this user (EACCES); check its permissions or choose another --db`);
}, 120_000);

/** Starts `docs-store mcp` on `db`, initializes, sends `requests` (ids 1..n) and returns their replies in order. */
async function repliesOverMcp(db: string, requests: { method: string; params?: object }[]): Promise<{ result?: unknown; error?: { code: number; message: string } }[]> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--db', db], { cwd: ws, env: { PATH: process.env.PATH ?? '', CI: '1' } });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
  const replies = new Map<number, { result?: unknown; error?: { code: number; message: string } }>();
  try {
    send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    requests.forEach((r, i) => send({ jsonrpc: '2.0', id: i + 1, ...r }));
    while (replies.size < requests.length) {
      const next = await lines.next();
      if (next.done) throw new Error('the server closed stdout');
      const r = JSON.parse(next.value) as { id?: number; result?: unknown; error?: { code: number; message: string } };
      if (typeof r.id === 'number' && r.id > 0) replies.set(r.id, r);
    }
    return requests.map((_, i) => replies.get(i + 1)!);
  } finally {
    child.stdin.end();
    child.kill();
  }
}

it('resources/list and resources/read on a store whose tables are damaged: -32603 naming the store, not SQLite\'s words alone (s46 probe)', async () => {
  // The tables a newer or broken program left: SQLite fails on the first query that reads them.
  const db = join(ws, 'damaged.db');
  const d = new Database(db);
  d.exec('CREATE TABLE artifacts (x); CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT); PRAGMA user_version = 3');
  d.close();
  const [list, read] = await repliesOverMcp(db, [{ method: 'resources/list' }, { method: 'resources/read', params: { uri: 'chunk://art_00000000/whole' } }]);
  for (const r of [list!, read!]) {
    expect(r.error?.code).toBe(-32603);
    expect(r.error?.message).toMatch(new RegExp(`^${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the store failed: no such (table|column): \\w+ \\(SQLITE_ERROR\\)$`));
  }
}, 120_000);
