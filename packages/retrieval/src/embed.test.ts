// chunkVectors against a local server speaking Ollama's embeddings API (the real `ollama`
// client) that fails its third request: what the provider was paid for before the failure is
// in the cache, and a rerun sends only the rest.
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { afterAnswer, fakeVector, sendJson, startServer, type TestServer } from '../../embeddings/src/test-server.js';
import type { Manifest } from './contract.js';
import { ConfigError } from '@chunkyard/config';
import { chunkVectors, createBackend } from './embed.js';

let ws: string;
let server: TestServer | null = null;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'retrieval-embed-'));
});
afterEach(async () => {
  await server?.close();
  server = null;
  rmSync(ws, { recursive: true, force: true });
});

const TEXTS = Array.from({ length: 10 }, (_, i) => `chunk number ${i}`);
const manifest: Manifest = {
  schemaVersion: 1,
  source: 'golden-reference.md',
  sourceSha256: 'a'.repeat(64),
  strategyKey: 'semantic-16-80-512',
  chunks: TEXTS.map((embedText, i) => ({ id: `c${i}`, chunkNumber: i, originalText: embedText, embedText, sourcePosition: { charStart: i, charEnd: i + 1 }, overlapChars: 0 })),
};

it('caches each batch the provider answered before a later one failed, and a rerun sends only the rest (issue 15 probe)', async () => {
  let failThird = true;
  server = await startServer((req, res, n) => {
    const { input } = req.body as { input: string[] };
    if (failThird && n === 2) return sendJson(res, 400, { error: 'the third request fails' });
    sendJson(res, 200, { model: 'm', embeddings: input.map((t) => fakeVector(t)) });
  });
  // Two texts per request, one at a time, no retries: requests 1 and 2 carry texts 0–3.
  writeFileSync(join(ws, 'chunkyard.config.yaml'), `embeddings:\n  provider: ollama\n  host: ${server.origin}\n  batchSize: 2\n  concurrency: 1\n  maxRetries: 0\n`);
  mkdirSync(join(ws, 'docs'));
  const backend = createBackend({ folder: join(ws, 'docs'), env: {} });

  await expect(chunkVectors(backend, manifest)).rejects.toThrow(/third request fails/);
  const cached = TEXTS.map((t) => backend.cache!.getText(backend.provider.model, t) !== null);
  expect(cached).toEqual(TEXTS.map((_, i) => i < 4));

  failThird = false;
  const sent = server.requests.length;
  const vectors = await chunkVectors(backend, manifest);
  expect(server.requests.slice(sent).flatMap((r) => (r.body as { input: string[] }).input)).toEqual(TEXTS.slice(4));
  expect(vectors.map((v) => Array.from(v))).toEqual(TEXTS.map((t) => Array.from(Float32Array.from(fakeVector(t)))));
});

it('with two requests in flight, one failing (400) after the other came back: the other\'s vectors are cached, the error is the provider\'s, and a rerun sends only the rest', async () => {
  // The first call carries texts 0–3, two per request, side by side: the request holding text 0 fails.
  let failing = true;
  const other = afterAnswer();
  server = await startServer(async (req, res) => {
    const { input } = req.body as { input: string[] };
    if (failing && input.includes(TEXTS[0]!)) {
      await other.held();
      return sendJson(res, 400, { error: 'input length exceeds the context length' });
    }
    other.release(res);
    sendJson(res, 200, { model: 'm', embeddings: input.map((t) => fakeVector(t)) });
  });
  writeFileSync(join(ws, 'chunkyard.config.yaml'), `embeddings:\n  provider: ollama\n  host: ${server.origin}\n  batchSize: 2\n  concurrency: 2\n  maxRetries: 0\n`);
  mkdirSync(join(ws, 'docs'));
  const backend = createBackend({ folder: join(ws, 'docs'), env: {} });

  await expect(chunkVectors(backend, manifest)).rejects.toThrow(
    `ollama embeddings (${server.origin}/api/embed): HTTP 400: input length exceeds the context length. A text is longer than the model takes (the longest of this request, 14 characters, starts "chunk number 0"): shorten it (lower chunking.maxTokens for chunks; a qa-pairs.md question is embedded whole), or choose a model with a longer context.`,
  );
  expect(server.requests).toHaveLength(2);
  expect(TEXTS.map((t) => backend.cache!.getText(backend.provider.model, t) !== null)).toEqual(TEXTS.map((_, i) => i === 2 || i === 3));

  failing = false;
  const sent = server.requests.length;
  const vectors = await chunkVectors(backend, manifest);
  expect(server.requests.slice(sent).flatMap((r) => (r.body as { input: string[] }).input).sort()).toEqual(TEXTS.filter((_, i) => i !== 2 && i !== 3).sort());
  expect(vectors.map((v) => Array.from(v))).toEqual(TEXTS.map((t) => Array.from(Float32Array.from(fakeVector(t)))));
});

it('a config that is not UTF-8 is a config error saying so and to save it as UTF-8, as the other readers say (issue 15 probe)', () => {
  // Read with replacement characters, UTF-16 was "expected a mapping of settings at the top
  // level" and a Latin-1 byte became U+FFFD inside a value (accepted as a model name).
  const config = join(ws, 'chunkyard.config.yaml');
  mkdirSync(join(ws, 'docs'));
  writeFileSync(config, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('embeddings:\n  provider: ollama\n', 'utf16le')]));
  expect(() => createBackend({ folder: join(ws, 'docs'), env: {} })).toThrow(
    new ConfigError(config, null, 'UTF-16 (little-endian) text (it starts with that byte order mark), not UTF-8; save it as UTF-8'),
  );
  writeFileSync(config, Buffer.from('embeddings:\n  provider: ollama\n  model: caf\xe9\n', 'latin1'));
  expect(() => createBackend({ folder: null, configFile: config, env: {} })).toThrow(new ConfigError(config, null, 'not valid UTF-8 (first bad byte at offset 43); save it as UTF-8'));
  // UTF-8 with its byte order mark is UTF-8.
  writeFileSync(config, '\uFEFFembeddings:\n  provider: ollama\n  model: café\n');
  expect(createBackend({ folder: null, configFile: config, env: {} }).provider.model).toBe('café');
});

it('a config of valid UTF-8 too long for a string is "too large to read as text" with its size, not a bad byte past its end (helper-84 probe)', () => {
  // A sparse 600 MiB file of NUL bytes: valid UTF-8, more characters than a string holds.
  const config = join(ws, 'chunkyard.config.yaml');
  writeFileSync(config, '');
  truncateSync(config, 600 * 2 ** 20);
  expect(() => createBackend({ folder: null, configFile: config, env: {} })).toThrow(
    new ConfigError(config, null, 'too large to read as text (600.0 MiB; a file is read whole, into at most 512 Mi characters)'),
  );
});
