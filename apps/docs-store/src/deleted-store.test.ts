// A store deleted while a process has it open (`rm .chunkyard/store.db` to rebuild it while an
// agent's `docs-store mcp` runs): the running server keeps the old file, and its -wal and -shm
// stay under the store's name. A new ingest or search on that path then failed with "disk I/O
// error; check that the folder exists and is writable" (or "check its permissions"), which no
// folder fix mends; and SQLite reads a -wal it finds as this store's own, so the old store's
// pages could be mixed into the new one. The -wal outlives the server (SQLite does not
// checkpoint into a deleted file). A store file that is missing or empty beside a non-empty
// -wal is never SQLite's own state (WAL mode writes the file's header before any -wal exists),
// so it is refused before anything is opened, saying why and what to do.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BIN, ensureBuilt, REPO } from './test-build.js';

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-deleted-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  mkdirSync(join(ws, 'docs', 't'), { recursive: true });
  writeFileSync(join(ws, 'docs', 't', 'golden-reference.md'), '# Native AOT\n\nNative AOT apps cannot load code at run time.\n');
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const bin = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: ws, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '', CI: '1' } });

interface Reply {
  id: number;
  result?: { isError?: boolean; content?: { text: string }[] };
  error?: { code: number; message: string };
}

/** `docs-store mcp --db db`, spoken to in raw JSON-RPC lines over stdio, one reply per call. */
function startMcp(db: string) {
  const server = spawn(process.execPath, [BIN, 'mcp', '--db', db], { cwd: ws, env: { PATH: process.env.PATH ?? '', CI: '1' } });
  const lines = createInterface({ input: server.stdout })[Symbol.asyncIterator]();
  const call = async (id: number, method: string, params: unknown): Promise<Reply> => {
    server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    const { value } = await lines.next();
    return JSON.parse(value as string) as Reply;
  };
  const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
  return { server, call, exited };
}

it('ingest, search and stats on a store deleted under a running docs-store mcp say so, before and after the server stops; with the -wal and -shm removed, ingest builds the store anew', async () => {
  await ensureBuilt();
  const db = join(ws, 'store.db');
  const { server, call, exited } = startMcp(db);
  try {
    await call(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } });
    for (let i = 1; i <= 3; i++) {
      const r = await call(i, 'tools/call', { name: 'ingest_artifact', arguments: { content: `# Doc ${i}\n\n${'Wombats dig burrows. '.repeat(40)}`, source_id: `d${i}.md` } });
      expect(r.result?.isError).toBeUndefined();
    }
    expect(statSync(`${db}-wal`).size).toBeGreaterThan(0);
    unlinkSync(db);
    const wal = statSync(`${db}-wal`).size;
    const expected = `docs-store: ${db}: no store file, but ${db}-wal beside it holds ${wal} bytes of a store's changes: the store was deleted while a process still had it open (a docs-store mcp?), and SQLite would read that store's pages as this one's; stop that process, then remove store.db-wal and store.db-shm (SQLite leaves them behind for a deleted store)\n`;
    for (const args of [['ingest', 'docs/t', '--db', db], ['search', 'native', '--mode', 'fts', '--db', db], ['stats', '--db', db]]) {
      const r = bin(args);
      expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }, args[0]).toEqual({ status: 1, stdout: '', stderr: expected });
    }
    // Nothing was made under the store's name.
    expect(existsSync(db)).toBe(false);
  } finally {
    server.stdin.end();
  }
  expect(await exited).toBe(0);
  // SQLite does not checkpoint into a deleted file, so the -wal outlives the server: still refused.
  const after = bin(['ingest', 'docs/t', '--db', db]);
  expect(after.status).toBe(1);
  expect(after.stderr).toContain('the store was deleted while a process still had it open');
  expect(existsSync(db)).toBe(false);
  // Removed as the message says, the store is built anew.
  for (const suffix of ['-wal', '-shm']) rmSync(`${db}${suffix}`, { force: true });
  expect(bin(['ingest', 'docs/t', '--db', db]).status).toBe(0);
  expect(bin(['search', 'native', '--mode', 'fts', '--db', db]).stdout).toContain('docs/t/golden-reference.md');
}, 90_000);

it('an empty store file beside a -wal is refused the same way', () => {
  const db = join(ws, 'store.db');
  writeFileSync(db, '');
  writeFileSync(`${db}-wal`, Buffer.alloc(8272, 1));
  const r = bin(['search', 'native', '--mode', 'fts', '--db', db]);
  expect(r.stderr).toBe(
    `docs-store: ${db}: an empty store file, but ${db}-wal beside it holds 8272 bytes of a store's changes: the store was deleted while a process still had it open (a docs-store mcp?), and SQLite would read that store's pages as this one's; stop that process, then remove store.db-wal and store.db-shm (SQLite leaves them behind for a deleted store)\n`,
  );
  expect(r.status).toBe(1);
});

it('a running docs-store mcp whose store is deleted or replaced answers every tool, resource and prompt with an error naming it, instead of serving the old file and storing into it', async () => {
  await ensureBuilt();
  const db = join(ws, 'store.db');
  const { server, call, exited } = startMcp(db);
  const ingest = (id: number) => call(id, 'tools/call', { name: 'ingest_artifact', arguments: { content: `# Doc ${id}\n\nWombats dig burrows.\n`, source_id: `d${id}.md` } });
  try {
    await call(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } });
    expect((await ingest(1)).result?.isError).toBeUndefined();
    expect((await call(2, 'tools/call', { name: 'search_docs', arguments: { query: 'wombats', mode: 'fts' } })).result?.content?.[0]?.text).toContain('Doc 1');

    // Replaced: another store moved to the path (a rebuild written beside it, then renamed over it).
    const rebuilt = join(ws, 'rebuilt.db');
    expect(bin(['ingest', 'docs/t', '--db', rebuilt]).status).toBe(0);
    renameSync(rebuilt, db);
    const replaced = `${db}: the store file was replaced by another file after this process opened it, so what it serves or stores would go to the old one; restart docs-store mcp to open the store now at that path`;
    const search = await call(3, 'tools/call', { name: 'search_docs', arguments: { query: 'wombats', mode: 'fts' } });
    expect(search.result).toEqual({ content: [{ type: 'text', text: replaced }], isError: true });

    // Deleted: every kind of request says so, and nothing is written anywhere.
    unlinkSync(db);
    const deleted = replaced.replace('replaced by another file', 'deleted');
    expect((await ingest(4)).result).toEqual({ content: [{ type: 'text', text: deleted }], isError: true });
    expect((await call(5, 'tools/call', { name: 'store_stats', arguments: {} })).result).toEqual({ content: [{ type: 'text', text: deleted }], isError: true });
    const resource = await call(6, 'resources/read', { uri: 'chunk://nothing/whole' });
    expect(resource.error?.message).toBe(deleted);
    const prompt = await call(7, 'prompts/get', { name: 'answer_from_docs', arguments: { question: 'wombats?' } });
    expect(prompt.error?.message).toBe(deleted);
    expect(existsSync(db)).toBe(false);
  } finally {
    server.stdin.end();
  }
  expect(await exited).toBe(0);
});
