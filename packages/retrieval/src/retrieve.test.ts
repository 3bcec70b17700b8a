// Retrieval end to end over a real fixture workspace: disclosure reads the chunk files, prompt
// matching finds stored questions, the embedding fallback runs the real local embedder through
// the workspace's .embedding-cache (keyed as the build-time spec step keys it).
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddingCache, embedThroughCache } from '@chunkyard/embedding-cache';
import { createProvider, type EmbeddingProvider } from '@chunkyard/embeddings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocsClient } from './client.js';
import { CACHE_DIR, createBackend, findWorkspaceRoot, type EmbeddingBackend } from './embed.js';
import { BOUNDARY_SEPARATOR } from './expand.js';
import { bm25Terms, rankHybrid } from './hybrid.js';
import { mergeHits, trimSegments, windowScores } from './routes.js';
import { discloseTopics, search } from './retrieve.js';
import { FolderSource } from './source.js';
import { buildFixtureDocs, SAMPLE_QUESTIONS, type FixtureDocs } from './test-fixture-docs.js';

let fx: FixtureDocs;
beforeAll(async () => {
  fx = await buildFixtureDocs({ technical: ['deployment/native-aot'], questions: SAMPLE_QUESTIONS });
});
afterAll(() => fx?.cleanup());

const readChunk = (topic: string, i: number) => readFileSync(join(fx.docs, topic, `_chunks/golden-reference-${i}.md`), 'utf8');
const manifestOf = (topic: string) => JSON.parse(readFileSync(join(fx.docs, topic, '_chunks/golden-reference.json'), 'utf8')) as { sourceSha256: string; strategyKey: string; chunks: { embedText: string }[] };

/** The real local provider, recording what it is asked to embed (an observer, not a stand-in). */
function recording(provider: EmbeddingProvider): { provider: EmbeddingProvider; texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    provider: {
      provider: provider.provider,
      model: provider.model,
      dimensions: provider.dimensions,
      embed: (batch, options) => {
        texts.push(...batch);
        return provider.embed(batch, options);
      },
    },
  };
}

describe('discloseTopics', () => {
  it('returns the first n of each stripe order, read from the chunk files', async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    const out = await discloseTopics(client, { n: 3, withBaseline: true });
    expect(out).toHaveLength(7);
    for (const d of out) {
      const index = JSON.parse(readFileSync(join(fx.docs, d.topic, 'index.json'), 'utf8')) as { _embedded: { chunks: Record<string, { stripe_order: number[] }> } };
      expect(d.chunks.map((c) => c.index)).toEqual([0, ...index._embedded.chunks['golden-reference']!.stripe_order.slice(0, 3)]);
      for (const c of d.chunks) expect(c.text).toBe(readChunk(d.topic, c.index));
    }
  });

  it('refuses a technical or withBaseline that is not a boolean, which was read as false', async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    await expect(discloseTopics(client, { n: 1, technical: 'yes' as never })).rejects.toThrow(new RangeError('technical must be true or false, got the string "yes"'));
    await expect(discloseTopics(client, { n: 1, withBaseline: 1 as never })).rejects.toThrow(new RangeError('withBaseline must be true or false, got 1'));
  });

  it('uses the technical order where there is one, and says where there is not', async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    const out = await discloseTopics(client, { n: 2, technical: true, topic: 'deployment' });
    expect(out.map((d) => [d.topic, d.order, d.technicalUnavailable])).toEqual([
      ['deployment/native-aot', 'technical', false],
      ['deployment/trimming-options', 'conceptual', true],
    ]);
    expect(out[0]!.chunks.map((c) => c.index)).not.toContain(1);
  });

  it('expands each chunk by k neighbours', async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    const [d] = await discloseTopics(client, { n: 1, topic: 'libraries/system-text-json-source-generation', k: 1 });
    const c = d!.chunks[0]!;
    expect(c.span).toEqual({ from: c.index - 1, to: Math.min(c.index + 1, d!.count - 1) });
    expect(c.text.split(BOUNDARY_SEPARATOR)).toHaveLength(c.span.to - c.span.from + 1);
    expect(c.text).toContain(readChunk(d!.topic, c.index).slice(-200));
  });
});

describe('search', () => {
  it('matches a stored question (distance 0) and its paraphrases by SimHash, without embedding', async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    for (const q of SAMPLE_QUESTIONS) {
      const where = fx.questionChunks.get(q.question)!;
      const r = await search(client, { query: q.question, maxDistance: 0, embeddings: null });
      expect(r.method).toBe('prompt');
      expect(r.chunks[0]).toMatchObject({ topic: where.topic, index: where.index, score: { kind: 'hamming', distance: 0 } });
      expect(r.chunks[0]!.text).toBe(readChunk(where.topic, where.index));
    }
    // A reworded question with the same content words hashes the same (stop words, case, punctuation ignored).
    const r = await search(client, { query: 'how to PUBLISH an app as native aot', maxDistance: 0, embeddings: null });
    expect(r.chunks[0]).toMatchObject({ topic: 'deployment/native-aot', score: { distance: 0 } });
  });

  it('with nothing within the distance and no fallback, returns nothing', async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    const r = await search(client, { query: 'Which garbage collector modes exist?', maxDistance: 0, embeddings: null });
    expect(r).toMatchObject({ method: 'none', chunks: [] });
  });

  it('falls back to embedding similarity, through the cache entries the spec step writes', async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    const real = createProvider({ provider: 'local' });
    // Warm the cache as the build-time spec step does: document key from the manifest.
    const cache = new EmbeddingCache(join(fx.workspace, CACHE_DIR));
    for (const t of await client.topics()) {
      const m = manifestOf(t.id);
      await embedThroughCache(cache, real, { strategyKey: m.strategyKey, fileHash: m.sourceSha256 }, m.chunks.map((c) => c.embedText));
    }
    const rec = recording(real);
    const backend: EmbeddingBackend = { provider: rec.provider, cache, configFile: null };
    const query = 'Which garbage collector settings does trimming remove from the app?';
    const r = await search(client, { query, n: 4, maxDistance: 0, embeddings: () => backend, ranking: 'embedding' });
    expect(r.method).toBe('embedding');
    expect(r.model).toBe(real.model);
    expect(rec.texts).toEqual([query]); // every chunk vector came from the cache
    expect(r.chunks).toHaveLength(4);
    const sims = r.chunks.map((c) => (c.score?.kind === 'cosine' ? c.score.similarity : NaN));
    expect([...sims].sort((a, b) => b - a)).toEqual(sims);
    // Against an independent brute-force ranking with the same embedder:
    const [qv] = await real.embed([query]);
    let best = { topic: '', index: -1, s: -Infinity };
    for (const t of await client.topics()) {
      const vs = await real.embed(manifestOf(t.id).chunks.map((c) => c.embedText));
      vs.forEach((v, index) => {
        let dot = 0, a = 0, b = 0;
        for (let i = 0; i < v.length; i++) (dot += v[i]! * qv![i]!), (a += v[i]! ** 2), (b += qv![i]! ** 2);
        const s = dot / Math.sqrt(a * b);
        if (s > best.s) best = { topic: t.id, index, s };
      });
    }
    expect(r.chunks[0]).toMatchObject({ topic: best.topic, index: best.index });
    expect(sims[0]).toBeCloseTo(best.s, 5);
  });

  it('from a folder in a workspace, the default backend fills and then reuses .embedding-cache', async () => {
    expect(findWorkspaceRoot(fx.docs)).toBe(fx.workspace);
    const client = new DocsClient(new FolderSource(fx.docs));
    const backend = createBackend({ folder: fx.docs });
    expect(backend.configFile).toBe(join(fx.workspace, 'chunkyard.config.yaml'));
    const topic = 'deployment/trimming-options';
    const m = manifestOf(topic);
    const entry = backend.cache!.documentDir({ strategyKey: m.strategyKey, model: backend.provider.model, fileHash: m.sourceSha256 });
    const r = await search(client, { query: 'Which garbage collector settings are removed?', topic, maxDistance: 0, embeddings: () => backend });
    expect(r.method).toBe('embedding');
    expect(r.chunks.every((c) => c.topic === topic)).toBe(true);
    expect(existsSync(join(entry, 'metadata.json'))).toBe(true);
  });

  it("reads the Nx plugin's per-topic caches (.embedding-cache/<project>/) before embedding anything", async () => {
    // A workspace built by the Nx plugin: spec wrote each topic's vectors into a cache of its own.
    const workspace = mkdtempSync(join(tmpdir(), 'cy-topic-caches-'));
    try {
      cpSync(fx.docs, join(workspace, 'docs'), { recursive: true });
      writeFileSync(join(workspace, 'nx.json'), '{}\n');
      const real = createProvider({ provider: 'local' });
      const client = new DocsClient(new FolderSource(join(workspace, 'docs')));
      const topics = await client.topics();
      for (const t of topics) {
        const m = manifestOf(t.id);
        const own = new EmbeddingCache(join(workspace, CACHE_DIR, `topic-${t.id.replace(/\//g, '-')}`));
        await embedThroughCache(own, real, { strategyKey: m.strategyKey, fileHash: m.sourceSha256 }, m.chunks.map((c) => c.embedText));
      }
      const backend = createBackend({ folder: join(workspace, 'docs') });
      expect(backend.buildCaches).toHaveLength(topics.length);
      const rec = recording(real);
      const query = 'Which garbage collector settings does trimming remove from the app?';
      const r = await search(client, { query, n: 3, maxDistance: 0, embeddings: () => ({ ...backend, provider: rec.provider }) });
      expect(r.method).toBe('embedding');
      expect(rec.texts).toEqual([query]); // every chunk vector came from a topic's cache
      // Nothing was copied into the root cache either.
      const m = manifestOf(topics[0]!.id);
      expect(existsSync(backend.cache!.documentDir({ strategyKey: m.strategyKey, model: real.model, fileHash: m.sourceSha256 }))).toBe(false);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("with ranking 'hybrid' and routes off, ranks every chunk searched by cosine + BM25 over their embedTexts", async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    const real = createProvider({ provider: 'local' });
    const backend: EmbeddingBackend = { provider: real, cache: null, configFile: null };
    const query = 'Which garbage collector settings does trimming remove from the app?';
    const r = await search(client, { query, n: 3, maxDistance: 0, embeddings: () => backend, ranking: 'hybrid', routes: false });
    expect(r.method).toBe('embedding');
    expect(r.chunks).toHaveLength(3);
    // Every route switched off on its own, with BM25's k1 back at 1.2, is the same ranking.
    const off = await search(client, { query, n: 3, maxDistance: 0, embeddings: () => backend, routes: { windows: [], merge: false, trim: 0, bm25K1: 1.2 } });
    expect(off.chunks).toEqual(r.chunks);
    // Against the pure stage over every chunk of every topic, built independently here.
    const items: { ref: string; vector: Float32Array; text: string }[] = [];
    for (const t of await client.topics()) {
      const texts = manifestOf(t.id).chunks.map((c) => c.embedText);
      (await real.embed(texts)).forEach((vector, i) => items.push({ ref: `${t.id}#${i}`, vector, text: texts[i]! }));
    }
    const [qv] = await real.embed([query]);
    const expected = rankHybrid(query, qv!, items, 3);
    expect(r.chunks.map((c) => `${c.topic}#${c.index}`)).toEqual(expected.map((e) => e.ref));
    r.chunks.forEach((c, i) => expect(c.score).toEqual({ kind: 'hybrid', score: expected[i]!.score, similarity: expected[i]!.similarity, bm25: expected[i]!.bm25 }));
  });

  it('by default runs the routes: window scores, gated small-to-big units of adjacent chunks, trimmed edges', async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    const real = createProvider({ provider: 'local' });
    const backend: EmbeddingBackend = { provider: real, cache: null, configFile: null };
    const query = 'Which garbage collector settings does trimming remove from the app?';
    const r = await search(client, { query, n: 5, maxDistance: 0, embeddings: () => backend });
    expect(r.method).toBe('embedding');
    // Against the pure stages composed here over every chunk of every topic.
    const items: { group: string; index: number; vector: Float32Array; embed: string; text: string }[] = [];
    const chunksOf = new Map<string, { originalText: string; embedText: string; overlapChars: number }[]>();
    for (const t of await client.topics()) {
      const m = JSON.parse(readFileSync(join(fx.docs, t.id, '_chunks/golden-reference.json'), 'utf8')) as { chunks: { originalText: string; embedText: string; overlapChars: number }[] };
      const doc = Object.keys(t.index._embedded.chunks)[0]!;
      chunksOf.set(`${t.id}\0${doc}`, m.chunks);
      (await real.embed(m.chunks.map((c) => c.embedText))).forEach((vector, index) =>
        items.push({ group: `${t.id}\0${doc}`, index, vector, embed: m.chunks[index]!.embedText, text: m.chunks[index]!.originalText }),
      );
    }
    const [qv] = await real.embed([query]);
    const s = windowScores(query, qv!, items);
    const order = items.map((_, i) => i).sort((a, b) => s.fused[b]! - s.fused[a]! || a - b).slice(0, 30);
    const units = mergeHits(order.map((i) => ({ group: items[i]!.group, index: items[i]!.index, score: s.fused[i]! })), 5);
    expect(r.chunks.map((c) => [c.topic, c.index])).toEqual(units.map((u) => [u.group.split('\0')[0], items[order[u.opener]!]!.index]));
    expect(r.chunks.length).toBeLessThanOrEqual(5);
    r.chunks.forEach((c, i) => {
      const u = units[i]!;
      expect(c.span.from).toBeGreaterThanOrEqual(u.first);
      expect(c.span.to).toBeLessThanOrEqual(u.last);
      const all = chunksOf.get(u.group)!;
      const segs = [];
      for (let j = u.first; j <= u.last; j++) segs.push({ index: j, text: j === u.first ? all[j]!.originalText : all[j]!.originalText.slice(all[j]!.overlapChars) });
      expect(c.text).toBe(trimSegments(segs, query, 1, bm25Terms).map((x) => x.text).join(BOUNDARY_SEPARATOR));
      expect(c.score?.kind).toBe('hybrid');
    });
    const scores = r.chunks.map((c) => (c.score?.kind === 'hybrid' ? c.score.score : NaN));
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    // Small-to-big widens the small default chunks: some unit spans several of them, and
    // with the routes off every result is one chunk, as the old hybrid ranking gave.
    expect(r.chunks.some((c) => c.span.to > c.span.from)).toBe(true);
    const plain = await search(client, { query, n: 5, maxDistance: 0, embeddings: () => backend, routes: false });
    expect(plain.chunks.every((c) => c.span.from === c.index && c.span.to === c.index)).toBe(true);
    await expect(search(client, { query, maxDistance: 0, embeddings: () => backend, routes: { trim: -1 } })).rejects.toThrow(/routes.trim/);
  });

  // A query of punctuation or stopwords embeds to a zero vector under the local model and shares
  // no BM25 term with any chunk: every chunk scored 0, and the search returned n of them in file
  // order as if ranked, the routed one merging all 30 of the merge's depth into one unit (s55 probe).
  it('finds nothing for a query that shares nothing with any chunk, under every ranking, and still finds a real query', async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    const backend = createBackend({ folder: fx.docs });
    for (const query of ['!!!', 'the', '?? -- ..']) {
      for (const options of [{}, { routes: false as const }, { ranking: 'embedding' as const }]) {
        const r = await search(client, { query, n: 5, maxDistance: 0, embeddings: () => backend, ...options });
        expect(r.method, query).toBe('embedding');
        expect(r.chunks, `${query} ${JSON.stringify(options)}`).toEqual([]);
      }
    }
    for (const options of [{}, { routes: false as const }, { ranking: 'embedding' as const }]) {
      const r = await search(client, { query: 'Which garbage collector settings are removed?', n: 3, maxDistance: 0, embeddings: () => backend, ...options });
      expect(r.chunks.length, JSON.stringify(options)).toBeGreaterThan(0);
    }
  });

  it('rejects an unknown ranking', async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    // @ts-expect-error: a caller outside TypeScript may pass anything
    await expect(search(client, { query: 'x?', embeddings: null, ranking: 'bm25' })).rejects.toThrow(/ranking must be embedding or hybrid/);
  });

  it('refuses an n, k or routes.trim outside 0..2^53 − 1 or not a number, naming the option and showing a string as one', async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    // "5" was shown as `got 5`, as if 5 were refused; 1e300 was taken.
    const cases: [Record<string, unknown>, string][] = [
      [{ n: '5' }, 'n must be a non-negative integer (0..2^53 − 1), got the string "5"'],
      [{ n: 1e300 }, 'n must be a non-negative integer (0..2^53 − 1), got 1e+300'],
      [{ n: NaN }, 'n must be a non-negative integer (0..2^53 − 1), got NaN'],
      [{ k: 1.5 }, 'k must be a non-negative integer (0..2^53 − 1), got 1.5'],
      [{ k: Infinity }, 'k must be a non-negative integer (0..2^53 − 1), got Infinity'],
    ];
    for (const [opts, message] of cases) {
      await expect(search(client, { query: 'x?', embeddings: null, ...opts }), message).rejects.toThrow(new RangeError(message));
      await expect(discloseTopics(client, { n: 1, ...opts }), message).rejects.toThrow(new RangeError(message));
    }
    const backend = createBackend({ folder: fx.docs });
    await expect(search(client, { query: 'zebra quagga?', maxDistance: 0, embeddings: () => backend, routes: { trim: 0.5 } })).rejects.toThrow(
      new RangeError('routes.trim must be a non-negative integer (0..2^53 − 1), got 0.5'),
    );
    // The largest n finds what there is, with nothing held per n.
    const all = await search(client, { query: 'zebra quagga?', n: Number.MAX_SAFE_INTEGER, maxDistance: 0, embeddings: () => backend, routes: false });
    expect(all.chunks.length).toBe((await search(client, { query: 'zebra quagga?', n: 100_000, maxDistance: 0, embeddings: () => backend, routes: false })).chunks.length);
  });

  it('names a query or ranking that is not a string, and shows a bad ranking escaped and short', async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    // A query of 5 failed as "req.query.trim is not a function"; a ranking with no prototype as
    // "Cannot convert object to primitive value"; a megabyte ranking was quoted whole, raw.
    const cases: [Record<string, unknown>, string][] = [
      [{ query: 5 }, 'the query must be a string, got 5'],
      [{ query: null }, 'the query must be a string, got null'],
      [{ ranking: Object.create(null) }, 'ranking must be embedding or hybrid, got an object'],
      [{ ranking: '\x1b[2J' }, 'ranking must be embedding or hybrid, got the string "\\u001b[2J"'],
      [{ ranking: 'b'.repeat(1_000_000) }, `ranking must be embedding or hybrid, got the string "${'b'.repeat(40)}…"`],
    ];
    for (const [opts, message] of cases) {
      await expect(search(client, { query: 'x?', embeddings: null, ...opts }), message).rejects.toThrow(new RangeError(message));
    }
  });

  it('names a topic filter, embeddings or routes of the wrong type before reading anything', async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    // Each was a TypeError from inside: "filter.slice is not a function", "req.embeddings is
    // not a function", and routes "yes" read String.prototype.trim as routes.trim.
    await expect(client.topics(5 as never)).rejects.toThrow(new RangeError('the topic filter must be a string, got 5'));
    await expect(discloseTopics(client, { n: 1, topic: 5 as never })).rejects.toThrow(new RangeError('the topic filter must be a string, got 5'));
    await expect(search(client, { query: 'x?', maxDistance: 0, topic: 5 as never, embeddings: null })).rejects.toThrow(new RangeError('the topic filter must be a string, got 5'));
    await expect(search(client, { query: 'zebra?', maxDistance: 0, embeddings: 'local' as never })).rejects.toThrow(
      new RangeError('embeddings must be a function giving the backend, or null, got the string "local"'),
    );
    await expect(search(client, { query: 'zebra?', maxDistance: 0, embeddings: null, routes: 'yes' as never })).rejects.toThrow(
      new RangeError('routes must be false or an object of route options, got the string "yes"'),
    );
    // null, as JSON gives for "not set", is every topic.
    expect((await client.topics(null)).length).toBe((await client.topics()).length);
  });

  it('rejects an empty query and a distance beyond 64 bits', async () => {
    const client = new DocsClient(new FolderSource(fx.docs));
    await expect(search(client, { query: '  ', embeddings: null })).rejects.toThrow(/query is empty/);
    await expect(search(client, { query: 'x?', maxDistance: 65, embeddings: null })).rejects.toThrow(/0..64/);
  });
});
