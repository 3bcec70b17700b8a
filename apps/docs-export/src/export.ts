/**
 * What docs-export reads and what it writes, without the CLI: the built topics under a docs
 * root (folders holding `_chunks/<doc>.json` manifests), each chunk as a LangChain.js
 * `Document`, a LlamaIndex.TS `TextNode` or a plain record, and the vectors `spec` cached.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { brokenLink, errnoReason, invalidJsonMessage, isFsError, linkedFolderHolds, notUtf8Reason, NotRegularFileError, readRegularFile, symlinkedFolder, unfinishedBuild } from '@chunkyard/fs-atomic';
import { basename, join, relative, sep } from 'node:path';
import type { ChunkRecord } from '@chunkyard/chunking';
import { chunkMetadata, textNodesOf, toLangChainDocument, type ChunkContext, type PageContent } from '@chunkyard/chunking/interop';
import { EmbeddingCache, projectCacheFolderName } from '@chunkyard/embedding-cache';
import type { EmbeddingProvider } from '@chunkyard/embeddings';

export const FORMATS = ['langchain', 'llamaindex', 'jsonl'] as const;

/**
 * @chunkyard/chunking's PAGES_MANIFEST (paginate's chunks.json, not a chunk manifest), kept here:
 * imported as a value it would bundle the whole chunker into this CLI, which reads only JSON.
 * A test holds the two equal.
 */
export const PAGES_MANIFEST = 'chunks.json';
export type Format = (typeof FORMATS)[number];

/** A manifest that cannot be read or does not look like chunking-tool's; the message names the file. */
export class ExportError extends Error {
  override name = 'ExportError';
}

/** chunking-tool's manifest (`_chunks/<doc>.json`), the fields the export reads. */
export interface Manifest {
  schemaVersion: number;
  source: string;
  sourceSha256: string;
  strategyKey: string;
  fileTitle: string;
  chunks: ChunkRecord[];
}

export interface BuiltDocument {
  /** Topic folder relative to the docs root, posix (`libraries/json`); '' for the root itself. */
  topic: string;
  /** Absolute path of the folder holding `_chunks/`. */
  dir: string;
  manifestFile: string;
  manifest: Manifest;
}

/** Folders never searched for topics: hidden ones, generated ones and installed packages. */
const skipDir = (name: string) => name.startsWith('.') || name.startsWith('_') || name === 'node_modules';

/** `_chunks/*.json` of one folder, without paginate's `chunks.json` summary. */
function manifestFiles(dir: string): string[] {
  const chunksDir = join(dir, '_chunks');
  if (!existsSync(chunksDir)) return [];
  return readdirSync(chunksDir)
    .filter((f) => f.endsWith('.json') && f !== PAGES_MANIFEST)
    .sort()
    .map((f) => join(chunksDir, f));
}

/**
 * Documents of `dir/_chunks/` whose chunk files (`<doc>-<n>.md`, chunking-tool's names) are
 * there but whose manifest (`<doc>.json`) is not: a build cut short, or a manifest deleted.
 */
function chunksWithoutManifest(dir: string): string[] {
  const chunksDir = join(dir, '_chunks');
  if (!existsSync(chunksDir)) return [];
  const names = new Set(readdirSync(chunksDir));
  const orphans = new Set<string>();
  for (const name of names) {
    const doc = /^(.+)-\d+\.md$/.exec(name)?.[1];
    if (doc !== undefined && !names.has(`${doc}.json`)) orphans.add(doc);
  }
  return [...orphans].sort();
}

/** Told of a symlinked folder holding built topics that a walk did not follow (link path, real path). */
export type OnSkippedLink = (link: string, real: string) => void;

/**
 * Every folder under `root` (itself included) holding chunk manifests, in path order. Links
 * are not followed (one could lead back into the tree, or out of it); a linked folder holding
 * built topics is told to `onSkippedLink`, since leaving it out unsaid exported less than the
 * tree seemed to hold. `onFolder` sees every folder walked (not those behind links).
 */
export function builtTopicDirs(root: string, onSkippedLink?: OnSkippedLink, onFolder?: (dir: string) => void): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    onFolder?.(dir);
    if (manifestFiles(dir).length > 0) out.push(dir);
    const entries = readdirSync(dir, { withFileTypes: true }).filter((e) => !skipDir(e.name));
    if (onSkippedLink) {
      for (const e of entries) {
        if (!e.isSymbolicLink()) continue;
        const link = join(dir, e.name);
        const real = symlinkedFolder(link);
        if (real !== null && linkedFolderHolds(link, real, (d) => builtTopicDirs(d).length > 0)) onSkippedLink(link, real);
      }
    }
    const subdirs = entries
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    for (const name of subdirs) visit(join(dir, name));
  };
  visit(root);
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How a JSON value is named in a message: `an object`, `an array`, `null`, `a string` … */
const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

type FieldType = 'string' | 'string|null' | 'number' | 'boolean' | 'string[]' | 'object';

/**
 * The fields of a chunk record the formats read (chunkMetadata, toTextNode), beyond id, the
 * texts, sourcePosition, metadata and metadata.chunkingOptions, with their types. `?` marks
 * a field older manifests may lack.
 */
const RECORD_FIELDS: readonly (readonly [string, FieldType])[] = [
  ['parentId', 'string'],
  ['prevId', 'string|null'],
  ['nextId', 'string|null'],
  ['chunkNumber', 'number'],
  ['contentType', 'string'],
  ['fileTitle', 'string'],
  ['sectionTitle', 'string'],
  ['headerPath', 'string[]'],
  ['headerBreadcrumb', 'string'],
  ['sectionSlug', 'string'],
  ['sourcePosition.charStart', 'number'],
  ['sourcePosition.charEnd', 'number'],
  ['sourcePosition.totalChars', 'number'],
  ['tokenStats', 'object'],
  ['tokenStats.tokens', 'number'],
  ['tokenStats.estimatedTokens', 'number'],
  ['tokenStats.embedTokens', 'number'],
  ['contentHints', 'string'],
  ['isCode', 'boolean'],
  ['containsTable', 'boolean'],
  ['splitUnit', 'boolean'],
  ['overlapChars', 'number'],
  ['metadata.sourceFile', 'string'],
  ['metadata.chunkingOptions.strategy', 'string'],
  ['metadata.chunkingOptions.breadcrumbMode?', 'string'],
  ['tier?', 'object'],
  ['tier.level', 'string'],
  ['source?', 'object'],
  ['source.startLine', 'number'],
  ['source.endLine', 'number'],
];

const fieldTypeOk = (v: unknown, type: string): boolean => {
  switch (type) {
    case 'string|null':
      return v === null || typeof v === 'string';
    case 'string[]':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'object':
      return isObject(v);
    default:
      return typeof v === type;
  }
};

/** RECORD_FIELDS split once: each record checks them all, and a manifest may hold 100,000 records. */
const FIELD_CHECKS = RECORD_FIELDS.map(([spec, type]) => {
  const optional = spec.endsWith('?');
  const path = optional ? spec.slice(0, -1) : spec;
  return { path, keys: path.split('.'), optional, type };
});

/** Why a chunk record's fields cannot be exported (`"tokenStats" is missing`), or null. */
function recordFieldProblem(record: Record<string, unknown>): string | null {
  for (const { path, keys, optional, type } of FIELD_CHECKS) {
    // Parents come first in the list, so a parent reached here is an object, or an optional
    // one the record lacks, whose fields are not read.
    let value: unknown = record;
    for (const k of keys) value = isObject(value) && Object.hasOwn(value, k) ? value[k] : undefined;
    if (value === undefined) {
      if (optional || (keys.length > 1 && record[keys[0]!] === undefined)) continue;
      return `"${path}" is missing`;
    }
    if (!fieldTypeOk(value, type)) {
      const wanted = type === 'string|null' ? 'a string or null' : type === 'string[]' ? 'an array of strings' : type === 'object' ? 'an object' : `a ${type}`;
      return `"${path}" is ${kindOf(value)}, not ${wanted}`;
    }
  }
  return null;
}

/**
 * Parses and checks one manifest; every problem is an ExportError naming the file.
 * `recheck: false` (loadSurveyed, reading again a file the survey checked and whose version it
 * compares) leaves out the walks through every record: they cost a quarter of the export.
 */
export function readManifest(file: string, options: { recheck?: boolean } = {}): Manifest {
  const { recheck = true } = options;
  let data: unknown;
  let text = '';
  let bytes: Buffer | null = null;
  try {
    // A FIFO or a device is refused at once (a plain read would block on a FIFO).
    bytes = readRegularFile(file);
    // Decoded with replacement characters (toString('utf8')), a damaged byte became U+FFFD in
    // pageContent and text without a word, and a vector store held the altered chunk; every
    // other reader of built docs (@chunkyard/retrieval, topic-io) refuses such a file.
    // ignoreBOM keeps a BOM in the text, for JSON.parse to name as before.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    data = JSON.parse(text);
  } catch (err) {
    const notUtf8 = bytes !== null && (err as NodeJS.ErrnoException).code === 'ERR_ENCODING_INVALID_ENCODED_DATA';
    const reason = err instanceof NotRegularFileError
      ? `${err.kind}, not a regular file (rebuild it with chunking-tool)`
      : notUtf8
        ? `${notUtf8Reason(bytes!)}; chunking-tool writes UTF-8, so it was damaged or replaced after the build (rebuild it with chunking-tool)`
      : err instanceof SyntaxError
        // Never the parser's words: they quote the file, and a planted link makes it any file.
        ? invalidJsonMessage(text, err)
        // fs-atomic's words with what to do: "cannot read it (EACCES)" named the errno alone.
        // A dangling link (listed in _chunks/, so there) was "no such file or folder (ENOENT); check the path".
        : isFsError(err) ? (brokenLink(file) ?? errnoReason(err)) : `cannot read it (${(err as Error).message})`;
    throw new ExportError(`${file}: ${reason}`);
  }
  const bad = (what: string) => new ExportError(`${file}: not a chunk manifest: ${what} (rebuild it with chunking-tool)`);
  if (!isObject(data)) throw bad('not a JSON object');
  // A missing field read "schemaVersion is undefined", JSON.stringify's undefined.
  if (data.schemaVersion !== 1) throw bad(data.schemaVersion === undefined ? 'no "schemaVersion" (it is 1)' : `schemaVersion is ${JSON.stringify(data.schemaVersion)}, not 1`);
  for (const key of ['source', 'sourceSha256', 'strategyKey'] as const) if (typeof data[key] !== 'string') throw bad(`"${key}" is not a string`);
  if (!Array.isArray(data.chunks)) throw bad('"chunks" is not an array');
  data.chunks.forEach((c: unknown, i) => {
    if (!isObject(c) || typeof c.id !== 'string' || typeof c.originalText !== 'string' || typeof c.embedText !== 'string' || !isObject(c.sourcePosition) || !isObject(c.metadata)) {
      throw bad(`chunk ${i} lacks id, originalText, embedText, sourcePosition or metadata`);
    }
    // Every format's metadata names the strategy (chunkMetadata reads metadata.chunkingOptions):
    // a manifest without it was a TypeError's stack trace, after the lines of earlier documents.
    if (!isObject(c.metadata.chunkingOptions)) throw bad(`chunk ${i} lacks metadata.chunkingOptions`);
    // jsonl writes the whole record, and JSON.stringify recurses: a value nested 200,000 deep
    // (JSON.parse reads it) was a RangeError's stack trace after earlier topics' lines.
    if (!recheck) return;
    if (nestsDeeperThan(c, MAX_RECORD_DEPTH)) throw bad(`chunk ${i} nests values more than ${MAX_RECORD_DEPTH} levels deep, where chunking-tool writes a few`);
    // The other fields the formats read: one missing was a TypeError's stack trace after the
    // lines of earlier topics were out (tokenStats; headerPath for llamaindex), and one of
    // another type went into the metadata as it was (an object where Chroma and the other
    // stores take only a string, number, boolean or null), exit 0.
    const problem = recordFieldProblem(c);
    if (problem !== null) throw bad(`chunk ${i}: ${problem}`);
  });
  if (data.fileTitle !== undefined && typeof data.fileTitle !== 'string') throw bad(`"fileTitle" is ${kindOf(data.fileTitle)}, not a string`);
  // A lone surrogate can only be a \uXXXX escape here (the text is UTF-8), so only a file
  // holding one of D800-DFFF is walked.
  if (recheck && /\\u[dD][89a-fA-F]/.test(text)) {
    const where = (path: readonly (string | number)[]) => (path[0] === 'chunks' && typeof path[1] === 'number' ? `chunk ${path[1]}: "${path.slice(2).join('.')}"` : `"${path.join('.')}"`);
    const found = loneSurrogate(data);
    if (found !== null) {
      const unit = `\\u${found.unit.toString(16)}`;
      throw bad(`${where(found.path)} holds a lone surrogate (${unit}) at character ${found.index}; no UTF-8 text holds one, so JSON readers disagree on it (it was edited or damaged after the build)`);
    }
  }
  return data as unknown as Manifest;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Containers a chunk record may nest (the record itself is 1); chunking-tool writes 5 at most. */
const MAX_RECORD_DEPTH = 64;

/** Whether `root` nests objects and arrays more than `max` levels deep (itself 1); without recursion. */
function nestsDeeperThan(root: unknown, max: number): boolean {
  // Two stacks, not one of pairs: this walks every object of every record, twice an export.
  const values: unknown[] = [root];
  const depths: number[] = [1];
  while (values.length > 0) {
    const value = values.pop()!;
    const depth = depths.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > max) return true;
    if (Array.isArray(value)) {
      for (const v of value) {
        if (typeof v === 'object' && v !== null) {
          values.push(v);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const k in value) {
        const v = (value as Record<string, unknown>)[k];
        if (typeof v === 'object' && v !== null) {
          values.push(v);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/**
 * The first string in a JSON value holding a lone UTF-16 surrogate (JSON's `"\ud800"`): its
 * path, the offset and the code unit. Exported as it was, Python keeps a str its own UTF-8
 * encoder refuses, Go reads U+FFFD and serde_json refuses the line: readers disagree on the text.
 * Without recursion (a value nested deeper than the stack is refused later, naming its chunk).
 */
function loneSurrogate(root: unknown): { path: (string | number)[]; index: number; unit: number } | null {
  const stack: [unknown, (string | number)[]][] = [[root, []]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      const m = LONE_SURROGATE.exec(value);
      if (m !== null) return { path, index: m.index, unit: value.charCodeAt(m.index) };
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], [...path, i]]);
    } else if (isObject(value)) {
      // Pushed in reverse, so the first in the file is found first; a key is looked at before its value.
      for (const k of Object.keys(value).reverse()) stack.push([value[k], [...path, k]], [k, [...path, k]]);
    }
  }
  return null;
}

/**
 * A built document as the survey checked it, its chunks let go: holding every manifest of the
 * tree until the last was written took memory in the size of the whole tree (a 140 MB manifest
 * exported with its vectors peaked at 1.5 GB), where one document at a time is enough.
 */
export interface SurveyedDocument {
  topic: string;
  dir: string;
  manifestFile: string;
  /** The manifest's `source`. */
  source: string;
  chunks: number;
  /** The manifest file's identity and times when it was checked; loadSurveyed refuses a manifest changed since. */
  version: string;
}

/** Inode, size, mtime and ctime (ns): any write to the file changes one. */
function fileVersion(file: string): string {
  try {
    const st = statSync(file, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return ''; // unreadable: readManifest reports it, naming the file
  }
}

/** The file that makes a folder a topic (topic-io's TOPIC_MARKER; docs-export does not depend on topic-io). */
const TOPIC_MARKER = 'golden-reference.md';

/**
 * A topic whose `_chunks/` is missing while a build's temp of it is there fails the export: a
 * chunking-tool SIGKILLed between its two renames left no `_chunks/`, only the previous folder
 * moved aside (and the new one staged), and the export went on without the topic, exit 0, until
 * the next build. The next run of a tool writing in the topic puts the previous folder back.
 */
function interruptedTopic(dir: string): void {
  if (!existsSync(join(dir, TOPIC_MARKER))) return;
  const left = unfinishedBuild(dir, '_chunks');
  if (left === null) return;
  const what = left.aside ? 'its previous _chunks/, moved aside' : 'a new _chunks/ staged, never put in place';
  throw new ExportError(
    `${dir}: this topic has no _chunks/, only ${basename(left.temp)} (${what}): a build of the topic was killed before it finished, or is running now; build it again (npx nx run-many -t index, or chunkyard chunk ${dir}), then export again`,
  );
}

/**
 * Every manifest of every built topic under `root`, read and checked before anything is
 * written (a broken one fails the run with nothing written), then let go: loadSurveyed reads
 * each again when its turn comes. Memory holds one manifest and every export id.
 */
export function surveyBuiltDocs(root: string, onSkippedLink?: OnSkippedLink): SurveyedDocument[] {
  // Chunk files without their manifest were left out without a word: the export held fewer
  // topics than the tree, and a vector store loaded from it lacked them. Like a broken
  // manifest, that fails the run before anything is written.
  const checked = (dir: string) => {
    interruptedTopic(dir);
    // A _chunks/ that is a dangling or looping link read as "not built": the topic was left out
    // of the export, exit 0, with no word (issue 15 probe), where a file there fails the run.
    const chunksLink = brokenLink(join(dir, '_chunks'));
    if (chunksLink !== null) throw new ExportError(`${join(dir, '_chunks')}: ${chunksLink}`);
    const orphans = chunksWithoutManifest(dir);
    if (orphans.length > 0) {
      const names = orphans.slice(0, 3).map((d) => `${d}.json`).join(', ') + (orphans.length > 3 ? ` and ${orphans.length - 3} more` : '');
      throw new ExportError(`${join(dir, '_chunks')}: chunk files without their manifest (${names}); rebuild the topic with chunking-tool`);
    }
  };
  // Export ids are what a vector store keys on: a hand-edited manifest repeating a chunk id was
  // exported as two records with one id, and loading them kept one chunk and dropped the other
  // (LlamaIndex's PREVIOUS/NEXT and CHILD links pointed at whichever won) without a word.
  const seen = new Map<string, string>();
  const docs: SurveyedDocument[] = [];
  for (const dir of builtTopicDirs(root, onSkippedLink, checked)) {
    const topic = relative(root, dir).split(sep).join('/');
    for (const manifestFile of manifestFiles(dir)) {
      // Before the read: a write after it changes the version loadSurveyed compares.
      const version = fileVersion(manifestFile);
      const manifest = readManifest(manifestFile);
      manifest.chunks.forEach((c, i) => {
        const id = exportId(topic, c.id);
        const first = seen.get(id);
        if (first !== undefined) {
          const where = first === manifestFile ? 'an earlier chunk of this manifest' : first;
          throw new ExportError(`${manifestFile}: not a chunk manifest: chunk ${i} has the id ${JSON.stringify(c.id)}, which ${where} already gives (export id ${JSON.stringify(id)}) (rebuild it with chunking-tool)`);
        }
        seen.set(id, manifestFile);
      });
      docs.push({ topic, dir, manifestFile, source: manifest.source, chunks: manifest.chunks.length, version });
    }
  }
  return docs;
}

/**
 * The manifest files of every built topic under `root`, in survey order, unread: after the
 * export, what the survey would list now (see the check in main).
 */
export function manifestPaths(root: string): string[] {
  return builtTopicDirs(root).flatMap(manifestFiles);
}

/** A surveyed document's manifest, read again; an ExportError if it changed since the survey checked it. */
export function loadSurveyed(doc: SurveyedDocument): BuiltDocument {
  const version = fileVersion(doc.manifestFile);
  // Checked whole by the survey; the version, the same before and after this read, says it is
  // the same file (a file renamed over it between the stat and the read would be another).
  const manifest = readManifest(doc.manifestFile, { recheck: false });
  if (version !== doc.version || fileVersion(doc.manifestFile) !== doc.version || manifest.chunks.length !== doc.chunks || manifest.source !== doc.source) {
    throw new ExportError(`${doc.manifestFile}: changed while it was exported (a build running at the same time?); export again when the build is done`);
  }
  return { topic: doc.topic, dir: doc.dir, manifestFile: doc.manifestFile, manifest };
}

/** Every manifest of every built topic under `root`, read and checked, held together (surveyBuiltDocs holds one at a time). */
export function readBuiltDocs(root: string, onSkippedLink?: OnSkippedLink): BuiltDocument[] {
  return surveyBuiltDocs(root, onSkippedLink).map(loadSurveyed);
}

/** `<topic>/<name>`: chunk ids repeat across topics (every topic has `doc:golden-reference::ch0`), export ids do not. */
export const exportId = (topic: string, name: string): string => (topic === '' ? name : `${topic}/${name}`);

// ---------------------------------------------------------------------------------------------
// Vectors

/**
 * Where `spec` left a topic's vectors: with the Nx plugin, `.embedding-cache/<project>`
 * (`topic-<path with - for />`, or `topic-<root>-<path>` when the workspace has several docs
 * roots; a name too long for a file name shortened as the plugin shortens it, by
 * projectCacheFolderName); run by hand, topic-spec's default `.embedding-cache`. `extra`
 * (--cache-dir) first.
 */
export function cacheDirsFor(workspace: string, docsRoot: string, topic: string, extra: string[] = []): string[] {
  const base = join(workspace, '.embedding-cache');
  const rootName = relative(workspace, docsRoot).split(sep).filter(Boolean).join('-');
  const rel = topic.split('/').join('-');
  const projects = topic === '' ? [`topic-${rootName}`] : [`topic-${rel}`, `topic-${rootName}-${rel}`];
  return [...extra, ...projects.map((p) => join(base, projectCacheFolderName(p))), base];
}

export interface VectorStats {
  /** Chunks whose vector came from a cache. */
  cached: number;
  /** Chunks embedded now with the configured provider (nothing cached for them). */
  computed: number;
}

export interface VectorSource {
  provider: EmbeddingProvider;
  /** Cache folders to look in, for one document. */
  cacheDirs: (doc: BuiltDocument) => string[];
  /** Fail instead of embedding what no cache holds. */
  cachedOnly: boolean;
  stats: VectorStats;
}

/**
 * One vector per chunk of `doc`, of its embedText, for the configured model: the cached
 * document entry, else cached texts, else (unless cachedOnly) the provider. Caches are only
 * read: they are the `spec` task's outputs, and an export must not change a build's outputs.
 */
export async function vectorsFor(doc: BuiltDocument, source: VectorSource): Promise<Float32Array[]> {
  const { manifest } = doc;
  const texts = manifest.chunks.map((c) => c.embedText);
  const model = source.provider.model;
  const caches = source.cacheDirs(doc).filter((d) => existsSync(d)).map((d) => new EmbeddingCache(d));
  for (const cache of caches) {
    const whole = cache.getDocument({ strategyKey: manifest.strategyKey, model, fileHash: manifest.sourceSha256 }, texts);
    if (whole) {
      source.stats.cached += texts.length;
      return whole;
    }
  }
  const vectors: (Float32Array | null)[] = texts.map((t) => {
    for (const cache of caches) {
      const v = cache.getText(model, t);
      if (v) return v;
    }
    return null;
  });
  const missing = vectors.flatMap((v, i) => (v ? [] : [i]));
  source.stats.cached += texts.length - missing.length;
  if (missing.length > 0) {
    if (source.cachedOnly) {
      throw new ExportError(
        `${doc.manifestFile}: no cached vectors of model ${model} for ${missing.length} of ${texts.length} chunks ` +
          `(looked in ${source.cacheDirs(doc).join(', ')}); run the spec step first (npx nx run-many -t spec, or topic-spec), ` +
          'or drop --cached-only to embed them with the configured provider',
      );
    }
    const fresh = await source.provider.embed(missing.map((i) => texts[i]!));
    if (fresh.length !== missing.length) throw new ExportError(`embedding provider ${source.provider.provider} returned ${fresh.length} vectors for ${missing.length} texts`);
    missing.forEach((i, j) => (vectors[i] = fresh[j]!));
    source.stats.computed += missing.length;
  }
  return vectors as Float32Array[];
}

// ---------------------------------------------------------------------------------------------
// Records

/**
 * Float32 values as JSON numbers of 9 significant digits: enough for every float32 to read
 * back exactly (`Float32Array.from(json)`), about half the text of the exact doubles.
 */
const vectorJson = (v: Float32Array): number[] => Array.from(v, (x) => Number(x.toPrecision(9)));

/**
 * The JSON objects for one document's chunks, one per chunk, in manifest order.
 * - langchain: `{ pageContent, metadata, id }` (+ `embedding` when given vectors);
 * - llamaindex: a TextNode as `JSON.stringify(node)` writes it (+ its native `embedding`);
 * - jsonl: `{ id, topic, source, strategyKey, chunk }` with the whole chunk record
 *   (+ `embedding` and `embeddingModel`).
 * Vectored outputs also record `embeddingModel` in the metadata.
 * `options.pageContent` (langchain only): `original` (default, the chunk's `originalText`) or
 * `embed` (its `embedText`, what chunkyard embeds and the vectors are of).
 */
export function recordsFor(doc: BuiltDocument, format: Format, vectors: Float32Array[] | null, model: string | null, options: ExportOptions = {}): object[] {
  return [...recordsOf(doc, format, vectors, model, options)];
}

/** How the records are written, beyond the format. */
export interface ExportOptions {
  /** langchain: the text `pageContent` holds, `original` (default) or `embed` (see PageContent in @chunkyard/chunking/interop). */
  pageContent?: PageContent;
}

/**
 * recordsFor's objects one at a time: a record's vector as a JSON array (8 bytes a value) is
 * made when its turn comes, so a document's records, their lines and the lines joined are
 * never all held at once (they were: 1.5 GB for a 140 MB manifest with its vectors).
 */
export function* recordsOf(doc: BuiltDocument, format: Format, vectors: Float32Array[] | null, model: string | null, options: ExportOptions = {}): Generator<object> {
  const { topic, manifest } = doc;
  const source = exportId(topic, manifest.source);
  const context: ChunkContext = { topic, source, strategyKey: manifest.strategyKey };
  const withModel = (meta: Record<string, unknown>) => (vectors && model ? { ...meta, embeddingModel: model } : meta);
  const embedding = (i: number) => (vectors ? { embedding: vectorJson(vectors[i]!) } : {});
  switch (format) {
    case 'langchain':
      for (const [i, c] of manifest.chunks.entries()) {
        const d = toLangChainDocument(c, context, exportId(topic, c.id), options);
        yield { ...d, metadata: withModel(d.metadata), ...embedding(i) };
      }
      return;
    case 'llamaindex':
      // The nodes of a document come together (each links to its neighbours and children).
      for (const [i, n] of textNodesOf(manifest.chunks, { id: source, metadata: { source, fileTitle: manifest.fileTitle } }, context, (id) => exportId(topic, id)).entries()) {
        yield {
          ...n,
          metadata: withModel(n.metadata),
          // The added key is a fact about the vector, not the text: keep it out of what LlamaIndex embeds.
          ...(vectors && model ? { excludedEmbedMetadataKeys: [...n.excludedEmbedMetadataKeys, 'embeddingModel'], excludedLlmMetadataKeys: [...n.excludedLlmMetadataKeys, 'embeddingModel'] } : {}),
          ...embedding(i),
        };
      }
      return;
    case 'jsonl':
      for (const [i, c] of manifest.chunks.entries()) {
        yield {
          id: exportId(topic, c.id),
          topic,
          source,
          strategyKey: manifest.strategyKey,
          ...(vectors && model ? { embeddingModel: model } : {}),
          ...embedding(i),
          metadata: chunkMetadata(c, context),
          chunk: c,
        };
      }
      return;
  }
}
