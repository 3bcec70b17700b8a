// ingestRefs with the built docs' staged vectors: a document whose entry folder is in the
// cache is staged on that look alone (its manifest is read only for the write), so an entry
// that is there but does not hold (a chunk file cut short, one missing, one of another length)
// must still end in a stored document with the right vectors: the write is dropped, the
// document staged in full (re-embedding what the entry lacked) and written.
import { cpSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { EmbeddingCache, embedThroughCache } from '@chunkyard/embedding-cache';
import { cacheBatchSize } from '@chunkyard/embeddings';
import { main as chunkingTool } from '../../../apps/chunking-tool/src/main.js';
import { builtRefs, readBuiltTopic, stagedCachedVectors, type BuiltSource, type CacheStats } from './built.js';
import { DocStore } from './store.js';
import { localProvider, makeTempDir, REPO_ROOT } from './test-helpers.js';

type Damage = { kind: 'truncate' | 'remove' | 'garbage'; at: number };

it('property: whatever damage a cached document entry has, ingestRefs stores the document with the vectors a fresh embedding gives', async () => {
  const temp = makeTempDir();
  try {
    const topicDir = join(temp.dir, 'docs', 'native-aot');
    cpSync(join(REPO_ROOT, 'docs/deployment/native-aot'), topicDir, { recursive: true, filter: (p) => !p.includes('_chunks') });
    expect(await chunkingTool([topicDir], { stdout: () => {}, stderr: () => {} })).toBe(0);
    const source: BuiltSource = { topicDir, topic: 'docs/native-aot', sourceSystem: 'file', displayOf: (s) => `docs/native-aot/${s}`, sourceIdOf: (s) => `docs/native-aot/${s}` };
    const [doc] = readBuiltTopic(source);
    const texts = doc!.plan.units.map((u) => u.embedText);
    const key = { strategyKey: doc!.plan.strategyKey, fileHash: doc!.plan.contentHash };
    const expected = (await embedThroughCache(new EmbeddingCache(join(temp.dir, 'fresh')), localProvider(), key, texts)).vectors;

    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ kind: fc.constantFrom<Damage['kind']>('truncate', 'remove', 'garbage'), at: fc.nat() }), { minLength: 1, maxLength: 4 }),
        async (damages) => {
          run += 1;
          const root = join(temp.dir, `cache-${run}`);
          const cache = new EmbeddingCache(root);
          await embedThroughCache(cache, localProvider(), key, texts);
          const entry = cache.documentDir({ ...key, model: localProvider().model });
          const files = readdirSync(entry).filter((f) => f.endsWith('.bin')).sort();
          for (const { kind, at } of damages) {
            const file = join(entry, files[at % files.length]!);
            if (kind === 'remove') rmSync(file, { force: true });
            else if (kind === 'truncate') writeFileSync(file, Buffer.alloc(5)); // a file cut short (made again if removed before)
            else writeFileSync(file, Buffer.alloc(4096, 7));
          }
          const store = DocStore.open(join(temp.dir, `store-${run}.db`));
          try {
            const stats: CacheStats = { documentHits: 0, textHits: 0, embedded: 0 };
            const [out] = await store.ingestRefs(builtRefs(source), localProvider().model, stagedCachedVectors(cache, localProvider(), stats, { batchSize: cacheBatchSize() }));
            expect(out).toMatchObject({ status: 'created', numChunks: texts.length });
            // Not a document hit: the entry did not hold, and every text was found or embedded again.
            expect(stats.documentHits).toBe(0);
            expect(stats.textHits + stats.embedded).toBe(texts.length);
            const rows = store.db.prepare('SELECT embedding FROM artifact_chunks ORDER BY chunk_index').all() as { embedding: Buffer }[];
            expect(rows).toHaveLength(texts.length);
            rows.forEach((r, i) => expect(new Uint8Array(r.embedding), `chunk ${i}`).toEqual(new Uint8Array(expected[i]!.buffer)));
          } finally {
            store.close();
          }
        },
      ),
      { numRuns: 12 },
    );
    // An undamaged entry is a document hit, and the manifest is read once more, by the write
    // (it was read for staging too: a 9 MB document's 68 MB manifest parsed once more each).
    const store = DocStore.open(join(temp.dir, 'whole.db'));
    const stats: CacheStats = { documentHits: 0, textHits: 0, embedded: 0 };
    const root = join(temp.dir, 'whole-cache');
    await embedThroughCache(new EmbeddingCache(root), localProvider(), key, texts);
    let loads = 0;
    const refs = builtRefs(source).map((ref) => ({ ...ref, load: () => (loads++, ref.load()) }));
    const [out] = await store.ingestRefs(refs, localProvider().model, stagedCachedVectors(new EmbeddingCache(root), localProvider(), stats, { batchSize: cacheBatchSize() }));
    expect(out).toMatchObject({ status: 'created', numChunks: texts.length });
    expect(stats).toEqual({ documentHits: 1, textHits: 0, embedded: 0 });
    expect(loads).toBe(1);
    store.close();
  } finally {
    temp.cleanup();
  }
}, 120_000);
