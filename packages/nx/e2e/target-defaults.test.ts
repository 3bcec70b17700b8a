// An nx.json with targetDefaults of its own, under real Nx. Nx applies targetDefaults on top of
// a plugin's targets (Nx 22.7.12, target-merging.js: a value from a plugin outside Nx's core
// is overridden), keyed by the target's name, its executor, or a glob over names. A docs
// repo's `"index": { "dependsOn": ["^index"] }` replaced the pipeline's dependsOn, so
// `nx run-many -t index` ran no index-json at all and exited 0 over stale outputs; with
// `"inputs": ["production", "^production"]` as well it crashed with Nx's bare "project
// section-a not found" (found by a probe). Such a default is an error naming the key, the
// target and the fields, and an empty default under the pipeline's executor shields it (Nx
// then reads that key instead of the name). namedInputs of the repo's own change nothing: every
// pipeline target names its inputs.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTempWorkspace, runMany, runNx, type TempWorkspace } from './temp-workspace.mjs';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
let ws: TempWorkspace;
let nxJson: Record<string, unknown>;

beforeAll(() => {
  ws = createTempWorkspace({
    prefix: 'chunkyard-nx-target-defaults-',
    topics: { 'docs/a/t1': '# T1\n\nThe first topic explains how the target defaults are read.\n' },
  });
  nxJson = JSON.parse(readFileSync(join(ws.root, 'nx.json'), 'utf8'));
});
afterAll(() => {
  if (ws && !KEEP) rmSync(ws.root, { recursive: true, force: true });
});

const withNxJson = (extra: Record<string, unknown>) =>
  writeFileSync(join(ws.root, 'nx.json'), JSON.stringify({ ...nxJson, ...extra }, null, 2));

it('a targetDefaults entry that replaces a pipeline target\'s dependsOn or inputs is an error naming it', () => {
  withNxJson({
    namedInputs: { default: ['{projectRoot}/**/*'], production: ['default'] },
    targetDefaults: { index: { dependsOn: ['^index'], cache: true }, build: { dependsOn: ['^build'] } },
  });
  const shown = runNx(ws, ['show', 'projects']);
  expect(shown.status, shown.output).not.toBe(0);
  expect(shown.output).toMatch(/targetDefaults "index" in nx\.json sets dependsOn for the target index of @chunkyard\/nx/);
  // The way out it offers: the executor's own key, which Nx reads instead of the name.
  expect(shown.output).toContain('"./packages/nx:tool": {}');

  withNxJson({ targetDefaults: { '*': { inputs: ['default', '^default'] } } });
  const glob = runNx(ws, ['run-many', '-t', 'index', '--outputStyle=static']);
  expect(glob.status, glob.output).not.toBe(0);
  expect(glob.output).toMatch(/targetDefaults "\*" in nx\.json sets inputs for the target chunk of @chunkyard\/nx/);
}, 300_000);

it('with the executor\'s key beside them, or with only cache, the repo\'s defaults leave the pipeline whole', () => {
  withNxJson({
    namedInputs: { default: ['{projectRoot}/**/*'], production: ['default'] },
    targetDefaults: { index: { dependsOn: ['^index'], inputs: ['production', '^production'] }, './packages/nx:tool': {} },
  });
  const built = runMany(ws, ['-t', 'index'], 240_000);
  expect(built.ran.has('topic-a-t1:chunk')).toBe(true);
  expect(built.ran.has('docs:index-json')).toBe(true);
  expect(existsSync(join(ws.root, 'docs/a/index.json'))).toBe(true);

  withNxJson({ targetDefaults: { index: { cache: true }, 'index-*': { parallelism: true } } });
  const again = runNx(ws, ['show', 'projects']);
  expect(again.status, again.output).toBe(0);
}, 300_000);
