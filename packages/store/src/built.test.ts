// Loading built docs: the real chunking-tool writes _chunks/, the real cache is filled the
// way the spec target fills it, and the store is then loaded with a provider that cannot
// answer, which proves every vector came from the cache.
import { cpSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { EmbeddingCache, embedThroughCache, projectCacheFolderName, type PartialEmbedding } from '@chunkyard/embedding-cache';
import { cacheBatchSize, createProvider, EmbeddingError } from '@chunkyard/embeddings';
import { afterAnswer, fakeVector, sendJson, startServer } from '../../embeddings/src/test-server.js';
import { main as chunkingTool } from '../../../apps/chunking-tool/src/main.js';
import { cachedVectors, readBuiltTopic, type BuiltSource, type CacheStats } from './built.js';
import { InputError } from './errors.js';
import { DocStore } from './store.js';
import { localProvider, makeTempDir, REPO_ROOT, unreachableProvider } from './test-helpers.js';

// The Nx plugin's own pack writer (the real one, not a copy of its format).
const { packFolder } = createRequire(import.meta.url)('../../nx/src/executor.cjs') as { packFolder: (dir: string) => Buffer | undefined };

let temp: ReturnType<typeof makeTempDir>;
let topicDir: string;
let source: BuiltSource;
beforeEach(async () => {
  temp = makeTempDir();
  topicDir = join(temp.dir, 'docs', 'native-aot');
  cpSync(join(REPO_ROOT, 'docs/deployment/native-aot'), topicDir, { recursive: true, filter: (p) => !p.includes('_chunks') });
  const quiet = { stdout: () => {}, stderr: () => {} };
  expect(await chunkingTool([topicDir], quiet)).toBe(0);
  source = { topicDir, topic: 'docs/native-aot', sourceSystem: 'file', displayOf: (s) => `docs/native-aot/${s}`, sourceIdOf: (s) => `docs/native-aot/${s}` };
});
afterEach(() => temp.cleanup());

it('loads _chunks/ manifests with vectors from .embedding-cache/, embedding nothing', async () => {
  const cache = new EmbeddingCache(join(temp.dir, '.embedding-cache'));
  const provider = localProvider();
  const [doc] = readBuiltTopic(source);
  const manifest = JSON.parse(readFileSync(join(topicDir, '_chunks', 'golden-reference.json'), 'utf8')) as { strategyKey: string; sourceSha256: string; chunks: { embedText: string }[] };
  const built = await embedThroughCache(cache, provider, { strategyKey: manifest.strategyKey, fileHash: manifest.sourceSha256 }, manifest.chunks.map((c) => c.embedText));

  const store = DocStore.open(join(temp.dir, 'store.db'));
  const stats: CacheStats = { documentHits: 0, textHits: 0, embedded: 0 };
  const failing = unreachableProvider();
  const [out] = await store.ingestPlans([doc!.plan], failing.model, cachedVectors(cache, failing, stats, { batchSize: cacheBatchSize() }));
  expect(stats).toEqual({ documentHits: 1, textHits: 0, embedded: 0 });
  expect(out).toMatchObject({ status: 'created', isChunked: true, numChunks: manifest.chunks.length });
  const rows = store.db.prepare('SELECT record_id, embedding FROM artifact_chunks ORDER BY chunk_index').all() as { record_id: string; embedding: Buffer }[];
  expect(rows.map((r) => r.record_id)).toEqual(doc!.manifest.chunks.map((c) => c.id));
  rows.forEach((r, i) => expect(new Uint8Array(r.embedding)).toEqual(new Uint8Array(built.vectors[i]!.buffer)));
  // The same artifact id as ingesting the source file itself, so either replaces the other.
  const [hit] = await store.search('native AOT', { mode: 'hybrid', embedder: provider, limit: 1 });
  expect(hit!.sourceFile).toBe('docs/native-aot/golden-reference.md');
  store.close();
});

it("reads the per-topic caches an Nx build leaves below the cache (.embedding-cache/<project>/, and <project>.pack alone after an Nx cache restore), embedding nothing and writing none of them", async () => {
  const root = join(temp.dir, '.embedding-cache');
  // Where the Nx plugin points topic-spec (--cache-dir), filled the way topic-spec fills it.
  const project = join(root, projectCacheFolderName('topic-docs-native-aot'));
  const [doc] = readBuiltTopic(source);
  const { manifest } = doc!;
  const built = await embedThroughCache(new EmbeddingCache(project), localProvider(), { strategyKey: manifest.strategyKey, fileHash: manifest.sourceSha256 }, manifest.chunks.map((c) => c.embedText));
  const pack = `${project}.pack`;
  writeFileSync(pack, packFolder(project)!);
  const packBytes = readFileSync(pack);

  for (const layout of ['folder and pack', 'pack only']) {
    if (layout === 'pack only') rmSync(project, { recursive: true });
    const store = DocStore.open(join(temp.dir, `${layout}.db`));
    const stats: CacheStats = { documentHits: 0, textHits: 0, embedded: 0 };
    const failing = unreachableProvider();
    const [out] = await store.ingestPlans([doc!.plan], failing.model, cachedVectors(new EmbeddingCache(root), failing, stats, { batchSize: cacheBatchSize() }));
    expect(stats, layout).toEqual({ documentHits: 1, textHits: 0, embedded: 0 });
    expect(out).toMatchObject({ status: 'created', numChunks: manifest.chunks.length });
    const rows = store.db.prepare('SELECT embedding FROM artifact_chunks ORDER BY chunk_index').all() as { embedding: Buffer }[];
    rows.forEach((r, i) => expect(new Uint8Array(r.embedding)).toEqual(new Uint8Array(built.vectors[i]!.buffer)));
    store.close();
  }
  // Read only: the build's outputs are as the build left them, and the root cache got nothing.
  expect(readFileSync(pack)).toEqual(packBytes);
  expect(readdirSync(root)).toEqual([basename(pack)]);
});

it('embeds only what the cache lacks, and a failing provider then writes nothing', async () => {
  const cache = new EmbeddingCache(join(temp.dir, '.embedding-cache'));
  const store = DocStore.open(join(temp.dir, 'store.db'));
  const [doc] = readBuiltTopic(source);
  const failing = unreachableProvider();
  await expect(store.ingestPlans([doc!.plan], failing.model, cachedVectors(cache, failing, { documentHits: 0, textHits: 0, embedded: 0 }, { batchSize: cacheBatchSize() }))).rejects.toBeInstanceOf(EmbeddingError);
  expect(store.stats().artifacts).toBe(0);
  const stats: CacheStats = { documentHits: 0, textHits: 0, embedded: 0 };
  await store.ingestPlans([doc!.plan], localProvider().model, cachedVectors(cache, localProvider(), stats, { batchSize: cacheBatchSize() }));
  expect(stats).toEqual({ documentHits: 0, textHits: 0, embedded: doc!.plan.units.length });
  store.close();
});

it('caches each batch the provider answered before a later one failed, and a rerun sends only the rest (issue 15 probe)', async () => {
  // A local server speaking Ollama's embeddings API to the real client; its third request fails.
  let failThird = true;
  const server = await startServer((req, res, n) => {
    const { input } = req.body as { input: string[] };
    if (failThird && n === 2) return sendJson(res, 400, { error: 'the third request fails' });
    sendJson(res, 200, { model: 'm', embeddings: input.map((t) => fakeVector(t)) });
  });
  try {
    // Two texts per request, one at a time, no retries: requests 1 and 2 carry the first four texts.
    const settings = { provider: 'ollama', host: server.origin, batchSize: 2, concurrency: 1, maxRetries: 0 } as const;
    const provider = createProvider(settings, {});
    const cache = new EmbeddingCache(join(temp.dir, '.embedding-cache'));
    const [doc] = readBuiltTopic(source);
    const texts = [...new Set(doc!.plan.units.map((u) => u.embedText))];
    expect(texts.length).toBeGreaterThan(6);
    const store = DocStore.open(join(temp.dir, 'store.db'));
    const stats = (): CacheStats => ({ documentHits: 0, textHits: 0, embedded: 0 });
    await expect(store.ingestPlans([doc!.plan], provider.model, cachedVectors(cache, provider, stats(), { batchSize: cacheBatchSize(settings) }))).rejects.toThrow(/third request fails/);
    expect(texts.map((t) => cache.getText(provider.model, t) !== null)).toEqual(texts.map((_, i) => i < 4));

    failThird = false;
    const sent = server.requests.length;
    const again = stats();
    const [out] = await store.ingestPlans([doc!.plan], provider.model, cachedVectors(cache, provider, again, { batchSize: cacheBatchSize(settings) }));
    expect(server.requests.slice(sent).flatMap((r) => (r.body as { input: string[] }).input)).toEqual(texts.slice(4));
    expect(again).toMatchObject({ documentHits: 0, embedded: texts.length - 4 });
    expect(out).toMatchObject({ status: 'created', numChunks: doc!.plan.units.length });
    store.close();
  } finally {
    await server.close();
  }
});

it('with two requests in flight, one failing (400) after the other came back: the other\'s vectors are cached, the error is the provider\'s, and a rerun sends only the rest', async () => {
  const [doc] = readBuiltTopic(source);
  const texts = [...new Set(doc!.plan.units.map((u) => u.embedText))];
  expect(texts.length).toBeGreaterThan(4);
  // The first call carries texts 0–3, two per request, side by side: the request holding text 0 fails.
  let failing = true;
  const other = afterAnswer();
  const server = await startServer(async (req, res) => {
    const { input } = req.body as { input: string[] };
    if (failing && input.includes(texts[0]!)) {
      await other.held();
      return sendJson(res, 400, { error: 'input length exceeds the context length' });
    }
    other.release(res);
    sendJson(res, 200, { model: 'm', embeddings: input.map((t) => fakeVector(t)) });
  });
  try {
    const settings = { provider: 'ollama', host: server.origin, batchSize: 2, concurrency: 2, maxRetries: 0 } as const;
    const provider = createProvider(settings, {});
    const cache = new EmbeddingCache(join(temp.dir, '.embedding-cache'));
    const store = DocStore.open(join(temp.dir, 'store.db'));
    const stats = (): CacheStats => ({ documentHits: 0, textHits: 0, embedded: 0 });
    const err = await store.ingestPlans([doc!.plan], provider.model, cachedVectors(cache, provider, stats(), { batchSize: cacheBatchSize(settings) })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddingError);
    // What the provider throws is what embedThroughCache takes the vectors from (checked by tsc).
    void ((err as EmbeddingError) satisfies PartialEmbedding);
    expect((err as Error).message).toMatch(
      /^ollama embeddings \(http:\/\/127\.0\.0\.1:\d+\/api\/embed\): HTTP 400: input length exceeds the context length\. A text is longer than the model takes \(the longest of this request, \d+ characters, starts "Native AOT deployment overview > .*"\): shorten it \(lower chunking\.maxTokens for chunks; a qa-pairs\.md question is embedded whole\), or choose a model with a longer context\.$/,
    );
    expect(server.requests).toHaveLength(2);
    expect(texts.map((t) => cache.getText(provider.model, t) !== null)).toEqual(texts.map((_, i) => i === 2 || i === 3));

    failing = false;
    const sent = server.requests.length;
    const again = stats();
    const [out] = await store.ingestPlans([doc!.plan], provider.model, cachedVectors(cache, provider, again, { batchSize: cacheBatchSize(settings) }));
    expect(server.requests.slice(sent).flatMap((r) => (r.body as { input: string[] }).input).sort()).toEqual(texts.filter((_, i) => i !== 2 && i !== 3).sort());
    expect(again).toMatchObject({ documentHits: 0, textHits: 2, embedded: texts.length - 2 });
    expect(out).toMatchObject({ status: 'created', numChunks: doc!.plan.units.length });
    store.close();
  } finally {
    await server.close();
  }
});

it('refuses a stale manifest (source edited after the build)', () => {
  writeFileSync(join(topicDir, 'golden-reference.md'), `${readFileSync(join(topicDir, 'golden-reference.md'), 'utf8')}\nEdited.\n`);
  expect(() => readBuiltTopic(source)).toThrow(InputError);
  expect(() => readBuiltTopic(source)).toThrow(/stale: golden-reference\.md changed since it was built/);
});

it('names a manifest that is a link to a secret as not JSON without quoting it (issue 15: JSON.parse quoted the file)', () => {
  const secret = join(temp.dir, 'outside-secret');
  writeFileSync(secret, 'password=hunter2-secret');
  const manifest = join(topicDir, '_chunks', 'golden-reference.json');
  rmSync(manifest);
  symlinkSync(secret, manifest);
  let err: unknown;
  try {
    readBuiltTopic(source);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(InputError);
  expect((err as Error).message).toBe(`${manifest}: not valid JSON (unexpected character at line 1, column 1)`);
  expect((err as Error).message).not.toMatch(/hunter2|password/);
});

it('reads a paginate topic: its pages manifest (chunks.json) is not a chunk manifest (s36 probe: "manifest field source missing")', async () => {
  writeFileSync(join(topicDir, 'topic.yaml'), 'chunking:\n  strategy: paginate\n');
  expect(await chunkingTool([topicDir], { stdout: () => {}, stderr: () => {} })).toBe(0);
  expect(readFileSync(join(topicDir, '_chunks', 'chunks.json'), 'utf8')).toContain('"checksum"');
  const docs = readBuiltTopic(source);
  expect(docs.map((d) => d.manifestPath.split('/').pop())).toEqual(['golden-reference.json']);
  expect(docs[0]!.plan.strategyKey).toMatch(/^paginate/);
});
