// A cancellation inside the same batch (HTTP) or the same read (stdio) as the request it names
// (s47 probe): the SDK acted on it a microtask later and aborted the request whichever came
// first, so no reply ever came; the HTTP POST hung, and the stdio server, its input ended,
// waited for that reply and exited 13 (an unsettled top-level await). Real SQLite store, real
// HTTP server on 127.0.0.1, the real stdio transport over in-memory streams.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DocStore, type StoreEmbedder } from '@chunkyard/store';
import { serveHttp } from './http.js';
import { StrictStdioServerTransport } from './jsonrpc.js';
import { connectGuarded, createMcpServer } from './mcp.js';

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

describe('a cancellation on stdio', () => {
  /** A stdio server over in-memory streams: its replies, and whether it closed. */
  async function stdio() {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const logged: string[] = [];
    const replies: unknown[] = [];
    let buffered = '';
    stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
        replies.push(JSON.parse(buffered.slice(0, nl)));
        buffered = buffered.slice(nl + 1);
      }
    });
    const mcp = createMcpServer(store, embedder, '0.0.0');
    const closed = new Promise<'closed'>((resolve) => {
      mcp.server.onclose = () => resolve('closed');
    });
    await connectGuarded(mcp, new StrictStdioServerTransport(stdin, stdout, (l) => logged.push(l)), (l) => logged.push(l));
    const init = { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } };
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init })}\n`);
    await vi.waitFor(() => expect(replies).toHaveLength(1));
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    /** Ends input; resolves 'closed' once the server closed, 'open' if it has not within 10 s. */
    const end = (): Promise<'closed' | 'open'> => {
      stdin.end();
      return Promise.race([closed, new Promise<'open'>((r) => setTimeout(() => r('open'), 10_000).unref())]);
    };
    return { stdin, replies, logged, end };
  }

  it('read just before the request it names is ignored: the request is answered and the server closes when input ends', async () => {
    const s = await stdio();
    // One write, so both lines come in one chunk, as from a client that pipes a script.
    s.stdin.write(`${JSON.stringify(cancel(3))}\n${JSON.stringify(ping(3))}\n`);
    expect(await s.end()).toBe('closed');
    expect(s.replies.slice(1)).toEqual([{ jsonrpc: '2.0', id: 3, result: {} }]);
    expect(s.logged.join('\n')).toContain('ignored a cancellation of request 3');
  });

  it('ahead of its request in a batch likewise; one after its request still cancels it', async () => {
    const s = await stdio();
    s.stdin.write(`${JSON.stringify([cancel(4), ping(4), ping('5'), cancel('5')])}\n`);
    expect(await s.end()).toBe('closed');
    expect(s.replies.slice(1)).toEqual([[{ jsonrpc: '2.0', id: 4, result: {} }]]);
  });
});
