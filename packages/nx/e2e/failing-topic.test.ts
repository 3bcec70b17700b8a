// A topic that fails, under real Nx: `nx run-many -t index` exited 130 (SIGINT's status, "the
// run was interrupted") rather than 1 whenever a failure left tasks after it. Nx 22.7 gives a
// task it skips for a failed dependency no result, and `didCommandComplete` in its
// tasks-runner/run-command.js reads a task without one as a run cut short. CI systems that
// treat 130 as "cancelled" showed a broken docs build as an aborted one. The pipeline's batch
// now gives every such task a result of its own: failed, not run, naming the failure to mend.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTempWorkspace, runNx, type TempWorkspace } from './temp-workspace.mjs';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
let ws: TempWorkspace;

beforeAll(() => {
  ws = createTempWorkspace({
    prefix: 'chunkyard-nx-failing-',
    topics: {
      'docs/guide/good': '# Good\n\nThis topic has content, so every step of it builds and is cached.\n',
      'docs/guide/bad': '# Placeholder\n',
    },
  });
  // Front matter and nothing else: chunking-tool refuses it with a one-line message.
  writeFileSync(join(ws.root, 'docs/guide/bad/golden-reference.md'), '---\ntitle: Bad\n---\n');
});
afterAll(() => {
  if (ws && !KEEP) rmSync(ws.root, { recursive: true, force: true });
});

// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

it('a failing topic fails the run with status 1, names itself once and in every task it stops, and the other topics are built', () => {
  const run = runNx(ws, ['run-many', '-t', 'index', '--outputStyle=static'], 240_000);
  const out = plain(run.output);
  expect(run.status, out).toBe(1);
  expect(out).toMatch(/chunking-tool: docs\/guide\/bad\/golden-reference\.md: no content to chunk/);
  // What it stopped: its own later steps, the section's index.json above it, and the `index`
  // tasks waiting for those, each saying why.
  for (const task of ['topic-guide-bad:spec', 'topic-guide-bad:index-json', 'topic-guide-bad:index', 'section-guide:index-json', 'topic-guide-good:index']) {
    expect(out, task).toMatch(new RegExp(`> nx run ${task}\\s*\\n+@chunkyard/nx: not run: it needs topic-guide-bad:chunk, which failed`));
  }
  expect(out).not.toMatch(/interrupted|cancell?ed/i);
  expect(existsSync(join(ws.root, 'docs/guide/good/index.json'))).toBe(true);
  expect(existsSync(join(ws.root, 'docs/guide/bad/index.json'))).toBe(false);
  expect(existsSync(join(ws.root, 'docs/guide/index.json'))).toBe(false);

  // Mended, the next run builds what was stopped and ends 0.
  writeFileSync(join(ws.root, 'docs/guide/bad/golden-reference.md'), '# Bad no more\n\nNow the topic has a paragraph to chunk.\n');
  const again = runNx(ws, ['run-many', '-t', 'index', '--outputStyle=static'], 240_000);
  expect(again.status, plain(again.output)).toBe(0);
  expect(existsSync(join(ws.root, 'docs/guide/index.json'))).toBe(true);
  // The tasks that failed unrun did so under other hashes: Nx's task history finds no task
  // that both failed and succeeded on the same inputs (with no inputs, every `index` did).
  expect(plain(again.output)).not.toMatch(/flaky/i);
  const third = runNx(ws, ['run-many', '-t', 'index', '--outputStyle=static'], 240_000);
  expect(third.status).toBe(0);
  expect(plain(third.output)).not.toMatch(/flaky/i);
  expect(plain(third.output)).toMatch(/from the cache instead of running the command for (\d+) out of \1 tasks/);
}, 600_000);
