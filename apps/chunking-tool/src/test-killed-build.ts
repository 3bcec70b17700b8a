// The setup shared by the tests of a chunking-tool SIGKILLed between StagedDir.commit's two
// renames (the topic's _chunks/ moved aside, the new folder not yet in), in docs-export,
// docs-serve, docs-store, index-tool, inspector and topic-spec: the built apps' bins spawned in a
// temp workspace `ws` (each test file makes its own), and the kill itself, which is real: strace
// injects SIGKILL into the real CLI at the rename that would put the new folder in. The tests
// run only where strace is (hasStrace).
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
export const hasStrace = spawnSync('sh', ['-c', 'command -v strace']).status === 0;
export const RENAMES = 'trace=rename,renameat,renameat2';

/** A topic's source document: six sections, each a paragraph naming `word`. */
export const doc = (word: string) => `# Guide\n\n${Array.from({ length: 6 }, (_, i) => `## Part ${i}\n\n${`The ${word} setting ${i} controls how the service starts. `.repeat(12)}\n`).join('\n')}`;

/** Builds the apps (`apps/chunking-tool`, …) whose bins the test spawns, from the current sources. */
export function buildApps(apps: string[]): void {
  execFileSync(process.execPath, ['tools/build.mjs', ...apps], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
}

/** The command line that runs the built bin of `app` with `args`. */
export const node = (app: string, args: string[]) => [process.execPath, join(REPO, 'apps', app, 'bin', `${app}.js`), ...args];

/** Runs the built `app` in `ws`; `env`, when given, is the whole environment. */
export function run(ws: string, app: string, args: string[], env?: NodeJS.ProcessEnv) {
  const [cmd, ...rest] = node(app, args);
  return spawnSync(cmd!, rest, { cwd: ws, encoding: 'utf8', timeout: 60_000, env });
}

/** run, expecting exit 0. */
export function ok(ws: string, app: string, args: string[]) {
  const r = run(ws, app, args);
  expect(r.status, `${app}: ${r.stderr}`).toBe(0);
  return r;
}

/**
 * Runs `app` on `topic` in `ws` under strace; the 1-based number of the rename(2) by which it puts
 * its staged folder in as `folder` (the run commits): chunking-tool's `_chunks`, or
 * keyword-extractor's `_keywords`.
 */
export function stagedRenameNumber(ws: string, topic: string, app = 'chunking-tool', folder = '_chunks'): number {
  const log = join(ws, 'strace.log');
  const r = spawnSync('strace', ['-f', '-qq', '-o', log, '-e', RENAMES, ...node(app, [topic])], { cwd: ws, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  const renames = readFileSync(log, 'utf8').split('\n').filter((l) => /rename(at2?)?\(/.test(l));
  const at = renames.findIndex((l) => new RegExp(`\\.${folder}\\.tmp-[^"]*", [^"]*"[^"]*/${folder}"`).test(l));
  expect(at, renames.join('\n')).toBeGreaterThan(0);
  return at + 1;
}

/** Runs `app` on `topic` in `ws`, SIGKILLed by strace at its rename number `at` (stagedRenameNumber); expects it killed. */
export function killAtRename(ws: string, topic: string, at: number, app = 'chunking-tool') {
  const killed = spawnSync('strace', ['-f', '-qq', '-o', '/dev/null', '-e', RENAMES, '-e', `inject=rename,renameat,renameat2:signal=KILL:when=${at}`, ...node(app, [topic])], { cwd: ws, encoding: 'utf8', timeout: 60_000 });
  expect(killed.status, 'killed').not.toBe(0);
  return killed;
}

/** The files of `dir`, name to text. */
export const filesOf = (dir: string) => Object.fromEntries(readdirSync(dir).sort().map((n) => [n, readFileSync(join(dir, n), 'utf8')]));
