// Both remote providers against a server that answers with a 2xx but lies about what it sent:
// numbers a float32 cannot hold, vectors far longer than any model's, and bodies (plain or
// gzip-inflated) far larger than a batch's vectors could need. Each must end in one
// EmbeddingError naming the URL, never a raw error from deep inside fetch, an infinite value
// handed to the cache, or a process that buffers half a gigabyte.
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createProvider, type EmbeddingSettings } from './index.js';
import { MAX_ERROR_BODY_BYTES, MAX_REMOTE_DIMENSIONS, maxResponseBytes } from './remote.js';
import { failure, rawServe as startRawServer, sendJson, startServer, type RawServer, type RecordedRequest, type TestServer } from './test-server.js';

let server: TestServer | null = null;
let rawServer: RawServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  const raw = rawServer;
  rawServer = null;
  await raw?.close();
});

/** rawServe, closed after each test. */
async function rawServe(response: string): Promise<RawServer> {
  rawServer = await startRawServer(response);
  return rawServer;
}

type Kind = 'ollama' | 'openai';

function provider(kind: Kind, s: { origin: string }, extra: Partial<EmbeddingSettings> = {}) {
  const where = kind === 'ollama' ? { host: s.origin } : { baseURL: `${s.origin}/v1` };
  return createProvider({ provider: kind, ...where, backoffMs: 1, maxRetries: 0, ...extra }, { OPENAI_API_KEY: 'sk-test' });
}

/** A 200 with these vectors, in the provider's own response shape (openai: floats, which the client accepts). */
function vectors(kind: Kind, res: ServerResponse, list: unknown[]): void {
  if (kind === 'ollama') return sendJson(res, 200, { model: 'm', embeddings: list });
  sendJson(res, 200, { object: 'list', model: 'm', data: list.map((embedding, index) => ({ object: 'embedding', index, embedding })) });
}

const inputs = (req: RecordedRequest) => (req.body as { input: string[] }).input;


describe.each<Kind>(['ollama', 'openai'])('%s provider against a hostile server', (kind) => {
  it('refuses a number beyond float32 range, which would be stored as Infinity', async () => {
    server = await startServer((req, res) => vectors(kind, res, inputs(req).map(() => [1e300, 0.5])));
    const err = await failure(provider(kind, server).embed(['a', 'b']));
    expect(err.kind).toBe('malformed');
    expect(err.message).toContain(server.origin);
    expect(err.message).toMatch(/embedding 0 is not a list of finite numbers/);
  });

  it('refuses vectors longer than any model gives, naming the limit', async () => {
    server = await startServer((req, res) => vectors(kind, res, inputs(req).map(() => new Array<number>(MAX_REMOTE_DIMENSIONS + 1).fill(0.5))));
    const err = await failure(provider(kind, server).embed(['a']));
    expect(err.kind).toBe('dimensions');
    expect(err.message).toContain(`${MAX_REMOTE_DIMENSIONS + 1}-dimensional`);
    expect(err.message).toContain(String(MAX_REMOTE_DIMENSIONS));
  });

  it('stops reading a body larger than the batch could need, and says how large it was allowed to be', async () => {
    const limit = maxResponseBytes(1);
    let written = 0;
    server = await startServer((_req, res) => {
      // Valid JSON after 4× the limit of padding: only the size is wrong.
      res.writeHead(200, { 'content-type': 'application/json' });
      const pad = Buffer.alloc(1 << 20, 0x20);
      const pump = (): void => {
        while (written < 4 * limit) {
          written += pad.length;
          if (!res.write(pad)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end(kind === 'ollama' ? '{"embeddings":[[1,2]]}' : '{"data":[{"index":0,"embedding":[1,2]}]}');
      };
      res.on('close', () => (written = Infinity));
      pump();
    });
    const err = await failure(provider(kind, server, { batchSize: 1 }).embed(['a']));
    expect(err.kind).toBe('malformed');
    expect(err.message).toContain(server.origin);
    expect(err.message).toMatch(/larger than \d+ MiB/);
  });

  it('with embeddings.dimensions configured, holds a batch to what vectors of that size need, naming the setting; the longest JSON numbers still fit', async () => {
    // Without it, 2048 texts at concurrency 16 could each buffer 400 MiB from a hostile server.
    const dimensions = 8;
    const limit = maxResponseBytes(64, dimensions);
    expect(limit).toBeLessThan(2 * 1024 * 1024);
    expect(limit).toBeLessThan(maxResponseBytes(64) / 50);
    let padding = 0;
    server = await startServer((req, res) => {
      const list = inputs(req).map(() => new Array<string>(dimensions).fill('-1.2345678901234567e-100'));
      const body = kind === 'ollama' ? `{"model":"m","embeddings":[${list.map((v) => `[${v.join(',')}]`).join(',')}]}` : `{"object":"list","model":"m","data":[${list.map((v, index) => `{"object":"embedding","index":${index},"embedding":[${v.join(',')}]}`).join(',')}]}`;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(' '.repeat(padding) + body);
    });
    const texts = Array.from({ length: 64 }, (_, i) => `text ${i}`);
    const ok = await provider(kind, server, { dimensions, batchSize: 64 }).embed(texts);
    expect(ok).toHaveLength(64);
    expect(ok[0]).toHaveLength(dimensions);
    // 4 MiB of padding: far under the 129 MiB a batch of 64 may take when the size is unknown.
    padding = 4 * 1024 * 1024;
    const err = await failure(provider(kind, server, { dimensions, batchSize: 64 }).embed(texts));
    expect(err.kind).toBe('malformed');
    expect(err.message).toContain(server.origin);
    expect(err.message).toContain('larger than 1 MiB, more than the vectors of this batch could need at the configured embeddings.dimensions (8); if the model');
  });

  it.each([
    ['nested lists', '[', /the body holds more than 4104 nested lists or objects, more than the vectors of this batch could need/],
    ['values', '0,', /the body holds more than 69696 values, more than the vectors of this batch could need/],
  ])('refuses a body of endless %s once it holds more than the batch could, not only at the byte limit', async (_what, unit, message) => {
    // Within the byte limit (129 MiB for 64 inputs, 400 MiB for 2048) nested `[` parsed into
    // about 57 bytes of heap per byte, near or past Node's 4 GB default heap, which aborts the
    // process; `0,` into about 7 bytes per byte.
    const pad = Buffer.from(unit.repeat(1 << 16));
    let stop = false;
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(kind === 'ollama' ? '{"embeddings":[[' : '{"data":[{"index":0,"embedding":[');
      const pump = (): void => {
        while (!stop) if (!res.write(pad)) return void res.once('drain', pump);
      };
      res.on('close', () => (stop = true));
      pump();
    });
    const err = await failure(provider(kind, server, { batchSize: 1 }).embed(['a']));
    stop = true;
    expect(err.kind).toBe('malformed');
    expect(err.message).toMatch(message);
  });

  it('counts the inflated size of a gzip body, not the bytes on the wire', async () => {
    const limit = maxResponseBytes(1);
    const body = kind === 'ollama' ? '{"embeddings":[[1,2]]' : '{"data":[{"index":0,"embedding":[1,2]}]';
    const bomb = gzipSync(Buffer.concat([Buffer.from(body), Buffer.alloc(2 * limit, 0x20), Buffer.from('}')]));
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      res.end(bomb);
    });
    const err = await failure(provider(kind, server, { batchSize: 1 }).embed(['a']));
    expect(err.kind).toBe('malformed');
    expect(err.message).toMatch(/larger than \d+ MiB/);
  });

  it('refuses at once a body whose Content-Length is over the limit', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(maxResponseBytes(1) + 1) });
      // Sends nothing more: a client that waited for the body would time out instead.
      res.write('{');
    });
    const started = Date.now();
    const err = await failure(provider(kind, server, { batchSize: 1, timeoutMs: 5000 }).embed(['a']));
    expect(err.kind).toBe('malformed');
    expect(err.message).toMatch(/larger than \d+ MiB/);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('keeps the status of an error whose body is larger than an error message, declared or streamed', async () => {
    server = await startServer((_req, res, n) => {
      if (n === 0) {
        res.writeHead(502, { 'content-type': 'text/html', 'content-length': String(MAX_ERROR_BODY_BYTES + 1) });
        res.write('<html>');
        return;
      }
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end(Buffer.alloc(MAX_ERROR_BODY_BYTES + 1024, 0x41));
    });
    const err = await failure(provider(kind, server, { maxRetries: 1, timeoutMs: 5000 }).embed(['a']));
    expect(err.kind).toBe('http');
    expect(err.status).toBe(503);
    expect(err.attempts).toBe(2);
    expect(err.message.length).toBeLessThan(1000);
  });

  it('says a body cut short of its Content-Length was cut short, retries it, and throws no raw fetch error', async () => {
    // An HTTP/1.0 server (or a proxy) that closes mid-body: fetch's TypeError "terminated"
    // escaped embed() itself, not an EmbeddingError.
    const raw = await rawServe('HTTP/1.0 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"embeddings":');
    const err = await failure(provider(kind, raw, { maxRetries: 1 }).embed(['a']));
    expect(err.kind).toBe('unreachable');
    expect(err.message).toContain(raw.origin);
    expect(err.message).toContain('the connection closed before the whole body arrived after 2 attempts (UND_ERR_RES_CONTENT_LENGTH_MISMATCH)');
    expect(raw.requests()).toBe(2);
  });

  it('says the answer is not HTTP when something else listens on the port, not that nothing does', async () => {
    // An SSH port: "cannot reach the server (Response does not match the HTTP/1.1 protocol …)",
    // with the fix to start Ollama.
    const raw = await rawServe('SSH-2.0-OpenSSH_9.6\r\n');
    const err = await failure(provider(kind, raw).embed(['a']));
    expect(err.kind).toBe('malformed');
    expect(err.message).toContain('malformed response: the answer is not HTTP/1.1 (Expected HTTP/). ');
  });

  it('says a body that does not decompress does not, not that the connection closed', async () => {
    const raw = await rawServe('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: 10\r\n\r\n0123456789');
    const err = await failure(provider(kind, raw).embed(['a']));
    expect(err.kind).toBe('malformed');
    expect(err.message).toContain('malformed response: the body does not decompress as its Content-Encoding says (incorrect header check). ');
  });

  it('says headers larger than Node accepts are a malformed response, not an unreachable server', async () => {
    // "cannot reach the server (Headers Overflow Error)", with the fix to start Ollama; the chat
    // client already said this.
    server = await startServer((_req, res) => sendJson(res, 200, {}, { 'x-padding': 'a'.repeat(64 * 1024) }));
    const err = await failure(provider(kind, server).embed(['a']));
    expect(err.kind).toBe('malformed');
    expect(err.message).toContain('malformed response: its headers are larger than Node accepts (UND_ERR_HEADERS_OVERFLOW). ');
  });

  it.each(['stalls', 'trickles'])('times out a body that %s after the headers, naming the URL and the timeout', async (how) => {
    // Node's own limits for a body that stops (undici's bodyTimeout) are 300 s; timeoutMs
    // bounds the whole attempt, body included.
    const timers: NodeJS.Timeout[] = [];
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(kind === 'ollama' ? '{"embeddings":[[' : '{"data":[{"index":0,"embedding":[');
      if (how === 'trickles') timers.push(setInterval(() => res.write('1,'), 20));
    });
    try {
      const err = await failure(provider(kind, server, { timeoutMs: 300 }).embed(['a']));
      expect(err.kind).toBe('timeout');
      expect(err.message).toContain(`(${server.origin}`);
      expect(err.message).toContain('no response within 300 ms');
    } finally {
      for (const t of timers) clearInterval(t);
    }
  });

  it('quotes the error a 200 body carries instead of embeddings', async () => {
    // The message was only 'the body has no "embeddings" list' (or "data"), hiding the server's words.
    server = await startServer((_req, res) => sendJson(res, 200, kind === 'ollama' ? { error: 'model requires more system memory' } : { error: { message: 'quota exceeded', type: 'insufficient_quota' } }));
    const err = await failure(provider(kind, server).embed(['a']));
    expect(err.kind).toBe('malformed');
    expect(err.message).toContain(`malformed response: a success status with an error instead of embeddings: ${kind === 'ollama' ? 'model requires more system memory' : 'quota exceeded'}. `);
  });

  it('still accepts a large legitimate response (64 inputs × 3072 dimensions as JSON floats)', async () => {
    server = await startServer((req, res) => vectors(kind, res, inputs(req).map(() => Array.from({ length: 3072 }, (_, i) => -0.012345678901234 - i / 1e9))));
    const out = await provider(kind, server).embed(Array.from({ length: 64 }, (_, i) => `t${i}`));
    expect(out).toHaveLength(64);
    expect(out[63]).toHaveLength(3072);
  });
});

describe('maxResponseBytes', () => {
  it('grows with the batch and stays under the longest string V8 can make', () => {
    expect(maxResponseBytes(1)).toBeLessThan(maxResponseBytes(64));
    expect(maxResponseBytes(2048)).toBeLessThan(0x1fffffe8);
  });
});

describe.each<Kind>(['ollama', 'openai'])('%s provider given a text longer than the model takes', (kind) => {
  // Each server's own words for it (OpenAI, vLLM, Ollama, llama.cpp, Hugging Face TEI).
  const words = [
    "This model's maximum context length is 8192 tokens, however you requested 20003 tokens (20003 in your prompt; 0 for the completion). Please reduce your prompt; or completion length.",
    "Invalid 'input[1]': maximum input length is 8192 tokens.",
    'This model\'s maximum context length is 512 tokens. However, you requested 600 tokens in the input for embedding generation. Please reduce the length of the input.',
    'the input length exceeds the context length',
    'the request exceeds the available context size, try increasing it',
    'Input validation error: `inputs` must have less than 512 tokens. Given: 600',
  ];
  it('says to shorten the longest text of the request, naming it, not to check the model and its dimensions', async () => {
    server = await startServer((_req, res, n) => sendJson(res, 400, kind === 'ollama' ? { error: words[n] } : { error: { message: words[n], type: 'invalid_request_error', code: null } }));
    const long = `How do I configure ${'very '.repeat(4000)}long things?`;
    for (const said of words) {
      const err = await failure(provider(kind, server).embed(['short one', long, 'another']));
      expect(err.kind, said).toBe('http');
      expect(err.message).toContain(server.origin);
      expect(err.message).toContain(said.slice(0, 40));
      expect(err.fix, said).toMatch(/^A text is longer than the model takes \(the longest of this request, 20,031 characters, starts "How do I configure very very/);
      expect(err.fix).toMatch(/lower chunking\.maxTokens/);
      expect(err.message).not.toMatch(/embeddings\.dimensions/);
    }
  });

  it('keeps the fix of any other 400', async () => {
    server = await startServer((_req, res) => sendJson(res, 400, kind === 'ollama' ? { error: 'invalid input type' } : { error: { message: "'$.input' is invalid", type: 'invalid_request_error' } }));
    const err = await failure(provider(kind, server).embed(['x']));
    expect(err.fix).not.toMatch(/longer than the model takes/);
    expect(err.fix).toMatch(/embeddings\.model/);
  });
});
