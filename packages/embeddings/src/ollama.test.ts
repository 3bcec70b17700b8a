// The ollama provider, driving the real `ollama` package against a local HTTP server that
// speaks Ollama's documented embedding API: POST /api/embed {model, input} →
// {model, embeddings: number[][]}. Retry backoff is kept to a millisecond via settings.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createProvider, EmbeddingError, type EmbeddingSettings, type RetryInfo } from './index.js';
import { ollamaBaseUrl } from './ollama.js';
import { afterAnswer, barrier, closedPort, delay, failure, fakeVector, sendJson, startServer, texts, type Handler, type RecordedRequest, type TestServer } from './test-server.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

interface EmbedBody {
  model: string;
  input: string[];
  dimensions?: number;
}

function answer(req: RecordedRequest, res: ServerResponse, vector: (text: string) => number[] = (t) => fakeVector(t)): void {
  const body = req.body as EmbedBody;
  if (req.method !== 'POST' || req.path !== '/api/embed') return sendJson(res, 404, { error: `no route ${req.method} ${req.path}` });
  sendJson(res, 200, { model: body.model, embeddings: body.input.map(vector), total_duration: 1, load_duration: 0, prompt_eval_count: body.input.length });
}

async function serve(handler: Handler = (req, res) => answer(req, res)): Promise<TestServer> {
  server = await startServer(handler);
  return server;
}

function ollama(s: TestServer | string, extra: Partial<EmbeddingSettings> = {}) {
  const host = typeof s === 'string' ? s : s.origin;
  return createProvider({ provider: 'ollama', host, backoffMs: 1, ...extra }, {});
}


describe('ollama provider: success', () => {
  it('batches, keeps input order, reports progress and learns the dimension', async () => {
    const s = await serve(async (req, res, n) => {
      // Answer out of order, so order must come from the batch positions, not arrival.
      await delay(n === 0 ? 30 : 0);
      answer(req, res);
    });
    const p = ollama(s, { batchSize: 3 });
    expect(p.provider).toBe('ollama');
    expect(p.model).toBe('mxbai-embed-large');
    expect(p.dimensions).toBeNull();
    const progress: number[] = [];
    const vectors = await p.embed(texts(10), { onProgress: (done, total) => progress.push(total === 10 ? done : -1) });
    expect(vectors.map((v) => v[0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(vectors.every((v) => v instanceof Float32Array && v.length === 4)).toBe(true);
    expect(p.dimensions).toBe(4);
    expect(s.requests.length).toBe(4);
    const sizes = s.requests.map((r) => (r.body as EmbedBody).input.length);
    expect(sizes.every((n) => n <= 3)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(10);
    expect(s.requests.every((r) => (r.body as EmbedBody).model === 'mxbai-embed-large' && !('dimensions' in (r.body as object)))).toBe(true);
    expect(progress.length).toBe(4);
    expect(progress.at(-1)).toBe(10);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
  });

  it('sends the configured model and dimensions, and makes no request for no texts', async () => {
    const s = await serve((req, res) => answer(req, res, (t) => fakeVector(t, 8)));
    const p = ollama(s, { model: 'nomic-embed-text', dimensions: 8 });
    expect(await p.embed([])).toEqual([]);
    expect(s.requests.length).toBe(0);
    const [v] = await p.embed(['one']);
    expect(v!.length).toBe(8);
    expect(s.requests[0]!.body).toEqual({ model: 'nomic-embed-text', input: ['one'], dimensions: 8 });
  });

  it('takes the host from OLLAMA_HOST, and settings.host over it', async () => {
    const s = await serve();
    const fromEnv = createProvider({ provider: 'ollama' }, { OLLAMA_HOST: s.origin });
    expect((await fromEnv.embed(['a-1']))[0]![0]).toBe(1);
    const port = await closedPort();
    const err = await failure(createProvider({ provider: 'ollama', host: `http://127.0.0.1:${port}` }, { OLLAMA_HOST: s.origin }).embed(['x']));
    expect(err.url).toBe(`http://127.0.0.1:${port}/api/embed`);
    expect(s.requests.length).toBe(1);
  });

  it('normalises host shorthands the way the ollama package does', () => {
    expect(ollamaBaseUrl('0.0.0.0')).toBe('http://0.0.0.0:11434');
    expect(ollamaBaseUrl('localhost:8080')).toBe('http://localhost:8080');
    expect(ollamaBaseUrl(':9999')).toBe('http://127.0.0.1:9999');
    expect(ollamaBaseUrl('https://ollama.example.com/')).toBe('https://ollama.example.com:443');
    expect(ollamaBaseUrl('http://proxy:80/ollama')).toBe('http://proxy:80/ollama');
  });
});

describe('ollama provider: retries', () => {
  it('retries a 500 and then succeeds', async () => {
    const s = await serve((req, res, n) => (n === 0 ? sendJson(res, 500, { error: 'llama runner process has terminated' }) : answer(req, res)));
    const retries: RetryInfo[] = [];
    const vectors = await ollama(s, { onRetry: (r) => retries.push(r) }).embed(texts(3));
    expect(vectors.map((v) => v[0])).toEqual([0, 1, 2]);
    expect(s.requests.length).toBe(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ provider: 'ollama', attempt: 1, reason: 'HTTP 500', fromRetryAfter: false, url: `${s.origin}/api/embed` });
  });

  it('honours Retry-After on a 429, then succeeds', async () => {
    const s = await serve((req, res, n) => (n === 0 ? sendJson(res, 429, { error: 'busy' }, { 'retry-after': '1' }) : answer(req, res)));
    const retries: RetryInfo[] = [];
    await ollama(s, { onRetry: (r) => retries.push(r) }).embed(['a-5']);
    expect(s.requests.length).toBe(2);
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, reason: 'HTTP 429', delayMs: 1000, fromRetryAfter: true })]);
  });

  it('caps a long Retry-After at maxDelayMs', async () => {
    const s = await serve((req, res, n) => (n === 0 ? sendJson(res, 503, { error: 'loading' }, { 'retry-after': '3600' }) : answer(req, res)));
    const retries: RetryInfo[] = [];
    await ollama(s, { maxDelayMs: 20, onRetry: (r) => retries.push(r) }).embed(['a-5']);
    expect(retries.map((r) => r.delayMs)).toEqual([20]);
  });

  it('gives up on a 429 that never ends after maxRetries, with kind http', async () => {
    const s = await serve((_req, res) => sendJson(res, 429, { error: 'too many requests' }, { 'retry-after': '0' }));
    const err = await failure(ollama(s, { maxRetries: 2 }).embed(['x']));
    expect(err.kind).toBe('http');
    expect(err.status).toBe(429);
    expect(err.attempts).toBe(3);
    expect(s.requests.length).toBe(3);
    expect(err.message).toContain('ollama');
    expect(err.message).toContain(`${s.origin}/api/embed`);
    expect(err.message).toContain('too many requests');
  });

  it('retries a connection reset', async () => {
    const s = await serve((req, res, n) => {
      if (n === 0) res.socket?.destroy();
      else answer(req, res);
    });
    const retries: RetryInfo[] = [];
    const [v] = await ollama(s, { onRetry: (r) => retries.push(r) }).embed(['a-3']);
    expect(v![0]).toBe(3);
    expect(retries[0]!.reason).toMatch(/^connection reset/);
  });

  it('does not retry a 404 (model not found) and says how to pull the model', async () => {
    const s = await serve((_req, res) => sendJson(res, 404, { error: 'model "mxbai-embed-large" not found, try pulling it first' }));
    const err = await failure(ollama(s).embed(['x']));
    expect(s.requests.length).toBe(1);
    expect(err.kind).toBe('http');
    expect(err.status).toBe(404);
    expect(err.fix).toContain('ollama pull mxbai-embed-large');
    expect(err.message).toContain('not found, try pulling it first');
  });
});

describe('ollama provider: failures', () => {
  it('times out a server that never answers (kind timeout)', async () => {
    const s = await serve(() => {
      // never answers
    });
    const err = await failure(ollama(s, { timeoutMs: 150, maxRetries: 1 }).embed(['x']));
    expect(err.kind).toBe('timeout');
    expect(err.attempts).toBe(2);
    expect(s.requests.length).toBe(2);
    expect(err.message).toContain('150 ms');
    expect(err.message).toContain(`${s.origin}/api/embed`);
    expect(err.fix).toContain('timeoutMs');
  });

  it('rejects a body that is not JSON (kind malformed)', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"embeddings": [[1, 2');
    });
    const err = await failure(ollama(s).embed(['x']));
    expect(err.kind).toBe('malformed');
    expect(s.requests.length).toBe(1);
    expect(err.message).toContain(`${s.origin}/api/embed`);
  });

  it('rejects a body without embeddings, a wrong count, and non-numbers (kind malformed)', async () => {
    const bodies: unknown[] = [
      { model: 'm' },
      { embeddings: 'none' },
      { embeddings: [[1, 2, 3, 4]] }, // one vector for two inputs
      { embeddings: [[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]] }, // three for two
      { embeddings: [[1, 2, 'x', 4], [1, 2, 3, 4]] },
      { embeddings: [[1, 2, null, 4], [1, 2, 3, 4]] },
      { embeddings: [[], []] },
      { embeddings: [{ 0: 1 }, [1]] },
    ];
    const s = await serve((_req, res, n) => sendJson(res, 200, bodies[n]));
    const p = ollama(s);
    for (const body of bodies) {
      const err = await failure(p.embed(['a', 'b']));
      expect(err.kind, JSON.stringify(body)).toBe('malformed');
    }
    expect(s.requests.length).toBe(bodies.length);
  });

  it('rejects vectors of different lengths in one response (kind dimensions)', async () => {
    const s = await serve((_req, res) => sendJson(res, 200, { embeddings: [[1, 2, 3, 4], [1, 2, 3]] }));
    const err = await failure(ollama(s).embed(['a', 'b']));
    expect(err.kind).toBe('dimensions');
    expect(err.message).toContain('4 and 3');
  });

  it('enforces the dimension learned from the first response on later ones', async () => {
    const s = await serve((req, res, n) => answer(req, res, (t) => fakeVector(t, n === 0 ? 4 : 5)));
    const p = ollama(s, { batchSize: 2, concurrency: 1 });
    const err = await failure(p.embed(texts(4)));
    expect(err.kind).toBe('dimensions');
    expect(err.message).toContain('returned 5-dimensional vectors, expected 4 (earlier responses)');
    expect(p.dimensions).toBe(4);
    // And across calls: the provider stays at 4.
    expect((await failure(p.embed(['z']))).kind).toBe('dimensions');
  });

  it('enforces configured dimensions', async () => {
    const s = await serve();
    const err = await failure(ollama(s, { dimensions: 1024 }).embed(['x']));
    expect(err.kind).toBe('dimensions');
    expect(err.message).toContain('expected 1024 (configured embeddings.dimensions)');
    expect(err.fix).toContain('embeddings.dimensions');
  });

  it('reports a closed port as unreachable, at once, with the URL and the fix', async () => {
    const port = await closedPort();
    const retries: RetryInfo[] = [];
    const err = await failure(ollama(`http://127.0.0.1:${port}`, { onRetry: (r) => retries.push(r) }).embed(['x']));
    expect(err.kind).toBe('unreachable');
    expect(err.provider).toBe('ollama');
    expect(err.url).toBe(`http://127.0.0.1:${port}/api/embed`);
    expect(err.message).toContain(`http://127.0.0.1:${port}/api/embed`);
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.fix).toContain('ollama serve');
    expect(err.fix).toContain('OLLAMA_HOST');
    expect(err.message).toContain(err.fix);
    expect(retries).toEqual([]);
  });

  it('sends credentials in the host as basic auth, and keeps them out of messages', async () => {
    const s = await serve((req, res) => (req.headers.authorization ? sendJson(res, 503, { error: 'down' }) : sendJson(res, 401, { error: 'no auth' })));
    const host = s.origin.replace('http://', 'http://user:secret@');
    const err = await failure(ollama(host, { maxRetries: 0 }).embed(['x']));
    expect(s.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('user:secret').toString('base64')}`);
    expect(err.status).toBe(503);
    expect(err.message).not.toContain('secret');
    expect(err.url).toBe(`${s.origin}/api/embed`);
  });

  it('rejects bad settings (kind config)', () => {
    for (const bad of [{ batchSize: 0 }, { concurrency: 17 }, { maxRetries: -1 }, { timeoutMs: 1.5 }, { model: '' }, { host: 'http://[::1' }] as Partial<EmbeddingSettings>[]) {
      let err: unknown;
      try {
        createProvider({ provider: 'ollama', ...bad }, {});
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(bad)).toBeInstanceOf(EmbeddingError);
      expect((err as EmbeddingError).kind).toBe('config');
    }
  });

  it('refuses a timeout or wait longer than an hour, which Node would have fired at once', () => {
    // setTimeout fires after 1 ms past 2^31-1: every request failed "no response within 2147483648 ms".
    for (const [key, value] of [['timeoutMs', 2 ** 31], ['timeoutMs', 3_600_001], ['maxDelayMs', 2 ** 31]] as const) {
      let err: unknown;
      try {
        createProvider({ provider: 'ollama', [key]: value }, {});
      } catch (e) {
        err = e;
      }
      expect(err, `${key} ${value}`).toBeInstanceOf(EmbeddingError);
      expect((err as EmbeddingError).message).toContain(`${key} must be an integer ${key === 'timeoutMs' ? 1 : 0}..3600000, got ${value}`);
    }
    expect(createProvider({ provider: 'ollama', timeoutMs: 3_600_000, maxDelayMs: 3_600_000 }, {}).model).toBe('mxbai-embed-large');
  });

  // The message showed each value through JSON.stringify: NaN and Infinity read "got null", and
  // a BigInt or a cyclic object (from a caller's code, not YAML) threw its TypeError instead.
  it('shows a bad setting as it was given, and never throws anything but its EmbeddingError', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    const cases: [Record<string, unknown>, string][] = [
      [{ timeoutMs: Number.NaN }, 'timeoutMs must be an integer 1..3600000, got NaN'],
      [{ batchSize: Number.POSITIVE_INFINITY }, 'batchSize must be an integer 1..2048, got Infinity'],
      [{ maxRetries: 3n }, 'maxRetries must be an integer 0..10, got 3n'],
      [{ maxRetries: 10n ** 100n }, 'maxRetries must be an integer 0..10, got a 101-digit BigInt'],
      [{ concurrency: cyclic }, 'concurrency must be an integer 1..16, got an object'],
      [{ backoffMs: () => 5 }, 'backoffMs must be an integer >= 0, got a function'],
      [{ model: 7n }, 'model must be a non-empty string, got 7n'],
      [{ model: cyclic }, 'model must be a non-empty string, got an object'],
      [{ provider: Symbol('x') }, 'unknown provider a symbol'],
      [{ provider: 'x'.repeat(5000) }, `unknown provider "${'x'.repeat(40)}…"`],
    ];
    for (const [settings, message] of cases) {
      let err: unknown;
      try {
        createProvider({ provider: 'ollama', ...settings } as unknown as EmbeddingSettings, {});
      } catch (e) {
        err = e;
      }
      expect(err, message).toBeInstanceOf(EmbeddingError);
      expect((err as EmbeddingError).message).toContain(message);
    }
  });
});

describe('ollama provider: concurrency and cancellation', () => {
  it('never has more than `concurrency` requests in flight', async () => {
    for (const concurrency of [1, 3]) {
      // Requests are answered in groups of `concurrency` (the total is a multiple of it), so
      // the peak is reached however slowly the client sends; more would show as a higher peak.
      const group = barrier(concurrency);
      const s = await startServer(async (req, res) => {
        await group();
        answer(req, res);
      });
      try {
        const vectors = await ollama(s, { batchSize: 1, concurrency }).embed(texts(9));
        expect(vectors.map((v) => v[0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
        expect(s.requests.length).toBe(9);
        expect(s.maxInFlight).toBe(concurrency);
      } finally {
        await s.close();
      }
    }
  });

  it("stops at the caller's abort, cancelling requests in flight", async () => {
    const s = await serve(() => {
      // never answers; the abort must end the call
    });
    const ctrl = new AbortController();
    const pending = ollama(s, { batchSize: 1, concurrency: 2 }).embed(texts(5), { signal: ctrl.signal });
    while (s.requests.length < 2) await delay(5);
    ctrl.abort(new Error('user cancelled'));
    await expect(pending).rejects.toThrow('user cancelled');
    while (s.abandoned < 2) await delay(5);
    expect(s.requests.length).toBe(2);
  });

  it('cancels the other batches in flight when one fails', async () => {
    const s = await serve((_req, res, n) => {
      if (n === 1) sendJson(res, 400, { error: 'bad input' });
      // the others never answer
    });
    const err = await failure(ollama(s, { batchSize: 1, concurrency: 2 }).embed(texts(6)));
    expect(err.status).toBe(400);
    while (s.abandoned < 1) await delay(5);
    expect(s.requests.length).toBe(2);
    // Nothing came back, so the error carries nothing.
    expect(err.partial).toEqual([]);
  });

  it('a failed call carries the vectors of the batches that came back, each in its text\'s place, under the same message', async () => {
    const other = afterAnswer();
    const s = await serve(async (req, res) => {
      if ((req.body as EmbedBody).input.includes('text-0')) {
        await other.held();
        return sendJson(res, 400, { error: 'input length exceeds the context length' });
      }
      other.release(res);
      answer(req, res);
    });
    const err = await failure(ollama(s, { batchSize: 2, concurrency: 2 }).embed(texts(4)));
    expect(err.message).toBe(
      `ollama embeddings (${s.origin}/api/embed): HTTP 400: input length exceeds the context length. A text is longer than the model takes (the longest of this request, 6 characters, starts "text-0"): shorten it (lower chunking.maxTokens for chunks; a qa-pairs.md question is embedded whole), or choose a model with a longer context.`,
    );
    expect(err.partial.map((v) => (v ? Array.from(v) : v))).toEqual([undefined, undefined, fakeVector('text-2'), fakeVector('text-3')].map((v) => v && Array.from(Float32Array.from(v))));
  });
});
