/**
 * chunkyard installed with Yarn 1 (classic) the way the root README says: tools/pack-local.mjs
 * writes `resolutions` for every tarball, and @chunkyard/nx itself is added by its tarball's
 * path, since Yarn 1 applies `resolutions` only below the packages added (`yarn add -D
 * @chunkyard/nx@0.1.0` stops at "Couldn't find package "@chunkyard/nx" on the "npm" registry").
 * Then the README's docs-repo path: init, topic, `nx run-many -t index` and its cached rerun,
 * and a bin of an added app package.
 *
 * Needs Yarn 1 from the npm registry (`npx yarn@1.22.22`; its cache serves later runs): without
 * it the test skips, saying so. Nothing with a native build is installed.
 */
import type { SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMany, runNx, workspaceAt } from '../../packages/nx/e2e/temp-workspace.mjs';
import { npxMissing, NX_VERSION, ROOT, spawnChild, succeeded } from './workspace.js';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
const YARN = 'yarn@1.22.22';
const temp = mkdtempSync(join(realpathSync(tmpdir()), 'chunkyard-yarn1-'));
const tarballs = join(temp, 'tarballs');
const repo = join(temp, 'docs-repo');

const run = (cmd: string, args: string[], cwd: string, timeout = 300_000): SpawnSyncReturns<string> => spawnChild(cmd, args, cwd, { timeout });
const ok = succeeded;
const yarn = (args: string[]) => run('npx', ['-y', YARN, ...args], repo);
const tarball = (name: string) => join(tarballs, `chunkyard-${name}-0.1.0.tgz`);

let yarnMissing: string | null = null;

beforeAll(() => {
  mkdirSync(repo);
  writeFileSync(join(repo, 'package.json'), '{ "name": "my-docs", "private": true }\n');
  ok(run(process.execPath, [join(ROOT, 'tools', 'pack-local.mjs'), tarballs, '--into', repo], ROOT), 'pack-local');
  yarnMissing = npxMissing(YARN, repo, 120_000);
}, 180_000);

afterAll(() => {
  if (!KEEP) rmSync(temp, { recursive: true, force: true });
  else console.log(`temp folders kept at ${temp}`);
});

describe('a docs repo that installs with Yarn 1', () => {
  it('adds @chunkyard/nx by its tarball (by version it is a registry 404); init, topic, nx run-many -t index and its cached rerun; docs-query', (ctx) => {
    if (yarnMissing) {
      console.warn(`skipped: ${yarnMissing}`);
      ctx.skip(yarnMissing);
    }
    // What the README says does not work, so that the README's other form stays needed.
    const byVersion = yarn(['add', '-D', '@chunkyard/nx@0.1.0', '--no-lockfile']);
    expect(byVersion.status).not.toBe(0);
    expect(byVersion.stdout + byVersion.stderr).toContain('Couldn\'t find package "@chunkyard/nx"');

    ok(yarn(['add', '-D', `nx@${NX_VERSION}`, tarball('nx'), tarball('docs-query')]), 'yarn add');
    const ws = workspaceAt(repo);
    const init = runNx(ws, ['g', '@chunkyard/nx:init', '--docsRoot', 'docs', '--no-interactive']);
    expect(init.status, init.output).toBe(0);
    const topic = runNx(ws, ['g', '@chunkyard/nx:topic', 'guides/install', '--title', 'Installing the CLI', '--no-interactive']);
    expect(topic.status, topic.output).toBe(0);
    writeFileSync(join(repo, '.gitignore'), `${readFileSync(join(repo, '.gitignore'), 'utf8')}node_modules\n/.nx\n`);
    const git = (...args: string[]) => ok(run('git', ['-c', 'user.name=chunkyard-test', '-c', 'user.email=test@chunkyard.invalid', '-c', 'commit.gpgsign=false', ...args], repo), `git ${args[0]}`);
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'docs repo');

    const first = runMany(ws, ['-t', 'index']);
    expect(first.ran.size).toBeGreaterThan(3);
    const again = runMany(ws, ['-t', 'index']);
    expect([...again.ran]).toEqual([]);
    expect(again.cached).toEqual(first.ran);

    const list = yarn(['--silent', 'docs-query', '--list']);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain('guides/install\tInstalling the CLI');
  }, 180_000);
});
