// Adapter discovery and the single code path that runs an adapter over the corpus
// (shared by the timed passes in run.mjs and the peak-RSS child).
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ADAPTER_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'adapters');

/** @returns {string[]} adapter names (file names without .mjs; files starting with `_` are skipped) */
export function listAdapterNames() {
  return readdirSync(ADAPTER_DIR)
    .filter((f) => f.endsWith('.mjs') && !f.startsWith('_'))
    .map((f) => f.slice(0, -4))
    .sort();
}

/**
 * Imports an adapter module and checks its shape.
 * @param {string} name
 * @param {string} [file] the module's path, for adapters outside adapters/ (test fixtures)
 */
export async function importAdapter(name, file = join(ADAPTER_DIR, `${name}.mjs`)) {
  const mod = await import(pathToFileURL(file).href);
  const a = mod.default && typeof mod.default.chunk === 'function' ? mod.default : mod;
  if (typeof a.chunk !== 'function') throw new Error(`adapter ${name} exports no chunk()`);
  return {
    name: /** @type {string} */ (a.name ?? name),
    peer: /** @type {string} */ (a.peer ?? name),
    version: /** @type {string} */ (a.version ?? 'unknown'),
    description: /** @type {string} */ (a.description ?? ''),
    /** @type {(opts: object) => Promise<object> | object} */
    setup: typeof a.setup === 'function' ? a.setup : async () => ({}),
    /** @type {(text: string, ctx: { docName: string, fileName: string }) => unknown} */
    chunk: a.chunk,
    /** @type {(raw: any, text: string, ctx: object) => import('./metrics.mjs').BenchChunk[]} */
    toChunks: typeof a.toChunks === 'function' ? a.toChunks : (/** @type {any} */ raw) => raw,
  };
}

/**
 * One pass: chunk() once per file, sequentially; returns the elapsed ms and the
 * raw outputs. Only the loop itself is timed.
 * @param {(text: string, ctx: any) => unknown} chunk
 * @param {string[]} texts
 * @param {object[]} ctxs
 */
export async function runPass(chunk, texts, ctxs) {
  const out = new Array(texts.length);
  const n = texts.length;
  let i = 0;
  const t0 = performance.now();
  try {
    for (; i < n; i++) out[i] = await chunk(/** @type {string} */ (texts[i]), ctxs[i]);
  } catch (err) {
    const file = /** @type {{ fileName?: string }} */ (ctxs[i])?.fileName ?? `file #${i}`;
    throw new Error(`${file}: ${/** @type {Error} */ (err)?.message ?? String(err)}`, { cause: err });
  }
  const ms = performance.now() - t0;
  return { ms, out };
}

/**
 * Silences console output from peers while `fn` runs (stdout carries the report).
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {Promise<{ value: T, suppressed: number }>}
 */
export async function withQuietConsole(fn) {
  const keys = /** @type {const} */ (['log', 'info', 'warn', 'error', 'debug', 'trace']);
  const saved = keys.map((k) => console[k]);
  let suppressed = 0;
  for (const k of keys) console[k] = () => void suppressed++;
  try {
    const value = await fn();
    return { value, suppressed };
  } finally {
    keys.forEach((k, i) => (console[k] = /** @type {any} */ (saved[i])));
  }
}
