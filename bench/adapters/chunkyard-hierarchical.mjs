// Our chunker's hierarchical strategy (seed 003): snippets capped at --max, sections at
// their default 2048. Both tiers are built inside the timed call; only the snippets (the
// retrieval unit, which cover the document on their own) are reported, so the size
// columns compare with the other adapters.
// Built with `node tools/build.mjs packages/chunking` (dist/index.js).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const name = 'chunkyard-hierarchical';
export const peer = '@chunkyard/chunking';
const PKG_JSON = new URL('../../packages/chunking/package.json', import.meta.url);
const DIST = new URL('../../packages/chunking/dist/index.js', import.meta.url);
export const version = readVersion();
export const description = "chunkDocument(text, { docName, strategy: 'hierarchical', snippetMaxTokens: max, snippetTargetTokens: target }); snippets reported";

/** @type {(text: string, opts: object) => any} */
let chunkDocument;
let maxTokens = 512;
let targetTokens = 400;

function readVersion() {
  try {
    return JSON.parse(readFileSync(PKG_JSON, 'utf8')).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * CHUNKYARD_BENCH_CHUNKING=<file.js> benchmarks another build (e.g. another
 * branch's dist). Otherwise the package specifier first (the workspace link in
 * node_modules), then the built file directly, since the link only exists once
 * `npm install` has linked the workspace.
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
    const msg = String(err);
    // The package link is missing, or it exists but dist/ is not built yet. (A missing
    // dependency of dist/ also lands here; importing dist/ below rethrows it.)
    if (code !== 'ERR_MODULE_NOT_FOUND' || !msg.includes('chunking')) throw err;
  }
  if (!existsSync(DIST)) {
    throw new Error('packages/chunking/dist/index.js not found: run `node tools/build.mjs packages/chunking`');
  }
  return { mod: await import(DIST.href), from: 'packages/chunking/dist/index.js', file: fileURLToPath(DIST) };
}

/** @param {{ maxTokens: number, targetTokens: number }} opts */
export async function setup(opts) {
  maxTokens = opts.maxTokens;
  targetTokens = opts.targetTokens;
  const { mod, from, file } = await loadChunking();
  if (typeof mod.chunkDocument !== 'function') throw new Error(`${from} exports no chunkDocument()`);
  chunkDocument = mod.chunkDocument;
  const probe = await chunkDocument('# Probe\n\nOne paragraph.\n', { docName: 'probe', strategy: 'hierarchical', snippetMaxTokens: maxTokens, snippetTargetTokens: targetTokens });
  if (!probe || !Array.isArray(probe.chunks)) throw new Error('chunkDocument() returned no { chunks } array');
  return {
    maxTokens,
    targetTokens,
    loadedFrom: from,
    buildSha256: existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12) : null,
    strategyKey: probe.strategyKey ?? null,
    resolvedOptions: probe.options ?? null,
  };
}

/** @param {string} text @param {{ docName: string }} ctx */
export function chunk(text, ctx) {
  return chunkDocument(text, { docName: ctx.docName, strategy: 'hierarchical', snippetMaxTokens: maxTokens, snippetTargetTokens: targetTokens });
}

/** @param {{ chunks: any[] }} raw */
export function toChunks(raw) {
  return raw.chunks.filter((c) => c.tier?.level === 'snippet').map((/** @type {any} */ c) => ({
    text: c.originalText,
    start: c.sourcePosition?.charStart,
    end: c.sourcePosition?.charEnd,
    splitUnit: c.splitUnit === true,
    reportedTokens: c.tokenStats?.tokens,
    embedText: c.embedText,
    embedTokens: c.tokenStats?.embedTokens,
  }));
}
