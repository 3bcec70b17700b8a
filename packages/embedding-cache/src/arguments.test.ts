/**
 * embedThroughCache's arguments as a JavaScript caller may get them wrong (issue 15's library
 * probe, from the packed package): each is a TypeError naming the argument, and nothing is written.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddingCache, embedThroughCache, sha256Hex } from './index.js';
import { CountingEmbedder, makeTempRoot } from './test-helpers.js';

let tmp: ReturnType<typeof makeTempRoot>;
let cache: EmbeddingCache;
const KEY = { strategyKey: 'semantic-16-80-512', fileHash: sha256Hex('source') };

beforeEach(() => {
  tmp = makeTempRoot();
  cache = new EmbeddingCache(join(tmp.root, '.embedding-cache'));
});
afterEach(() => tmp.cleanup());

describe('embedThroughCache arguments (issue 15 library probe)', () => {
  it('names the argument that is wrong, where each failed deep inside ("Cannot read properties of null", node:crypto\'s "data" argument)', async () => {
    const embedder = new CountingEmbedder('m');
    const cases: [() => Promise<unknown>, string][] = [
      [() => embedThroughCache(cache, embedder, null as never, ['a']), 'embedding-cache: key must be an object with strategyKey and fileHash, got null'],
      [() => embedThroughCache(cache, embedder, { fileHash: KEY.fileHash } as never, ['a']), 'embedding-cache: key.strategyKey must be a string, got undefined'],
      [() => embedThroughCache(cache, { model: null, embed: embedder.embed } as never, KEY, ['a']), 'embedding-cache: embedder.model must be a string, got null'],
      [() => embedThroughCache(cache, { model: 'm' } as never, KEY, ['a']), 'embedding-cache: embedder.embed must be a function, got undefined'],
      [() => embedThroughCache(cache, null as never, KEY, ['a']), 'embedding-cache: embedder must be an object with model and embed, got null'],
      [() => embedThroughCache(null as never, embedder, KEY, ['a']), 'embedding-cache: cache must be an EmbeddingCache, got null'],
      [() => embedThroughCache(cache, embedder, KEY, 'abc' as never), 'embedding-cache: texts must be an array of strings, got string'],
      [() => embedThroughCache(cache, embedder, KEY, ['a', 5 as never]), 'embedding-cache: texts[1] must be a string, got number'],
      [() => embedThroughCache(cache, embedder, KEY, ['a'], 64 as never), 'embedding-cache: options must be an object, got number'],
      [() => embedThroughCache(cache, embedder, { strategyKey: 'k', fileHash: 'x'.repeat(100_000) }, ['a']), `embedding-cache: fileHash must be a sha256 as 64 lowercase hex characters, got "${'x'.repeat(80)}…"`],
    ];
    for (const [call, message] of cases) await expect(call(), message).rejects.toThrow(new TypeError(message));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(embedThroughCache(cache, embedder, { strategyKey: 'k', fileHash: cyclic as never }, ['a'])).rejects.toThrow(
      new TypeError('embedding-cache: fileHash must be a sha256 as 64 lowercase hex characters, got object'),
    );
    expect(embedder.calls).toEqual([]);
    expect(readdirSync(tmp.root)).toEqual([]);
  });

  it('null options are no options', async () => {
    const result = await embedThroughCache(cache, new CountingEmbedder('m', 8), KEY, ['a', 'b'], null as never);
    expect(result.stats).toEqual({ documentHit: false, textHits: 0, embedded: 2 });
  });
});
