// A workspace without chunkyard.config.yaml, under real Nx. The tools take the file as optional
// (their defaults when there is none), but the plugin gave every chunk and spec task
// `--config chunkyard.config.yaml`, so every topic failed with "chunking-tool: cannot read
// config: chunkyard.config.yaml: no such file ... check the path", a path the user never gave
// (found by a probe: the nx.json entry written by hand, as the README shows it, and no init).
// Now the steps get no --config while the default file is missing; its path stays an input, so
// the file, once written, is read and reruns them. A configFile named in nx.json that is missing
// still fails, and a warning says where it was named.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTempWorkspace, nextMtimeSecond, runMany, runNx, type TempWorkspace } from './temp-workspace.mjs';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
let ws: TempWorkspace;

beforeAll(() => {
  ws = createTempWorkspace({
    prefix: 'chunkyard-nx-no-config-',
    topics: { 'docs/guide/a': '# A\n\nThe first topic has a paragraph about installing the command-line tool.\n' },
  });
  rmSync(join(ws.root, 'chunkyard.config.yaml'));
});
afterAll(() => {
  if (ws && !KEEP) rmSync(ws.root, { recursive: true, force: true });
});

it('without chunkyard.config.yaml the topics build with the defaults, and a config written later is read', async () => {
  const first = runMany(ws, ['-t', 'index']);
  expect(first.ran).toContain('topic-guide-a:chunk');
  expect(first.output).not.toMatch(/cannot read config/);
  expect(existsSync(join(ws.root, 'docs/guide/a/index.json'))).toBe(true);
  const defaultStrategy = readFileSync(join(ws.root, 'docs/guide/a/_chunks/golden-reference.json'), 'utf8');

  // Written now, the config is read: another strategy reruns chunk and changes its manifest.
  await nextMtimeSecond(ws);
  writeFileSync(join(ws.root, 'chunkyard.config.yaml'), 'chunking:\n  strategy: token-window\n');
  const second = runMany(ws, ['-t', 'index']);
  expect(second.ran).toContain('topic-guide-a:chunk');
  expect(second.ran).toContain('topic-guide-a:spec');
  expect(readFileSync(join(ws.root, 'docs/guide/a/_chunks/golden-reference.json'), 'utf8')).not.toBe(defaultStrategy);
  expect(runMany(ws, ['-t', 'index']).ran.size).toBe(0);
}, 600_000);

it('a configFile named in nx.json that is missing fails the topics naming the file, and a warning names the option', () => {
  const nxJsonFile = join(ws.root, 'nx.json');
  const nxJson = JSON.parse(readFileSync(nxJsonFile, 'utf8'));
  nxJson.plugins = [{ plugin: '@chunkyard/nx', options: { docsRoot: 'docs', configFile: 'conf/chunkyard.yaml' } }];
  writeFileSync(nxJsonFile, JSON.stringify(nxJson, null, 2));
  const run = runNx(ws, ['run-many', '-t', 'index', '--outputStyle=static']);
  expect(run.status, run.output).toBe(1);
  expect(run.output).toMatch(/@chunkyard\/nx: warning: the config file "conf\/chunkyard\.yaml" \(option configFile of @chunkyard\/nx in nx\.json\) does not exist/);
  expect(run.output).toMatch(/chunking-tool: cannot read config: conf\/chunkyard\.yaml/);
}, 300_000);
