/**
 * The embedding fallback's I/O edge: which provider (the workspace config's), and the cache
 * it goes through. From a folder inside a workspace, chunk vectors are read from (and written
 * to) `<workspace>/.embedding-cache/` under the same document key the build-time `spec` step
 * uses — `{strategyKey, model, fileHash: manifest.sourceSha256}` over the manifest's
 * `embedText`s — so a built workspace answers without embedding any chunk again. The Nx
 * plugin gives each topic a cache of its own (`.embedding-cache/<project>/`), so those are
 * read too, before anything is embedded, and so are their packs (`.embedding-cache/<project>.pack`,
 * all a machine has that restored the topics from the Nx cache; read-only, see pack-cache.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, parseConfig, type ChunkyardConfig } from '@chunkyard/config';
import { EmbeddingCache, embedThroughCache, TEXT_STORE_DIR } from '@chunkyard/embedding-cache';
import { cacheBatchSize, createProvider, type EmbeddingProvider, type Env } from '@chunkyard/embeddings';
import { describeFsError, fileKind, utf8TextProblem } from '@chunkyard/fs-atomic';
import type { Manifest } from './contract.js';
import { nestedPacks, type PackedCache } from './pack-cache.js';

export const CONFIG_FILE = 'chunkyard.config.yaml';
export const CACHE_DIR = '.embedding-cache';

export interface EmbeddingBackend {
  provider: EmbeddingProvider;
  /** Null when not working from a folder inside a workspace. */
  cache: EmbeddingCache | null;
  /**
   * Caches only read from: the per-topic caches below `cache` (the Nx plugin's
   * `.embedding-cache/<project>/`, each a cache of its own, with its own `_by-text` store).
   */
  buildCaches?: EmbeddingCache[];
  /**
   * The same caches as the Nx plugin stores them (`.embedding-cache/<project>.pack`), read after
   * `buildCaches`: a machine that restored the topics from the Nx cache holds only these.
   */
  buildPacks?: PackedCache[];
  /** The config file the provider settings came from, if any. */
  configFile: string | null;
  /**
   * Texts per provider call through `cache` (the config's batchSize × concurrency, as topic-spec
   * sends them); each call's vectors are cached before the next. Default: cacheBatchSize() of
   * the defaults.
   */
  batchSize?: number;
  /**
   * Set by chunkVectors the first time this user may not read `cache` (or a build cache): the
   * reason, one line naming the cache and the path refused ("embedding cache <root> cannot be
   * read (…); the search goes on, embedding what it could not read"). The search goes on,
   * embedding what could not be read, and the caller may tell the user once, as a warning (a
   * cache that cannot be written is said by EmbeddingCache itself, once, and never sets it).
   */
  cacheProblem?: string;
  /**
   * @deprecated The old name of `cacheProblem`, set with it to the same text: it named a cache
   * that could not be written, which EmbeddingCache now says itself; what is left is a cache
   * that cannot be read.
   */
  cacheUnwritable?: string;
}

/**
 * Errors from reading an embedding cache that mean this user may not read it: another user's
 * cache written under umask 077 (entries 600, folders 700), a folder without search permission.
 * Searching goes on without what it holds. Until session 61 this set held the write errors too
 * (EROFS, ENOSPC, EDQUOT), but EmbeddingCache gives up every write it cannot make and says so
 * once (fs-atomic warnOnce), so no write error reaches chunkVectors; a read did, and failed the
 * next document's search with a raw "EACCES: permission denied, open …".
 */
const UNREADABLE = new Set(['EACCES', 'EPERM']);

/**
 * Throws `err` unless it is one of UNREADABLE's, which `backend.cacheProblem` (and its old name
 * cacheUnwritable) then tells (the first one only), naming the cache at `root`.
 */
function skipUnreadable(backend: EmbeddingBackend, root: string, err: unknown): void {
  const e = err as NodeJS.ErrnoException;
  if (typeof e?.code !== 'string' || !UNREADABLE.has(e.code) || typeof e.syscall !== 'string') throw err;
  backend.cacheProblem ??= `embedding cache ${root} cannot be read (${describeFsError(err)}); the search goes on, embedding what it could not read`;
  backend.cacheUnwritable ??= backend.cacheProblem;
}

/** The nearest folder at or above `dir` holding chunkyard.config.yaml or nx.json; null if none. */
export function findWorkspaceRoot(dir: string): string | null {
  let d = resolve(dir);
  for (;;) {
    if (existsSync(join(d, CONFIG_FILE)) || existsSync(join(d, 'nx.json'))) return d;
    const up = dirname(d);
    if (up === d) return null;
    d = up;
  }
}

export interface BackendOptions {
  /** The docs folder, for a folder source; null for a URL source. */
  folder: string | null;
  /** An explicit config file; else the workspace's (folder source) or ./chunkyard.config.yaml (URL source), when present. */
  configFile?: string;
  env?: Env;
}

function readConfig(file: string): ChunkyardConfig {
  // A missing or unreadable explicit config is the caller's error to name; parseConfig names file:line for content errors.
  // A FIFO or a device would block or never end: refuse it before reading, with the path.
  const stat = statSync(file);
  // Worded as fs-atomic's fileProblem words it for every other CLI ("a FIFO (named pipe), not a regular file").
  if (!stat.isFile()) throw new ConfigError(file, null, `${fileKind(stat)}, not a regular file; point it at a regular file`);
  // Decoded with replacement characters, a UTF-16 config was "expected a mapping of settings at
  // the top level" and a Latin-1 byte became U+FFFD in a value: say what the other readers say.
  const bytes = readFileSync(file);
  const problem = utf8TextProblem(bytes);
  if (problem !== null) throw new ConfigError(file, null, problem);
  return parseConfig(bytes.toString('utf8'), file);
}

export function createBackend(options: BackendOptions): EmbeddingBackend {
  const workspace = options.folder ? findWorkspaceRoot(options.folder) : null;
  let configFile = options.configFile ?? null;
  if (configFile === null) {
    const candidate = join(workspace ?? process.cwd(), CONFIG_FILE);
    if (existsSync(candidate)) configFile = candidate;
  }
  const config = configFile ? readConfig(configFile) : null;
  const provider = createProvider({ provider: 'local', ...config?.embeddings }, options.env);
  const cache = workspace ? new EmbeddingCache(join(workspace, CACHE_DIR)) : null;
  return { provider, cache, buildCaches: cache ? nestedCaches(cache.root) : [], buildPacks: cache ? nestedPacks(cache.root) : [], configFile, batchSize: cacheBatchSize(config?.embeddings) };
}

/**
 * The caches directly below `root`: folders holding a `_by-text` store of their own. The root's
 * own entries (`{strategyKey}/…`, `_by-text`, `qa-pairs`) hold none, so they are never taken
 * for one.
 */
export function nestedCaches(root: string): EmbeddingCache[] {
  let names: string[];
  try {
    names = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('_') && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch {
    return []; // no cache yet
  }
  return names.filter((n) => existsSync(join(root, n, TEXT_STORE_DIR))).map((n) => new EmbeddingCache(join(root, n)));
}

/** One vector per manifest chunk (of its embedText), through the cache when there is one. */
export async function chunkVectors(backend: EmbeddingBackend, manifest: Manifest): Promise<Float32Array[]> {
  const texts = manifest.chunks.map((c) => c.embedText);
  const key = { strategyKey: manifest.strategyKey, model: backend.provider.model, fileHash: manifest.sourceSha256 };
  for (const built of backend.buildCaches ?? []) {
    // A stat first: most topics' caches do not hold this document.
    if (!existsSync(built.documentDir(key))) continue;
    try {
      const hit = built.getDocument(key, texts);
      if (hit) return hit;
    } catch (err) {
      skipUnreadable(backend, built.root, err);
    }
  }
  for (const pack of backend.buildPacks ?? []) {
    const hit = pack.getDocument(key, texts);
    if (hit) return hit;
  }
  const cache = backend.cache;
  if (!cache) return backend.provider.embed(texts);
  // The vectors the provider returns on the way, so a cache read that fails half-way costs no second embedding.
  const fresh = new Map<string, Float32Array>();
  const provider = backend.provider;
  const recording = {
    model: provider.model,
    embed: async (batch: string[]) => {
      const out = await provider.embed(batch);
      batch.forEach((t, i) => out[i] && fresh.set(t, out[i]));
      return out;
    },
  };
  // In batches, each cached as it returns: in one call, a provider failing on its last request
  // lost every vector it had returned (and been paid for), and the rerun asked for them again.
  const batchSize = backend.batchSize ?? cacheBatchSize();
  try {
    const { vectors } = await embedThroughCache(cache, recording, { strategyKey: manifest.strategyKey, fileHash: manifest.sourceSha256 }, texts, { batchSize });
    return vectors;
  } catch (err) {
    skipUnreadable(backend, cache.root, err);
  }
  // The cache could not be read; the next document tries it again (its entries may be readable).
  const missing = [...new Set(texts.filter((t) => !fresh.has(t)))];
  const more = missing.length > 0 ? await provider.embed(missing) : [];
  missing.forEach((t, i) => more[i] && fresh.set(t, more[i]));
  return texts.map((t) => {
    const v = fresh.get(t);
    if (!v) throw new Error(`embedding provider ${provider.provider} returned no vector for a chunk`);
    return v;
  });
}

export async function queryVector(backend: EmbeddingBackend, query: string): Promise<Float32Array> {
  const [v] = await backend.provider.embed([query]);
  if (!v) throw new Error(`embedding provider ${backend.provider.provider} returned no vector for the query`);
  return v;
}
