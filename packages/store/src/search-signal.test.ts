// A search whose caller gave up (docs-store's MCP server, when a client leaves): the signal
// stops it before the query is embedded, cancels a remote provider's request in flight, and
// the search rejects with the signal's reason instead of searching. A real store, and a real
// ollama provider talking to a real HTTP server on 127.0.0.1 that holds every request.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider, localModelId, type EmbeddingProvider } from '@chunkyard/embeddings';
import { DocStore } from './store.js';
import { DOCS, localProvider, makeTempDir, readDoc } from './test-helpers.js';

let tmp: ReturnType<typeof makeTempDir>;
let store: DocStore;
let held: Server;
let remote: EmbeddingProvider;
/** Requests the held server received, and the ones whose client closed them. */
const received: IncomingMessage[] = [];
let closed = 0;
let onRequest: () => void = () => undefined;
let onClosed: () => void = () => undefined;

beforeAll(async () => {
  tmp = makeTempDir();
  store = DocStore.open(`${tmp.dir}/store.db`);
  await store.ingest([{ content: readDoc(DOCS.polymorphism), sourceSystem: 'file', sourceId: DOCS.polymorphism }], localProvider());
  held = createServer((req, res) => {
    received.push(req);
    res.on('close', () => {
      closed++;
      onClosed();
    });
    onRequest();
  });
  await new Promise<void>((r) => held.listen(0, '127.0.0.1', r));
  // The local model's name, so the store takes its vectors' shape up to the embed call.
  remote = createProvider({ provider: 'ollama', host: `http://127.0.0.1:${(held.address() as AddressInfo).port}`, maxRetries: 0, timeoutMs: 120_000, model: localModelId() });
});

afterAll(async () => {
  held.closeAllConnections();
  await new Promise((r) => held.close(r));
  store.close();
  tmp.cleanup();
});

describe('search with a signal', () => {
  it('aborted before: rejects with its reason and asks the provider nothing', async () => {
    const reason = new Error('the client left');
    await expect(store.search('polymorphic type discriminator', { embedder: remote, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(received).toHaveLength(0);
  });

  it('aborted while the query is embedded: the provider request is cancelled and the search rejects', async () => {
    const controller = new AbortController();
    const arrived = new Promise<void>((r) => (onRequest = r));
    const ended = new Promise<void>((r) => (onClosed = r));
    const search = store.search('polymorphic type discriminator', { embedder: remote, signal: controller.signal });
    await arrived;
    const reason = new Error('the client left');
    controller.abort(reason);
    await expect(search).rejects.toBe(reason);
    await ended;
    expect(closed).toBe(1);
  });

  it('never aborted: the same hits as without one', async () => {
    const embedder = localProvider();
    const plain = await store.search('polymorphic type discriminator', { embedder });
    expect(await store.search('polymorphic type discriminator', { embedder, signal: new AbortController().signal })).toEqual(plain);
    expect(plain.length).toBeGreaterThan(0);
  });
});
