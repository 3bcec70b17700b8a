import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { EmbeddingCache, embedThroughCache } from '@chunkyard/embedding-cache';
import { createProvider, type EmbeddingProvider } from '@chunkyard/embeddings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocsClient } from './client.js';
import { CACHE_DIR, createBackend } from './embed.js';
import { PACK_MAGIC, PackedCache, readPack } from './pack-cache.js';
import { search } from './retrieve.js';
import { FolderSource } from './source.js';
import { buildFixtureDocs, SAMPLE_QUESTIONS, type FixtureDocs } from './test-fixture-docs.js';

// The Nx plugin's own pack writer (the real one, not a copy of its format).
const { packFolder } = createRequire(import.meta.url)('../../nx/src/executor.cjs') as { packFolder: (dir: string) => Buffer | undefined };

let fx: FixtureDocs;
beforeAll(async () => {
  fx = await buildFixtureDocs({ technical: ['deployment/native-aot'], questions: SAMPLE_QUESTIONS });
}, 120_000);
afterAll(() => fx?.cleanup());

const manifestOf = (topic: string) => JSON.parse(readFileSync(join(fx.docs, topic, '_chunks/golden-reference.json'), 'utf8')) as { sourceSha256: string; strategyKey: string; chunks: { embedText: string }[] };

function recording(provider: EmbeddingProvider): { provider: EmbeddingProvider; texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    provider: { provider: provider.provider, model: provider.model, embed: async (t: string[]) => (texts.push(...t), provider.embed(t)) } as EmbeddingProvider,
  };
}

/** A workspace as a machine has it after restoring every topic's spec from the Nx cache: packs, no folders. */
async function packedWorkspace(): Promise<{ workspace: string; topics: string[] }> {
  const workspace = mkdtempSync(join(tmpdir(), 'cy-packs-'));
  cpSync(fx.docs, join(workspace, 'docs'), { recursive: true });
  writeFileSync(join(workspace, 'nx.json'), '{}\n');
  const real = createProvider({ provider: 'local' });
  const topics = (await new DocsClient(new FolderSource(join(workspace, 'docs'))).topics()).map((t) => t.id);
  for (const id of topics) {
    const m = manifestOf(id);
    const dir = join(workspace, CACHE_DIR, `topic-${id.replace(/\//g, '-')}`);
    await embedThroughCache(new EmbeddingCache(dir), real, { strategyKey: m.strategyKey, fileHash: m.sourceSha256 }, m.chunks.map((c) => c.embedText));
    writeFileSync(`${dir}.pack`, packFolder(dir)!);
    rmSync(dir, { recursive: true });
  }
  return { workspace, topics };
}

describe("the Nx plugin's packed caches (.embedding-cache/<project>.pack)", () => {
  it('are read before anything is embedded, and left as they are', async () => {
    const { workspace, topics } = await packedWorkspace();
    try {
      const backend = createBackend({ folder: join(workspace, 'docs') });
      expect(backend.buildCaches).toHaveLength(0); // no folders: only packs
      expect(backend.buildPacks).toHaveLength(topics.length);
      const before = topics.map((id) => readFileSync(join(workspace, CACHE_DIR, `topic-${id.replace(/\//g, '-')}.pack`)));
      const real = createProvider({ provider: 'local' });
      const rec = recording(real);
      const client = new DocsClient(new FolderSource(join(workspace, 'docs')));
      const query = 'Which garbage collector settings does trimming remove from the app?';
      const r = await search(client, { query, n: 3, maxDistance: 0, embeddings: () => ({ ...backend, provider: rec.provider }) });
      expect(r.method).toBe('embedding');
      expect(rec.texts).toEqual([query]); // every chunk vector came from a pack
      // Same answer as embedding every chunk.
      const fresh = await search(client, { query, n: 3, maxDistance: 0, embeddings: () => ({ provider: real, cache: null, configFile: null }) });
      expect(r.chunks.map((c) => [c.topic, c.index])).toEqual(fresh.chunks.map((c) => [c.topic, c.index]));
      // Nothing was written: no root cache entry, packs unchanged, no folder unpacked.
      const m = manifestOf(topics[0]!);
      expect(existsSync(backend.cache!.documentDir({ strategyKey: m.strategyKey, model: real.model, fileHash: m.sourceSha256 }))).toBe(false);
      topics.forEach((id, i) => {
        expect(readFileSync(join(workspace, CACHE_DIR, `topic-${id.replace(/\//g, '-')}.pack`)).equals(before[i]!)).toBe(true);
        expect(existsSync(join(workspace, CACHE_DIR, `topic-${id.replace(/\//g, '-')}`))).toBe(false);
      });
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('a damaged pack or entry is a miss (the chunks are embedded), never an error', async () => {
    const { workspace, topics } = await packedWorkspace();
    try {
      const id = topics[0]!;
      const file = join(workspace, CACHE_DIR, `topic-${id.replace(/\//g, '-')}.pack`);
      const m = manifestOf(id);
      const texts = m.chunks.map((c) => c.embedText);
      const model = createProvider({ provider: 'local' }).model;
      const key = { strategyKey: m.strategyKey, model, fileHash: m.sourceSha256 };
      const good = readFileSync(file);
      expect(new PackedCache(file).getDocument(key, texts)).toHaveLength(texts.length);
      // One flipped byte inside the last vector: its bytes hash no longer matches.
      const flipped = Buffer.from(good);
      flipped[flipped.length - 3] = flipped[flipped.length - 3]! ^ 0x55;
      writeFileSync(file, flipped);
      expect(new PackedCache(file).getDocument(key, texts)).toBeNull();
      writeFileSync(file, good.subarray(0, good.length - 10)); // truncated
      expect(new PackedCache(file).getDocument(key, texts)).toBeNull();
      writeFileSync(file, good);
      expect(new PackedCache(file).getDocument(key, [...texts.slice(1), 'changed'])).toBeNull(); // other texts
      expect(new PackedCache(file).getDocument({ ...key, model: 'other' }, texts)).toBeNull();
      expect(new PackedCache(join(workspace, 'missing.pack')).getDocument(key, texts)).toBeNull();
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

describe('readPack', () => {
  it("reads back what the Nx plugin's packFolder wrote, file for file", () => {
    const dir = mkdtempSync(join(tmpdir(), 'cy-pack-'));
    try {
      // Folders are d…, files f….bin: a name is never both a file and a folder.
      const path = fc.tuple(fc.option(fc.stringMatching(/^d[a-z0-9_-]{0,6}$/), { nil: undefined }), fc.stringMatching(/^f[a-z0-9_-]{0,6}$/)).map(([d, f]) => (d ? `${d}/${f}.bin` : `${f}.bin`));
      fc.assert(
        fc.property(fc.dictionary(path, fc.uint8Array({ maxLength: 64 }), { minKeys: 1, maxKeys: 6 }), (tree) => {
          const root = mkdtempSync(join(dir, 't-'));
          for (const [p, bytes] of Object.entries(tree)) {
            mkdirSync(dirname(join(root, p)), { recursive: true });
            writeFileSync(join(root, p), bytes);
          }
          const files = readPack(packFolder(root)!);
          expect(files).not.toBeNull();
          expect([...files!.keys()].sort()).toEqual(Object.keys(tree).sort());
          for (const [p, bytes] of files!) expect(Buffer.from(bytes).equals(Buffer.from(tree[p]!))).toBe(true);
        }),
        { numRuns: 40 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses what is not a pack, a truncated file and a path that leaves the folder', () => {
    const pack = (entries: [string, string][]) => Buffer.from(PACK_MAGIC + entries.map(([p, b]) => `${Buffer.byteLength(b)} ${p}\n${b}`).join(''));
    expect(Buffer.from(readPack(pack([['a/b.bin', 'xyz']]))!.get('a/b.bin')!).toString()).toBe('xyz');
    expect(readPack(Buffer.from('chunkyard-pack 2\n'))).toBeNull();
    expect(readPack(pack([['../x', 'a']]))).toBeNull();
    expect(readPack(pack([['/x', 'a']]))).toBeNull();
    expect(readPack(pack([['a/./x', 'a']]))).toBeNull();
    expect(readPack(pack([['a\\x', 'a']]))).toBeNull();
    expect(readPack(pack([['a', 'abcdef']]).subarray(0, PACK_MAGIC.length + 8))).toBeNull();
  });
});
