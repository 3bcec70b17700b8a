// The one adapter behind every chunkyard-<strategy>.mjs: loads @chunkyard/chunking (or the
// build named by CHUNKYARD_BENCH_CHUNKING), calls chunkDocument with the strategy's options
// at the harness's sizes, and maps records to the harness's chunks. Each adapter file only
// says which options and which records it reports.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PKG_JSON = new URL('../../packages/chunking/package.json', import.meta.url);
const DIST = new URL('../../packages/chunking/dist/index.js', import.meta.url);

function readVersion() {
  try {
    return JSON.parse(readFileSync(PKG_JSON, 'utf8')).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * CHUNKYARD_BENCH_CHUNKING=<file.js> benchmarks another build (e.g. another branch's dist).
 * Otherwise the package specifier first (the workspace link in node_modules), then the built
 * file directly, since the link only exists once `npm install` has linked the workspace.
 */
async function loadChunking() {
  const override = process.env.CHUNKYARD_BENCH_CHUNKING;
  if (override) {
    const file = resolve(process.env.INIT_CWD ?? process.cwd(), override);
    return { mod: await import(pathToFileURL(file).href), from: file, file };
  }
  try {
    return { mod: await import('@chunkyard/chunking'), from: '@chunkyard/chunking', file: fileURLToPath(DIST) };
  } catch (err) {
    const code = /** @type {{ code?: string }} */ (err).code;
    // The package link is missing, or it exists but dist/ is not built yet. (A missing
    // dependency of dist/ also lands here; importing dist/ below rethrows it.)
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String(err).includes('chunking')) throw err;
  }
  if (!existsSync(DIST)) throw new Error('packages/chunking/dist/index.js not found: run `node tools/build.mjs packages/chunking`');
  return { mod: await import(DIST.href), from: 'packages/chunking/dist/index.js', file: fileURLToPath(DIST) };
}

/** The harness's view of one record: its exact text, offsets and reported counts. */
export function benchChunk(/** @type {any} */ c) {
  return {
    text: c.originalText,
    start: c.sourcePosition?.charStart,
    end: c.sourcePosition?.charEnd,
    splitUnit: c.splitUnit === true,
    reportedTokens: c.tokenStats?.tokens,
    embedText: c.embedText,
    embedTokens: c.tokenStats?.embedTokens,
  };
}

/**
 * @param {{
 *   name: string,
 *   description: string,
 *   options: (sizes: { maxTokens: number, targetTokens: number }) => object,
 *   select?: (chunks: any[]) => any[],
 *   mapChunk?: (chunk: any) => object,
 * }} spec
 */
export function chunkyardAdapter({ name, description, options, select = (c) => c, mapChunk = benchChunk }) {
  /** @type {(text: string, opts: object) => any} */
  let chunkDocument;
  /** @type {object} */
  let strategyOptions = {};
  return {
    name,
    peer: '@chunkyard/chunking',
    version: readVersion(),
    description,
    /** @param {{ maxTokens: number, targetTokens: number }} opts */
    async setup(opts) {
      const { mod, from, file } = await loadChunking();
      if (typeof mod.chunkDocument !== 'function') throw new Error(`${from} exports no chunkDocument()`);
      chunkDocument = mod.chunkDocument;
      strategyOptions = options({ maxTokens: opts.maxTokens, targetTokens: opts.targetTokens });
      const probe = chunkDocument('# Probe\n\nOne paragraph.\n', { docName: 'probe', ...strategyOptions });
      if (!probe || !Array.isArray(probe.chunks)) throw new Error('chunkDocument() returned no { chunks } array');
      return {
        maxTokens: opts.maxTokens,
        targetTokens: opts.targetTokens,
        loadedFrom: from,
        buildSha256: existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12) : null,
        strategyKey: probe.strategyKey ?? null,
        resolvedOptions: probe.options ?? null,
      };
    },
    /** @param {string} text @param {{ docName: string }} ctx */
    chunk(text, ctx) {
      return chunkDocument(text, { docName: ctx.docName, ...strategyOptions });
    },
    /** @param {{ chunks: any[] }} raw */
    toChunks(raw) {
      return select(raw.chunks).map(mapChunk);
    },
  };
}
