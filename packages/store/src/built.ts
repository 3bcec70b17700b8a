/**
 * Built docs into the store without re-embedding: a `_chunks/<doc>.json` manifest (written
 * by chunking-tool) gives the chunks, and the vectors come from `.embedding-cache/` (the
 * document entry, else the by-text store), or from the per-topic caches an Nx build keeps
 * below it; only texts missing from all of them are sent to the provider, and those are
 * cached in `.embedding-cache/` itself.
 *
 * A built document keeps the build's chunking even when it is short: its cached vectors
 * belong to those chunks, and the manifest is what topic-spec and index.json describe.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { CONTENT_TYPE, countTokens, PAGES_MANIFEST, type ChunkRecord, type ContentHint } from '@chunkyard/chunking';
import { EmbeddingCache, embedThroughCache, type DocumentKey } from '@chunkyard/embedding-cache';
import { brokenLink, errnoReason, invalidJsonMessage, isFsError, notUtf8Reason, oneLine, unfinishedBuild } from '@chunkyard/fs-atomic';
import { nestedCaches, nestedPacks, type PackedCache } from '@chunkyard/retrieval';
import { InputError } from './errors.js';
import { decodeDocument } from './input.js';
import { checkVectors, type OnProgress, type StoreEmbedder } from './ingest.js';
import { artifactId, overallHint, sha256Hex, unitsOf } from './plan.js';
import type { StagedVectors } from './store.js';
import type { ArtifactPlan, EmbeddedArtifact, PlanRef } from './types.js';

/** The `_chunks/<doc>.json` manifest chunking-tool writes (schema version 1). */
export interface ChunkManifest {
  schemaVersion: number;
  source: string;
  sourceSha256: string;
  strategy: string;
  strategyKey: string;
  fileTitle: string;
  chunks: ChunkRecord[];
}

export interface BuiltDocument {
  manifestPath: string;
  manifest: ChunkManifest;
  plan: ArtifactPlan;
}

export interface BuiltSource {
  /** The topic folder holding `_chunks/`. */
  topicDir: string;
  /** The topic as stored (workspace-relative path). */
  topic: string;
  /** Source id prefix: the topic path, so `{topic}/{source}` names the file as `ingest` would. */
  sourceSystem: string;
  /** Display path of a source file name in the topic (for search hits). */
  displayOf: (source: string) => string;
  /** Source id of a source file name (the same one `ingest` of that file uses, so it replaces it). */
  sourceIdOf: (source: string) => string;
}

/** What to do about a manifest (which chunking-tool wrote) that is not a regular file. */
const REBUILD_MANIFEST = "remove it and rebuild the topic's chunks (nx run <topic>:chunk, or chunking-tool)";
/** ... and about a source that is not: it is the author's file. */
const REBUILD_SOURCE = "make it a regular markdown file, then rebuild the topic's chunks (nx run <topic>:chunk, or chunking-tool)";

/**
 * Reads a regular file (symlinks followed), refusing a FIFO, a device or a folder at once: the
 * file is opened non-blocking and checked with fstat on that descriptor (a plain read blocks
 * on a FIFO until a writer comes). `advice` says what to do then (it said nothing).
 */
function readRegular(path: string, advice: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    // A file there that cannot be opened (EACCES): Node's "EACCES: permission denied, open '…'" named no fix.
    // A dangling link (a manifest listed in _chunks/, so there) was "no such file or folder (ENOENT); check the path".
    if (isFsError(err)) throw new InputError(path, brokenLink(path) ?? errnoReason(err));
    throw err;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      const kind = stat.isDirectory() ? 'a folder' : stat.isFIFO() ? 'a FIFO (named pipe)' : stat.isCharacterDevice() || stat.isBlockDevice() ? 'a device' : 'a special file';
      throw new InputError(path, `${kind}, not a regular file; ${advice}`);
    }
    return readFileSync(fd);
  } catch (err) {
    if (isFsError(err)) throw new InputError(path, errnoReason(err));
    throw err;
  } finally {
    closeSync(fd);
  }
}

/** Reads every manifest in `<topicDir>/_chunks/`, checked against its source file. */
export function readBuiltTopic(src: BuiltSource): BuiltDocument[] {
  return builtManifests(src).map((path) => readBuiltDocument(src, path));
}

/**
 * The documents of a topic as PlanRefs: each manifest is read and checked now, and read
 * again when a stage of the ingest needs its chunks, so only one is held at a time.
 * `adjust` changes each plan as the caller stores it (a `--content-type`).
 */
export function builtRefs(src: BuiltSource, adjust: (plan: ArtifactPlan) => ArtifactPlan = (plan) => plan): PlanRef[] {
  return builtManifests(src).map((path) => {
    const { units, ...head } = adjust(readBuiltDocument(src, path).plan);
    const unitIds = units.map((u) => u.id);
    return {
      head: { ...head, units: [] },
      unitIds,
      load: () => {
        // Same source (checked by its hash, which the id holds), so the same count.
        const plan = adjust(readBuiltDocument(src, path, head.tokenCount).plan);
        // The id holds the source's hash, and the unit ids the chunks': a rebuild between the stages changes them.
        if (plan.id !== head.id || plan.units.length !== unitIds.length || plan.units.some((u, i) => u.id !== unitIds[i])) {
          throw new InputError(path, "changed while this ingest ran (the topic was rebuilt); nothing was written: run the ingest again");
        }
        return plan;
      },
    };
  });
}

/** The manifest paths of a topic, in name order. */
function builtManifests(src: BuiltSource): string[] {
  const dir = join(src.topicDir, '_chunks');
  if (!existsSync(dir)) {
    // A chunking-tool killed between StagedDir.commit's two renames left no _chunks/, only the
    // previous folder moved aside (and the new one staged): "build the topic first" named
    // neither, as if it had never been built. In docs-export's words (b8e5e17).
    const left = unfinishedBuild(src.topicDir, '_chunks');
    if (left !== null) {
      const what = left.aside ? 'its previous _chunks/, moved aside' : 'a new _chunks/ staged, never put in place';
      throw new InputError(
        src.topicDir,
        `this topic has no _chunks/, only ${oneLine(basename(left.temp))} (${what}): a build of the topic was killed before it finished, or is running now; build it again (npx nx run-many -t index, or chunkyard chunk ${oneLine(src.topicDir)}), then ingest again`,
      );
    }
    throw new InputError(src.topicDir, 'no _chunks/ folder: build the topic first (nx run <topic>:chunk, or chunking-tool)');
  }
  const manifests = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== PAGES_MANIFEST).sort();
  if (manifests.length === 0) throw new InputError(dir, 'no chunk manifests (*.json)');
  return manifests.map((name) => join(dir, name));
}

/** One manifest, checked against its source file; `tokenCount`, when known, spares counting the source's tokens again. */
function readBuiltDocument(src: BuiltSource, manifestPath: string, tokenCount?: number): BuiltDocument {
  const manifest = parseManifest(manifestText(readRegular(manifestPath, REBUILD_MANIFEST), manifestPath), manifestPath);
  const sourcePath = join(src.topicDir, manifest.source);
  if (!existsSync(sourcePath)) throw new InputError(manifestPath, `its source ${manifest.source} is missing`);
  const text = decodeDocument(readRegular(sourcePath, REBUILD_SOURCE), src.displayOf(manifest.source));
  if (sha256Hex(text) !== manifest.sourceSha256) {
    throw new InputError(manifestPath, `stale: ${manifest.source} changed since it was built; rebuild the topic's chunks`);
  }
  const id = artifactId(src.sourceSystem, src.sourceIdOf(manifest.source), manifest.sourceSha256);
  const plan: ArtifactPlan = {
    id,
    artifactType: manifest.chunks[0]?.contentType ?? 'doc',
    sourceSystem: src.sourceSystem,
    sourceId: src.sourceIdOf(manifest.source),
    sourceFile: src.displayOf(manifest.source),
    topic: src.topic,
    title: manifest.fileTitle,
    content: '',
    tokenCount: tokenCount ?? countTokens(text),
    contentHash: manifest.sourceSha256,
    isChunked: true,
    strategyKey: manifest.strategyKey,
    contentHints: overallHint(manifest.chunks.map((c) => c.contentHints)),
    units: unitsOf(id, manifest.chunks),
  };
  return { manifestPath, manifest, plan };
}

/**
 * A manifest's bytes as text. chunking-tool writes UTF-8, so other bytes were damaged after
 * the build: read leniently, they became U+FFFD in a chunk's embedText, which was embedded and
 * stored (exit 0), or in its source name, which was then reported missing.
 */
function manifestText(bytes: Buffer, file: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InputError(file, `${notUtf8Reason(bytes)}; ${REBUILD_MANIFEST}`);
  }
}

function parseManifest(text: string, file: string): ChunkManifest {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch (err) {
    // Never the parser's words: they quote the file, and a planted link makes it any file.
    throw new InputError(file, invalidJsonMessage(text, err));
  }
  const o = m as Partial<ChunkManifest> | null;
  if (!o || typeof o !== 'object') throw new InputError(file, 'not a chunk manifest (expected an object)');
  if (o.schemaVersion !== 1) throw new InputError(file, `manifest schemaVersion ${String(o.schemaVersion)}, expected 1`);
  for (const key of ['source', 'sourceSha256', 'strategyKey', 'fileTitle'] as const) {
    if (typeof o[key] !== 'string' || !o[key]) throw new InputError(file, `manifest field ${key} missing or not a string`);
  }
  // chunking-tool writes the source's name inside the topic; one that leads out (a hand-edited
  // or planted manifest) had a file outside the topic read and hashed, and said whether it existed.
  const sourceParts = o.source!.split(/[\\/]/);
  if (isAbsolute(o.source!) || sourceParts.includes('..')) {
    throw new InputError(file, `manifest field source ${JSON.stringify(oneLine(o.source!).slice(0, 200))} leads out of the topic folder; ${REBUILD_MANIFEST}`);
  }
  if (!Array.isArray(o.chunks) || o.chunks.length === 0) throw new InputError(file, 'manifest has no chunks');
  o.chunks.forEach((c, i) => {
    const problem = chunkProblem(c as unknown);
    if (problem !== null) throw new InputError(file, `chunk ${i}: ${problem}; ${REBUILD_MANIFEST}`);
  });
  return o as ChunkManifest;
}

const HINTS: ReadonlySet<unknown> = new Set<ContentHint>(['prose', 'table', 'code', 'list', 'quote', 'mixed']);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
/** A value as a message shows it: JSON, cut short, terminal-safe. */
const shown = (v: unknown): string => {
  if (v === undefined) return 'nothing';
  const json = JSON.stringify(v) ?? String(v);
  return oneLine(json.length > 60 ? `${json.slice(0, 60)}…` : json);
};

/**
 * What is wrong with one chunk record of a manifest, for each field the store reads from it,
 * or null. Only three fields were checked: a record without tokenStats failed with "Cannot
 * read properties of undefined (reading 'tokens')", and one whose sectionTitle was null or
 * whose contentHints was a number reached SQLite, and ingest --built died with a stack trace
 * ("SQLite3 can only bind numbers, strings, bigints, buffers, and null"; s55 probe).
 */
function chunkProblem(c: unknown): string | null {
  if (typeof c !== 'object' || c === null || Array.isArray(c)) return `not an object (got ${shown(c)})`;
  const r = c as Record<string, unknown>;
  for (const key of ['id', 'originalText', 'embedText', 'sectionTitle', 'headerBreadcrumb'] as const) {
    if (typeof r[key] !== 'string') return `${key} is not a string (got ${shown(r[key])})`;
  }
  const position = r.sourcePosition as Record<string, unknown> | null | undefined;
  if (typeof position !== 'object' || position === null) return `sourcePosition is not an object (got ${shown(position)})`;
  if (!isCount(position.charStart) || !isCount(position.charEnd) || position.charStart > position.charEnd) {
    return `sourcePosition is not { charStart, charEnd } with whole numbers 0 ≤ charStart ≤ charEnd (got ${shown({ charStart: position.charStart, charEnd: position.charEnd })})`;
  }
  const stats = r.tokenStats as Record<string, unknown> | null | undefined;
  if (typeof stats !== 'object' || stats === null || !isCount(stats.tokens)) return `tokenStats.tokens is not a whole number ≥ 0 (got ${shown(stats)})`;
  if (!HINTS.has(r.contentHints)) return `contentHints is not one of ${[...HINTS].join(', ')} (got ${shown(r.contentHints)})`;
  if (typeof r.isCode !== 'boolean') return `isCode is not true or false (got ${shown(r.isCode)})`;
  // Older manifests lack it (the store reads it as 0).
  if (r.overlapChars !== undefined && !isCount(r.overlapChars)) return `overlapChars is not a whole number ≥ 0 (got ${shown(r.overlapChars)})`;
  // The first chunk's opens every chunk id of the artifact: chunking's own rule (one word without ":").
  if (r.contentType !== undefined && (typeof r.contentType !== 'string' || !CONTENT_TYPE.test(r.contentType))) {
    return `contentType is not one word without ":" (got ${shown(r.contentType)})`;
  }
  return null;
}

export interface CacheStats {
  documentHits: number;
  textHits: number;
  embedded: number;
}

export interface CachedVectorsOptions {
  /**
   * Texts per embedder call, each call's vectors cached before the next (topic-spec's rule:
   * `cacheBatchSize(config.embeddings)` from @chunkyard/embeddings). Required: in one call, a
   * provider failing on its last request lost every vector already paid for, and a rerun paid again.
   */
  batchSize: number;
}

/**
 * A VectorSource that takes vectors from the embedding cache, embedding only what is missing.
 * A document entry is first looked for in the per-topic caches below `cache` (folders, then
 * packs), which it only reads: `nx run-many` gives each topic's topic-spec a cache of its own
 * (`.embedding-cache/<project>/`, `<project>.pack` after a restore from the Nx cache), so after
 * an Nx build the root cache held nothing and every chunk was embedded again. docs-query's
 * fallback reads the same ones (retrieval's createBackend).
 */
export function cachedVectors(cache: EmbeddingCache, embedder: StoreEmbedder, stats: CacheStats, options: CachedVectorsOptions) {
  // Looked for once: stagedCachedVectors calls this for each document, and a tree of many topics has as many caches.
  let caches: (EmbeddingCache | PackedCache)[] | null = null;
  return async (plans: ArtifactPlan[], onProgress?: OnProgress): Promise<EmbeddedArtifact[]> => {
    const built = (caches ??= [...nestedCaches(cache.root), ...nestedPacks(cache.root)]);
    const out: EmbeddedArtifact[] = [];
    for (const [i, plan] of plans.entries()) {
      const texts = plan.units.map((u) => u.embedText);
      const key = { strategyKey: plan.strategyKey, model: embedder.model, fileHash: plan.contentHash };
      let vectors = builtDocument(built, key, texts);
      if (vectors) {
        stats.documentHits += 1;
      } else {
        const r = await embedThroughCache(cache, embedder, { strategyKey: plan.strategyKey, fileHash: plan.contentHash }, texts, { batchSize: options.batchSize });
        vectors = r.vectors;
        stats.documentHits += r.stats.documentHit ? 1 : 0;
        stats.textHits += r.stats.textHits;
        stats.embedded += r.stats.embedded;
      }
      checkVectors(vectors, texts.length, embedder.model);
      out.push({ plan, vectors });
      onProgress?.({ stage: 'embed', done: i + 1, total: plans.length });
    }
    return out;
  };
}

/**
 * `cachedVectors` in two steps for `ingestRefs`: `stage` makes sure a cache holds each
 * document's whole entry (embedding only what none holds, as `cachedVectors`) and keeps no
 * vector; `vectorsOf` reads the entry again for the write. Holding every document's vectors
 * from embedding to the write made ingest --built's memory grow with the tree.
 */
export function stagedCachedVectors(cache: EmbeddingCache, embedder: StoreEmbedder, stats: CacheStats, options: CachedVectorsOptions): StagedVectors {
  const one = cachedVectors(cache, embedder, stats, options);
  let caches: (EmbeddingCache | PackedCache)[] | null = null;
  // Counted as document hits on a look alone; taken back if the write finds no entry after all.
  const looked = new Set<string>();
  return {
    async stage(refs, onProgress, thorough = false) {
      for (const [i, ref] of refs.entries()) {
        const key = { strategyKey: ref.head.strategyKey, model: embedder.model, fileHash: ref.head.contentHash };
        caches ??= [...nestedCaches(cache.root), ...nestedPacks(cache.root), cache];
        // A folder holding the document's entry: the write reads and checks it, so the manifest
        // is not read a third time here (re-ingesting 4 changed 9 MB documents took 50% longer).
        if (!thorough && caches.some((c) => c instanceof EmbeddingCache && existsSync(c.documentDir(key)))) {
          looked.add(ref.head.id);
          stats.documentHits += 1;
        } else {
          if (looked.delete(ref.head.id)) stats.documentHits -= 1;
          // One document at a time: its vectors are dropped once the cache holds them.
          await one([ref.load()]);
        }
        onProgress?.({ stage: 'embed', done: i + 1, total: refs.length });
      }
    },
    vectorsOf(plan) {
      // The per-topic caches first, as `stage` looked; `stage` put what they lacked in `cache` itself.
      caches ??= [...nestedCaches(cache.root), ...nestedPacks(cache.root), cache];
      const texts = plan.units.map((u) => u.embedText);
      const vectors = builtDocument(caches, { strategyKey: plan.strategyKey, model: embedder.model, fileHash: plan.contentHash }, texts);
      if (vectors) checkVectors(vectors, texts.length, embedder.model);
      return vectors;
    },
  };
}

/** The document's vectors from the first of `caches` holding its whole, valid entry; else null. */
function builtDocument(caches: readonly (EmbeddingCache | PackedCache)[], key: DocumentKey, texts: string[]): Float32Array[] | null {
  for (const c of caches) {
    // A stat first: most topics' caches do not hold this document.
    if (c instanceof EmbeddingCache && !existsSync(c.documentDir(key))) continue;
    const hit = c.getDocument(key, texts);
    if (hit) return hit;
  }
  return null;
}
