// Two ingests of one store at once (a user's CI and a local run): the second waits for the
// first one's write, however long it takes, instead of failing. It waited busy_timeout's 5 s
// and exited 1 with "the store is locked by another process" while 15 copies of a 9 MB
// document were written (a minute; issue 15 probe). The other writer here is a real SQLite
// connection in this process holding the write lock past those 5 s.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, ensureBuilt, REPO } from './test-build.js';

const ws = mkdtempSync(join(tmpdir(), 'docs-store-ingest-wait-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));

function run(args: string[]): { done: Promise<{ status: number | null; stdout: string; stderr: string }>; stderr: () => string; exited: () => boolean } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ws, env: { PATH: process.env.PATH ?? '', CI: '1' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let exited = false;
  const done = new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (status) => {
      exited = true;
      resolve({ status, stdout, stderr });
    }),
  );
  return { done, stderr: () => stderr, exited: () => exited };
}

beforeAll(async () => {
  await ensureBuilt();
  for (const topic of ['native-aot', 'trimming-options']) {
    cpSync(join(REPO, 'docs/deployment', topic), join(ws, 'docs', topic), { recursive: true, filter: (p) => !/_chunks|_keywords|index\.json|topic-spec\.md/.test(p) });
  }
  writeFileSync(join(ws, 'nx.json'), '{}\n');
  const first = await run(['ingest', 'docs/native-aot']).done;
  expect(first.status, first.stderr).toBe(0);
}, 120_000);

it('an ingest waits for another process writing the store, says so once, then writes', async () => {
  const other = new Database(join(ws, '.chunkyard/store.db'));
  other.exec('BEGIN IMMEDIATE');
  let released = false;
  try {
    const ingest = run(['ingest', 'docs/trimming-options']);
    // Past the 5 s busy_timeout, and only once it says it waits (the first wait ends there).
    const started = Date.now();
    while (!ingest.stderr().includes('waiting') && !ingest.exited() && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 200));
    expect(ingest.stderr()).toContain('.chunkyard/store.db: another process is writing the store; waiting for it to finish');
    await new Promise((r) => setTimeout(r, 6_000));
    other.exec('COMMIT');
    released = true;
    const result = await ingest.done;
    expect(result.stderr).not.toContain('locked');
    expect(result.stderr.match(/waiting/g)).toHaveLength(1);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('1 written, 0 unchanged, 0 failed');
  } finally {
    if (!released) other.exec('ROLLBACK');
    other.close();
  }
  const db = new Database(join(ws, '.chunkyard/store.db'), { readonly: true });
  try {
    expect(db.prepare('SELECT topic FROM artifacts ORDER BY topic').all()).toEqual([{ topic: 'docs/native-aot' }, { topic: 'docs/trimming-options' }]);
  } finally {
    db.close();
  }
}, 120_000);
