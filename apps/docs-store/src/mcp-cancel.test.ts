// A cancellation inside the same batch (HTTP) or the same read (stdio) as the request it names
// (s47 probe): the SDK acted on it a microtask later and aborted the request whichever came
// first, so no reply ever came; the HTTP POST hung and the stdio server, its input ended,
// waited for that reply and exited 13 (an unsettled top-level await). Real SQLite store, real
// HTTP server on 127.0.0.1.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocStore, type StoreEmbedder } from '@chunkyard/store';
import { serveHttp } from './http.js';

/** No tool here embeds anything; one that did would say so. */
const embedder: StoreEmbedder = {
  model: 'none',
  embed: () => Promise.reject(new Error('not used')),
};

let dir: string;
let store: DocStore;
let server: Server;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chunkyard-mcp-cancel-'));
  store = DocStore.open(join(dir, 'store.db'));
  ({ server, url } = await serveHttp(store, embedder, '0.0.0', { host: '127.0.0.1', port: 0, log: () => {} }));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });
const cancel = (requestId: number | string) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'no longer needed' } });
const stats = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'store_stats', arguments: {} } });

/** POSTs a batch; gives up after 10 s, as a client would, where the old code never answered. */
async function post(body: unknown): Promise<{ status: number; json: unknown }> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await r.text();
  return { status: r.status, json: text === '' ? null : JSON.parse(text) };
}

describe('a cancellation in an HTTP batch', () => {
  it('leaves out the request it cancels, and the others are answered', async () => {
    const r = await post([stats(1), ping(2), cancel(1)]);
    expect(r.status).toBe(200);
    expect(r.json).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });

  it('of every request: nothing to answer (202)', async () => {
    const r = await post([ping(3), cancel(3)]);
    expect(r.status).toBe(202);
    expect(r.json).toBeNull();
  });

  it('before the request it names is ignored: that request runs (1 and "1" are different ids)', async () => {
    const r = await post([cancel(4), ping(4), ping('5'), cancel(5)]);
    expect(r.status).toBe(200);
    expect(r.json).toEqual([
      { jsonrpc: '2.0', id: 4, result: {} },
      { jsonrpc: '2.0', id: '5', result: {} },
    ]);
  });

  it('beside an invalid member: the invalid member\'s error is still answered', async () => {
    const r = await post([ping(6), cancel(6), { jsonrpc: '2.0', id: 7 }]);
    expect(r.status).toBe(200);
    expect(r.json).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Invalid Request: no "method" (nor "result" or "error")' } }]);
  });
});
