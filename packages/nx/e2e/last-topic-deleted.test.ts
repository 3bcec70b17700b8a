// The docs root's last topic deleted, under real Nx. git rm -r removes only tracked files, so
// the topics' git-ignored outputs stayed, and with no topic the root was no project: no
// index-json ran its --prune, `nx run-many -t index` printed "No tasks were run" and exited 0,
// and docs/index.json went on listing the deleted topics (docs-export, docs-store and
// docs-query read them). The plugin's warning naming them is not printed with the Nx daemon,
// which Nx runs by default on a developer's machine. A section's last topic already worked (the
// root's prune removes it); now the root stays a project, uncached, while what its topics left
// is there, and its index-json (index-tool --prune) removes it.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTempWorkspace, runNx, type TempWorkspace } from './temp-workspace.mjs';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
const TOPICS = {
  'docs/guides/install': '# Installing\n\nRun the installer, then follow the steps it prints.\n',
  'docs/faq': '# FAQ\n\nThe answers to the questions people ask most.\n',
};
let ws: TempWorkspace;
let withDaemon: TempWorkspace;

beforeAll(() => {
  ws = createTempWorkspace({ prefix: 'chunkyard-nx-last-topic-', topics: TOPICS });
  withDaemon = createTempWorkspace({ prefix: 'chunkyard-nx-last-topic-daemon-', topics: TOPICS });
  withDaemon.env.NX_DAEMON = 'true';
});
afterAll(() => {
  if (withDaemon) runNx(withDaemon, ['daemon', '--stop']);
  for (const w of [ws, withDaemon]) if (w && !KEEP) rmSync(w.root, { recursive: true, force: true });
});

// eslint-disable-next-line no-control-regex
const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');
const git = (args: string[], root = ws.root) => {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
};
/** Every path under `dir`, relative, folders with a trailing slash. */
const paths = (dir: string, rel = ''): string[] =>
  readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const r = rel ? `${rel}/${e.name}` : e.name;
    return e.isDirectory() ? [`${r}/`, ...paths(dir, r)] : [r];
  });

it('after git rm -r of the last topic, nx run-many -t index removes the root\'s index.json, llms.txt and every output the topics left; then the root is no project', () => {
  const built = runNx(ws, ['run-many', '-t', 'index', '--outputStyle=static'], 300_000);
  expect(built.status, plain(built.output)).toBe(0);
  for (const f of ['docs/index.json', 'docs/llms.txt', 'docs/guides/index.json', 'docs/faq/_chunks', 'docs/guides/install/_keywords/words.md']) expect(existsSync(join(ws.root, f)), f).toBe(true);
  expect(readdirSync(join(ws.root, '.embedding-cache')).filter((n) => n.startsWith('topic-')).length).toBeGreaterThan(0);

  // What a user does: git rm -r of every topic, and commit.
  git(['rm', '-r', '-q', 'docs/guides', 'docs/faq']);
  git(['commit', '-q', '--no-gpg-sign', '-m', 'remove the last topics']);
  expect(existsSync(join(ws.root, 'docs/index.json'))).toBe(true);

  const run = runNx(ws, ['run-many', '-t', 'index', '--outputStyle=static'], 300_000);
  const out = plain(run.output);
  expect(run.status, out).toBe(0);
  expect(out).not.toMatch(/No tasks were run/);
  expect(out).toMatch(/> nx run docs:index-json/);
  expect(out).toContain('docs/index.json: removed (the docs root holds no topic any more)');
  // No file is left under the root (the emptied topic folders stay, as --prune leaves a
  // deleted topic's folder below a live root), and no topic's embedding cache.
  expect(existsSync(join(ws.root, 'docs'))).toBe(true);
  expect(paths(join(ws.root, 'docs')).filter((p) => !p.endsWith('/'))).toEqual([]);
  expect(readdirSync(join(ws.root, '.embedding-cache')).filter((n) => n.startsWith('topic-'))).toEqual([]);

  // Nothing left to remove: the root is no project, and the plain warning is back.
  const shown = runNx(ws, ['show', 'projects']);
  expect(shown.status, shown.output).toBe(0);
  expect(shown.output.split('\n')).not.toContain('docs');
  const again = runNx(ws, ['run-many', '-t', 'index', '--outputStyle=static']);
  expect(again.status, again.output).toBe(0);
  expect(plain(again.output)).toMatch(/holds no golden-reference\.md/);
  expect(plain(again.output)).not.toMatch(/Outputs of its deleted topics/);
}, 600_000);

it('with the Nx daemon, whose plugin warnings nobody sees, nx run-many -t index after deleting the last topic removes them too', () => {
  const built = runNx(withDaemon, ['run-many', '-t', 'index', '--outputStyle=static'], 300_000);
  expect(built.status, plain(built.output)).toBe(0);
  // The daemon did make the graph: its log holds the plugin's process, not this one's stderr.
  expect(existsSync(join(withDaemon.root, '.nx/workspace-data/d/daemon.log'))).toBe(true);
  expect(existsSync(join(withDaemon.root, 'docs/index.json'))).toBe(true);
  git(['rm', '-r', '-q', 'docs/guides', 'docs/faq'], withDaemon.root);
  git(['commit', '-q', '--no-gpg-sign', '-m', 'remove the last topics'], withDaemon.root);
  const run = runNx(withDaemon, ['run-many', '-t', 'index', '--outputStyle=static'], 300_000);
  const out = plain(run.output);
  expect(run.status, out).toBe(0);
  expect(out).not.toMatch(/holds no golden-reference\.md/);
  expect(paths(join(withDaemon.root, 'docs')).filter((p) => !p.endsWith('/'))).toEqual([]);
  expect(readdirSync(join(withDaemon.root, '.embedding-cache')).filter((n) => n.startsWith('topic-'))).toEqual([]);
  // The daemon may keep the root's project until it remakes the graph: a run then finds
  // nothing to remove, and still exits 0.
  const again = runNx(withDaemon, ['run-many', '-t', 'index', '--outputStyle=static']);
  expect(again.status, again.output).toBe(0);
}, 600_000);
