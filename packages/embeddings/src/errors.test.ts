// What an EmbeddingError quotes of a server (an error page, a body that is not JSON) reaches a
// terminal as the CLIs print the message: its control characters must arrive escaped, as
// LlmError's do (issue 15 probe). Real providers against a real local server.
import { afterEach, describe, expect, it } from 'vitest';
import { createProvider } from './index.js';
import { failure, startServer, type TestServer } from './test-server.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

type Kind = 'ollama' | 'openai';
const provider = (kind: Kind, s: TestServer) =>
  createProvider({ provider: kind, ...(kind === 'ollama' ? { host: s.origin } : { baseURL: `${s.origin}/v1` }), backoffMs: 1, maxRetries: 0 }, { OPENAI_API_KEY: 'sk-test' });

// ESC [2J clears the screen, ESC ]0; retitles the window, U+009B is CSI on some terminals,
// U+202E reverses what follows; a line break would start a line that passes for the tool's own.
const PAGE = 'bad \u001b[2J\u001b]0;pwned\u0007 \u009b31m request \u202eevil\nnext line';
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe.each<Kind>(['ollama', 'openai'])('%s provider against a server whose error page holds control characters (issue 15 probe)', (kind) => {
  it('quotes a JSON error page with them escaped, on one line', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify(kind === 'ollama' ? { error: PAGE } : { error: { message: PAGE } }));
    });
    const err = await failure(provider(kind, server).embed(['a']));
    expect(err.status).toBe(400);
    expect(err.message).toContain('bad \\u001b[2J\\u001b]0;pwned\\u0007 \\u009b31m request \\u202eevil next line');
    expect(err.message).not.toMatch(CONTROLS);
  });

  it('quotes a plain-text error page with them escaped, on one line', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end(`<h1>${PAGE}</h1>`);
    });
    const err = await failure(provider(kind, server).embed(['a']));
    expect(err.status).toBe(502);
    expect(err.message).toContain('\\u001b[2J');
    expect(err.message).not.toMatch(CONTROLS);
  });

  it('escapes them in a 200 body that is not JSON, which the parse error quotes', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`\u001b[2J${PAGE}`);
    });
    const err = await failure(provider(kind, server).embed(['a']));
    expect(err.message).not.toMatch(CONTROLS);
  });
});
