// The `openai` package parses a body only when its Content-Type says JSON, and otherwise
// resolves to the text. A compatible server sending its JSON as text/plain or with no
// Content-Type was refused with 'the body has no "data" list', and an HTML page in place of the
// API got the same words (issue 15 probe). The real `openai` package against a real server.
import { afterEach, describe, expect, it } from 'vitest';
import { createProvider } from './index.js';
import { failure, startServer, type TestServer } from './test-server.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const provider = (s: TestServer) => createProvider({ provider: 'openai', baseURL: `${s.origin}/v1`, backoffMs: 1, maxRetries: 0 }, { OPENAI_API_KEY: 'sk-test' });

/** An OpenAI embeddings body for `n` inputs, as float arrays (what a server ignoring encoding_format sends). */
const body = (n: number) => JSON.stringify({ object: 'list', data: Array.from({ length: n }, (_, i) => ({ object: 'embedding', index: i, embedding: [i, 1, 0.5] })), model: 'm' });

describe('openai provider: the body as the server labels it (issue 15 probe)', () => {
  it.each([['text/plain; charset=utf-8'], ['text/html'], [null]])('embeddings sent as %s are read', async (type) => {
    server = await startServer((_req, res) => {
      if (type !== null) res.setHeader('content-type', type);
      res.writeHead(200).end(body(2));
    });
    const vectors = await provider(server).embed(['a', 'b']);
    expect(vectors.map((v) => Array.from(v))).toEqual([
      [0, 1, 0.5],
      [1, 1, 0.5],
    ]);
  });

  it('an HTML page in place of the API is "not JSON", quoting its start, not "no data list"', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Please log in</body></html>');
    });
    const err = await failure(provider(server).embed(['a']));
    expect(err.kind).toBe('malformed');
    expect(err.message).toContain('the body is not JSON');
    expect(err.message).toContain('<html>');
    expect(err.message).not.toContain('"data" list');
  });

  it('an empty text body is "not JSON" too', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end();
    });
    const err = await failure(provider(server).embed(['a']));
    expect(err.kind).toBe('malformed');
    expect(err.message).toContain('the body is not JSON');
  });
});
