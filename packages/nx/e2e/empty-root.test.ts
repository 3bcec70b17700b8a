// A docs root that exists but holds no topic, under real Nx: `nx run-many -t index` printed
// "No tasks were run" and exited 0 with no word of why, so a docsRoot pointed at the wrong
// folder looked like a build with nothing to do (found by a probe). It is a warning, not an
// error: right after init the root is empty, and an error would stop the topic generator too
// (Nx makes the project graph before any generator runs; see missing-root.test.ts).
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTempWorkspace, runNx, type TempWorkspace } from './temp-workspace.mjs';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
let ws: TempWorkspace;

beforeAll(() => {
  // The copied nx.json registers the plugin with docsRoot "docs"; the folder exists, empty.
  ws = createTempWorkspace({ prefix: 'chunkyard-nx-empty-root-', topics: {} });
  mkdirSync(join(ws.root, 'docs'));
});
afterAll(() => {
  if (ws && !KEEP) rmSync(ws.root, { recursive: true, force: true });
});

const WARNING = /@chunkyard\/nx: warning: the docs root "docs" \(option docsRoot of @chunkyard\/nx in nx\.json\) holds no golden-reference\.md[^\n]*/;

it('a docs root with no topic is a warning naming nx.json and docsRoot; the topic generator still runs, and then the warning is gone', () => {
  const run = runNx(ws, ['run-many', '-t', 'index', '--outputStyle=static']);
  expect(run.status, run.output).toBe(0);
  expect(run.output).toMatch(WARNING);
  // What it offers must be a command this state lets run.
  expect(WARNING.exec(run.output)?.[0]).toContain('npx nx g @chunkyard/nx:topic');

  const made = runNx(ws, ['g', '@chunkyard/nx:topic', 'guides/install', '--title', 'Installing']);
  expect(made.status, made.output).toBe(0);
  const shown = runNx(ws, ['show', 'projects']);
  expect(shown.status, shown.output).toBe(0);
  expect(shown.output).toContain('topic-guides-install');
  expect(shown.output).not.toMatch(/holds no golden-reference\.md/);
}, 300_000);
