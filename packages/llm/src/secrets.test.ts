// A server may echo the request's Authorization header in its error page or in a 2xx body's
// error; LlmError quotes what the server wrote, and docs-score and chunking-tool print it. The
// API key and the Basic-auth password must never arrive there (issue 15 probe: "Incorrect API
// key provided: Bearer sk-…" came back whole). The real client packages, a real local server.
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../embeddings/src/test-server.js';
import { createChatClient, LlmError } from './index.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const KEY = 'sk-proj-SECRET0123456789abcdef';
const PASSWORD = 'hunter2-long-password';
const TOKEN = Buffer.from(`me:${PASSWORD}`).toString('base64');

type Kind = 'ollama' | 'openai';
const client = (kind: Kind, s: TestServer) =>
  createChatClient(
    kind === 'ollama' ? { provider: kind, host: s.origin.replace('//', `//me:${PASSWORD}@`), backoffMs: 1, maxRetries: 0 } : { provider: kind, baseURL: `${s.origin}/v1`, backoffMs: 1, maxRetries: 0 },
    { OPENAI_API_KEY: KEY },
  );
const echoed = (kind: Kind, auth: string | undefined) => `Incorrect API key provided: ${auth}; you sent ${kind === 'ollama' ? PASSWORD : KEY}`;

async function failure(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(LlmError);
    return err as LlmError;
  }
  throw new Error('expected an LlmError');
}

function expectNoSecret(message: string): void {
  expect(message).not.toContain(KEY);
  expect(message).not.toContain(PASSWORD);
  expect(message).not.toContain(TOKEN);
  expect(message).toContain('[redacted]');
}

describe.each<Kind>(['ollama', 'openai'])('%s chat against a server that echoes the credentials it was sent (issue 15 probe)', (kind) => {
  it('a 401 quoting the Authorization header: the message keeps the status and the words, not the key', async () => {
    server = await startServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      const text = echoed(kind, req.headers.authorization);
      res.end(JSON.stringify(kind === 'ollama' ? { error: text } : { error: { message: text } }));
    });
    const err = await failure(client(kind, server).chat([{ role: 'user', content: 'hi' }]));
    expect(server.requests[0]!.headers.authorization).toBe(kind === 'ollama' ? `Basic ${TOKEN}` : `Bearer ${KEY}`);
    expect(err.status).toBe(401);
    expect(err.message).toContain('HTTP 401: Incorrect API key provided:');
    expectNoSecret(err.message);
  });

  it('a plain-text error page', async () => {
    server = await startServer((req, res) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(echoed(kind, req.headers.authorization));
    });
    const err = await failure(client(kind, server).chat([{ role: 'user', content: 'hi' }]));
    expect(err.status).toBe(502);
    expectNoSecret(err.message);
  });

  it('a 200 whose body carries an error instead of a reply', async () => {
    server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: echoed(kind, req.headers.authorization) }));
    });
    const err = await failure(client(kind, server).chat([{ role: 'user', content: 'hi' }]));
    expect(err.message).toContain('malformed response');
    expectNoSecret(err.message);
  });
});
