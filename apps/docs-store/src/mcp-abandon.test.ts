// Requests whose clients left before the answer (issue 15 probe): 250 searches sent and their
// connections closed at once, and the next live search was answered ~10 s later, after every
// abandoned one had run. Now a closed request's queued work is dropped. Real SQLite store,
// the real local embedder (counted, to see how many searches ran), the real HTTP server on
// 127.0.0.1, raw sockets for the clients that leave and fetch for the one that stays; on
// stdio, the real transport over in-memory streams.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createProvider } from '@chunkyard/embeddings';
import { DocStore, type StoreEmbedder } from '@chunkyard/store';
import { serveHttp } from './http.js';
import { StrictStdioServerTransport } from './jsonrpc.js';
import { connectGuarded, createMcpServer } from './mcp.js';
import { REPO } from './test-build.js';

const provider = createProvider({ provider: 'local' }, {});
/** Query embeddings made: one per search that ran. */
let searches = 0;
const embedder: StoreEmbedder = {
  model: provider.model,
  embed: (texts, options) => {
    searches++;
    return provider.embed(texts, options);
  },
};

let dir: string;
let store: DocStore;
let server: Server;
let url: URL;
const logged: string[] = [];
/** Connections the server has seen closed. */
let closedConnections = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chunkyard-http-abandon-'));
  store = DocStore.open(join(dir, 'store.db'));
  for (const topic of ['system-text-json-source-generation', 'system-text-json-polymorphism']) {
    const file = `docs/libraries/${topic}/golden-reference.md`;
    await store.ingest([{ content: readFileSync(join(REPO, file), 'utf8'), sourceSystem: 'file', sourceId: file, sourceFile: file, topic }], provider);
  }
  const served: { server: Server; url: string } = await serveHttp(store, embedder, '0.0.0', { host: '127.0.0.1', port: 0, log: (line) => logged.push(line) });
  server = served.server;
  server.on('connection', (socket) => socket.on('close', () => closedConnections++));
  url = new URL(served.url);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const search = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_docs', arguments: { query: 'source generation options for polymorphic types', limit: 10 } } });

async function post(body: string): Promise<unknown> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body, signal: AbortSignal.timeout(30_000) });
  expect(r.status).toBe(200);
  return r.json();
}

/**
 * `count` clients, each sending `body` on its own connection and closing it as soon as it is
 * written. They run in a child process while this one waits for it, so every request and its
 * close are at the server's door before the server reads any of them: the order of events
 * does not depend on timing.
 */
function abandon(count: number, body: string, sent = body): void {
  const client = `
    const { connect } = require('node:net');
    const [port, host, count, body, sent] = process.argv.slice(1);
    const raw = 'POST /mcp HTTP/1.1\\r\\nHost: ' + host + ':' + port + '\\r\\nContent-Type: application/json\\r\\n' +
      'Accept: application/json, text/event-stream\\r\\nContent-Length: ' + Buffer.byteLength(body) + '\\r\\n\\r\\n' + sent;
    let left = Number(count);
    for (let i = 0; i < Number(count); i++) {
      const s = connect(Number(port), host, () => s.write(raw, () => { s.destroy(); if (--left === 0) process.exit(0); }));
      s.on('error', (e) => { console.error(e.message); process.exit(1); });
    }`;
  execFileSync(process.execPath, ['-e', client, url.port, url.hostname, String(count), body, sent], { timeout: 30_000 });
}

describe('a request whose client has gone', () => {
  it('is not searched for, and a live client after many of them is answered as before', async () => {
    const expected = await post(search(1));
    searches = 0;
    abandon(60, search(2));
    const answer = await post(search(1));
    expect(answer).toEqual(expected);
    // The live search only: the old server ran all 60 abandoned ones before it got to it.
    expect(searches).toBe(1);
    // Nor are they run later.
    await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }));
    expect(searches).toBe(1);
    expect(logged).toEqual([]);
  });

  it('in a batch: none of its searches runs', async () => {
    const batch = (a: number, b: number) => `[${search(a)},${search(b)}]`;
    const expected = await post(batch(1, 2));
    searches = 0;
    abandon(30, batch(3, 4));
    expect(await post(batch(1, 2))).toEqual(expected);
    await post(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' }));
    expect(searches).toBe(2);
    expect(logged).toEqual([]);
  });
});

describe('a client that leaves in the middle of its body', () => {
  it('is not logged as a server failure', async () => {
    const before = closedConnections;
    const body = search(10);
    abandon(5, body, body.slice(0, 20));
    // The abandoned connections closed: the server has read each body up to the hang-up.
    await vi.waitFor(() => expect(closedConnections).toBeGreaterThanOrEqual(before + 5));
    await post(JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'ping' }));
    expect(logged).toEqual([]);
  });
});

describe('on stdio, a search cancelled before its turn', () => {
  it('does not run, gets no reply, and the server goes on', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const replies: { id?: unknown }[] = [];
    let buffered = '';
    stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
        replies.push(JSON.parse(buffered.slice(0, nl)) as { id?: unknown });
        buffered = buffered.slice(nl + 1);
      }
    });
    const mcp = createMcpServer(store, embedder, '0.0.0');
    await connectGuarded(mcp, new StrictStdioServerTransport(stdin, stdout, () => undefined), () => undefined);
    const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } };
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init })}\n`);
    await vi.waitFor(() => expect(replies).toHaveLength(1));
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    searches = 0;
    // Two reads: the cancellation is not in the request's own read, so the SDK acts on it.
    stdin.write(`${search(7)}\n`);
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } })}\n`);
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' })}\n`);
    await vi.waitFor(() => expect(replies.map((r) => r.id)).toContain(8));
    // A search after it is answered, so the cancelled one would have run by now.
    stdin.write(`${search(9)}\n`);
    await vi.waitFor(() => expect(replies.map((r) => r.id)).toContain(9));
    expect(replies.map((r) => r.id)).not.toContain(7);
    expect(searches).toBe(1);
    await mcp.close();
  });
});
