// The openai provider, driving the real `openai` package against a local HTTP server that
// speaks OpenAI's documented embeddings API: POST /v1/embeddings {model, input,
// encoding_format?, dimensions?} → {object: 'list', data: [{object: 'embedding', index,
// embedding}], model, usage}. The embedding is base64 of little-endian float32s when
// encoding_format is 'base64', else a float array. Retry backoff is kept short via settings.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createProvider, EmbeddingError, type EmbeddingSettings, type RetryInfo } from './index.js';
import { decodeBase64Floats } from './openai.js';
import { barrier, closedPort, delay, failure, fakeVector, sendJson, startServer, texts, type Handler, type RecordedRequest, type TestServer } from './test-server.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

interface EmbeddingsBody {
  model: string;
  input: string[];
  encoding_format?: 'float' | 'base64';
  dimensions?: number;
}

function base64Floats(v: number[]): string {
  const buf = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => buf.writeFloatLE(x, i * 4));
  return buf.toString('base64');
}

interface AnswerOptions {
  vector?: (text: string) => number[];
  /** Answer with float arrays whatever encoding_format asked for (some compatible servers do). */
  ignoreFormat?: boolean;
  /** Reverse `data`, relying on `index` for order (the API does not promise order). */
  reverse?: boolean;
}

function answer(req: RecordedRequest, res: ServerResponse, opts: AnswerOptions = {}): void {
  if (req.method !== 'POST' || req.path !== '/v1/embeddings') {
    return sendJson(res, 404, { error: { message: `Unknown request URL: ${req.method} ${req.path}`, type: 'invalid_request_error', code: 'unknown_url' } });
  }
  if (req.headers.authorization !== 'Bearer sk-test') {
    return sendJson(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
  }
  const body = req.body as EmbeddingsBody;
  const vector = opts.vector ?? ((t: string) => fakeVector(t, body.dimensions ?? 4));
  const base64 = body.encoding_format === 'base64' && !opts.ignoreFormat;
  const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: base64 ? base64Floats(vector(text)) : vector(text) }));
  if (opts.reverse) data.reverse();
  sendJson(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: body.input.length, total_tokens: body.input.length } }, { 'x-request-id': 'req_test' });
}

async function serve(handler: Handler = (req, res) => answer(req, res)): Promise<TestServer> {
  server = await startServer(handler);
  return server;
}

const KEY = { OPENAI_API_KEY: 'sk-test' };

function openai(s: TestServer | string, extra: Partial<EmbeddingSettings> = {}, env: Record<string, string | undefined> = KEY) {
  const baseURL = typeof s === 'string' ? s : `${s.origin}/v1`;
  return createProvider({ provider: 'openai', baseURL, backoffMs: 1, ...extra }, env);
}


const rateLimited = (res: ServerResponse, headers: Record<string, string> = {}) =>
  sendJson(res, 429, { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } }, headers);

describe('openai provider: success', () => {
  it('batches, keeps input order, decodes base64, reports progress and learns the dimension', async () => {
    const s = await serve(async (req, res, n) => {
      await delay(n === 0 ? 30 : 0);
      answer(req, res);
    });
    const p = openai(s, { batchSize: 4 });
    expect(p.provider).toBe('openai');
    expect(p.model).toBe('text-embedding-3-small');
    expect(p.dimensions).toBeNull();
    const progress: number[] = [];
    const vectors = await p.embed(texts(10), { onProgress: (done) => progress.push(done) });
    expect(vectors.map((v) => v[0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(vectors.every((v) => v instanceof Float32Array && v.length === 4)).toBe(true);
    // 1/3 survives the float32 round trip exactly as Math.fround makes it.
    expect(vectors[0]![2]).toBe(Math.fround(1 / 3));
    expect(p.dimensions).toBe(4);
    const sizes = s.requests.map((r) => (r.body as EmbeddingsBody).input.length);
    expect(sizes.length).toBe(3);
    expect(sizes.every((n) => n <= 4)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(10);
    for (const r of s.requests) {
      expect(r.body).toMatchObject({ model: 'text-embedding-3-small', encoding_format: 'base64' });
      expect(r.body).not.toHaveProperty('dimensions');
    }
    expect(progress.at(-1)).toBe(10);
  });

  it('accepts float arrays when the server ignores encoding_format, and orders data by index', async () => {
    const s = await serve((req, res) => answer(req, res, { ignoreFormat: true, reverse: true }));
    const vectors = await openai(s).embed(texts(5));
    expect(vectors.map((v) => v[0])).toEqual([0, 1, 2, 3, 4]);
  });

  it('sends the configured model and dimensions', async () => {
    const s = await serve();
    const p = openai(s, { model: 'text-embedding-3-large', dimensions: 256 });
    expect(p.dimensions).toBe(256);
    const [v] = await p.embed(['hello-1']);
    expect(v!.length).toBe(256);
    expect(s.requests[0]!.body).toMatchObject({ model: 'text-embedding-3-large', dimensions: 256, input: ['hello-1'] });
  });

  it('takes the base URL from OPENAI_BASE_URL, and settings.baseURL over it', async () => {
    const s = await serve();
    const fromEnv = createProvider({ provider: 'openai' }, { ...KEY, OPENAI_BASE_URL: `${s.origin}/v1` });
    expect((await fromEnv.embed(['a-2']))[0]![0]).toBe(2);
    const port = await closedPort();
    const err = await failure(createProvider({ provider: 'openai', baseURL: `http://127.0.0.1:${port}/v1` }, { ...KEY, OPENAI_BASE_URL: `${s.origin}/v1` }).embed(['x']));
    expect(err.url).toBe(`http://127.0.0.1:${port}/v1/embeddings`);
    expect(s.requests.length).toBe(1);
  });

  it('decodes little-endian float32 base64, and refuses a partial float', () => {
    expect(Array.from(decodeBase64Floats(base64Floats([1.5, -2, 0]))!)).toEqual([1.5, -2, 0]);
    expect(decodeBase64Floats(Buffer.from([1, 2, 3]).toString('base64'))).toBeNull();
  });

  it('refuses a string embedding that is not base64, which Node decoded to garbage by skipping what it did not know', async () => {
    // 16 of these characters are in base64's alphabet: Node made three floats (-7.8e11, …) of them.
    const garbage = ['0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8', 'AAAAAAAAAAAAAAAA!!', 'AAAAAAAA.AAAAAAAA'];
    const s = await serve((_req, res, n) => sendJson(res, 200, { object: 'list', data: [{ object: 'embedding', index: 0, embedding: garbage[n] }] }));
    for (const [i, text] of garbage.entries()) {
      expect(Buffer.from(text, 'base64').length % 4, text).toBe(0); // the lax decoder's verdict: whole floats
      const err = await failure(openai(s, { maxRetries: 0 }).embed(['x']));
      expect(err.kind, text).toBe('malformed');
      expect(err.message).toContain(`${s.origin}/v1/embeddings`);
      expect(err.message).toMatch(/data\[0\]\.embedding is a string that is not base64 \(character \d+ of \d+/);
      expect(decodeBase64Floats(text), `decodeBase64Floats ${i}`).toBeNull();
    }
    // Standard and URL-safe alphabets, padding, and the line breaks of an encoder that wraps lines are base64.
    const wrapped = base64Floats([0.5, -1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]).replace(/.{76}/g, '$&\n');
    expect(Array.from(decodeBase64Floats(wrapped)!).slice(0, 3)).toEqual([0.5, -1, 2]);
    expect(Array.from(decodeBase64Floats(base64Floats([-1.5e-7, 3]).replace(/\+/g, '-').replace(/\//g, '_'))!)).toEqual([Math.fround(-1.5e-7), 3]);
  });
});

describe('openai provider: retries', () => {
  it('retries a 500 and then succeeds', async () => {
    const s = await serve((req, res, n) => (n === 0 ? sendJson(res, 500, { error: { message: 'The server had an error', type: 'server_error' } }) : answer(req, res)));
    const retries: RetryInfo[] = [];
    const vectors = await openai(s, { onRetry: (r) => retries.push(r) }).embed(texts(2));
    expect(vectors.map((v) => v[0])).toEqual([0, 1]);
    expect(s.requests.length).toBe(2);
    expect(retries).toEqual([expect.objectContaining({ provider: 'openai', attempt: 1, reason: 'HTTP 500', fromRetryAfter: false })]);
  });

  it('honours retry-after-ms on a 429, then succeeds', async () => {
    const s = await serve((req, res, n) => (n === 0 ? rateLimited(res, { 'retry-after-ms': '40', 'retry-after': '1' }) : answer(req, res)));
    const retries: RetryInfo[] = [];
    await openai(s, { onRetry: (r) => retries.push(r) }).embed(['a']);
    expect(s.requests.length).toBe(2);
    expect(retries).toEqual([expect.objectContaining({ reason: 'HTTP 429', delayMs: 40, fromRetryAfter: true })]);
  });

  it('honours an HTTP-date Retry-After, capped at maxDelayMs', async () => {
    const later = new Date(Date.now() + 3_600_000).toUTCString();
    const s = await serve((req, res, n) => (n === 0 ? rateLimited(res, { 'retry-after': later }) : answer(req, res)));
    const retries: RetryInfo[] = [];
    await openai(s, { maxDelayMs: 25, onRetry: (r) => retries.push(r) }).embed(['a']);
    expect(retries).toEqual([expect.objectContaining({ delayMs: 25, fromRetryAfter: true })]);
  });

  it('gives up on a 429 that never ends after maxRetries, with kind http', async () => {
    const s = await serve((_req, res) => rateLimited(res, { 'retry-after': '0' }));
    const retries: RetryInfo[] = [];
    const err = await failure(openai(s, { maxRetries: 3, onRetry: (r) => retries.push(r) }).embed(['x']));
    expect(err.kind).toBe('http');
    expect(err.status).toBe(429);
    expect(err.attempts).toBe(4);
    expect(s.requests.length).toBe(4);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(err.message).toContain('openai');
    expect(err.message).toContain(`${s.origin}/v1/embeddings`);
    expect(err.message).toContain('Rate limit reached');
    expect(err.fix).toContain('concurrency');
  });

  it('backs off exponentially with jitter when there is no Retry-After', async () => {
    const s = await serve((_req, res) => sendJson(res, 502, { error: { message: 'bad gateway' } }));
    const retries: RetryInfo[] = [];
    await failure(openai(s, { maxRetries: 4, backoffMs: 4, onRetry: (r) => retries.push(r) }).embed(['x']));
    // attempt n waits between half and all of 4 * 2^(n-1) ms.
    retries.forEach((r, i) => {
      const full = 4 * 2 ** i;
      expect(r.delayMs).toBeGreaterThanOrEqual(full / 2);
      expect(r.delayMs).toBeLessThanOrEqual(full);
    });
    expect(retries).toHaveLength(4);
  });

  it('retries a connection reset', async () => {
    const s = await serve((req, res, n) => {
      if (n === 0) res.socket?.destroy();
      else answer(req, res);
    });
    const retries: RetryInfo[] = [];
    const [v] = await openai(s, { onRetry: (r) => retries.push(r) }).embed(['a-8']);
    expect(v![0]).toBe(8);
    expect(retries[0]!.reason).toMatch(/^connection reset/);
  });
});

describe('openai provider: failures', () => {
  it('fails with kind auth before any request when OPENAI_API_KEY is missing or empty', async () => {
    const s = await serve();
    for (const env of [{}, { OPENAI_API_KEY: '' }, { OPENAI_API_KEY: '   ' }]) {
      const p = openai(s, {}, env);
      const err = await failure(p.embed(['x']));
      expect(err.kind).toBe('auth');
      expect(err.provider).toBe('openai');
      expect(err.fix).toContain('OPENAI_API_KEY');
      expect(err.message).toContain(`${s.origin}/v1/embeddings`);
    }
    expect(s.requests.length).toBe(0);
  });

  it('maps a 401 to kind auth, without retrying', async () => {
    const s = await serve();
    const err = await failure(openai(s, {}, { OPENAI_API_KEY: 'sk-wrong' }).embed(['x']));
    expect(err.kind).toBe('auth');
    expect(err.status).toBe(401);
    expect(err.message).toContain('Incorrect API key');
    expect(s.requests.length).toBe(1);
  });

  it('times out a server that never answers (kind timeout)', async () => {
    const s = await serve(() => {
      // never answers
    });
    const err = await failure(openai(s, { timeoutMs: 150, maxRetries: 1 }).embed(['x']));
    expect(err.kind).toBe('timeout');
    expect(err.attempts).toBe(2);
    expect(s.requests.length).toBe(2);
    expect(err.message).toContain(`${s.origin}/v1/embeddings`);
  });

  it('rejects a body that is not JSON, or not the documented shape (kind malformed)', async () => {
    const s = await serve((_req, res, n) => {
      if (n === 0) res.writeHead(200, { 'content-type': 'application/json' }).end('{"object": "list", "data": [');
      else if (n === 1) res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy login</html>');
      else if (n === 2) sendJson(res, 200, { object: 'list', data: [{ index: 0, embedding: Buffer.from([1, 2, 3]).toString('base64') }] });
      else if (n === 3) sendJson(res, 200, { object: 'list', data: [{ index: 0, embedding: [1, 'NaN', 2] }] });
      else sendJson(res, 200, { object: 'list', data: [{ index: 5, embedding: [1, 2] }] });
    });
    const p = openai(s);
    for (let i = 0; i < 5; i++) expect((await failure(p.embed(['x']))).kind, `response ${i}`).toBe('malformed');
    expect(s.requests.length).toBe(5);
  });

  it('rejects a wrong number of vectors (kind malformed)', async () => {
    const s = await serve((req, res) => {
      const body = req.body as EmbeddingsBody;
      answer({ ...req, body: { ...body, input: body.input.slice(1) } }, res);
    });
    const err = await failure(openai(s).embed(texts(3)));
    expect(err.kind).toBe('malformed');
    expect(err.message).toContain('2 embeddings for 3 inputs');
  });

  it('rejects inconsistent dimensions, within a response and across batches (kind dimensions)', async () => {
    const s = await serve((req, res, n) => {
      if (n === 0) answer(req, res, { vector: (t) => fakeVector(t, t.endsWith('1') ? 3 : 4) });
      else answer(req, res, { vector: (t) => fakeVector(t, n === 1 ? 4 : 6) });
    });
    const p = openai(s, { batchSize: 2, concurrency: 1 });
    expect((await failure(p.embed(texts(2)))).kind).toBe('dimensions');
    expect(p.dimensions).toBeNull();
    const err = await failure(p.embed(texts(4)));
    expect(err.kind).toBe('dimensions');
    expect(err.message).toContain('returned 6-dimensional vectors, expected 4');
  });

  it('enforces configured dimensions against a server that ignores them', async () => {
    const s = await serve((req, res) => answer(req, res, { vector: (t) => fakeVector(t, 4) }));
    const err = await failure(openai(s, { dimensions: 512 }).embed(['x']));
    expect(err.kind).toBe('dimensions');
    expect(err.message).toContain('expected 512 (configured embeddings.dimensions)');
  });

  it('reports a closed port as unreachable, at once, with the URL and the fix', async () => {
    const port = await closedPort();
    const retries: RetryInfo[] = [];
    const err = await failure(openai(`http://127.0.0.1:${port}/v1`, { onRetry: (r) => retries.push(r) }).embed(['x']));
    expect(err.kind).toBe('unreachable');
    expect(err.url).toBe(`http://127.0.0.1:${port}/v1/embeddings`);
    expect(err.message).toContain(`http://127.0.0.1:${port}/v1/embeddings`);
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.fix).toContain('OPENAI_BASE_URL');
    expect(err.fix).toContain('network');
    expect(retries).toEqual([]);
  });

  it('says what to check on a 404 (wrong path or model)', async () => {
    const s = await serve();
    const err = await failure(openai(s.origin).embed(['x'])); // base URL without /v1
    expect(err.kind).toBe('http');
    expect(err.status).toBe(404);
    expect(err.fix).toContain('/v1');
  });

  it('rejects a base URL that is not a URL (kind config), naming where it came from', () => {
    const configErrorOf = (settings: EmbeddingSettings, env: Record<string, string>): EmbeddingError => {
      try {
        createProvider(settings, env);
      } catch (err) {
        expect(err).toBeInstanceOf(EmbeddingError);
        return err as EmbeddingError;
      }
      throw new Error('expected a config error');
    };
    const fromSettings = configErrorOf({ provider: 'openai', baseURL: 'not a url' }, KEY);
    expect(fromSettings.kind).toBe('config');
    expect(fromSettings.message).toContain('embeddings.baseURL');
    const fromEnv = configErrorOf({ provider: 'openai' }, { ...KEY, OPENAI_BASE_URL: '::' });
    expect(fromEnv.kind).toBe('config');
    expect(fromEnv.message).toContain('OPENAI_BASE_URL');
  });
});

describe('openai provider: concurrency', () => {
  it('never has more than `concurrency` requests in flight', async () => {
    for (const concurrency of [2, 4]) {
      // Requests are answered in groups of `concurrency` (the total is a multiple of it), so
      // the peak is reached however slowly the client sends; more would show as a higher peak.
      const group = barrier(concurrency);
      const s = await startServer(async (req, res) => {
        await group();
        answer(req, res);
      });
      try {
        const vectors = await openai(s, { batchSize: 2, concurrency }).embed(texts(16));
        expect(vectors.map((v) => v[0])).toEqual(Array.from({ length: 16 }, (_, i) => i));
        expect(s.requests.length).toBe(8);
        expect(s.maxInFlight).toBe(concurrency);
      } finally {
        await s.close();
      }
    }
  });
});
