// The chat clients, driving the real `openai` and `ollama` packages against a local HTTP server
// that speaks each service's documented chat API.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort, rawServe, sendJson, startServer } from '../../embeddings/src/test-server.js';
import { startChatServer, userText, type ChatBody, type TestServer } from './chat-server.js';
import { withoutReasoning } from './client.js';
import { createChatClient, LlmError, type LlmSettings } from './index.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const settingsFor = (provider: 'ollama' | 'openai', origin: string, extra: Partial<LlmSettings> = {}): LlmSettings =>
  provider === 'ollama' ? { provider, host: origin, backoffMs: 1, ...extra } : { provider, baseURL: `${origin}/v1`, backoffMs: 1, ...extra };
const env = { OPENAI_API_KEY: 'sk-test' };

async function failure(p: Promise<unknown>): Promise<LlmError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(LlmError);
    return err as LlmError;
  }
  throw new Error('expected an LlmError');
}

describe.each(['ollama', 'openai'] as const)('%s chat', (provider) => {
  it('sends the model, the messages and temperature 0.2 by default, and returns the reply', async () => {
    server = await startChatServer((body) => `echo: ${userText(body)}`);
    const client = createChatClient(settingsFor(provider, server.origin, { model: 'test-model' }), env);
    expect(client.temperature).toBe(0.2);
    const reply = await client.chat([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hello' },
    ]);
    expect(reply).toBe('echo: hello');
    expect(server.requests).toHaveLength(1);
    const body = server.requests[0]!.body as ChatBody;
    expect(body.model).toBe('test-model');
    expect(body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hello' },
    ]);
    expect(provider === 'ollama' ? body.options?.temperature : body.temperature).toBe(0.2);
    if (provider === 'ollama') expect(body.stream).toBe(false);
    if (provider === 'openai') expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test');
  });

  it('retries a 503 and then answers', async () => {
    server = await startChatServer(() => (server!.requests.length === 1 ? { text: 'busy', status: 503 } : 'ok'));
    const reply = await createChatClient(settingsFor(provider, server.origin), env).chat([{ role: 'user', content: 'q' }]);
    expect(reply).toBe('ok');
    expect(server.requests).toHaveLength(2);
  });

  it('names the provider, the URL and the fix for a missing model (404, not retried)', async () => {
    server = await startChatServer(() => ({ text: 'model "nope" not found', status: 404 }));
    const err = await failure(createChatClient(settingsFor(provider, server.origin, { model: 'nope' }), env).chat([{ role: 'user', content: 'q' }]));
    expect(server.requests).toHaveLength(1);
    expect(err.status).toBe(404);
    expect(err.message).toContain(`${provider} chat (${server.origin}`);
    expect(err.message).toContain('HTTP 404');
    expect(err.message).not.toContain('\n');
    expect(err.fix).toMatch(provider === 'ollama' ? /ollama pull nope/ : /llm\.model \(nope\)/);
  });

  it('says the server is unreachable, with the fix', async () => {
    const origin = `http://127.0.0.1:${await closedPort()}`;
    const err = await failure(createChatClient(settingsFor(provider, origin, { maxRetries: 0 }), env).chat([{ role: 'user', content: 'q' }]));
    expect(err.message).toMatch(/cannot reach the server/);
    expect(err.fix).toMatch(provider === 'ollama' ? /ollama serve/ : /OPENAI_BASE_URL/);
  });

  it('times out a server that never answers', async () => {
    server = await startChatServer(() => ({ text: 'late', delayMs: 5_000 }));
    const err = await failure(createChatClient(settingsFor(provider, server.origin, { timeoutMs: 100, maxRetries: 0 }), env).chat([{ role: 'user', content: 'q' }]));
    expect(err.message).toMatch(/no response within 100 ms/);
  });
});

describe.each(['ollama', 'openai'] as const)('%s chat against a server that sends too much', (provider) => {
  /** A raw server: one response of `bytes` bytes of padding, with `status`. */
  function flood(status: number, bytes: number): Promise<TestServer> {
    return startServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      const pad = Buffer.alloc(1 << 20, 0x20);
      let sent = 0;
      const pump = (): void => {
        while (sent < bytes) {
          sent += pad.length;
          if (!res.write(pad)) return void res.once('drain', pump);
        }
        res.end('{}');
      };
      pump();
    });
  }

  it('stops reading a reply larger than any answer, and says so instead of "cannot reach the server"', async () => {
    server = await flood(200, 24 << 20);
    const err = await failure(createChatClient(settingsFor(provider, server.origin, { maxRetries: 0 }), env).chat([{ role: 'user', content: 'q' }]));
    expect(err.message).toMatch(/malformed response: the body is larger than \d+ MiB/);
    expect(err.fix).toMatch(provider === 'ollama' ? /POST \/api\/chat/ : /chat\/completions/);
  });

  it('refuses a reply of endless nested lists once it holds more than any reply, not only at 8 MiB', async () => {
    // Within the byte limit, 8 MiB of `[` parsed into about 480 MB of arrays.
    const pad = Buffer.from('['.repeat(1 << 16));
    let stop = false;
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"message":');
      const pump = (): void => {
        while (!stop) if (!res.write(pad)) return void res.once('drain', pump);
      };
      res.on('close', () => (stop = true));
      pump();
    });
    const err = await failure(createChatClient(settingsFor(provider, server.origin, { maxRetries: 0 }), env).chat([{ role: 'user', content: 'q' }]));
    stop = true;
    expect(err.message).toContain(': malformed response: the body holds more than 65536 nested lists or objects, more than a chat reply needs. ');
  });

  it('keeps the status of an error page larger than an error message, and only 300 characters of it', async () => {
    server = await flood(500, 3 << 20);
    const err = await failure(createChatClient(settingsFor(provider, server.origin, { maxRetries: 0 }), env).chat([{ role: 'user', content: 'q' }]));
    expect(err.status).toBe(500);
    expect(err.message.length).toBeLessThan(600);
  });
});

describe.each(['ollama', 'openai'] as const)('%s chat against a server whose error page holds control characters (issue 15 probe)', (provider) => {
  it('quotes them as escapes, so the page cannot drive the terminal showing the message', async () => {
    // ESC [2J clears the screen, ESC ]0; retitles the window, U+009B is CSI on some terminals,
    // U+202E reverses what follows: the message repeated them raw.
    const page = 'bad \u001b[2J\u001b]0;pwned\u0007 \u009b31m request \u202eevil';
    server = await startServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify(provider === 'ollama' ? { error: page } : { error: { message: page } }));
    });
    const err = await failure(createChatClient(settingsFor(provider, server.origin, { maxRetries: 0 }), env).chat([{ role: 'user', content: 'q' }]));
    expect(err.status).toBe(400);
    expect(err.message).toContain('bad \\u001b[2J\\u001b]0;pwned\\u0007 \\u009b31m request \\u202eevil');
    expect(err.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });
});

describe.each(['ollama', 'openai'] as const)('%s chat against a server that redirects to itself (issue 15 probe)', (provider) => {
  it('says the redirects never end, not only that the server cannot be reached', async () => {
    // fetch gave up after 20 redirects with "cannot reach the server" (ollama) or
    // "Connection error.." (openai), hiding why.
    server = await startServer((req, res) => {
      res.writeHead(307, { location: req.path });
      res.end();
    });
    const err = await failure(createChatClient(settingsFor(provider, server.origin, { maxRetries: 0 }), env).chat([{ role: 'user', content: 'q' }]));
    expect(err.message).toContain(': HTTP 307: more than 20 redirects, the last from ');
    expect(server.requests).toHaveLength(21);
  });
});

describe.each(['ollama', 'openai'] as const)('%s chat against a server that redirects to another origin', (provider) => {
  const path = provider === 'ollama' ? '/api/chat' : '/v1/chat/completions';
  const others: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(others.splice(0).map((s) => s.close()));
  });

  it.each([307, 308])('refuses a %i, sending that server nothing, and names both addresses', async (status) => {
    // fetch's 'follow' resent the request, the document's text in the messages, to the other
    // host (dropping only the Authorization header there).
    const elsewhere = await startChatServer(() => 'stolen');
    others.push(elsewhere);
    server = await startServer((req, res) => void res.writeHead(status, { location: `${elsewhere.origin}${req.path}` }).end());
    const err = await failure(createChatClient(settingsFor(provider, server.origin), env).chat([{ role: 'user', content: 'confidential page text' }]));
    expect(elsewhere.requests).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
    expect(err.status).toBe(status);
    expect(err.message).toContain(`${provider} chat (${server.origin}${path}): HTTP ${status}: a redirect from ${server.origin}${path} to ${elsewhere.origin}${path}, another origin: not followed`);
    expect(err.fix).toMatch(provider === 'ollama' ? /set OLLAMA_HOST \(or llm\.host\) to its address/ : /set OPENAI_BASE_URL \(or llm\.baseURL\) to its address/);
  });

  it('follows one within the origin, with the same request', async () => {
    const chat = await startChatServer((body) => `echo: ${userText(body)}`);
    others.push(chat);
    // A proxy in front: its own path redirects to the chat server's, on the proxy's origin.
    server = await startServer((req, res) => {
      if (req.path.startsWith('/moved')) {
        return void fetch(`${chat.origin}${req.path.slice('/moved'.length)}`, { method: 'POST', body: JSON.stringify(req.body), headers: { 'content-type': 'application/json' } })
          .then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text()));
      }
      res.writeHead(308, { location: `/moved${req.path}` }).end();
    });
    expect(await createChatClient(settingsFor(provider, server.origin), env).chat([{ role: 'user', content: 'hi' }])).toBe('echo: hi');
    expect(server.requests.map((r) => r.path)).toEqual([path, `/moved${path}`]);
    if (provider === 'openai') expect(server.requests[1]!.headers.authorization).toBe('Bearer sk-test');
  });
});

describe('addresses and keys from the environment that cannot work (issue 15 probe)', () => {
  const chat = async (settings: LlmSettings, e: Record<string, string>) => failure(Promise.resolve().then(() => createChatClient({ maxRetries: 0, ...settings }, e).chat([{ role: 'user', content: 'q' }])));

  it('refuses a non-http(s) OLLAMA_HOST or OPENAI_BASE_URL, naming it', async () => {
    expect((await chat({ provider: 'ollama' }, { OLLAMA_HOST: 'ftp://x' })).message).toMatch(/^ollama chat: OLLAMA_HOST must be an http\(s\) address/);
    expect((await chat({ provider: 'openai' }, { OPENAI_BASE_URL: 'file:///etc/', OPENAI_API_KEY: 'k' })).message).toMatch(/^openai chat: OPENAI_BASE_URL must be an http\(s\) URL/);
  });

  it('never repeats a password in OPENAI_BASE_URL', async () => {
    const err = await chat({ provider: 'openai' }, { OPENAI_BASE_URL: 'http://user:hunter2@127.0.0.1:1/v1', OPENAI_API_KEY: 'k' });
    expect(err.message).toMatch(/OPENAI_BASE_URL holds a user name or password/);
    expect(err.message).not.toContain('hunter2');
  });

  it('names llm.baseURL when the password came from the settings (one check, shared with packages/embeddings)', async () => {
    const err = await chat({ provider: 'openai', baseURL: 'http://user:hunter2@127.0.0.1:1/v1' }, { OPENAI_API_KEY: 'k' });
    expect(err.url).toBeNull();
    expect(err.message).toMatch(/^openai chat: llm\.baseURL holds a user name or password, which the request cannot carry/);
    expect(err.message).toContain('Remove them from llm.baseURL');
    expect(err.message).not.toContain('hunter2');
  });

  it.each([['a line break', 'sk-abc\nX-Evil: 1'], ['a non-ASCII character', 'sk-ключ']])('refuses an OPENAI_API_KEY holding %s without repeating it', async (_what, key) => {
    const err = await chat({ provider: 'openai', baseURL: 'http://127.0.0.1:1/v1' }, { OPENAI_API_KEY: key });
    expect(err.message).toMatch(/OPENAI_API_KEY holds characters an HTTP header cannot carry/);
    expect(err.message).not.toContain(key.slice(3));
  });
});

describe('ollama chat behind basic auth', () => {
  // OLLAMA_HOST may carry user:password@ (a proxy in front of Ollama). fetch refuses URLs with
  // credentials, so they must travel as an Authorization header, as the embeddings client does.
  it.each([
    ['llm.host', (origin: string) => ({ settings: { host: origin.replace('://', '://ann:s%3Acret@') }, env: {} })],
    ['OLLAMA_HOST', (origin: string) => ({ settings: {}, env: { OLLAMA_HOST: origin.replace('://', '://ann:s%3Acret@') } })],
  ] as const)('sends the credentials from %s as a Basic header, not in the URL', async (_from, make) => {
    server = await startChatServer(() => 'ok');
    const { settings, env: e } = make(server.origin);
    const client = createChatClient({ provider: 'ollama', backoffMs: 1, ...settings }, e);
    expect(await client.chat([{ role: 'user', content: 'q' }])).toBe('ok');
    expect(server.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('ann:s:cret').toString('base64')}`);
    expect(client.url).not.toContain('s%3Acret');
  });
});

describe('openai chat without a key', () => {
  it('fails before sending anything', async () => {
    server = await startChatServer(() => 'never');
    const err = await failure(createChatClient(settingsFor('openai', server.origin), {}).chat([{ role: 'user', content: 'q' }]));
    expect(err.message).toMatch(/OPENAI_API_KEY is not set/);
    expect(server.requests).toHaveLength(0);
  });
});

describe.each(['ollama', 'openai'] as const)('%s chat aborted while waiting to retry', (provider) => {
  it('stops at once with the abort reason, not after the backoff wait', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '30' });
      res.end(provider === 'ollama' ? '{"error":"busy"}' : '{"error":{"message":"busy"}}');
    });
    const ctrl = new AbortController();
    const reason = new Error('stopped by the user');
    const client = createChatClient(settingsFor(provider, server.origin, { backoffMs: 20_000, maxRetries: 1 }), env);
    const call = client.chat([{ role: 'user', content: 'q' }], { signal: ctrl.signal });
    // Abort once the first 503 is in and the client is waiting to retry.
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100));
    const start = Date.now();
    ctrl.abort(reason);
    const settled = await Promise.race([
      call.then(
        () => 'resolved',
        (err: unknown) => err,
      ),
      new Promise((r) => setTimeout(() => r('still waiting after 2 s'), 2_000)),
    ]);
    expect(settled).toBe(reason);
    expect(Date.now() - start).toBeLessThan(1_000);
    expect(server.requests).toHaveLength(1);
  });
});

describe.each(['ollama', 'openai'] as const)('%s chat against a busy server that says when to come back (issue 15 probe)', (provider) => {
  // The embedding providers wait as the server's Retry-After (or retry-after-ms) says, capped;
  // the chat client waited its own backoff (500 ms, then 1 s), so a rate-limited server was
  // asked again before it said it would answer, and the retries were spent.
  /** Request times; the first answer is `status` with `headers`, the next ones a reply. */
  async function busy(status: number, headers: Record<string, string>): Promise<number[]> {
    const at: number[] = [];
    server = await startServer((_req, res, n) => {
      at.push(performance.now());
      if (n === 0) return sendJson(res, status, provider === 'ollama' ? { error: 'busy' } : { error: { message: 'busy' } }, headers);
      sendJson(
        res,
        200,
        provider === 'ollama'
          ? { model: 'm', created_at: '2026-11-23T00:00:00Z', message: { role: 'assistant', content: 'ok' }, done: true }
          : { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] },
      );
    });
    return at;
  }
  const ask = (extra: Partial<LlmSettings> = {}) => createChatClient(settingsFor(provider, server!.origin, { maxRetries: 1, ...extra }), env).chat([{ role: 'user', content: 'q' }]);

  it('waits as Retry-After says on a 429 before asking again', async () => {
    const at = await busy(429, { 'retry-after': '1' });
    expect(await ask()).toBe('ok');
    expect(at).toHaveLength(2);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(950);
  });

  it('takes retry-after-ms before Retry-After, on a 503 too', async () => {
    const at = await busy(503, { 'retry-after-ms': '300', 'retry-after': '20' });
    expect(await ask()).toBe('ok');
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(280);
    expect(at[1]! - at[0]!).toBeLessThan(5_000);
  });

  it('caps a long Retry-After (seconds or an HTTP date) at maxDelayMs, as the embedding providers do', async () => {
    for (const later of ['3600', new Date(Date.now() + 3_600_000).toUTCString()]) {
      const at = await busy(429, { 'retry-after': later });
      expect(await ask({ maxDelayMs: 200 })).toBe('ok');
      expect(at[1]! - at[0]!, later).toBeGreaterThanOrEqual(180);
      expect(at[1]! - at[0]!, later).toBeLessThan(5_000);
      await server!.close();
    }
    server = null;
  });
});

describe.each(['ollama', 'openai'] as const)('%s chat against a server whose response headers are too large (issue 15 probe)', (provider) => {
  it('says so, not "cannot reach the server"', async () => {
    // undici refuses headers over Node's limit (16 KiB) with UND_ERR_HEADERS_OVERFLOW: the
    // message was "cannot reach the server (UND_ERR_HEADERS_OVERFLOW)" and the fix "Start Ollama".
    server = await startServer((_req, res) => sendJson(res, 200, {}, { 'x-padding': 'a'.repeat(64 * 1024) }));
    const err = await failure(createChatClient(settingsFor(provider, server.origin, { maxRetries: 0 }), env).chat([{ role: 'user', content: 'q' }]));
    expect(err.message).toContain(': malformed response: its headers are larger than Node accepts (UND_ERR_HEADERS_OVERFLOW). ');
    expect(err.message).not.toContain('cannot reach');
    expect(err.fix).toMatch(provider === 'ollama' ? /POST \/api\/chat/ : /chat\/completions/);
  });
});

describe.each(['ollama', 'openai'] as const)('%s chat against a server that closes mid-body', (provider) => {
  it('says the reply was cut short and asks again, not that the server cannot be reached', async () => {
    // An HTTP/1.0 server (or a proxy) that sends a Content-Length and closes before it: the
    // message was "cannot reach the server (UND_ERR_RES_CONTENT_LENGTH_MISMATCH)", not retried.
    const raw = await rawServe('HTTP/1.0 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"message":');
    try {
      const err = await failure(createChatClient(settingsFor(provider, raw.origin, { maxRetries: 1 }), env).chat([{ role: 'user', content: 'q' }]));
      expect(err.message).toContain(`${provider} chat (${raw.origin}`);
      expect(err.message).toContain(': the connection closed before the whole reply arrived (UND_ERR_RES_CONTENT_LENGTH_MISMATCH) after 2 attempts. ');
      expect(raw.requests()).toBe(2);
    } finally {
      await raw.close();
    }
  });
});

describe.each(['ollama', 'openai'] as const)('%s chat against a server that closes a chunked reply mid-body', (provider) => {
  it('says the reply was cut short, not that the server cannot be reached', async () => {
    // A server that crashes (or a proxy that times out) mid-reply: "cannot reach the server
    // (UND_ERR_SOCKET)", with the fix to start one.
    const raw = await rawServe('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nb\r\n{"message":\r\n');
    try {
      const err = await failure(createChatClient(settingsFor(provider, raw.origin, { maxRetries: 1 }), env).chat([{ role: 'user', content: 'q' }]));
      expect(err.message).toContain(': the connection closed before the whole reply arrived (UND_ERR_SOCKET) after 2 attempts. ');
      expect(raw.requests()).toBe(2);
    } finally {
      await raw.close();
    }
  });
});

describe.each(['ollama', 'openai'] as const)('%s chat against a port that answers with something other than HTTP', (provider) => {
  const malformedFix = provider === 'ollama' ? /points at an Ollama server/ : /points at an OpenAI-compatible API/;

  it('says the answer is not HTTP, not that nothing is listening', async () => {
    // OLLAMA_HOST pointed at an SSH port: "cannot reach the server (Response does not match the
    // HTTP/1.1 protocol (Expected HTTP/))", with the fix to start a server.
    const raw = await rawServe('SSH-2.0-OpenSSH_9.6\r\n');
    try {
      const err = await failure(createChatClient(settingsFor(provider, raw.origin, { maxRetries: 0 }), env).chat([{ role: 'user', content: 'q' }]));
      expect(err.message).toContain(': malformed response: the answer is not HTTP/1.1 (Expected HTTP/). ');
      expect(err.fix).toMatch(malformedFix);
    } finally {
      await raw.close();
    }
  });

  it('says a body that does not decompress does not, not a bare "terminated"', async () => {
    const raw = await rawServe('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: 10\r\n\r\n0123456789');
    try {
      const err = await failure(createChatClient(settingsFor(provider, raw.origin, { maxRetries: 0 }), env).chat([{ role: 'user', content: 'q' }]));
      expect(err.message).toContain(': malformed response: the body does not decompress as its Content-Encoding says (incorrect header check). ');
      expect(err.fix).toMatch(malformedFix);
    } finally {
      await raw.close();
    }
  });
});

describe.each(['ollama', 'openai'] as const)('%s chat against a server that stops sending mid-body', (provider) => {
  it.each(['stalls', 'trickles'])('times out a body that %s after the headers, naming the URL and the timeout', async (how) => {
    // Node's own limit for a body that stops (undici's bodyTimeout) is 300 s; timeoutMs bounds
    // the whole attempt, body included.
    const timers: NodeJS.Timeout[] = [];
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"message":{"role":"assistant","content":"');
      if (how === 'trickles') timers.push(setInterval(() => res.write('a'), 20));
    });
    try {
      const err = await failure(createChatClient(settingsFor(provider, server.origin, { timeoutMs: 300, maxRetries: 0 }), env).chat([{ role: 'user', content: 'q' }]));
      expect(err.message).toContain(`${provider} chat (${server.origin}`);
      expect(err.message).toContain(': no response within 300 ms. ');
    } finally {
      for (const t of timers) clearInterval(t);
    }
  });
});

describe('numeric settings out of range', () => {
  it.each([
    [{ timeoutMs: 2 ** 31 }, 'timeoutMs must be an integer 1..3600000, got 2147483648'],
    [{ timeoutMs: 0 }, 'timeoutMs must be an integer 1..3600000, got 0'],
    [{ maxDelayMs: 2 ** 31 }, 'maxDelayMs must be an integer 0..3600000, got 2147483648'],
    [{ maxRetries: Number.NaN }, 'maxRetries must be an integer 0..10, got NaN'],
    [{ maxRetries: '2' as unknown as number }, 'maxRetries must be an integer 0..10, got "2"'],
    [{ temperature: Number.NaN }, 'temperature must be a number from 0 to 2, got NaN'],
    [{ temperature: 3 }, 'temperature must be a number from 0 to 2, got 3'],
  ] as [Partial<LlmSettings>, string][])('refuses %o, naming the setting and its range', (bad, message) => {
    // A timeoutMs past 2^31-1 ms reached setTimeout, which fires after 1 ms: every request
    // failed at once as "no response within 2147483648 ms". A maxRetries of NaN retried for ever.
    for (const provider of ['ollama', 'openai'] as const) {
      expect(() => createChatClient({ provider, ...bad }, env)).toThrow(LlmError);
      expect(() => createChatClient({ provider, ...bad }, env)).toThrow(message);
    }
  });

  it('refuses a temperature passed to chat() out of range before sending anything', async () => {
    server = await startChatServer(() => 'ok');
    const err = await failure(createChatClient(settingsFor('ollama', server.origin), env).chat([{ role: 'user', content: 'q' }], { temperature: -1 }));
    expect(err.message).toContain('the temperature passed to chat() must be a number from 0 to 2, got -1');
    expect(server.requests).toHaveLength(0);
  });

  it('accepts the bounds', () => {
    expect(createChatClient({ provider: 'ollama', timeoutMs: 3_600_000, maxRetries: 10, temperature: 2 }, env).temperature).toBe(2);
  });
});

describe.each(['ollama', 'openai'] as const)('%s chat against a server that answers 200 with an error', (provider) => {
  it('quotes what the server said, not only that the reply is missing', async () => {
    // A proxy or compatible server reporting a failure in a 200 body: the message was
    // "malformed response: no message content", hiding the server's own words.
    server = await startServer((_req, res) => sendJson(res, 200, provider === 'ollama' ? { error: 'model requires more system memory' } : { error: { message: 'quota exceeded', type: 'insufficient_quota' } }));
    const err = await failure(createChatClient(settingsFor(provider, server.origin, { maxRetries: 0 }), env).chat([{ role: 'user', content: 'q' }]));
    expect(err.message).toContain(`${provider} chat (${server.origin}`);
    expect(err.message).toContain(`: malformed response: a success status with an error instead of a reply: ${provider === 'ollama' ? 'model requires more system memory' : 'quota exceeded'}. `);
  });
});

describe.each(['ollama', 'openai'] as const)('%s chat with a thinking model (DeepSeek-R1, Qwen3) that writes its reasoning before the answer', (provider) => {
  it('returns the answer alone: the reasoning block was the reply, and the lead line was its first words', async () => {
    const replies = [
      '<think>\nOkay, the user wants one sentence about AOT.\nLet me see: it covers trimming.\n</think>\n\nThis part explains native AOT publishing.',
      // The chat template opened the block in the prompt: only the closing tag comes back.
      'Okay, so the page is about trimming.\n</think>\n\nThis part explains trimming.',
      // Out of tokens while thinking: no answer at all.
      '<think>\nOkay, the user wants a summary. First I should',
      'A plain answer about <think> tags, kept as it came.',
    ];
    server = await startChatServer(() => replies[server!.requests.length - 1]!);
    const client = createChatClient(settingsFor(provider, server.origin), env);
    const answers: string[] = [];
    for (let i = 0; i < replies.length; i++) answers.push(await client.chat([{ role: 'user', content: `q${i}` }]));
    expect(answers).toEqual(['This part explains native AOT publishing.', 'This part explains trimming.', '', 'A plain answer about <think> tags, kept as it came.']);
  });
});

describe('withoutReasoning', () => {
  const noTags = fc.string({ unit: fc.constantFrom('a', ' ', '\n', '<', '>', '/', 't', 'h', 'i', 'n', 'k', '.', 'é') }).filter((t) => !t.includes('<think>') && !t.includes('</think>'));
  it('gives back the answer after any reasoning block, and any reply without one unchanged', () => {
    fc.assert(
      fc.property(noTags, noTags, fc.constantFrom('', ' ', '\n'), (reasoning, answer, lead) => {
        expect(withoutReasoning(answer)).toBe(answer);
        expect(withoutReasoning(`${lead}<think>${reasoning}</think>${answer}`)).toBe(answer.trim());
        expect(withoutReasoning(`${reasoning}</think>${answer}`)).toBe(answer.trim());
      }),
    );
  });
});

// A query or fragment in the server address, as packages/embeddings refuses them (7cfd15c). The
// openai package appends /chat/completions to the base URL as a string, so
// `http://h/v1?api-key=K` sent POST /v1 with `api-key=K%2Fchat%2Fcompletions`, and every message
// showed the key in its URL; the ollama path dropped a `?token=` unsent, without a word.
describe('addresses holding a query or fragment are refused without repeating it', () => {
  const SECRET = 'QSECRET123456789abcdef';
  const chat = async (settings: LlmSettings, e: Record<string, string>) => failure(Promise.resolve().then(() => createChatClient({ maxRetries: 0, ...settings }, e).chat([{ role: 'user', content: 'q' }])));

  it.each([
    ['openai', 'OPENAI_BASE_URL', `/v1?api-key=${SECRET}`],
    ['openai', 'OPENAI_BASE_URL', `/v1#${SECRET}`],
    ['openai', 'OPENAI_BASE_URL', `/v1?`],
    ['ollama', 'OLLAMA_HOST', `/?token=${SECRET}`],
    ['ollama', 'OLLAMA_HOST', `#${SECRET}`],
  ] as const)('%s, %s=<server>%s: no request, a config error', async (provider, variable, tail) => {
    server = await startChatServer(() => 'ok');
    const err = await chat({ provider }, { [variable]: `${server.origin}${tail}`, OPENAI_API_KEY: 'k' });
    expect(err.url).toBeNull();
    expect(err.message).toContain(`${variable} holds a query or fragment`);
    expect(err.message).not.toContain(SECRET);
    expect(server.requests).toEqual([]);
  });

  it('a host written without a scheme (localhost:11434#…) too', async () => {
    const err = await chat({ provider: 'ollama' }, { OLLAMA_HOST: `localhost:1#${SECRET}` });
    expect(err.message).toContain('OLLAMA_HOST holds a query or fragment');
    expect(err.message).not.toContain(SECRET);
  });

  it.each([
    ['ollama', { host: `http://127.0.0.1:1/?k=${SECRET}` }, 'llm.host'],
    ['openai', { baseURL: `http://127.0.0.1:1/v1?k=${SECRET}` }, 'llm.baseURL'],
  ] as const)('%s: names the setting it came from', async (provider, settings, from) => {
    const err = await chat({ provider, ...settings }, { OPENAI_API_KEY: 'k' });
    expect(err.message).toContain(`${from} holds a query or fragment`);
    expect(err.message).not.toContain(SECRET);
  });

  it('a refused scheme or unparsable address never repeats its query', async () => {
    for (const [provider, variable] of [['openai', 'OPENAI_BASE_URL'], ['ollama', 'OLLAMA_HOST']] as const) {
      for (const address of [`ftp://127.0.0.1/v1?key=${SECRET}`, `http://[::1/v1?key=${SECRET}`]) {
        const err = await chat({ provider }, { [variable]: address, OPENAI_API_KEY: 'k' });
        expect(err.url).toBeNull();
        expect(err.message).not.toContain(SECRET);
      }
    }
  });
});
