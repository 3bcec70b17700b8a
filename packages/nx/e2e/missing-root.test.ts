// A docs root named in nx.json that does not exist yet, under real Nx: the plugin's error said
// "Create it (npx nx g @chunkyard/nx:topic <name>)", but Nx builds the project graph before it
// runs any generator, so that command stopped with the same error (found by a probe). The
// message now gives a remedy that works, and this checks that it does.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTempWorkspace, runNx, type TempWorkspace } from './temp-workspace.mjs';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
let ws: TempWorkspace;

beforeAll(() => {
  ws = createTempWorkspace({ prefix: 'chunkyard-nx-missing-root-', topics: {} });
  const nxJsonFile = join(ws.root, 'nx.json');
  const nxJson = JSON.parse(readFileSync(nxJsonFile, 'utf8'));
  nxJson.plugins = [{ plugin: '@chunkyard/nx', options: { docsRoot: 'content' } }];
  writeFileSync(nxJsonFile, JSON.stringify(nxJson, null, 2));
});
afterAll(() => {
  if (ws && !KEEP) rmSync(ws.root, { recursive: true, force: true });
});

it('the missing docs root error names a remedy that works: nx g stops on it, and creating the folder lets the topic generator run', () => {
  const topic = ['g', '@chunkyard/nx:topic', 'guides/install', '--title', 'Installing'];
  const refused = runNx(ws, topic);
  expect(refused.status).toBe(1);
  const message = /@chunkyard\/nx: the docs root "content" does not exist[^\n]*/.exec(refused.output)?.[0];
  expect(message, refused.output).toBeDefined();
  // What the message offers must not be a command that this same error stops.
  expect(message).not.toContain('nx g @chunkyard/nx:topic');
  expect(message).toContain('mkdir -p "content"');
  expect(existsSync(join(ws.root, 'content'))).toBe(false);

  // Following it: the folder, then the generator the user wanted.
  mkdirSync(join(ws.root, 'content'));
  const made = runNx(ws, topic);
  expect(made.status, made.output).toBe(0);
  expect(readFileSync(join(ws.root, 'content/guides/install/golden-reference.md'), 'utf8')).toMatch(/^# Installing\n/);
}, 300_000);
