// @ts-check
// Throwaway copies of this workspace for the cache test (cache.test.ts) and the timing
// script (bench-cached.mjs). Real Nx, real plugin, real chunking-tool: nothing is mocked.
//
// The copy holds what the topic targets hash or run: nx.json (which registers @chunkyard/nx,
// as a user's does), package.json + lockfile (Nx resolves `externalDependencies` through the
// lockfile), .gitignore, tsconfig.base.json, chunkyard.config.yaml, tools/, the tool apps the
// plugin runs (apps/chunking-tool, apps/keyword-extractor, …), packages/*/{package.json,src}
// (the plugin itself is packages/nx/src).
// node_modules is a real folder of symlinks into the repo's node_modules, except the
// workspace links (@chunkyard/*), which point at the copies, so esbuild bundles the copy's
// sources and not the repo's.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository this file lives in (packages/nx/e2e/ -> ../../..). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The tool apps the topic targets run (plugin.cjs `TOOL_PACKAGES`, `@chunkyard/x` lives in apps/x). */
export const toolApps = /** @type {{ TOOL_PACKAGES: readonly string[] }} */ (
  createRequire(import.meta.url)('../src/plugin.cjs')
).TOOL_PACKAGES.map((p) => p.replace('@chunkyard/', ''));

/**
 * @typedef {object} TempWorkspace
 * @property {string} root       absolute path of the copy
 * @property {string} cacheDir   NX_CACHE_DIRECTORY used for every run (holds run.json)
 * @property {Record<string, string>} env  environment for nx runs
 * @property {number} lastRunEndedAt  Date.now() when the last nx command returned (0: none yet)
 */

/**
 * Copy the workspace into a fresh temp dir.
 * @param {{ prefix?: string, topics: Record<string, string> }} opts
 *   topics: folder under the workspace (e.g. `docs/guides/deep/gamma`) -> golden-reference.md text
 * @returns {TempWorkspace}
 */
export function createTempWorkspace({ prefix = 'chunkyard-nx-', topics }) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const copy = (/** @type {string} */ rel) => {
    const from = join(repoRoot, rel);
    if (existsSync(from)) cpSync(from, join(root, rel), { recursive: true });
  };
  for (const f of [
    'nx.json',
    'package.json',
    'package-lock.json',
    '.gitignore',
    'tsconfig.base.json',
    'chunkyard.config.yaml',
    'tools',
    'packages/nx/generators.json',
    'packages/nx/executors.json',
  ]) {
    copy(f);
  }
  for (const group of ['apps', 'packages']) {
    const dir = join(repoRoot, group);
    if (!existsSync(dir)) continue;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      // Only the apps the topic targets run (toolApps): other apps are not part of any topic hash.
      if (group === 'apps' && !toolApps.includes(e.name)) continue;
      const parts = group === 'apps' ? ['project.json', 'package.json', 'src', 'dist'] : ['project.json', 'package.json', 'src'];
      for (const part of parts) copy(`${group}/${e.name}/${part}`);
    }
  }
  linkNodeModules(root);
  for (const [folder, text] of Object.entries(topics)) {
    mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, folder, 'golden-reference.md'), text);
  }
  // A git repo, as in real use (Nx 23+ derives its cache id from git; Nx 22 does not need it).
  git(root, ['init', '-q', '-b', 'main']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '--no-gpg-sign', '-m', 'temp workspace']);

  return workspaceAt(root);
}

/**
 * The run settings for an existing workspace folder: its own cache and workspace data under
 * `.nx`, no daemon, no Cloud, no plugin isolation, no inherited NX_* variables.
 * @param {string} root
 * @returns {TempWorkspace}
 */
export function workspaceAt(root) {
  const cacheDir = join(root, '.nx', 'cache');
  /** @type {Record<string, string>} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    // Drop inherited Nx state (e.g. when the test itself runs inside an Nx task).
    if (v !== undefined && !k.startsWith('NX_')) env[k] = v;
  }
  Object.assign(env, {
    CI: 'true',
    NX_DAEMON: 'false',
    NX_NO_CLOUD: 'true',
    NX_ISOLATE_PLUGINS: 'false',
    NX_TUI: 'false',
    NX_CACHE_DIRECTORY: cacheDir,
    NX_WORKSPACE_DATA_DIRECTORY: join(root, '.nx', 'workspace-data'),
    NO_COLOR: '1',
    FORCE_COLOR: '0',
  });
  return { root, cacheDir, env, lastRunEndedAt: 0 };
}

/**
 * Wait until the wall-clock second has moved on since the last nx command returned.
 *
 * Call it before editing an input. Without the daemon, Nx 22.7 reuses a file's stored hash
 * (`<workspace-data>/nx_files.nxt`) when the file's mtime, in whole seconds, equals the
 * stored one. So if a file is modified twice within one second and an nx run hashed it in
 * between, the second edit is invisible to Nx, on that run and every later one, until the
 * file is touched again in another second or `nx reset` runs. Any earlier modification was
 * hashed before the last run ended, so waiting for the next second avoids that.
 * (Measured on 22.7.12, 4 of 4 trials; see README.md, "Gotchas".)
 * @param {TempWorkspace} ws
 */
export async function nextMtimeSecond(ws) {
  // 100 ms into the next second, not 5: a file's mtime comes from the kernel's coarse clock,
  // which runs up to a tick (4-10 ms) behind Date.now(), so an edit made 5 ms into the second
  // may be stamped with the second before. When the last run took under a second (an edit
  // and the run that hashed it in one second, as the (i3) edit of workspace-cache.test.ts and
  // its run now often are), that is the stored second, and Nx took the next edit for the old
  // file: (i3b) failed 3 times in 9 runs in session 51 with every task served from the cache
  // (the cause is inferred, not caught: the later runs passed with either margin).
  const wait = (Math.floor(ws.lastRunEndedAt / 1000) + 1) * 1000 - Date.now();
  if (wait > -100) await new Promise((r) => setTimeout(r, wait + 100));
}

/** @param {string} root */
function linkNodeModules(root) {
  const real = join(repoRoot, 'node_modules');
  const nm = join(root, 'node_modules');
  mkdirSync(nm);
  for (const name of readdirSync(real)) {
    if (name === '@chunkyard') continue;
    symlinkSync(join(real, name), join(nm, name));
  }
  // Workspace packages -> the copies (what `npm install` would link).
  for (const group of ['apps', 'packages']) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const e of readdirSync(dir)) {
      const pkgFile = join(dir, e, 'package.json');
      if (!existsSync(pkgFile)) continue;
      const { name } = JSON.parse(readFileSync(pkgFile, 'utf8'));
      if (typeof name !== 'string' || !name.startsWith('@chunkyard/')) continue;
      mkdirSync(join(nm, '@chunkyard'), { recursive: true });
      symlinkSync(join(dir, e), join(nm, name));
    }
  }
}

/**
 * @param {string} cwd
 * @param {string[]} args
 */
function git(cwd, args) {
  const r = spawnSync('git', ['-c', 'user.name=chunkyard-test', '-c', 'user.email=test@chunkyard.invalid', ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
}

/**
 * @typedef {object} NxRun
 * @property {number | null} status  exit code
 * @property {string} output         stdout + stderr (interleaved, as written)
 * @property {number} ms             wall time
 */

/**
 * Run `node_modules/.bin/nx ...args` in the workspace with stdin ignored.
 * @param {TempWorkspace} ws
 * @param {string[]} args
 * @param {number} [timeoutMs] kill nx after this long (a cold run over hundreds of topics needs more)
 * @returns {NxRun}
 */
export function runNx(ws, args, timeoutMs = 300_000) {
  // Output goes to a file, not a pipe: with a pipe, Nx's output can lose its tail (seen with
  // 200 cached tasks, about 64 KB: the last ~20 task lines and the summary were missing).
  const logFile = join(ws.root, '.nx', `nx-output-${process.pid}.log`);
  mkdirSync(dirname(logFile), { recursive: true });
  const fd = openSync(logFile, 'w');
  const started = performance.now();
  let r;
  try {
    r = spawnSync(join(ws.root, 'node_modules', '.bin', 'nx'), args, {
      cwd: ws.root,
      env: ws.env,
      stdio: ['ignore', fd, fd],
      timeout: timeoutMs,
    });
  } finally {
    closeSync(fd);
  }
  const ms = performance.now() - started;
  ws.lastRunEndedAt = Date.now();
  if (r.error) throw r.error;
  return { status: r.status, output: readFileSync(logFile, 'utf8'), ms };
}

/**
 * @typedef {object} TaskOutcome
 * @property {Set<string>} ran     task ids whose command ran (cache miss)
 * @property {Set<string>} cached  task ids served from the cache (outputs restored or left as is)
 * @property {Record<string, string>} hashes task id -> Nx hash
 */

/**
 * Run `nx run-many ...` and report which tasks ran and which came from the cache.
 *
 * Two independent sources, which must agree:
 *  1. `<cacheDir>/run.json`, written by Nx's StoreRunInformationLifeCycle at the end of every
 *     run: one record per task with `cacheStatus` = `cache-miss` | `local-cache-hit` |
 *     `remote-cache-hit` and the task hash. Deleted before the run so it cannot be stale.
 *  2. The `--outputStyle=static` log: every task prints `> nx run <project>:<target>`, with a
 *     suffix `[local cache]`, `[remote cache]` or `[existing outputs match the cache, left as is]`
 *     when it did not run.
 * @param {TempWorkspace} ws
 * @param {string[]} args e.g. ['-t', 'chunk']
 * @param {number} [timeoutMs] as for runNx
 * @returns {TaskOutcome & NxRun}
 */
export function runMany(ws, args, timeoutMs) {
  const runJson = join(ws.cacheDir, 'run.json');
  rmSync(runJson, { force: true });
  const run = runNx(ws, ['run-many', ...args, '--outputStyle=static'], timeoutMs);
  if (run.status !== 0) throw new Error(`nx run-many ${args.join(' ')} exited ${run.status}:\n${run.output}`);

  /** @type {{ tasks: { taskId: string, cacheStatus: string, hash: string, status: number }[] }} */
  const record = JSON.parse(readFileSync(runJson, 'utf8'));
  // The `index` targets run nothing (they only wait for index-json tasks) and hash every source
  // under the docs root, so they rerun on any edit: left out of both sets, which say what work
  // ran.
  const tasks = record.tasks.filter((t) => !t.taskId.endsWith(':index'));
  const ran = new Set(tasks.filter((t) => t.cacheStatus === 'cache-miss').map((t) => t.taskId));
  const cached = new Set(tasks.filter((t) => t.cacheStatus !== 'cache-miss').map((t) => t.taskId));
  const hashes = Object.fromEntries(record.tasks.map((t) => [t.taskId, t.hash]));

  const logRan = new Set();
  const logCached = new Set();
  // eslint-disable-next-line no-control-regex
  const plain = run.output.replace(/\u001b\[[0-9;]*m/g, '');
  // A project name may hold spaces (a folder named `odd (beta)`); a target name does not.
  for (const m of plain.matchAll(/^> nx run (.+?:[\w-]+)(?: {2}\[(local cache|remote cache|existing outputs match the cache, left as is)\])?\s*$/gm)) {
    if (m[1] && !m[1].endsWith(':index')) (m[2] ? logCached : logRan).add(m[1]);
  }
  const same = (/** @type {Set<string>} */ a, /** @type {Set<string>} */ b) =>
    a.size === b.size && [...a].every((x) => b.has(x));
  if (!same(ran, logRan) || !same(cached, logCached)) {
    throw new Error(
      `run.json and the terminal log disagree:\n run.json ran=${[...ran]} cached=${[...cached]}\n` +
        ` log ran=${[...logRan]} cached=${[...logCached]}\n${plain}`,
    );
  }
  return { ...run, ran, cached, hashes };
}

/**
 * Every file under `dir` (relative path -> content), for byte-for-byte comparisons.
 * @param {string} dir
 * @returns {Record<string, Buffer>}
 */
export function readTree(dir) {
  /** @type {Record<string, Buffer>} */
  const out = {};
  const walk = (/** @type {string} */ rel) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else out[r] = readFileSync(join(dir, r));
    }
  };
  walk('');
  return out;
}
