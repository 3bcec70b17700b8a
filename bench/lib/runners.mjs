// The two ways run.mjs can drive an adapter, behind one interface (start / pass / finish /
// close): localRunner runs it in the calling process; childRunner runs it in a forked
// process of its own (lib/adapter-child.mjs, which itself drives a localRunner), so its
// JIT state is never shared with another adapter's code.
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { importAdapter, runPass, withQuietConsole } from './adapters.mjs';

/**
 * @typedef {object} AdapterInfo
 * @property {string} peer
 * @property {string} version
 * @property {string} description
 * @property {object} [settings]
 * @property {number} [suppressed]  console calls swallowed during setup()
 */

/**
 * @typedef {object} Runner
 * @property {string} name
 * @property {() => Promise<AdapterInfo>} start  imports the adapter and runs setup(); a rejection
 *   may carry `info` (peer, version) when the import worked but setup() threw
 * @property {(keep: boolean) => Promise<{ ms: number, suppressed: number }>} pass  one timed pass;
 *   `keep` holds on to its raw output for finish()
 * @property {() => Promise<import('./metrics.mjs').BenchChunk[][]>} finish  the kept output through toChunks(), per file
 * @property {() => Promise<void>} close
 * @property {number} [pid]  the child's pid, for child runners
 */

/** @param {unknown} err @returns {string} the first line of its message */
export function errorText(err) {
  const e = /** @type {Error} */ (err);
  return (e && e.message ? e.message : String(err)).split('\n')[0] ?? String(err);
}

/**
 * What a child checks before it trusts its own read of the corpus: metrics are computed in
 * the parent against the parent's read, so both must have chunked the same bytes.
 * @param {import('./corpus.mjs').CorpusFile[]} files
 */
export function corpusFingerprint(files) {
  const hash = createHash('sha256');
  for (const f of files) hash.update(f.rel).update('\0').update(f.text).update('\0');
  return { files: files.length, bytes: files.reduce((n, f) => n + f.bytes, 0), sha256: hash.digest('hex') };
}

const gc = typeof globalThis.gc === 'function' ? /** @type {() => void} */ (globalThis.gc) : () => {};

/**
 * Runs the adapter in this process.
 * @param {{ name: string, file?: string, texts: string[], ctxs: object[], maxTokens: number, targetTokens: number }} opts
 * @returns {Runner}
 */
export function localRunner({ name, file, texts, ctxs, maxTokens, targetTokens }) {
  /** @type {Awaited<ReturnType<typeof importAdapter>> | null} */
  let impl = null;
  /** @type {unknown[] | null} */
  let lastOut = null;
  const loaded = () => {
    if (!impl) throw new Error(`adapter ${name} is not set up`);
    return impl;
  };
  return {
    name,
    async start() {
      const a = await importAdapter(name, file);
      impl = a;
      const info = { peer: a.peer, version: a.version, description: a.description };
      try {
        const { value, suppressed } = await withQuietConsole(async () => a.setup({ maxTokens, targetTokens }));
        return { ...info, settings: value, suppressed };
      } catch (err) {
        throw Object.assign(new Error(errorText(err)), { info });
      }
    },
    async pass(keep) {
      const a = loaded();
      lastOut = null;
      gc();
      const { value, suppressed } = await withQuietConsole(() => runPass(a.chunk, texts, ctxs));
      if (keep) lastOut = value.out;
      return { ms: value.ms, suppressed };
    },
    async finish() {
      const a = loaded();
      const out = lastOut;
      lastOut = null;
      if (!out) throw new Error('no pass output was kept');
      return out.map((raw, i) => a.toChunks(raw, /** @type {string} */ (texts[i]), /** @type {object} */ (ctxs[i])));
    },
    async close() {
      lastOut = null;
      impl = null;
    },
  };
}

// ---------------------------------------------------------------- child processes

const CHILD_SCRIPT = fileURLToPath(new URL('./adapter-child.mjs', import.meta.url));

/** @type {Set<import('node:child_process').ChildProcess>} */
const live = new Set();
const killAll = () => {
  for (const c of live) c.kill('SIGKILL');
};
/** @param {NodeJS.Signals} signal */
const onSignal = (signal) => {
  killAll();
  process.exit(signal === 'SIGINT' ? 130 : 143);
};

// The handlers exist only while children do, so an idle harness (or a test) keeps Node's
// default signal behaviour.
/** @param {import('node:child_process').ChildProcess} child */
function track(child) {
  if (live.size === 0) {
    process.on('exit', killAll);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  live.add(child);
}

/** @param {import('node:child_process').ChildProcess} child */
function untrack(child) {
  if (!live.delete(child) || live.size > 0) return;
  process.off('exit', killAll);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}

/** @returns {number} adapter children started by this process that have not exited yet */
export const liveChildCount = () => live.size;

// Heap and stack limits given to the bench apply to each adapter; inspector and loader flags
// (vitest's, for one) do not belong in the children.
const childExecArgv = () => [
  '--expose-gc',
  ...process.execArgv.filter((a) => /^--(max-old-space-size|max-semi-space-size|stack-size)=/.test(a)),
];

/** @param {number | null} code @param {NodeJS.Signals | null} signal @param {string} stderr */
function deathText(code, signal, stderr) {
  const how = signal ? `signal ${signal}` : `exit code ${code}`;
  const tail = stderr.trim().split('\n').filter(Boolean).slice(-3).join(' | ');
  return `${how}${tail ? `; stderr: ${tail}` : ''}`;
}

/**
 * Runs the adapter in a forked process of its own. One request is in flight at a time; a
 * child that dies rejects the request under way (or the next one) with an error marked
 * `died`, instead of hanging.
 * @param {{ name: string, file?: string, corpusDir: string,
 *   expect: ReturnType<typeof corpusFingerprint>, maxTokens: number, targetTokens: number }} opts
 * @returns {Runner}
 */
export function childRunner({ name, file, corpusDir, expect, maxTokens, targetTokens }) {
  const child = fork(CHILD_SCRIPT, [], {
    execArgv: childExecArgv(),
    serialization: 'advanced',
    // stdout carries the report in the parent: the child's own stdout goes nowhere.
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  track(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (s) => (stderr = (stderr + s).slice(-4000)));

  /** @type {{ resolve: (m: any) => void, reject: (e: Error) => void, stage: string } | null} */
  let pending = null;
  /** @type {string | null} why the child is gone, once it is */
  let gone = null;
  /** @type {() => void} */
  let onClosed = () => {};
  const closed = new Promise((/** @type {(v?: void) => void} */ res) => (onClosed = res));

  /** @param {string} why */
  const settleGone = (why) => {
    if (gone !== null) return;
    gone = why;
    untrack(child);
    onClosed();
    const p = pending;
    pending = null;
    p?.reject(Object.assign(new Error(`child process died during ${p.stage} (${why})`), { died: true }));
  };
  child.on('message', (msg) => {
    const p = pending;
    pending = null;
    p?.resolve(msg);
  });
  child.on('error', (err) => {
    child.kill('SIGKILL');
    settleGone(`process error: ${err.message}`);
  });
  // 'close' comes after the IPC channel has delivered every message, so a reply sent just
  // before exiting is not mistaken for a death. A grandchild holding stderr open could delay
  // it indefinitely, hence the fallback.
  child.on('close', (code, signal) => settleGone(deathText(code, signal, stderr)));
  child.on('exit', (code, signal) => {
    setTimeout(() => settleGone(deathText(code, signal, stderr)), 2000).unref();
  });

  /** @param {object} msg @param {string} stage @returns {Promise<any>} */
  const request = (msg, stage) =>
    new Promise((resolve, reject) => {
      if (gone !== null) {
        reject(Object.assign(new Error(`child process is gone before ${stage} (${gone})`), { died: true }));
        return;
      }
      pending = { resolve, reject, stage };
      // A failed send means the child is going away; 'close' settles the request.
      child.send(msg, () => {});
    }).then((/** @type {any} */ reply) => {
      if (reply.type === 'error') throw Object.assign(new Error(reply.error), { info: reply.info });
      return reply;
    });

  return {
    name,
    pid: child.pid,
    async start() {
      const reply = await request({ type: 'setup', name, file, corpusDir, expect, maxTokens, targetTokens }, 'setup');
      const { peer, version, description, settings, suppressed } = reply;
      return { peer, version, description, settings, suppressed };
    },
    async pass(keep) {
      const { ms, suppressed } = await request({ type: 'pass', keep }, 'a pass');
      return { ms, suppressed };
    },
    async finish() {
      const { chunks } = await request({ type: 'finish' }, 'finish');
      return chunks;
    },
    async close() {
      if (gone === null) child.kill('SIGKILL');
      await closed;
    },
  };
}
