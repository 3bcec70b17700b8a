// Failure behaviour with real processes: a writer SIGKILLed inside its write transaction,
// and readers running while another process ingests. The children run
// __fixtures__/writer.ts, bundled by esbuild into a folder inside this package (so the bare
// import of better-sqlite3 resolves to the workspace's node_modules), removed afterwards.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { build } from 'esbuild';
import { afterAll, beforeAll, beforeEach, afterEach, expect, it } from 'vitest';
import { DocStore } from './store.js';
import { DOCS, localProvider, makeTempDir, REPO_ROOT } from './test-helpers.js';

const bundleDir = fileURLToPath(new URL(`../bundle.tmp-${process.pid}`, import.meta.url));
const writer = join(bundleDir, 'writer.mjs');
const docs = [DOCS.collections, DOCS.polymorphism, DOCS.nativeAot].map((d) => join(REPO_ROOT, d));

function npmPackages(): string[] {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies?: object; devDependencies?: object };
  return [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})];
}

beforeAll(async () => {
  await build({
    entryPoints: [fileURLToPath(new URL('./__fixtures__/writer.ts', import.meta.url))],
    outfile: writer,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    conditions: ['source'],
    // As tools/build.mjs does for apps: workspace packages bundled from source, npm packages external.
    external: npmPackages().flatMap((n) => [n, `${n}/*`]),
    logLevel: 'warning',
  });
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir();
});
afterEach(() => temp.cleanup());

function start(args: string[]): { child: ChildProcess; messages: AsyncGenerator<{ type: string; [k: string]: unknown }> } {
  const child = fork(writer, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const queue: { type: string }[] = [];
  let wake: (() => void) | null = null;
  let exited = false;
  child.on('message', (m) => {
    queue.push(m as { type: string });
    wake?.();
  });
  child.on('exit', () => {
    exited = true;
    wake?.();
  });
  async function* messages() {
    for (;;) {
      if (queue.length) yield queue.shift()!;
      else if (exited) return;
      else await new Promise<void>((r) => (wake = r));
    }
  }
  return { child, messages: messages() as AsyncGenerator<{ type: string; [k: string]: unknown }> };
}

const exitOf = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });

/** Every artifact's rows agree: num_chunks = chunk rows, and one FTS row per unit. */
function consistency(db: Database.Database) {
  return db.transaction(() => ({
    artifacts: (db.prepare('SELECT count(*) AS n FROM artifacts').get() as { n: number }).n,
    mismatched: db
      .prepare(
        `SELECT a.id FROM artifacts a WHERE a.num_chunks != (SELECT count(*) FROM artifact_chunks c WHERE c.artifact_id = a.id)
           OR (a.is_chunked = 1 AND a.num_chunks != (SELECT count(*) FROM units_fts f WHERE f.artifact_id = a.id))`,
      )
      .all(),
    orphanChunks: (db.prepare('SELECT count(*) AS n FROM artifact_chunks c WHERE NOT EXISTS (SELECT 1 FROM artifacts a WHERE a.id = c.artifact_id)').get() as { n: number }).n,
    ftsRows: (db.prepare('SELECT count(*) AS n FROM units_fts').get() as { n: number }).n,
    units: (db.prepare('SELECT (SELECT count(*) FROM artifact_chunks) + (SELECT count(*) FROM artifacts WHERE is_chunked = 0) AS n').get() as { n: number }).n,
    versions: (db.prepare('SELECT group_concat(num_chunks) AS v FROM (SELECT num_chunks FROM artifacts ORDER BY id)').get() as { v: string | null }).v,
  }))();
}

it('a writer killed inside its write transaction leaves the store as it was', async () => {
  const dbPath = join(temp.dir, 'store.db');
  // A previous, committed state that must survive.
  const store = DocStore.open(dbPath);
  await store.ingest([{ content: 'A document committed before the crash.', sourceSystem: 'file', sourceId: 'before.md' }], localProvider());
  store.close();

  const { child, messages } = start([dbPath, 'hang', ...docs]);
  const first = (await messages.next()).value;
  expect(first).toMatchObject({ type: 'mid' });
  expect((first as { done: number }).done).toBeGreaterThan(0);
  child.kill('SIGKILL');
  expect(await exitOf(child)).toEqual({ code: null, signal: 'SIGKILL' });

  const db = new Database(dbPath);
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  const state = consistency(db);
  expect(state).toMatchObject({ artifacts: 1, mismatched: [], orphanChunks: 0, units: 1, ftsRows: 1 });
  db.close();
  // And the store is fully usable: the same ingest now commits.
  const reopened = DocStore.open(dbPath);
  const outcomes = await reopened.ingest(docs.map((f, i) => ({ content: `doc ${i}`, sourceSystem: 'file', sourceId: f })), localProvider());
  expect(outcomes.every((o) => o.status === 'created')).toBe(true);
  reopened.close();
});

it('writers killed at random moments leave each artifact all there or not there', async () => {
  const dbPath = join(temp.dir, 'store.db');
  for (const delay of [40, 120, 250, 400, 700]) {
    const { child, messages } = start([dbPath, 'churn', '1000', ...docs]);
    // Let it get going (the first round includes opening the store and the tokenizer).
    if (delay > 200) await messages.next();
    await new Promise((r) => setTimeout(r, delay));
    child.kill('SIGKILL');
    await exitOf(child);
    const db = new Database(dbPath);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    if (db.pragma('user_version', { simple: true }) === 0) {
      // Killed before the schema migration committed: no tables at all, which is "none".
      expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get()).toEqual({ n: 0 });
      db.close();
      continue;
    }
    const state = consistency(db);
    expect(state.mismatched).toEqual([]);
    expect(state.orphanChunks).toBe(0);
    expect(state.ftsRows).toBe(state.units);
    expect([0, docs.length]).toContain(state.artifacts);
    db.close();
  }
});

it('readers in another connection see only committed, consistent states while a process ingests (WAL)', async () => {
  const dbPath = join(temp.dir, 'store.db');
  DocStore.open(dbPath).close();
  const { child, messages } = start([dbPath, 'churn', '16', ...docs]);
  const reader = new Database(dbPath, { readonly: true });
  reader.pragma('busy_timeout = 5000');
  const seen = new Set<string>();
  let checks = 0;
  let finished = false;
  void (async () => {
    for await (const m of messages) if (m.type === 'finished') finished = true;
  })();
  while (!finished && child.exitCode === null) {
    const state = consistency(reader);
    expect(state.mismatched).toEqual([]);
    expect(state.orphanChunks).toBe(0);
    expect(state.ftsRows).toBe(state.units);
    if (state.versions) seen.add(state.versions);
    checks++;
    await new Promise((r) => setTimeout(r, 2));
  }
  expect(await exitOf(child)).toEqual({ code: 0, signal: null });
  reader.close();
  // The reader really ran during the writes: it saw both versions of the documents.
  expect(checks).toBeGreaterThan(10);
  expect(seen.size).toBeGreaterThanOrEqual(2);
});
