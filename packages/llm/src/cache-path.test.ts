// Where LlmCache puts an entry, for any model name the config accepts (issue 15 probe): `..`
// put the entries in the cache folder's parent, `.` straight in the cache folder, and a
// 300-character name failed every write with ENAMETOOLONG after the model had answered.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LlmCache, type CacheKeyParts } from './index.js';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-llm-path-'));
  dir = join(root, 'cache');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const partsOf = (model: string): CacheKeyParts => ({ provider: 'ollama', model, temperature: 0.2, promptSha256: 'p'.repeat(64), contentSha256: 'c'.repeat(64) });

describe('LlmCache entry paths', () => {
  it.each([['..'], ['.'], ['...'], ['.hidden'], ['m'.repeat(300)], ['é'.repeat(200)], ['a/../..']])('model %s: the entry is written inside the cache, and served back', (model) => {
    const cache = new LlmCache(dir);
    cache.put(partsOf(model), 'a lead sentence');
    expect(readdirSync(root)).toEqual(['cache']);
    expect(new LlmCache(dir).get(partsOf(model))).toBe('a lead sentence');
  });

  it('names that were safe keep their folder, so existing caches stay valid', () => {
    const cache = new LlmCache(dir);
    expect(relative(dir, cache.fileOf(partsOf('llama3.2:8b'))).split(sep)[0]).toBe('llama3.2_8b');
    expect(relative(dir, cache.fileOf(partsOf('org/model-v1.5'))).split(sep)[0]).toBe('org_model-v1.5');
  });

  it('any model name: three segments below the cache folder, none hidden or `..`, each a file name a file system takes', () => {
    const cache = new LlmCache('/cache');
    const names = fc.oneof(fc.string({ maxLength: 400, unit: 'binary' }), fc.stringMatching(/^[./a-z]{0,12}$/));
    fc.assert(
      fc.property(names, (model) => {
        const segments = relative('/cache', cache.fileOf(partsOf(model))).split(sep);
        expect(segments).toHaveLength(3);
        for (const s of segments) {
          expect(s.startsWith('.')).toBe(false);
          expect(Buffer.byteLength(s)).toBeGreaterThan(0);
          expect(Buffer.byteLength(s)).toBeLessThanOrEqual(255);
        }
      }),
    );
  });
});
