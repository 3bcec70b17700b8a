// A store that holds the tables and no document: what an ingest leaves when its provider fails
// (the store is opened and migrated before anything is embedded), or an MCP server started on
// a new --db. Searching it said `no results for "…"` with exit 0 (and `[]` over MCP, and a
// prompt saying "the docs do not cover it"), as if the docs had been searched and did not
// cover the question; an empty file, by contrast, was already named as an empty database.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '@chunkyard/store';
import { runStore } from './test-run.js';
import { BIN, ensureBuilt, REPO } from './test-build.js';

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-empty-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  mkdirSync(join(ws, 'docs', 't'), { recursive: true });
  writeFileSync(join(ws, 'docs', 't', 'golden-reference.md'), '# Native AOT\n\nNative AOT apps cannot load code at run time.\n');
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const run = (args: string[]) => runStore(ws, args);

/** The store a failed ingest leaves: the real CLI, with ollama on a port nothing listens on. */
async function storeOfFailedIngest(): Promise<string> {
  const db = join(ws, 'store.db');
  writeFileSync(join(ws, 'ollama.yaml'), 'embeddings:\n  provider: ollama\n  model: local-lexical-v1-d512\n  dimensions: 512\n  host: http://127.0.0.1:9\n  maxRetries: 0\n');
  const failed = await run(['ingest', 'docs/t', '--db', db, '--config', 'ollama.yaml']);
  expect(failed.code).toBe(1);
  const d = new Database(db, { readonly: true });
  try {
    expect(d.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect((d.prepare('SELECT count(*) AS n FROM artifacts').get() as { n: number }).n).toBe(0);
  } finally {
    d.close();
  }
  return db;
}

it.each([
  ['hybrid', []],
  ['--no-routes', ['--no-routes']],
  ['fts', ['--mode', 'fts']],
  ['vector', ['--mode', 'vector']],
  ['--json', ['--json']],
])('search (%s) on a store with no document says so, naming the store (exit 1), not "no results"', async (_name, extra) => {
  const db = await storeOfFailedIngest();
  const r = await run(['search', 'native AOT', '--db', db, ...extra]);
  expect(r).toEqual({ code: 1, stdout: '', stderr: `docs-store: ${db}: an empty database, no documents stored in it yet; store some first (docs-store ingest … --db ${db})\n` });
});

it('once a document is stored, the same search finds it', async () => {
  const db = await storeOfFailedIngest();
  expect((await run(['ingest', 'docs/t', '--db', db])).code).toBe(0);
  const r = await run(['search', 'native AOT', '--db', db]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('docs/t/golden-reference.md');
});

type Reply = { id: unknown; result?: { content?: { text: string }[]; isError?: boolean; messages?: unknown }; error?: { code: number; message: string } };

it('docs-store mcp (raw stdio frames): search_docs is a tool error and answer_from_docs -32603 naming the empty store; after ingest_artifact both answer', async () => {
  const db = await storeOfFailedIngest();
  await ensureBuilt();
  const child = spawn(process.execPath, [BIN, 'mcp', '--db', db], { cwd: ws, env: { PATH: process.env.PATH ?? '', CI: '1' } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const replies = new Map<unknown, (r: Reply) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const r = JSON.parse(line) as Reply;
    replies.get(r.id)?.(r);
  });
  const call = (id: number, method: string, params: unknown) =>
    new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply to ${id}; stderr: ${stderr}`)), 20_000);
      replies.set(id, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await call(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const empty = `${db}: an empty database, no documents stored in it yet; store some first (the ingest_artifact tool, or docs-store ingest … --db ${db})`;
    for (const [i, args] of [{ query: 'native AOT' }, { query: 'native AOT', routes: false }, { query: 'native AOT', mode: 'fts' }, { query: 'native AOT', mode: 'vector' }].entries()) {
      const r = await call(1 + i, 'tools/call', { name: 'search_docs', arguments: args });
      expect(r.result, JSON.stringify(args)).toEqual({ content: [{ type: 'text', text: empty }], isError: true });
    }
    const prompt = await call(10, 'prompts/get', { name: 'answer_from_docs', arguments: { question: 'native AOT' } });
    expect(prompt.error).toEqual({ code: -32603, message: empty });

    const ingested = await call(11, 'tools/call', { name: 'ingest_artifact', arguments: { content: '# AOT\n\nNative AOT apps cannot load code at run time.\n' } });
    expect(ingested.result?.isError).toBeUndefined();
    const found = await call(12, 'tools/call', { name: 'search_docs', arguments: { query: 'native AOT' } });
    expect(found.result?.isError).toBeUndefined();
    expect(JSON.parse(found.result!.content![0]!.text)).toHaveLength(1);
    expect((await call(13, 'prompts/get', { name: 'answer_from_docs', arguments: { question: 'native AOT' } })).result?.messages).toBeDefined();
  } finally {
    child.stdin.end();
  }
  expect(await exited).toBe(0);
}, 60_000);
