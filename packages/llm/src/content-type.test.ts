// The `openai` package parses a body only when its Content-Type says JSON, and otherwise
// resolves to the text. A compatible server sending its JSON as text/plain or with no
// Content-Type was refused with "no message content", and so was an HTML page in place of the
// API (issue 15 probe). The real `openai` package against a real server.
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../embeddings/src/test-server.js';
import { createChatClient, LlmError } from './index.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const client = (s: TestServer) => createChatClient({ provider: 'openai', baseURL: `${s.origin}/v1`, backoffMs: 1, maxRetries: 0 }, { OPENAI_API_KEY: 'sk-test' });
const reply = JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hello there' }, finish_reason: 'stop' }] });

describe('openai chat: the body as the server labels it (issue 15 probe)', () => {
  it.each([['text/plain; charset=utf-8'], ['text/html'], [null]])('a reply sent as %s is read', async (type) => {
    server = await startServer((_req, res) => {
      if (type !== null) res.setHeader('content-type', type);
      res.writeHead(200).end(reply);
    });
    expect(await client(server).chat([{ role: 'user', content: 'hi' }])).toBe('hello there');
  });

  it('an HTML page in place of the API is "not JSON", quoting its start, not "no message content"', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Please log in</body></html>');
    });
    const err = await client(server)
      .chat([{ role: 'user', content: 'hi' }])
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).message).toContain('malformed response: the body is not JSON');
    expect((err as LlmError).message).toContain('<html>');
  });
});
