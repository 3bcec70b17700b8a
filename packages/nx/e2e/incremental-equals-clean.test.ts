// After an author's edits, `nx run-many -t index` (or `nx run <topic>:index`) leaves exactly the
// outputs a clean build of the same sources gives: every output file, byte for byte, and no
// other. Real Nx over a temp workspace, compared with a clean build in a second one.
// A topic deleted with `git rm -r` kept its git-ignored outputs (_chunks/, topic-spec.md,
// index.json, _keywords/), which no index listed but docs-export and docs-store read: the
// deleted topic's chunks went on being exported. The root's index.json task now prunes them.
// And after a checkout back to sources built before (the deleted topic's outputs restored from
// the cache on the older branch), Nx replayed the root's index.json and left them: while they
// are there, the plugin gives that task an option of a fresh value (@chunkyard/index-tool/stale-outputs), so it runs.
// The deleted topic's embedding cache (.embedding-cache/topic-…/ and its .pack) stayed too: the
// same task now removes it (--prune-embedding-cache, named by the plugin).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cleanBuildOf, outputTree } from './clean-build.mjs';
import { createTempWorkspace, nextMtimeSecond, runMany, runNx, type TempWorkspace } from './temp-workspace.mjs';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
const doc = (title: string) =>
  `# ${title}\n\nAn introduction to ${title} with enough prose to form a chunk of its own.\n\n` +
  `## Use ${title}\n\nThe ${title} page explains one idea in short sentences. A reader can follow it alone.\n`;
let ws: TempWorkspace;
let clean: TempWorkspace;

const git = (...args: string[]) => {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: ws.root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
};
/**
 * The topics' embedding caches by name, each marked present: not their bytes, nor whether the
 * folder is unpacked beside its .pack (a spec task served from the Nx cache restores only the
 * pack), but a deleted topic's cache stayed for good.
 */
const caches = (root: string): Record<string, string> => {
  const dir = join(root, '.embedding-cache');
  return existsSync(dir) ? Object.fromEntries(readdirSync(dir).map((n) => [`.embedding-cache/${n.replace(/\.pack$/, '')}`, 'present'])) : {};
};
/** The files that differ between the incremental outputs and a clean build's. */
const differences = () => {
  const inc = { ...outputTree(ws.root), ...caches(ws.root) };
  const cl = { ...cleanBuildOf(ws, clean), ...caches(clean.root) };
  return [...new Set([...Object.keys(inc), ...Object.keys(cl)])]
    .filter((f) => inc[f] !== cl[f])
    .map((f) => `${f}: ${!(f in cl) ? 'only in the incremental build' : !(f in inc) ? 'only in the clean build' : 'differs'}`)
    .sort();
};

beforeAll(() => {
  ws = createTempWorkspace({
    prefix: 'chunkyard-nx-incr-',
    topics: { 'docs/a/t1': doc('Tee one'), 'docs/a/t2': doc('Tee two'), 'docs/b/t3': doc('Tee three') },
  });
  clean = createTempWorkspace({ prefix: 'chunkyard-nx-clean-', topics: {} });
});
afterAll(() => {
  for (const w of [ws, clean]) if (w && !KEEP) rmSync(w.root, { recursive: true, force: true });
});

it('a topic deleted with git rm -r, then the last topic of a section with a single-topic nx run: no output of either is left', async () => {
  runMany(ws, ['-t', 'index'], 240_000);
  expect(differences()).toEqual([]);

  await nextMtimeSecond(ws);
  git('rm', '-rq', 'docs/a/t2');
  git('commit', '-qm', 'remove t2');
  runMany(ws, ['-t', 'index']);
  expect(differences()).toEqual([]);

  // The section b is left with no topic: its index.json goes too. One topic's own index, as
  // an author runs it: the root's index.json task is among the ones it waits for.
  await nextMtimeSecond(ws);
  git('rm', '-rq', 'docs/b/t3');
  writeFileSync(join(ws.root, 'docs/a/t1/qa-pairs.md'), '# Q&A\n\n## What is tee one?\n\nA topic.\n');
  const single = runNx(ws, ['run', 'topic-a-t1:index', '--outputStyle=static']);
  expect(single.status, single.output).toBe(0);
  expect(differences()).toEqual([]);
}, 120_000);

it('git rm -r a topic, check out the commit before (its outputs come back from the cache), check out the branch again: none of its outputs is left', async () => {
  await nextMtimeSecond(ws);
  mkdirSync(join(ws.root, 'docs/a/t4'));
  writeFileSync(join(ws.root, 'docs/a/t4/golden-reference.md'), doc('Tee four'));
  git('add', '-A');
  git('commit', '-qm', 'add t4');
  runMany(ws, ['-t', 'index']);
  await nextMtimeSecond(ws);
  git('rm', '-rq', 'docs/a/t4');
  git('commit', '-qm', 'remove t4');
  runMany(ws, ['-t', 'index']);
  await nextMtimeSecond(ws);
  git('checkout', '-q', 'HEAD~1');
  const back = runMany(ws, ['-t', 'index']);
  expect(back.cached.has('topic-a-t4:chunk')).toBe(true);
  expect(differences()).toEqual([]);
  await nextMtimeSecond(ws);
  git('checkout', '-q', 'main');
  runMany(ws, ['-t', 'index']);
  expect(differences()).toEqual([]);
  // Nothing left to prune: the run after is served from the cache once the root's index.json
  // ran with nothing stale (the pruning run's own hash held a value no later run computes).
  runMany(ws, ['-t', 'index']);
  expect([...runMany(ws, ['-t', 'index']).ran]).toEqual([]);
}, 120_000);
