// A cache that cannot be written (the lead's decision, issue 15): a read-only folder
// (EACCES/EROFS), a full disk (ENOSPC) or a file size limit (EFBIG) must not fail the build.
// The run goes on with the vectors it computes, what the cache holds is still read, and each
// cause is one warning per run naming the cache folder, not one per entry. `chunkyard spec` on
// a read-only cache holding the text vectors but no document entry exited 1 with EACCES.
//
// The runs are child processes (__fixtures__/unwritable-run.mjs) on real folders: one as
// another user when the test runs as root (root ignores modes), one under sh's `ulimit -f`,
// one on a small tmpfs when this user may mount one.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingCache, embedThroughCache, sha256Hex } from './index.js';
import { bitsOf, chunkTexts, CountingEmbedder, fakeVector, leftovers, makeTempRoot, snapshot } from './test-helpers.js';

const MODEL = 'test-model';
const DIMS = 64;
const KEY = { strategyKey: 'semantic-64-400-512', fileHash: sha256Hex('the document') };
const TEXTS = chunkTexts(40);
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

let temp: ReturnType<typeof makeTempRoot>;
let bundle: string;
beforeAll(async () => {
  temp = makeTempRoot();
  // Another user must reach the bundle and the caches below.
  chmodSync(temp.root, 0o755);
  bundle = join(temp.root, 'bundle', 'index.js');
  const here = fileURLToPath(new URL('.', import.meta.url));
  await build({
    stdin: {
      contents: "export * from './index.ts'; export { guardEnvironment } from '@chunkyard/fs-atomic'; export { CountingEmbedder } from './test-helpers.ts';",
      resolveDir: here,
      loader: 'ts',
    },
    outfile: bundle,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    conditions: ['source'],
    logLevel: 'warning',
  });
  chmodSync(join(temp.root, 'bundle'), 0o755);
});
afterAll(() => {
  // Modes back, so the temp folder can be removed by a user that is not root.
  execFileSync('chmod', ['-R', 'u+w', temp.root]);
  temp.cleanup();
});

interface Outcome {
  vectors: number[][] | null;
  calls: string[][];
  exit: number | null;
  stderr: string[];
  error: string | null;
  pruned: number | null;
}

/** One run in a child process; `uid` to run it as another user, `fileLimit` (512-byte blocks) for ulimit -f. */
function runChild(root: string, options: { guarded: boolean; uid?: number; fileLimit?: number; texts?: string[]; prune?: boolean }): Outcome & { processStderr: string } {
  const fixture = fileURLToPath(new URL('./__fixtures__/unwritable-run.mjs', import.meta.url));
  const args = [fixture, bundle, root, JSON.stringify({ model: MODEL, dims: DIMS, key: KEY, texts: options.texts ?? TEXTS, guarded: options.guarded, prune: options.prune ?? false })];
  const r =
    options.fileLimit !== undefined
      ? spawnSync('sh', ['-c', `ulimit -f ${options.fileLimit} && exec "$0" "$@"`, process.execPath, ...args], { encoding: 'utf8' })
      : spawnSync(process.execPath, args, { encoding: 'utf8', ...(options.uid !== undefined ? { uid: options.uid, gid: options.uid } : {}) });
  expect(r.status, r.stderr).toBe(0);
  return { ...(JSON.parse(r.stdout) as Outcome), processStderr: r.stderr };
}

const expected = TEXTS.map((t) => bitsOf(fakeVector(t, DIMS, MODEL)));

/** A cache at `root` holding every text's vector and no document entry (the probe's state). */
async function textsOnly(root: string, texts = TEXTS): Promise<void> {
  const cache = new EmbeddingCache(root);
  await embedThroughCache(cache, new CountingEmbedder(MODEL, DIMS), KEY, texts);
  rmSync(join(root, KEY.strategyKey), { recursive: true });
}

/** Every folder under `root` (and it) made read-only, or writable again. */
const setWritable = (root: string, writable: boolean) => execFileSync('chmod', ['-R', writable ? 'u+w,go-w' : 'a-w', root]);

describe('a read-only cache folder', () => {
  // As root, the run is another user's; otherwise our own, on folders chmod made read-only.
  const uid = asRoot ? NOBODY : undefined;

  it('holding the text vectors but no document entry: the run reads them, writes nothing, warns once', async () => {
    const root = join(temp.root, 'read-only');
    await textsOnly(root);
    setWritable(root, false);
    const before = snapshot(root);
    for (const guarded of [true, false]) {
      const r = runChild(root, { guarded, uid });
      expect(r.error).toBeNull();
      expect(r.exit).toBe(0);
      expect(r.vectors).toEqual(expected);
      expect(r.calls).toEqual([]); // every text came from the cache
      const lines = (guarded ? r.stderr.join('') : r.processStderr).trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(guarded ? /^tool: warning: / : /^warning: /);
      expect(lines[0]).toContain(`embedding cache ${root} cannot be written`);
      expect(lines[0]).toContain('(EACCES)');
      if (guarded) expect(r.processStderr).toBe('');
    }
    expect(snapshot(root)).toEqual(before);
  });

  it('holding nothing for these texts: every text is embedded, the vectors returned, one warning for the whole run', async () => {
    const root = join(temp.root, 'read-only-empty');
    mkdirSync(root);
    setWritable(root, false);
    const r = runChild(root, { guarded: true, uid });
    expect(r.error).toBeNull();
    expect(r.vectors).toEqual(expected);
    expect(r.calls.flat()).toEqual(TEXTS);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toContain(`embedding cache ${root} cannot be written`);
    expect(readdirSync(root)).toEqual([]);
  });

  it('pruned (topic-spec --prune-cache) while holding entries no longer used: nothing removed, one warning', async () => {
    const root = join(temp.root, 'read-only-prune');
    await textsOnly(root, [...TEXTS, ...chunkTexts(5, 'gone')]);
    setWritable(root, false);
    const before = snapshot(root);
    const r = runChild(root, { guarded: true, uid, prune: true });
    expect(r.error).toBeNull();
    expect(r.exit).toBe(0);
    expect(r.vectors).toEqual(expected);
    expect(r.pruned).toBe(0);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toContain(`embedding cache ${root} cannot be written`);
    expect(snapshot(root)).toEqual(before);
  });

  it('half of it read-only (the text store): what can be written is, one warning', async () => {
    const root = join(temp.root, 'half');
    const more = chunkTexts(10, 'other');
    await textsOnly(root, more);
    // Run as another user, the cache is that user's.
    if (uid !== undefined) execFileSync('chown', ['-R', `${uid}:${uid}`, root]);
    // The text store and what is in it read-only; the root still takes the document entry.
    setWritable(join(root, '_by-text'), false);
    const r = runChild(root, { guarded: true, uid, texts: [...more, ...TEXTS] });
    expect(r.error).toBeNull();
    expect(r.calls.flat()).toEqual(TEXTS);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toContain(`embedding cache ${root} cannot be written`);
    setWritable(root, true);
    // The document entry was written; the next run needs no provider.
    const again = await embedThroughCache(new EmbeddingCache(root), new CountingEmbedder(MODEL, DIMS), KEY, [...more, ...TEXTS]);
    expect(again.stats.documentHit).toBe(true);
    expect(leftovers(root)).toEqual([]);
  });
});

describe('a cache the disk cannot take', () => {
  it('a file size limit (ulimit -f, EFBIG): the run goes on, one warning, no partial entry left', () => {
    const root = join(temp.root, 'fsize');
    mkdirSync(root);
    // 64 dims × 4 bytes + 112 fits one 512-byte block; a document entry's metadata.json for
    // 40 chunks does not.
    const r = runChild(root, { guarded: true, fileLimit: 1 });
    expect(r.error).toBeNull();
    expect(r.vectors).toEqual(expected);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toContain(`embedding cache ${root} cannot be written`);
    expect(r.stderr[0]).toContain('(EFBIG)');
    expect(leftovers(root)).toEqual([]);
  });

  // A real full disk needs a file system of its own: a 64 KiB tmpfs, where this user may mount one (root).
  const mountPoint = join(makeTempRoot().root, 'small');
  let mounted = false;
  if (asRoot && process.platform === 'linux') {
    mkdirSync(mountPoint);
    mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mountPoint]).status === 0;
  }
  afterAll(() => {
    if (mounted) spawnSync('umount', [mountPoint]);
    rmSync(join(mountPoint, '..'), { recursive: true, force: true });
  });

  it.skipIf(!mounted)('a full disk (ENOSPC on a 64 KiB tmpfs): the run goes on, one warning, the space given back', () => {
    const root = join(mountPoint, 'cache');
    const texts = chunkTexts(400);
    const r = runChild(root, { guarded: true, texts });
    expect(r.error).toBeNull();
    expect(r.vectors).toEqual(texts.map((t) => bitsOf(fakeVector(t, DIMS, MODEL))));
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toContain(`embedding cache ${root} cannot be written`);
    expect(r.stderr[0]).toContain('(ENOSPC)');
    expect(leftovers(root)).toEqual([]);
    expect(statSync(root).isDirectory()).toBe(true);
  });
});
