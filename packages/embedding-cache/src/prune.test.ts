// pruneUnused on a root that is not only a cache (issue 15 probe): it removed everything under
// the root that the run had not used, so `topic-spec --cache-dir . --prune-cache` in a
// workspace deleted the topics' sources, the config and the spec it had just written. Only
// what has a cache entry's shape may go; real files on a real file system.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddingCache, embedThroughCache, sha256Hex, TEXT_STORE_DIR } from './index.js';
import { CountingEmbedder, chunkTexts, makeTempRoot, snapshot, walk } from './test-helpers.js';

let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ root, cleanup } = makeTempRoot());
});
afterEach(() => cleanup());

const MODEL = 'nomic-embed-text:latest';
const STRATEGY = 'semantic-64-400-512';

/** Files that are not the cache's: a workspace's, and some in the cache's own folders. */
const FOREIGN: Record<string, string> = {
  'notes.txt': 'precious',
  'chunkyard.config.yaml': 'chunking:\n  maxTokens: 512\n',
  'docs/topic/golden-reference.md': '# Guide\n',
  'docs/topic/_chunks/golden-reference.json': '{}',
  // A folder of 16 hex at an entry's depth, holding what no entry holds.
  'docs/libraries/0123456789abcdef/index.md': '# Not an entry\n',
  // Inside the cache's own layout, but not an entry's file names.
  [`${TEXT_STORE_DIR}/m/ab/README.md`]: 'hand-written',
  [`${STRATEGY}/m/0123456789abcdef/notes.md`]: 'hand-written',
};

function plantForeign(dir: string): void {
  for (const [rel, text] of Object.entries(FOREIGN)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  mkdirSync(join(dir, 'empty-before'), { recursive: true });
}

describe('pruneUnused removes only cache entries (issue 15 probe)', () => {
  it('a root that is a whole workspace: every file that is not an unused entry is kept byte for byte, the unused entries go', async () => {
    const outside = join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.md'), 'outside the root');
    const ws = join(root, 'ws');
    mkdirSync(ws);
    plantForeign(ws);
    symlinkSync(outside, join(ws, 'linked'));
    const embedder = new CountingEmbedder(MODEL, 8);
    const v1 = chunkTexts(5);
    await embedThroughCache(new EmbeddingCache(ws), embedder, { strategyKey: STRATEGY, fileHash: sha256Hex('v1') }, v1);
    const before = snapshot(ws);
    const foreignBefore = before.filter((line) => !line.startsWith(`${STRATEGY}/nomic`) && !line.startsWith(`${TEXT_STORE_DIR}/nomic`));

    const run = new EmbeddingCache(ws);
    run.trackUse();
    const v2 = [...v1.slice(0, 4), 'an edited chunk'];
    await embedThroughCache(run, embedder, { strategyKey: STRATEGY, fileHash: sha256Hex('v2') }, v2);
    expect(run.pruneUnused()).toBe(1 + 5 + 1); // v1's entry (metadata + 5 vectors) and the edited-away text

    const after = snapshot(ws);
    for (const line of foreignBefore) expect(after).toContain(line);
    expect(walk(outside)).toEqual(['keep.md']);
    expect(run.getDocument({ strategyKey: STRATEGY, model: MODEL, fileHash: sha256Hex('v2') }, v2)).not.toBeNull();
    expect(run.getDocument({ strategyKey: STRATEGY, model: MODEL, fileHash: sha256Hex('v1') }, v1)).toBeNull();
  });

  it('whatever foreign files sit among the entries, pruning an unused cache removes exactly the entries', async () => {
    // Names an entry never has, at every depth of the layout.
    const segment = fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/).filter((s) => s !== '.' && s !== '..');
    const foreignPath = fc.oneof(
      fc.tuple(segment),
      fc.tuple(fc.constantFrom(TEXT_STORE_DIR, STRATEGY), segment),
      fc.tuple(fc.constant(TEXT_STORE_DIR), segment, fc.constantFrom('ab', '00', 'zz'), segment),
      fc.tuple(fc.constant(STRATEGY), segment, fc.constantFrom('0123456789abcdef', 'ffffffffffffffff'), segment),
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(foreignPath, { maxLength: 6, selector: (p) => p.join('/') }), async (paths) => {
        const dir = join(root, `case-${n++}`);
        const cache = new EmbeddingCache(dir);
        await embedThroughCache(cache, new CountingEmbedder(MODEL, 4), { strategyKey: STRATEGY, fileHash: sha256Hex('doc') }, chunkTexts(2));
        const planted: string[] = [];
        for (const parts of paths) {
          const rel = parts.join('/');
          // An entry's own names are not foreign; a path through a planted file cannot be made.
          if (/^[0-9a-f]{64}\.bin$|^metadata\.json$|^chunk-\d+\.bin$/.test(parts.at(-1)!)) continue;
          try {
            mkdirSync(join(dir, ...parts.slice(0, -1)), { recursive: true });
            writeFileSync(join(dir, rel), rel);
            planted.push(rel);
          } catch {
            // A planted file is in the way of this path: skip it.
          }
        }
        const pruner = new EmbeddingCache(dir);
        pruner.trackUse();
        expect(pruner.pruneUnused()).toBe(3 + 2); // the entry (metadata + 2 vectors), its 2 texts
        const left = walk(dir).filter((p) => !p.endsWith('/'));
        expect(left.sort()).toEqual([...planted].sort());
      }),
      { numRuns: 40 },
    );
  });
});
