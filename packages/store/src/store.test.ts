import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countTokens } from '@chunkyard/chunking';
import { EmbeddingError } from '@chunkyard/embeddings';
import { InputError, StoreError } from './errors.js';
import { DocStore, CHUNK_BOUNDARY } from './store.js';
import { DOCS, localProvider, makeTempDir, readDoc, snapshot, tokensDoc, unreachableProvider } from './test-helpers.js';
import { join } from 'node:path';
import { sha256Hex } from './plan.js';

let temp: ReturnType<typeof makeTempDir>;
let store: DocStore;
const provider = localProvider();
beforeEach(() => {
  temp = makeTempDir();
  store = DocStore.open(join(temp.dir, 'store.db'));
});
afterEach(() => {
  store.close();
  temp.cleanup();
});

const fileInput = (rel: string, content = readDoc(rel)) => ({
  content,
  sourceSystem: 'file',
  sourceId: rel,
  sourceFile: rel,
  topic: rel.replace(/\/[^/]+$/, ''),
});

describe('ingest', () => {
  it('stores a document of at most 1200 tokens whole, with its own embedding (seed 004)', async () => {
    const text = tokensDoc(1200);
    expect(countTokens(text)).toBe(1200);
    const [out] = await store.ingest([{ content: text }], provider);
    expect(out).toMatchObject({ artifactId: `art_${sha256Hex(text).slice(0, 8)}`, isChunked: false, numChunks: 0, tokenCount: 1200, status: 'created' });
    const row = store.db.prepare('SELECT content, is_chunked, num_chunks, token_count, length(embedding) AS bytes FROM artifacts').get();
    expect(row).toEqual({ content: text, is_chunked: 0, num_chunks: 0, token_count: 1200, bytes: 512 * 4 });
    expect(store.db.prepare('SELECT count(*) AS n FROM artifact_chunks').get()).toEqual({ n: 0 });
  });

  it('chunks a document of 1201 tokens; the artifact row keeps metadata only', async () => {
    const text = tokensDoc(1201);
    expect(countTokens(text)).toBe(1201);
    const [out] = await store.ingest([{ content: text }], provider);
    expect(out!.isChunked).toBe(true);
    expect(out!.numChunks).toBeGreaterThan(1);
    const a = store.db.prepare('SELECT content, embedding, num_chunks FROM artifacts').get() as { content: string; embedding: Buffer | null; num_chunks: number };
    expect(a).toEqual({ content: '', embedding: null, num_chunks: out!.numChunks });
    expect(out!.storedIds).toHaveLength(out!.numChunks + 1);
  });

  it('derives seed 004 ids and exact offsets for a real document', async () => {
    const rel = DOCS.collections;
    const text = readDoc(rel);
    const [out] = await store.ingest([fileInput(rel)], provider);
    expect(out!.artifactId).toBe(`art_${sha256Hex(`file:${rel}`).slice(0, 8)}`);
    const chunks = store.db.prepare('SELECT id, chunk_index, content, start_char, end_char, token_count, content_hash FROM artifact_chunks ORDER BY chunk_index').all() as {
      id: string; chunk_index: number; content: string; start_char: number; end_char: number; token_count: number; content_hash: string;
    }[];
    expect(chunks.length).toBe(out!.numChunks);
    chunks.forEach((c, i) => {
      expect(c.chunk_index).toBe(i);
      expect(c.content_hash).toBe(sha256Hex(c.content));
      expect(c.id).toBe(`${out!.artifactId}::chunk::${String(i).padStart(3, '0')}::${c.content_hash.slice(0, 8)}`);
      expect(text.slice(c.start_char, c.end_char)).toBe(c.content);
      expect(c.token_count).toBe(countTokens(c.content));
    });
  });

  it('re-ingesting the same content is a no-op; changed content replaces every old chunk', async () => {
    const rel = DOCS.collections;
    await store.ingest([fileInput(rel)], provider);
    const before = snapshot(store);
    const [again] = await store.ingest([fileInput(rel)], provider);
    expect(again!.status).toBe('unchanged');
    expect(snapshot(store)).toEqual(before);

    const oldIds = (store.db.prepare('SELECT id FROM artifact_chunks').all() as { id: string }[]).map((r) => r.id);
    const edited = readDoc(rel).replace(/^## .*$/m, '## A completely rewritten heading about zebras');
    const [changed] = await store.ingest([fileInput(rel, edited)], provider);
    expect(changed!.status).toBe('replaced');
    expect(changed!.artifactId).toBe(again!.artifactId);
    const rows = store.db.prepare('SELECT id, content FROM artifact_chunks ORDER BY chunk_index').all() as { id: string; content: string }[];
    expect(rows.map((r) => r.content).join('')).toContain('zebras');
    expect(rows.length).toBe(changed!.numChunks);
    expect(store.db.prepare('SELECT count(*) AS n FROM artifacts').get()).toEqual({ n: 1 });
    // Only chunks whose text changed get new ids; the stale ones are gone, FTS rows too.
    const newIds = new Set(rows.map((r) => r.id));
    expect(oldIds.some((id) => !newIds.has(id))).toBe(true);
    const ftsIds = (store.db.prepare('SELECT unit_id FROM units_fts').all() as { unit_id: string }[]).map((r) => r.unit_id);
    expect(new Set(ftsIds)).toEqual(newIds);
  });

  it('a failing embedding provider writes nothing, on a first ingest and on a replacement', async () => {
    await expect(store.ingest([{ content: readDoc(DOCS.nativeAot) }], unreachableProvider())).rejects.toBeInstanceOf(EmbeddingError);
    expect(store.stats()).toMatchObject({ artifacts: 0, chunks: 0, embeddingModel: null });

    await store.ingest([fileInput(DOCS.nativeAot)], provider);
    const before = snapshot(store);
    const edited = `${readDoc(DOCS.nativeAot)}\n\n## Appendix\n\nNew text.\n`;
    await expect(store.ingest([fileInput(DOCS.nativeAot, edited), fileInput(DOCS.reflection)], unreachableProvider())).rejects.toBeInstanceOf(EmbeddingError);
    expect(snapshot(store)).toEqual(before);
  });

  it('refuses a second embedding model instead of mixing incomparable vectors', async () => {
    await store.ingest([{ content: 'First document about caching.' }], provider);
    await expect(store.ingest([{ content: 'Second document.' }], localProvider(256))).rejects.toThrow(/holds embeddings of model local-lexical-v1-d512 \(512 dimensions\); this run uses local-lexical-v1-d256/);
    expect(store.stats().artifacts).toBe(1);
  });

  it('refuses two different documents mapping to one artifact id in one call', async () => {
    const a = { content: 'one', sourceSystem: 'file', sourceId: 'same.md' };
    await expect(store.ingest([a, { ...a, content: 'two' }], provider)).rejects.toBeInstanceOf(StoreError);
    expect(store.stats().artifacts).toBe(0);
  });

  it.each([
    ['empty', '', /empty document/],
    ['whitespace', ' \n\t\n', /only whitespace/],
    ['binary', 'PNG\u0000\u0001\u0002', /binary content/],
    ['lone surrogate', 'text \uD800 more', /lone surrogate/],
  ])('rejects %s input with a clear error and stores nothing', async (_name, content, message) => {
    await store.ingest([{ content: 'An existing document.' }], provider);
    const before = snapshot(store);
    const err = await store.ingest([{ content: 'fine', sourceId: 'ok.md' }, { content, sourceFile: 'bad.md' }], provider).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/^bad\.md: /);
    expect((err as Error).message).toMatch(message);
    expect(snapshot(store)).toEqual(before);
  });
});

describe('search and expand', () => {
  beforeEach(async () => {
    await store.ingest([fileInput(DOCS.collections), fileInput(DOCS.polymorphism), fileInput(DOCS.nativeAot), fileInput(DOCS.reflection)], provider);
  });

  it('full-text, vector and hybrid search find the document a query is about', async () => {
    for (const mode of ['fts', 'vector', 'hybrid'] as const) {
      // Hybrid without routes: the reciprocal-rank fusion, whose ranks say which list found a hit.
      const hits = await store.search('polymorphic type discriminator', { mode, embedder: provider, limit: 5, routes: false });
      expect(hits.length, mode).toBeGreaterThan(0);
      expect(hits[0]!.sourceFile, mode).toBe(DOCS.polymorphism);
      expect(hits[0]!.ranks[mode === 'hybrid' ? 'fts' : mode], mode).toBe(1);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    }
    // Hybrid with the routes (the default): routed units, best first.
    const routed = await store.search('polymorphic type discriminator', { embedder: provider, limit: 5 });
    expect(routed[0]!.sourceFile).toBe(DOCS.polymorphism);
    expect(routed[0]!.unit!.text.length).toBeGreaterThan(0);
    for (let i = 1; i < routed.length; i++) expect(routed[i - 1]!.score).toBeGreaterThanOrEqual(routed[i]!.score);
  });

  it('hybrid fuses both lists by reciprocal rank', async () => {
    const hits = await store.search('native AOT trimming warnings', { mode: 'hybrid', embedder: provider, limit: 10, routes: false });
    for (const h of hits) {
      const expected = (h.ranks.fts ? 1 / (60 + h.ranks.fts) : 0) + (h.ranks.vector ? 1 / (60 + h.ranks.vector) : 0);
      expect(h.score).toBeCloseTo(expected, 12);
    }
    expect(hits.some((h) => h.ranks.fts && h.ranks.vector)).toBe(true);
  });

  it('filters by topic, content type and content hints in every mode', async () => {
    for (const mode of ['fts', 'vector', 'hybrid'] as const) {
      const byTopic = await store.search('JSON serialization with trimming', { mode, embedder: provider, limit: 50, filters: { topic: 'native-aot' } });
      expect(byTopic.length, mode).toBeGreaterThan(0);
      expect(new Set(byTopic.map((h) => h.topic))).toEqual(new Set(['docs/deployment/native-aot']));
      const code = await store.search('JsonSerializer options', { mode, embedder: provider, limit: 50, filters: { contentHints: ['code'] } });
      expect(code.length, mode).toBeGreaterThan(0);
      expect(code.every((h) => h.contentHints === 'code')).toBe(true);
      // s39: a content type no document has is said so (it was [], read as "nothing matches").
      await expect(store.search('JSON', { mode, embedder: provider, filters: { contentType: 'email' } })).rejects.toThrow(/^content type "email": no stored document has this content type \(content types: /);
      await expect(store.search('JSON', { mode, embedder: provider, filters: { topic: 'nope' } })).rejects.toThrow(/^topic "nope": no stored topic matches \(topics: /);
    }
  });

  it('a topic filter matches a stored topic whatever its Unicode normalization (s46 probe: "café" typed NFC missed "docs/café" stored NFD)', async () => {
    // A folder name from macOS is NFD (e + U+0301), a typed one NFC (U+00E9): the message then
    // listed a topic that looked exactly like the one given.
    const nfd = 'docs/cafe\u0301';
    await store.ingest([{ content: '# Menu\n\nThe quokka espresso is strong.', sourceSystem: 'file', sourceId: 'menu.md', topic: nfd }], provider);
    for (const mode of ['fts', 'vector', 'hybrid'] as const) {
      for (const topic of ['caf\u00e9', 'docs/caf\u00e9/', 'cafe\u0301']) {
        const hits = await store.search('quokka espresso', { mode, embedder: provider, limit: 5, filters: { topic } });
        expect(hits.map((h) => h.topic), `${mode} ${topic}`).toEqual([nfd]);
      }
      for (const routes of [false] as const) {
        if (mode !== 'hybrid') continue;
        const hits = await store.search('quokka espresso', { mode, embedder: provider, limit: 5, routes, filters: { topic: 'caf\u00e9' } });
        expect(hits.map((h) => h.topic)).toEqual([nfd]);
      }
    }
  });

  it('expands a chunk with ±k neighbours joined by [CHUNK BOUNDARY]', async () => {
    const id = (store.db.prepare("SELECT id FROM artifact_chunks WHERE chunk_index = 3 AND artifact_id = (SELECT id FROM artifacts WHERE source_file = ?)").get(DOCS.polymorphism) as { id: string }).id;
    const rows = store.db.prepare('SELECT content FROM artifact_chunks WHERE artifact_id = (SELECT artifact_id FROM artifact_chunks WHERE id = ?) ORDER BY chunk_index').all(id) as { content: string }[];
    const one = store.expand(id, 1);
    expect(one.chunkIndices).toEqual([2, 3, 4]);
    expect(one.text).toBe([rows[2]!.content, rows[3]!.content, rows[4]!.content].join(`\n${CHUNK_BOUNDARY}\n`));
    expect(store.expand(id, 0).text).toBe(rows[3]!.content);
    expect(store.expand(id, 100).chunkIndices).toEqual(rows.map((_, i) => i));
    const first = (store.db.prepare('SELECT id FROM artifact_chunks WHERE chunk_index = 0 LIMIT 1').get() as { id: string }).id;
    expect(store.expand(first, 2).chunkIndices).toEqual([0, 1, 2]);
    const [hit] = await store.search('polymorphism', { mode: 'fts', limit: 1, expand: 1 });
    expect(hit!.expanded).toContain(hit!.content);
    expect(() => store.expand('art_nope')).toThrow(/no chunk or artifact with id art_nope/);
  });

  it('quotes a huge or hostile chunk id or topic cut short and terminal-safe in its error (issue 15 probe)', async () => {
    // A 3 MB chunk_id came back whole in a 3 MB tool error (docs-store mcp's expand), and so
    // did a topic or content type in search's; an ESC sequence in one reached the terminal raw.
    const huge = `art_${'x'.repeat(3_000_000)}`;
    const message = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error('did not throw');
    };
    expect(message(() => store.expand(huge))).toBe(`no chunk or artifact with id art_${'x'.repeat(96)}… (3000004 characters)`);
    expect(message(() => store.expand('art_\u001b]0;pwned\u0007\u009b2J\u202e'))).toBe('no chunk or artifact with id art_\\u001b]0;pwned\\u0007\\u009b2J\\u202e');
    const chunked = (store.db.prepare('SELECT id FROM artifacts WHERE is_chunked = 1 LIMIT 1').get() as { id: string }).id;
    expect(message(() => store.expand(chunked))).toBe(`${chunked} is a chunked artifact; expand one of its chunk ids (${chunked}::chunk::NNN::…)`);
    for (const mode of ['fts', 'hybrid'] as const) {
      for (const filters of [{ topic: `t${'\u001b[2J'.repeat(1_000_000)}` }, { contentType: `c${'y'.repeat(3_000_000)}` }]) {
        const err = await store.search('JSON', { mode, embedder: provider, filters }).then(() => null, (e: Error) => e);
        expect(err?.message.length, mode).toBeLessThan(1_000);
        expect(err?.message, mode).not.toMatch(/[\u001b\u009b]/);
      }
    }
    await expect(store.search('JSON', { mode: 'fts', filters: { topic: `t${'\u001b[2J'.repeat(1_000_000)}` } })).rejects.toThrow(/^topic "t(\\u001b\[2J){24}\\u001b\[2…" \(4000001 characters\): no stored topic matches/);
  });

  it('errors clearly when the query embedding has another dimension than the stored vectors', async () => {
    await expect(store.search('json', { mode: 'vector', embedder: localProvider(256) })).rejects.toThrow(
      /query embedding has 256 dimensions \(model local-lexical-v1-d256\), but .* holds 512-dimension vectors of model local-lexical-v1-d512/,
    );
    expect((await store.search('json', { mode: 'fts' })).length).toBeGreaterThan(0);
  });

  it('reloads the vector index when another connection committed, and patches it after its own writes', async () => {
    await store.search('json', { mode: 'vector', embedder: provider });
    expect(store.indexLoads).toBe(1);
    const other = DocStore.open(store.path);
    await other.ingest([{ content: 'Zebra migrations across the savanna, a topic no other document covers.', sourceSystem: 'file', sourceId: 'zebra.md' }], provider);
    other.close();
    const [hit] = await store.search('zebra savanna migrations', { mode: 'vector', embedder: provider, limit: 1 });
    expect(hit!.unitId).toBe(`art_${sha256Hex('file:zebra.md').slice(0, 8)}`);
    expect(store.indexLoads).toBe(2);
    await store.ingest([{ content: 'Okapi forests, also covered nowhere else.', sourceSystem: 'file', sourceId: 'okapi.md' }], provider);
    const [okapi] = await store.search('okapi forests', { mode: 'vector', embedder: provider, limit: 1 });
    expect(okapi!.unitId).toBe(`art_${sha256Hex('file:okapi.md').slice(0, 8)}`);
    expect(store.indexLoads).toBe(2);
  });

  it('treats FTS syntax in a query as words', async () => {
    const hits = await store.search('"AOT" AND (trimming* OR -NEAR', { mode: 'fts', limit: 3 });
    expect(hits.length).toBeGreaterThan(0);
  });
});

describe('listing and addressing units (what MCP resources are built on)', () => {
  it('lists every unit in source order without content, and finds each by artifact and chunk index', async () => {
    const [chunked] = await store.ingest([fileInput(DOCS.nativeAot)], provider);
    const [whole] = await store.ingest([{ content: 'A short note.', sourceSystem: 'file', sourceId: 'a-note.md', sourceFile: 'a-note.md' }], provider);
    const all = store.listUnits();
    expect(all).toHaveLength(store.stats().units);
    expect(all[0]).toEqual({ unitId: whole!.artifactId, artifactId: whole!.artifactId, chunkIndex: null, sourceFile: 'a-note.md', title: expect.any(String), sectionTitle: '', topic: null, tokenCount: 4 });
    expect(all.slice(1).map((u) => u.chunkIndex)).toEqual([...Array(chunked!.numChunks).keys()]);
    expect(store.listUnits({ limit: 2, offset: 1 }).map((u) => u.unitId)).toEqual(all.slice(1, 3).map((u) => u.unitId));
    expect(store.unitAt(chunked!.artifactId, 2)?.unitId).toBe(all[3]!.unitId);
    expect(store.unitAt(whole!.artifactId, null)?.content).toBe('A short note.');
    expect(store.unitAt(chunked!.artifactId, null)).toBeUndefined();
    expect(store.unitAt(chunked!.artifactId, 999)).toBeUndefined();
    expect(() => store.listUnits({ limit: -1 })).toThrow(StoreError);
  });
});
