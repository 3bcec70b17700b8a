// @ts-check
/**
 * The executor of executors.json (`@chunkyard/nx:tool`, which every pipeline target names; see
 * runTool in plugin.cjs): it runs one chunkyard tool over one folder, inside the Node process
 * Nx gives the executor instead of a fresh `node` per task.
 *
 * Why: a tool's own work on one topic takes milliseconds, but starting Node and loading the
 * tool (markdown-it, the cl100k tables) takes about 0.2 s of CPU. As shell commands, every
 * task paid that: 816 tasks for 200 topics. With `preferBatch` (executors.json), Nx hands all
 * of a run's tasks (every stage: they share the executor) to `batch` in one process, which runs them on a few worker
 * threads (workerCount); each thread loads the tool once and calls its `main(argv, io)` (every
 * tool exports it; the bin is a two-line wrapper around it) task after task, each after any
 * batch-mate it depends on. Nx still hashes, caches and restores every task on its own, with
 * the inputs and outputs the plugin declares: batching changes where a task runs, not what it
 * reads or writes.
 *
 * Options (set by the plugin, hashed by Nx as part of the task):
 *   tool     npm package name of the tool (`@chunkyard/chunking-tool`)
 *   args     its command-line arguments
 *   env      extra environment (CHUNKYARD_TOPIC_MARKER)
 *   packDir  a folder the tool keeps a cache in (spec's vectors), which travels with the Nx
 *            cache as one file, `<packDir>.pack`: see unpackDir and packDir below
 */
const { spawnSync } = require('node:child_process');
const { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { availableParallelism } = require('node:os');
const { isMainThread, Worker } = require('node:worker_threads');
const { randomBytes } = require('node:crypto');
const { basename, dirname, isAbsolute, join, relative, resolve, sep } = require('node:path');
const { pathToFileURL } = require('node:url');
const { escapeControl } = require('./plugin.cjs');
const { reinstallCommand } = require('./package-manager.cjs');

/**
 * @typedef {object} RunOptions
 * @property {string} [tool]
 * @property {string[]} [args]
 * @property {Record<string, string>} [env]
 * @property {string} [packDir]
 * @property {true} [noop] the task runs nothing: it exists for its dependsOn (the `index` target)
 */

/**
 * @typedef {object} TaskResult
 * @property {boolean} success
 * @property {'success' | 'failure'} [status]
 * @property {string} terminalOutput
 * @property {number} [startTime]
 * @property {number} [endTime]
 */

/** @typedef {(argv: string[], io: { stdout: (s: string) => void, stderr: (s: string) => void }) => Promise<number>} ToolMain */

/**
 * The tool package's entry, resolved as the workspace resolves it: from the workspace root
 * first (the installed tool, or in chunkyard's repo the workspace link to apps/<tool>), then
 * from this package (a tool installed below @chunkyard/nx).
 * @param {string} tool
 * @param {string} root
 */
function resolveTool(tool, root) {
  const key = `${root}\0${tool}`;
  const hit = resolved.get(key);
  if (hit) return hit;
  let manifest;
  try {
    manifest = require.resolve(`${tool}/package.json`, { paths: [root, __dirname] });
  } catch {
    throw new OptionError(`cannot find the tool package ${tool} from ${root}; it is a dependency of @chunkyard/nx: reinstall with \`${reinstallCommand(root)}\``);
  }
  const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
  // The published entry (`import`/`default` of `exports["."]`), read from the manifest rather
  // than resolved, so that a process started with extra export conditions (`--conditions
  // source`, as vitest does) still loads the built bundle and not the TypeScript source.
  const dot = typeof pkg.exports === 'string' || Array.isArray(pkg.exports) ? pkg.exports : (pkg.exports?.['.'] ?? pkg.main ?? 'index.js');
  const target = typeof dot === 'string' ? dot : (dot?.import ?? dot?.default);
  if (typeof target !== 'string') throw new Error(`${tool}: its package.json names no entry (exports["."].default)`);
  const entry = join(dirname(manifest), target);
  const bins = typeof pkg.bin === 'string' ? { [pkg.name]: pkg.bin } : (pkg.bin ?? {});
  const bin = Object.values(bins)[0];
  const found = { entry, bin: typeof bin === 'string' ? join(dirname(manifest), bin) : undefined };
  resolved.set(key, found);
  return found;
}

/** @type {Map<string, { entry: string, bin: string | undefined }>} */
const resolved = new Map();

/** @type {Map<string, Promise<ToolMain>>} tool entry file -> its main() */
const loaded = new Map();

/**
 * @param {string} entry
 * @returns {Promise<ToolMain>}
 */
function loadMain(entry) {
  let p = loaded.get(entry);
  if (!p) {
    p = import(pathToFileURL(entry).href).then((/** @type {{ main?: unknown }} */ m) => {
      if (typeof m.main !== 'function') throw new Error(`${entry} exports no main(argv, io)`);
      return /** @type {ToolMain} */ (m.main);
    });
    loaded.set(entry, p);
  }
  return p;
}

/**
 * The environment a tool module saw when it was first loaded in this process. Tools read
 * some variables once, at load time (CHUNKYARD_TOPIC_MARKER in @chunkyard/topic-io), so a task
 * whose `env` differs from it must not reuse the loaded module: it runs the tool's bin in a
 * child process instead.
 * @type {Record<string, string> | undefined}
 */
let envAtLoad;

/** @param {Record<string, string> | undefined} a @param {Record<string, string> | undefined} b */
function sameEnv(a, b) {
  const ka = Object.keys(a ?? {}).sort();
  const kb = Object.keys(b ?? {}).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && (a ?? {})[k] === (b ?? {})[k]);
}

/**
 * The pack: every file below a folder, in one file, so that Nx stores and restores one file
 * per topic instead of a tree (spec's vectors are 5 files in 9 folders for a small topic, and
 * a restore without the daemon removes and copies every one of them on every run: that was
 * most of a no-op build's restore time). Format: the line `chunkyard-pack 1`, then per file,
 * sorted by path, a line `<byte length> <posix path>` and the bytes. Same folder, same bytes.
 */
const PACK_MAGIC = 'chunkyard-pack 1\n';

/**
 * Every file below `dir` as a pack (undefined when the folder does not exist).
 * @param {string} dir
 * @returns {Buffer | undefined}
 */
function packFolder(dir) {
  if (!existsSync(dir)) return undefined;
  /** @type {string[]} */
  const files = [];
  const walk = (/** @type {string} */ rel) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      // A temp (a write in progress, or a killed run's) is no cache entry: packed, it went
      // through the Nx cache to every machine.
      else if (e.isFile() && tempPid(e.name) === undefined) files.push(r);
    }
  };
  walk('');
  files.sort();
  /** @type {Buffer[]} */
  const parts = [Buffer.from(PACK_MAGIC)];
  for (const f of files) {
    const bytes = readFileSync(join(dir, f));
    parts.push(Buffer.from(`${bytes.length} ${f}\n`), bytes);
  }
  return Buffer.concat(parts);
}

/**
 * Temp names of a write in progress: @chunkyard/fs-atomic's (`.<name>.tmp-<pid>-<8 hex>`, which
 * the tools and writeAtomic use) and writeAtomic's earlier `<name>.<pid>.<base 36>.tmp`.
 */
const TEMP_NAMES = [/^\.(.+)\.tmp-(\d+)-[0-9a-f]{8}$/, /^(.+)\.(\d+)\.[0-9a-z]+\.tmp$/];

/** The pid in a temp name, or undefined for any other name. @param {string} name */
function tempPid(name) {
  for (const re of TEMP_NAMES) {
    const m = re.exec(name);
    if (m) return Number(m[2]);
  }
  return undefined;
}

/** Whether a process with this pid exists (EPERM: someone else's). @param {number} pid */
function pidAlive(pid) {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
  }
}

/** A temp older than this is a leftover even if its pid was reused (fs-atomic's STALE_TEMP_AGE_MS). */
const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Removes the temps of runs that are gone (their pid is not alive, or older than an hour) in
 * `dir`, and below it when `deep`: a run killed while it wrote a pack or a cache entry left
 * its temp for ever (issue 15 probe). A live run's temps are left alone. Best effort.
 * @param {string} dir
 * @param {boolean} deep
 */
function sweepTemps(dir, deep) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    const pid = tempPid(e.name);
    if (pid !== undefined) {
      try {
        if (!pidAlive(pid) || Date.now() - lstatSync(path).mtimeMs > STALE_TEMP_MS) rmSync(path, { recursive: true, force: true });
      } catch {
        // gone already, or not ours to remove
      }
    } else if (deep && e.isDirectory()) sweepTemps(path, true);
  }
}

/**
 * The files of a pack (path -> bytes), or undefined if it is not one (then it is ignored: it
 * only saves recomputing what the folder caches).
 * @param {Buffer} pack
 * @returns {Map<string, Buffer> | undefined}
 */
function readPack(pack) {
  if (pack.subarray(0, PACK_MAGIC.length).toString() !== PACK_MAGIC) return undefined;
  /** @type {Map<string, Buffer>} */
  const files = new Map();
  let at = PACK_MAGIC.length;
  while (at < pack.length) {
    const nl = pack.indexOf(10, at);
    if (nl < 0) return undefined;
    const m = /^(\d+) (.+)$/.exec(pack.subarray(at, nl).toString());
    const size = m ? Number(m[1]) : NaN;
    const path = m?.[2] ?? '';
    // Only plain relative paths: a pack never writes outside its folder.
    if (!m || nl + 1 + size > pack.length || path.split('/').some((p) => p === '' || p === '.' || p === '..') || path.includes('\\')) return undefined;
    files.set(path, pack.subarray(nl + 1, nl + 1 + size));
    at = nl + 1 + size;
  }
  return files;
}

/**
 * Before the tool runs: every file of `<dir>.pack` that the folder lacks is written into it (a
 * fresh machine that restored the topic from the Nx cache has the pack, not the folder). Files
 * the folder already has are kept: they are cache entries named by their content.
 * @param {string} dir absolute
 */
function unpackDir(dir, shown = `${dir}.pack`) {
  sweepTemps(dirname(dir), false);
  sweepTemps(dir, true);
  let pack;
  try {
    pack = readRegular(`${dir}.pack`, shown);
  } catch (err) {
    if (err instanceof OptionError) throw err;
    return;
  }
  const files = readPack(pack);
  if (!files) return;
  const folder = shown.replace(/\.pack$/, '');
  try {
    for (const [rel, bytes] of files) {
      const file = join(dir, ...rel.split('/'));
      if (existsSync(file)) continue;
      mkdirSync(dirname(file), { recursive: true });
      writeAtomic(file, bytes);
    }
  } catch (err) {
    // A file where the folder (or a folder in it) goes: a stack trace of mkdir (found by a probe).
    const code = /** @type {NodeJS.ErrnoException} */ (err).code;
    if (typeof code !== 'string') throw err;
    throw new OptionError(`${folder}: cannot unpack ${shown} into it (${code}${code === 'ENOTDIR' || code === 'EEXIST' ? ': a file stands where a folder goes' : ''}); remove ${folder} (it only holds topic-spec's cached vectors)`);
  }
}

/**
 * A file's bytes, opened without blocking and checked on its descriptor: a FIFO at the pack's
 * path made readFileSync wait for a writer forever (found by a probe). Anything but a regular
 * file is an OptionError naming it (`shown`, workspace-relative); a missing one throws ENOENT.
 * @param {string} file absolute
 * @param {string} shown
 */
function readRegular(file, shown) {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      const kind = st.isDirectory() ? 'a folder' : st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : 'a device';
      throw new OptionError(`${shown} is ${kind}, not a regular file; remove it (it only carries topic-spec's cached vectors through the Nx cache)`);
    }
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * After the tool succeeded: the folder as `<dir>.pack` (or no pack if there is no folder). A
 * write that fails is an OptionError naming `shown` (workspace-relative).
 * @param {string} dir absolute
 * @param {string} [shown]
 */
function packDir(dir, shown = `${dir}.pack`) {
  sweepTemps(dir, true);
  const pack = packFolder(dir);
  try {
    if (pack) writeAtomic(`${dir}.pack`, pack);
    else rmSync(`${dir}.pack`, { force: true });
  } catch (err) {
    // A full disk or a file-size limit: the task's output was the error's stack (issue 15 probe).
    const code = /** @type {NodeJS.ErrnoException} */ (err).code;
    if (typeof code !== 'string') throw err;
    throw new OptionError(`${shown}: cannot write it: ${WRITE_ERRORS[code] ?? 'the file system refused'} (${code}); ${code === 'EFBIG' || code === 'ENOSPC' || code === 'EDQUOT' ? 'lift the limit or free some space' : 'check the folder and its permissions'}, then run again`);
  }
}

/**
 * What a failed write of a pack means, for the codes a user can do something about.
 * @type {Record<string, string>}
 */
const WRITE_ERRORS = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large for a limit of this process or of the file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENAMETOOLONG: 'name too long',
};

/**
 * Temp file in the same folder + rename, as @chunkyard/fs-atomic's writeFileAtomic does (this
 * CommonJS package loads no workspace library unbundled): a reader never sees half a file.
 * @param {string} file
 * @param {Buffer} bytes
 */
function writeAtomic(file, bytes) {
  // fs-atomic's temp name, its file name cut so the whole fits 255 bytes: `<file>.<pid>.<random>.tmp`
  // beside a `.pack` of a 250-byte project name was ENAMETOOLONG (issue 15 probe).
  const suffix = `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  let name = basename(file);
  while (Buffer.byteLength(name) > 255 - 1 - suffix.length) name = [...name].slice(0, -1).join('');
  const tmp = join(dirname(file), `.${name}${suffix}`);
  try {
    writeFileSync(tmp, bytes);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** A problem with a task's options or setup: its message is the whole story, no stack. */
class OptionError extends Error {}

/**
 * `staleOutputs` runs nothing: the plugin sets it, to a value of its own on each look, on the
 * docs root's index-json while outputs of a deleted topic are there to prune, so that the task
 * is run rather than replayed from the cache.
 */
const KNOWN_OPTIONS = ['tool', 'args', 'env', 'packDir', 'noop', 'staleOutputs'];

/**
 * What is wrong with a task's options, or null. Nx 22.7 checks options against
 * executor-schema.json before the executor runs, and a mismatch crashed the whole run with
 * "UnhandledPromiseRejection ... #<SchemaError>" (found by a probe): the schema declares no
 * types, and this says what is wrong, failing that task alone.
 * @param {unknown} options
 * @param {string} root
 * @returns {string | null}
 */
function optionsProblem(options, root) {
  const o = /** @type {Record<string, unknown>} */ (options && typeof options === 'object' ? options : {});
  const show = (/** @type {unknown} */ v) => (v === undefined ? 'undefined' : JSON.stringify(v));
  const unknown = Object.keys(o).find((k) => !KNOWN_OPTIONS.includes(k));
  if (unknown !== undefined) return `unknown option ${JSON.stringify(unknown)} (known: ${KNOWN_OPTIONS.join(', ')})`;
  if (o.noop !== undefined) {
    if (o.noop !== true) return `option "noop" must be true (a task that runs nothing), got ${show(o.noop)}`;
    const other = Object.keys(o).find((k) => k !== 'noop');
    return other === undefined ? null : `option "noop" runs nothing, so option ${JSON.stringify(other)} has no meaning beside it`;
  }
  if (typeof o.tool !== 'string' || o.tool.trim() === '') return `option "tool" must be the npm package name of a chunkyard tool, got ${show(o.tool)}`;
  if (o.args !== undefined && !(Array.isArray(o.args) && o.args.every((a) => typeof a === 'string'))) return `option "args" must be a list of strings, got ${show(o.args)}`;
  if (o.env !== undefined && !(o.env && typeof o.env === 'object' && !Array.isArray(o.env) && Object.values(o.env).every((v) => typeof v === 'string'))) {
    return `option "env" must map names to strings, got ${show(o.env)}`;
  }
  if (o.staleOutputs !== undefined && typeof o.staleOutputs !== 'string') return `option "staleOutputs" must be a string (the plugin sets it), got ${show(o.staleOutputs)}`;
  if (o.packDir !== undefined) {
    if (typeof o.packDir !== 'string' || o.packDir.trim() === '') return `option "packDir" must be a workspace-relative folder, got ${show(o.packDir)}`;
    const rel = relative(resolve(root), resolve(root, o.packDir));
    if (rel === '' || rel.split(sep).includes('..') || isAbsolute(rel)) return `option "packDir" must be a folder inside the workspace, got ${show(o.packDir)}`;
  }
  return null;
}

/**
 * Runs one task. Never throws: a tool that fails, or throws, gives `success: false` and its
 * message in `terminalOutput`.
 * @param {RunOptions} options
 * @param {string} root workspace root (the tools' relative paths are relative to it)
 * @returns {Promise<TaskResult>}
 */
async function runOne(options, root) {
  const startTime = Date.now();
  const problem = optionsProblem(options, root);
  if (problem) return { success: false, status: 'failure', terminalOutput: `@chunkyard/nx:tool: ${escapeControl(problem)}\n`, startTime, endTime: Date.now() };
  if (options.noop) return { success: true, status: 'success', terminalOutput: '', startTime, endTime: startTime };
  const args = options.args ?? [];
  const env = options.env ?? {};
  let out = '';
  const io = { stdout: (/** @type {string} */ s) => void (out += s), stderr: (/** @type {string} */ s) => void (out += s) };
  let code;
  try {
    // Worker threads share the process's working directory (and cannot change it): the
    // batch sets it before it starts them.
    if (isMainThread && process.cwd() !== resolve(root)) process.chdir(root);
    const packed = options.packDir ? resolve(root, options.packDir) : undefined;
    if (packed) unpackDir(packed, `${options.packDir}.pack`);
    const tool = /** @type {string} */ (options.tool); // optionsProblem checked it
    const { entry, bin } = resolveTool(tool, root);
    if (envAtLoad === undefined) {
      envAtLoad = { ...env };
      Object.assign(process.env, env);
    }
    if (!sameEnv(envAtLoad, env)) {
      if (!bin) throw new Error(`${tool} has no bin to run with a different environment`);
      const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });
      out += (r.stdout ?? '') + (r.stderr ?? '');
      code = r.error ? 1 : (r.status ?? 1);
      if (r.error) out += `${tool}: ${r.error.message}\n`;
    } else {
      const main = await loadMain(entry);
      code = await main(args, io);
    }
    if (code === 0 && packed) packDir(packed, `${options.packDir}.pack`);
  } catch (err) {
    // A bug in a tool (valid input never throws), or a tool that cannot be found: one task
    // fails with the message, and the batch goes on with the tasks that do not depend on it.
    // A problem of the setup (OptionError) is its message; anything else is a bug, with its stack.
    out += err instanceof OptionError ? `@chunkyard/nx:tool: ${escapeControl(err.message)}\n` : `${options.tool}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`;
    code = 1;
  }
  return { success: code === 0, status: code === 0 ? 'success' : 'failure', terminalOutput: out, startTime, endTime: Date.now() };
}

/**
 * One task at a time (`nx run`, or `--batch=false`): the same in-process call.
 * @param {RunOptions} options
 * @param {{ root: string }} context
 * @returns {Promise<{ success: boolean }>}
 */
async function runExecutor(options, context) {
  const r = await runOne(options, context.root);
  if (r.terminalOutput) process.stdout.write(r.terminalOutput);
  return { success: r.success };
}

/**
 * How many threads a batch of `n` tasks runs on: CHUNKYARD_NX_BATCH_WORKERS if set, else one
 * per core, but no more than one per 8 tasks (a thread costs a tool load, about 0.2 s of CPU).
 * One means the batch's own thread, no worker.
 * @param {number} n
 */
function workerCount(n) {
  const forced = forcedWorkers(process.env.CHUNKYARD_NX_BATCH_WORKERS);
  if (typeof forced === 'number') return Math.min(forced, n);
  return Math.max(1, Math.min(availableParallelism(), Math.floor(n / 8)));
}

/** The most threads CHUNKYARD_NX_BATCH_WORKERS may ask for: each loads every tool (~50 MB). */
const MAX_BATCH_WORKERS = 256;

/**
 * CHUNKYARD_NX_BATCH_WORKERS as a thread count, null when it is unset or empty, or a message
 * saying what is wrong with it: a value that is not a whole number from 1 to MAX_BATCH_WORKERS
 * was ignored silently (found by a probe), and a huge one started a thread per task.
 * @param {string | undefined} value
 * @returns {number | string | null}
 */
function forcedWorkers(value) {
  if (value === undefined || value.trim() === '') return null;
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (n >= 1 && n <= MAX_BATCH_WORKERS) return n;
  return `CHUNKYARD_NX_BATCH_WORKERS=${JSON.stringify(value)}: expected a whole number of threads from 1 to ${MAX_BATCH_WORKERS} (1 runs the batch on its own thread), or unset for one per core`;
}

/**
 * Runs tasks on `count` worker threads (each loads the tools once), or on this thread when
 * count is 1. `run(id)` resolves with the task's result; a worker that dies fails the task it
 * held and is replaced.
 * @param {number} count
 * @param {string} root
 * @param {Record<string, RunOptions>} inputs
 */
function pool(count, root, inputs) {
  if (count <= 1) {
    // One task at a time on this thread: the tools are CLIs, not written to interleave.
    /** @type {Promise<unknown>} */
    let last = Promise.resolve();
    return {
      run: (/** @type {string} */ id) => {
        const p = last.then(() => runOne(/** @type {RunOptions} */ (inputs[id]), root));
        last = p;
        return p;
      },
      close: async () => {},
    };
  }
  /** @type {{ worker: Worker, busy: ((r: TaskResult) => void) | null }[]} */
  const workers = [];
  /** @type {{ id: string, done: (r: TaskResult) => void }[]} */
  const queue = [];
  const spawn = () => {
    const slot = { worker: new Worker(require.resolve('./executor-worker.cjs'), { workerData: { root } }), busy: /** @type {((r: TaskResult) => void) | null} */ (null) };
    slot.worker.on('message', (/** @type {{ result: TaskResult }} */ msg) => {
      const done = slot.busy;
      slot.busy = null;
      done?.(msg.result);
      next(slot);
    });
    slot.worker.on('error', (err) => {
      const done = slot.busy;
      slot.busy = null;
      workers.splice(workers.indexOf(slot), 1);
      done?.({ success: false, status: 'failure', terminalOutput: `@chunkyard/nx: the batch worker failed: ${err.stack ?? err.message}\n` });
      const fresh = spawn();
      next(fresh);
    });
    workers.push(slot);
    return slot;
  };
  const next = (/** @type {{ worker: Worker, busy: ((r: TaskResult) => void) | null }} */ slot) => {
    const job = queue.shift();
    if (!job || !workers.includes(slot)) {
      if (job) queue.unshift(job);
      return;
    }
    slot.busy = job.done;
    slot.worker.postMessage({ id: job.id, options: inputs[job.id] });
  };
  for (let i = 0; i < count; i++) spawn();
  return {
    run: (/** @type {string} */ id) =>
      new Promise((/** @type {(r: TaskResult) => void} */ done) => {
        queue.push({ id, done });
        const idle = workers.find((w) => w.busy === null);
        if (idle) next(idle);
      }),
    close: async () => {
      await Promise.all(workers.map((w) => w.worker.terminate()));
    },
  };
}

/**
 * Many tasks in one process (Nx batch mode): every task of the batch, each after the batch
 * tasks it depends on (tasks outside the batch completed before Nx started it), on as many
 * threads as workerCount allows, yielding each task's result as soon as it has one, so Nx
 * reports and caches every task separately. A task whose dependency failed is not run, and fails
 * with a line naming the failure that stopped it (Nx's own "skipped" would leave it with no
 * result, which Nx 22.7 counts as an interrupted run: `run-many` exited 130, not 1; see the
 * README). A `noop` task (`index`) succeeds as soon as its dependencies have, on this thread.
 * @param {{ tasks: Record<string, unknown>, dependencies: Record<string, string[]> }} taskGraph
 * @param {Record<string, RunOptions>} inputs task id -> its options
 * @param {unknown} _overrides
 * @param {{ root: string }} context
 * @returns {AsyncGenerator<{ task: string, result: TaskResult }>}
 */
async function* batchExecutor(taskGraph, inputs, _overrides, context) {
  const ids = Object.keys(taskGraph.tasks);
  const workersProblem = forcedWorkers(process.env.CHUNKYARD_NX_BATCH_WORKERS);
  if (typeof workersProblem === 'string') {
    // Every task fails with the reason, rather than the batch running with another count.
    for (const id of ids) yield { task: id, result: { success: false, status: /** @type {const} */ ('failure'), terminalOutput: `@chunkyard/nx: ${workersProblem}\n` } };
    return;
  }
  const inBatch = new Set(ids);
  if (process.cwd() !== resolve(context.root)) process.chdir(context.root);
  // Kahn's order, in time linear in the tasks and edges (a cold run of 2,000 topics is one
  // batch of 8,000 tasks): each task counts its unfinished batch dependencies, and a finished
  // task releases its dependents, which start in Nx's order.
  /** @type {Map<string, number>} */
  const waitingOn = new Map();
  /** @type {Map<string, string[]>} */
  const dependents = new Map(ids.map((id) => [id, []]));
  /** @type {Map<string, string>} id -> the failed task that stops it (absent: none so far) */
  const stoppedBy = new Map();
  for (const id of ids) {
    const deps = [...new Set(taskGraph.dependencies[id] ?? [])].filter((d) => inBatch.has(d) && d !== id);
    waitingOn.set(id, deps.length);
    for (const d of deps) /** @type {string[]} */ (dependents.get(d)).push(id);
  }
  /** @type {string[]} ready tasks: Nx's order, then as their dependencies finish */
  let ready = ids.filter((id) => waitingOn.get(id) === 0);
  let finished = 0;
  let running = 0;
  // Finished tasks, in the order they finished, and the wakeup of a loop waiting for one
  // (rather than Promise.race over every started task, which is linear per completion).
  /** @type {{ id: string, result: TaskResult }[]} */
  const completed = [];
  /** @type {(() => void) | null} */
  let wake = null;
  // Threads for the tasks that run a tool: a batch of `index` tasks alone (a run where all
  // else came from the cache) loads no tool.
  const workers = pool(workerCount(ids.filter((id) => inputs[id] && inputs[id].noop !== true).length), context.root, inputs);
  /** @param {string} id @param {boolean} ok */
  const release = (id, ok) => {
    finished++;
    /** @type {string[]} */
    const freed = [];
    // The failure a user has to mend: the task itself, or what stopped it.
    const cause = stoppedBy.get(id) ?? id;
    for (const t of /** @type {string[]} */ (dependents.get(id))) {
      if (!ok && !stoppedBy.has(t)) stoppedBy.set(t, cause);
      const left = /** @type {number} */ (waitingOn.get(t)) - 1;
      waitingOn.set(t, left);
      if (left === 0) freed.push(t);
    }
    ready.push(...freed);
  };
  try {
    while (finished < ids.length) {
      // Start every ready task; one that cannot run, or runs nothing, finishes here (and that
      // can free a later task, so this loops until nothing is ready).
      while (ready.length > 0) {
        const batch = ready;
        ready = [];
        for (const id of batch) {
          const cause = stoppedBy.get(id);
          const options = inputs[id];
          if (cause !== undefined || !options) {
            const now = Date.now();
            const why = cause !== undefined ? `not run: it needs ${cause}, which failed` : `no options for ${id}`;
            release(id, false);
            yield { task: id, result: { success: false, status: /** @type {const} */ ('failure'), terminalOutput: `@chunkyard/nx: ${escapeControl(why)}\n`, startTime: now, endTime: now } };
            continue;
          }
          if (options.noop === true) {
            const result = await runOne(options, context.root);
            release(id, result.success);
            yield { task: id, result };
            continue;
          }
          running++;
          void workers.run(id).then((result) => {
            completed.push({ id, result });
            wake?.();
          });
        }
      }
      if (finished === ids.length) break; // the last tasks finished here
      if (running === 0 && completed.length === 0) {
        const stuck = ids.filter((id) => /** @type {number} */ (waitingOn.get(id)) > 0);
        throw new Error(`@chunkyard/nx: the batch's tasks depend on each other in a cycle: ${stuck.join(', ')}`);
      }
      if (completed.length === 0) await new Promise((/** @type {(v?: unknown) => void} */ r) => (wake = r));
      wake = null;
      const { id, result } = /** @type {{ id: string, result: TaskResult }} */ (completed.shift());
      running--;
      release(id, result.success);
      yield { task: id, result };
    }
  } finally {
    await workers.close();
  }
}

module.exports = runExecutor;
module.exports.default = runExecutor;
module.exports.batch = batchExecutor;
module.exports.runOne = runOne;
module.exports.packFolder = packFolder;
module.exports.readPack = readPack;
