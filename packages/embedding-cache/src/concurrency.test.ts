// Several processes writing the same document keys at once (parallel Nx tasks sharing one
// cache): 4 child processes, 20 rounds, each round released at once to all of them through a
// barrier. Some keys start out holding a stale entry (other texts) or a corrupt one, so the
// writers also race to replace it. Afterwards every entry is valid and readable, nobody ever
// read wrong data, and no temp or moved-aside folder remains.
//
// The children run the package as plain JavaScript: beforeAll bundles src/index.ts with
// esbuild (the same options as tools/build.mjs) into this test's temp dir rather than into
// packages/embedding-cache/dist, so a concurrent workspace build cannot race this test.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EmbeddingCache, sha256Hex, type DocumentKey } from './index.js';
import { bitsOf, chunkTexts, fakeVector, leftovers, makeTempRoot } from './test-helpers.js';

const WRITERS = 4;
const ROUNDS = 20;
const CHUNKS = 24;
const DIMS = 384;

let temp: ReturnType<typeof makeTempRoot>;
let bundle: string;
beforeAll(async () => {
  temp = makeTempRoot();
  bundle = join(temp.root, 'bundle', 'index.js');
  await build({
    entryPoints: [fileURLToPath(new URL('./index.ts', import.meta.url))],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    conditions: ['source'],
    logLevel: 'warning',
  });
});
afterAll(() => temp.cleanup());

interface Done {
  type: 'done';
  round: number;
  read: 'equal' | 'null' | 'different';
  corrupt: { path: string; reason: string }[];
  error?: string;
}

/** The next message from `child`, or a rejection if it exits first. */
function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: T) => {
      child.off('exit', onExit);
      resolve(msg);
    };
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`writer ${child.pid} exited (${code}) before answering`));
    };
    child.once('message', onMessage);
    child.once('exit', onExit);
  });
}

it('4 processes writing the same keys at once leave valid entries and no temp folders', async () => {
  const root = join(temp.root, '.embedding-cache');
  const seedCache = new EmbeddingCache(root);
  const rounds = Array.from({ length: ROUNDS }, (_, round) => {
    const key: DocumentKey = { strategyKey: 'semantic-64-400-512', model: 'org/model:latest', fileHash: sha256Hex(`doc ${round}`) };
    const texts = chunkTexts(CHUNKS, `doc-${round}`);
    const vectors = texts.map((t) => fakeVector(t, DIMS));
    // Round kinds: 0 = empty slot, 1 = a stale entry (other texts) to replace, 2 = a corrupt one.
    const kind = round % 3;
    if (kind === 1) {
      const stale = chunkTexts(CHUNKS - 3, `old-${round}`);
      seedCache.putDocument(key, stale, stale.map((t) => fakeVector(t, DIMS)));
    } else if (kind === 2) {
      const dir = seedCache.documentDir(key);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'metadata.json'), '{"schemaVersion": 1, "chunkCo');
      writeFileSync(join(dir, 'chunk-0.bin'), 'junk');
    }
    return { round, kind, key, texts, vectors, dir: seedCache.documentDir(key) };
  });

  const fixture = fileURLToPath(new URL('./__fixtures__/concurrent-writer.mjs', import.meta.url));
  const children = Array.from({ length: WRITERS }, () =>
    // execArgv: [] so the children do not inherit the test runner's loader flags.
    fork(fixture, [bundle, root], { execArgv: [], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  const exited = children.map((c) => new Promise<number | null>((resolve) => c.once('exit', resolve)));
  try {
    await Promise.all(children.map((c) => nextMessage<{ type: 'ready' }>(c)));
    const results: Done[] = [];
    for (const r of rounds) {
      // The barrier: every writer gets the round at once and answers before the next round.
      const answers = children.map((c) => nextMessage<Done>(c));
      for (const c of children) c.send({ type: 'go', round: r.round, key: r.key, texts: r.texts, vectors: r.vectors });
      results.push(...(await Promise.all(answers)));
    }
    for (const c of children) c.send({ type: 'exit' });
    expect(await Promise.all(exited)).toEqual(children.map(() => 0));

    expect(results.filter((d) => d.error)).toEqual([]);
    // Nobody ever read wrong data.
    expect(results.filter((d) => d.read === 'different')).toEqual([]);
    // Where no entry had to be replaced, no writer ever moved anything: every read-back hits.
    const plain = new Set(rounds.filter((r) => r.kind === 0).map((r) => r.round));
    expect(results.filter((d) => plain.has(d.round) && d.read !== 'equal')).toEqual([]);
    // Corruption is only ever reported where we planted it.
    const planted = new Set(rounds.filter((r) => r.kind === 2).map((r) => r.dir));
    const reported = results.flatMap((d) => d.corrupt);
    expect(reported.filter((c) => !planted.has(c.path))).toEqual([]);
    expect(new Set(reported.map((c) => c.path)).size).toBe(planted.size);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill();
  }

  const check = new EmbeddingCache(root);
  check.onCorrupt = (path, reason) => {
    throw new Error(`corrupt entry after the race: ${path}: ${reason}`);
  };
  for (const r of rounds) {
    const got = check.getDocument(r.key, r.texts, DIMS);
    expect(got, `round ${r.round}`).not.toBeNull();
    expect(got!.map(bitsOf)).toEqual(r.vectors.map(bitsOf));
  }
  expect(leftovers(root)).toEqual([]);
});
