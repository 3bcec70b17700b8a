/**
 * @chunkyard/embedding-cache — Common.EmbeddingCache (seed 001 §3).
 *
 * Two stores under one root, both plain files so that parallel Nx tasks (separate
 * processes) can share them without a lock server:
 *
 *   {root}/{strategyKey}/{model}/{fileHash16}/metadata.json + chunk-N.bin   per document (the seed's layout)
 *   {root}/_by-text/{model}/{hh}/{textSha256}.bin                           per chunk text (content-addressed)
 *
 * Every read is validated down to the bytes (each .bin's sha256 is in the metadata or header),
 * so a torn, truncated or hand-edited file is detected and rebuilt instead of being returned.
 * Every write builds its result under a temporary name beside the target and renames it into
 * place, so readers see either nothing or a complete entry. See README.md for the format.
 */
import { createHash } from 'node:crypto';
import { describeFsError, mkdirp, pidAlive, removeStaleTempsOnce, warnOnce } from '@chunkyard/fs-atomic';
import { constants } from 'node:buffer';
import { closeSync, constants as fsConstants, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync, type Dirent } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { siblingName } from './sibling-name.js';

/**
 * The minimal provider shape this package needs (structural, so any provider fits). A failed
 * embed() may reject with an error that is also a {@link PartialEmbedding}.
 */
export interface Embedder {
  readonly model: string;
  embed(texts: string[]): Promise<Float32Array[]>;
}

/**
 * What a failed embed() call's error may carry (@chunkyard/embeddings' EmbeddingError does):
 * one slot per text of the call, holding the vector when that text's request came back before
 * another failed. embedThroughCache caches those before rethrowing, so the requests that came
 * back are not paid for again by the rerun.
 */
export interface PartialEmbedding {
  readonly partial: readonly (Float32Array | undefined)[];
}

export interface DocumentKey {
  /** Identifies the chunking (e.g. `semantic-64-400-512`), so strategies coexist. */
  strategyKey: string;
  /** Embedding model identifier; may contain `/` or `:` (escaped into one folder name). */
  model: string;
  /** sha256 (64 lowercase hex) of the source file's text. */
  fileHash: string;
}

export const SCHEMA_VERSION = 1;
export const CREATED_BY = '@chunkyard/embedding-cache';
/** Folder of the content-addressed text store; no encoded strategy key can start with `_`. */
export const TEXT_STORE_DIR = '_by-text';

/** Header of a `_by-text` file (all integers little-endian), followed by the Float32 LE payload. */
const TEXT_MAGIC = 'CYEV';
const TEXT_VERSION = 1;
const TEXT_HEADER_BYTES = 112; // magic 4 + version 4 + dims 4 + reserved 4 + 3 × sha256 (32)
/** A text entry's file name (`{textSha256}.bin`) and a document entry's files: what pruneUnused may remove. */
const TEXT_FILE_NAME = /^[0-9a-f]{64}\.bin$/;
const ENTRY_FILE_NAME = /^(?:metadata\.json|chunk-(?:0|[1-9][0-9]*)\.bin)$/;

/**
 * Texts that no reuse root held (see EmbeddingCache.reuseFrom), beyond those some root did,
 * after which a cache stops looking there: keeps a new topic or a model change from costing
 * one failed open per root for every text, while a renamed topic (nearly every text a hit)
 * never reaches it.
 */
const REUSE_MISS_ALLOWANCE = 64;

/** How often a writer retries moving its entry into place while other writers race it. */
const MAX_PLACE_ATTEMPTS = 8;

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function sha256OfBytes(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

const HEX64 = /^[0-9a-f]{64}$/;

// ---------------------------------------------------------------------------------------------
// Path segments

// Windows refuses these names (with any extension) as files or folders.
const WINDOWS_DEVICE_NAME = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/i;
/** Encoded segments longer than this are shortened and suffixed with a hash (see below). */
const MAX_SEGMENT = 120;

function escapeByte(b: number): string {
  return `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
}

/**
 * Encodes a model name or strategy key as one folder name, reversibly: UTF-8 bytes outside
 * `[A-Za-z0-9._-]` become `%XX` (so `nomic-embed-text:latest` → `nomic-embed-text%3Alatest`,
 * `org/model` → `org%2Fmodel`). Also escaped: a leading `.` or `_` (so no segment is hidden,
 * `.`/`..`, or equal to `_by-text`), a trailing `.` (Windows drops it) and the first letter of
 * a Windows device name (`nul` → `%6Eul`). `decodeURIComponent` reverses it.
 *
 * A segment that would exceed 120 characters is cut to 100 and suffixed with `~` and 16 hex of
 * the value's sha256 (`~` is always escaped otherwise, so such names are recognisable); that
 * form is not reversible, but metadata.json and the text header hold the exact value anyway.
 */
export function encodePathSegment(value: string): string {
  if (value.length === 0) throw new TypeError('embedding-cache: an empty model name or strategy key cannot name a cache folder');
  const bytes = Buffer.from(value, 'utf8');
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    const c = String.fromCharCode(b);
    const plain =
      /[A-Za-z0-9-]/.test(c) || (c === '_' && i > 0) || (c === '.' && i > 0 && i < bytes.length - 1);
    out += plain ? c : escapeByte(b);
  }
  if (WINDOWS_DEVICE_NAME.test(out)) out = escapeByte(out.charCodeAt(0)) + out.slice(1);
  if (out.length > MAX_SEGMENT) {
    // Never cut an escape in half: drop a trailing `%` or `%X`.
    const cut = out.slice(0, 100).replace(/%[0-9A-F]?$/, '');
    out = `${cut}~${sha256Hex(value).slice(0, 16)}`;
  }
  return out;
}

/** The inverse of {@link encodePathSegment}; null for a shortened (hashed) segment. */
export function decodePathSegment(segment: string): string | null {
  return segment.includes('~') ? null : decodeURIComponent(segment);
}

/** Bytes a file name may hold on Linux and macOS (NAME_MAX), less the `.pack` the Nx plugin adds. */
const MAX_PROJECT_FOLDER_BYTES = 255 - '.pack'.length;

/**
 * The folder below `.embedding-cache/` holding an Nx project's own cache (and, beside it,
 * `<folder>.pack`): the project name, or, when that with `.pack` is over 255 bytes (a legal
 * 255-byte topic folder, or long nested folders joined), its first 200 bytes (whole
 * characters), `~` and 16 hex of the name's sha256. Names that fit are kept, so existing caches
 * stay valid. The Nx plugin names the folder it gives topic-spec this way and docs-export looks
 * for it this way; the two must agree byte for byte, or exported vectors are silently not found.
 */
export function projectCacheFolderName(project: string): string {
  if (Buffer.byteLength(project) <= MAX_PROJECT_FOLDER_BYTES) return project;
  let prefix = '';
  for (const ch of project) {
    if (Buffer.byteLength(prefix + ch) > 200) break;
    prefix += ch;
  }
  return `${prefix}~${sha256Hex(project).slice(0, 16)}`;
}

/**
 * The caches beside `root`: the other folders of its parent, in name order, for
 * {@link EmbeddingCache.reuseFrom}. With the Nx plugin, `root` is `.embedding-cache/<project>`
 * and these are the other projects' caches, among them a renamed topic's old one. Hidden names
 * (writers' temp folders), files (the plugin's `<project>.pack`) and symlinks are left out; an
 * unreadable parent gives none. One listing, done once per run.
 */
export function siblingCacheRoots(root: string): string[] {
  const self = resolve(root);
  const parent = dirname(self);
  let entries: Dirent[];
  try {
    entries = readdirSync(parent, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && join(parent, e.name) !== self)
    .map((e) => join(parent, e.name))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

// ---------------------------------------------------------------------------------------------
// Vectors

/** The vector as little-endian Float32 bytes (4 × dims), whatever the host's byte order. */
export function encodeVector(vector: Float32Array): Buffer {
  const buf = Buffer.alloc(vector.length * 4);
  // A Float32Array element read as a double converts back to the same float32 bit pattern
  // (including -0 and subnormals); NaN payloads are never written (non-finite is rejected).
  for (let i = 0; i < vector.length; i++) buf.writeFloatLE(vector[i]!, i * 4);
  return buf;
}

/** Decodes `dims` little-endian floats at `offset`; null when a value is NaN or ±Infinity. */
function decodeVector(bytes: Uint8Array, offset: number, dims: number): Float32Array | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, dims * 4);
  const out = new Float32Array(dims);
  for (let i = 0; i < dims; i++) {
    const x = view.getFloat32(i * 4, true);
    if (!Number.isFinite(x)) return null;
    out[i] = x;
  }
  return out;
}

function firstNonFinite(vector: Float32Array): number {
  for (let i = 0; i < vector.length; i++) if (!Number.isFinite(vector[i]!)) return i;
  return -1;
}

/** Throws unless every vector is a non-empty Float32Array of one length with finite values; returns that length (0 for none). */
function checkVectors(vectors: readonly Float32Array[], what: string): number {
  let dims = 0;
  vectors.forEach((v, i) => {
    if (!(v instanceof Float32Array)) throw new TypeError(`embedding-cache: ${what} #${i} is not a Float32Array`);
    if (v.length === 0) throw new RangeError(`embedding-cache: ${what} #${i} is empty`);
    if (i === 0) dims = v.length;
    else if (v.length !== dims) {
      throw new RangeError(`embedding-cache: ${what} #${i} has ${v.length} dimensions, #0 has ${dims}; a document needs one dimension`);
    }
    const bad = firstNonFinite(v);
    if (bad >= 0) throw new RangeError(`embedding-cache: ${what} #${i} holds a non-finite value (${v[bad]}) at index ${bad}`);
  });
  return dims;
}

// ---------------------------------------------------------------------------------------------
// File-system helpers

function errCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Errors that say the cache cannot be written at all (a read-only folder or file system, a full
 * disk, a quota, a file size limit), not that an entry is in the way: a write that meets one is
 * given up (see EmbeddingCache.unwritable), and the run goes on with what it computed.
 */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EFBIG']);

/** Errors a rename into place gives when something is already there or briefly held open (Windows). */
const TARGET_IN_THE_WAY = new Set(['ENOTEMPTY', 'EEXIST', 'EPERM', 'EACCES', 'EBUSY', 'ENOTDIR', 'EISDIR']);

/**
 * An entry moved aside by a writer of the naming before 7625dd7: `.<name>.old-<pid>-<8 hex>`.
 * fs-atomic's sweep knows only `.tmp-` names, so one a killed writer left stayed for ever.
 */
const LEGACY_ASIDE = /^\..+\.old-(\d+)-[0-9a-f]{8}$/;
const swept = new Set<string>();

/**
 * Before a write into `dir`, once per folder per process: removeStaleTempsOnce, and the
 * legacy moved-aside entries whose writer is no longer alive (judged by pid, as fs-atomic
 * judges its own names without a pid namespace).
 */
function sweepFolder(dir: string): void {
  removeStaleTempsOnce(dir);
  if (swept.has(dir)) return;
  swept.add(dir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = LEGACY_ASIDE.exec(name);
    if (!m || pidAlive(Number(m[1]))) continue;
    try {
      rmSync(join(dir, name), { recursive: true, force: true });
    } catch {
      // Not removable (another user's): best effort, as for the temps.
    }
  }
}

/** `dir` and the folders above it up to `top`, top first, when `dir` is `top` or below it; else none. */
function foldersFrom(top: string, dir: string): string[] {
  const out = [dir];
  for (let at = dir; at !== top; ) {
    const parent = dirname(at);
    if (parent === at) return [];
    out.push(parent);
    at = parent;
  }
  return out.reverse();
}

function kindOf(path: string): 'dir' | 'other' | 'absent' {
  try {
    return statSync(path).isDirectory() ? 'dir' : 'other';
  } catch (err) {
    if (errCode(err) === 'ENOENT' || errCode(err) === 'ENOTDIR') return 'absent';
    throw err;
  }
}

/** A file larger than its entry can be: its size, and what the entry says it holds (`expected`, uncapped). */
interface Oversized {
  size: number;
  expected: number;
}

/**
 * The most bytes a read of an entry file takes: past 2 GiB readFileSync throws
 * ERR_FS_FILE_TOO_LARGE, and a metadata.json longer than V8's longest string cannot be parsed.
 */
const MAX_ENTRY_READ = Math.min(2 ** 31 - 1, constants.MAX_STRING_LENGTH);

/**
 * Reads a file; `missing` when it does not exist, `not-a-file` when a folder is in its place,
 * and its size when that is over `allowed(fd)` bytes (what the entry can hold, known from
 * metadata.json or the file's own header), without reading it: a cache file grown to 3 GiB
 * (a sparse file, a damaged disk) threw ERR_FS_FILE_TOO_LARGE out of every reader, which
 * crashed topic-spec with a stack trace, and one under 2 GiB was read whole before its length
 * was checked. Other I/O errors (EMFILE, EACCES, …) are thrown: they say nothing about the
 * entry, and treating them as corruption would delete good data.
 */
function readOrMissing(path: string, allowed: (fd: number) => number): Buffer | 'missing' | 'not-a-file' | Oversized {
  let fd: number;
  try {
    // Non-blocking, and regular files only: an entry file swapped for a FIFO or a link to
    // /dev/zero hung every reader of the cache (topic-spec, docs-query, docs-export,
    // docs-store --built) until killed.
    fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (err) {
    const code = errCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    if (code === 'EISDIR') return 'not-a-file';
    throw err;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return 'not-a-file';
    const expected = allowed(fd);
    if (stat.size > Math.min(expected, MAX_ENTRY_READ)) return { size: stat.size, expected };
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The length a text entry's own header gives it (112 + 4 × dimensions), read from its first 12 bytes; the header length when it has fewer. */
function textEntryLength(fd: number): number {
  const head = Buffer.alloc(12);
  const n = readSync(fd, head, 0, 12, 0);
  return n < 12 ? TEXT_HEADER_BYTES : TEXT_HEADER_BYTES + head.readUInt32LE(8) * 4;
}

type MoveAside<T> = { moved: true; aside: string; found: T } | { moved: false; stuck?: string };

/**
 * Moves `path` to a hidden name beside it and inspects what was actually moved: another
 * process may have replaced the entry since the caller looked at it, and a good entry must
 * not be deleted for a fault its predecessor had. Not moved: already gone, or `stuck` (the
 * rename failed, e.g. a file held open on Windows; the next reader or writer tries again).
 */
function moveAside<T>(path: string, inspect: (moved: string) => T): MoveAside<T> {
  const aside = siblingName(path);
  try {
    renameSync(path, aside);
  } catch (err) {
    return errCode(err) === 'ENOENT' ? { moved: false } : { moved: false, stuck: errCode(err) ?? String(err) };
  }
  return { moved: true, aside, found: inspect(aside) };
}

/** Puts a moved-aside entry back; if a new entry took its place meanwhile, that one wins. */
function restore(aside: string, path: string): boolean {
  try {
    renameSync(aside, path);
    return true;
  } catch {
    rmSync(aside, { recursive: true, force: true });
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Document entries

/** metadata.json of a document entry. */
export interface DocumentMetadata {
  schemaVersion: number;
  createdBy: string;
  model: string;
  strategyKey: string;
  fileHash: string;
  chunkCount: number;
  dimensions: number;
  chunks: { textSha256: string; bytesSha256: string }[];
}

type Inspection =
  | { kind: 'absent' }
  | { kind: 'miss'; reason: string }
  | { kind: 'corrupt'; reason: string }
  | { kind: 'hit'; vectors: Float32Array[] };

const isNat = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0;

/** Why `value` is not a well-formed metadata.json, or null when it is. */
function metadataProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'metadata.json is not a JSON object';
  const m = value as Record<string, unknown>;
  if (m['schemaVersion'] !== SCHEMA_VERSION) return `metadata.json has schemaVersion ${JSON.stringify(m['schemaVersion'])}, expected ${SCHEMA_VERSION}`;
  if (typeof m['model'] !== 'string' || typeof m['strategyKey'] !== 'string') return 'metadata.json lacks model or strategyKey';
  if (typeof m['fileHash'] !== 'string' || !HEX64.test(m['fileHash'])) return 'metadata.json has no valid fileHash';
  if (!isNat(m['chunkCount']) || !isNat(m['dimensions'])) return 'metadata.json has an invalid chunkCount or dimensions';
  if (m['chunkCount'] > 0 && m['dimensions'] === 0) return 'metadata.json has chunks of 0 dimensions';
  const chunks = m['chunks'];
  if (!Array.isArray(chunks) || chunks.length !== m['chunkCount']) return 'metadata.json chunks do not match chunkCount';
  for (const c of chunks as unknown[]) {
    const r = c as Record<string, unknown> | null;
    if (typeof r !== 'object' || r === null) return 'metadata.json has an invalid chunk record';
    if (typeof r['textSha256'] !== 'string' || !HEX64.test(r['textSha256'])) return 'metadata.json has an invalid textSha256';
    if (typeof r['bytesSha256'] !== 'string' || !HEX64.test(r['bytesSha256'])) return 'metadata.json has an invalid bytesSha256';
  }
  return null;
}

/**
 * One file of a document entry by name (`metadata.json`, `chunk-<i>.bin`), wherever the entry
 * lives; a file over `allowed` bytes may be given as its size instead of its bytes.
 */
type EntryFileReader = (name: string, allowed: number) => Uint8Array | 'missing' | 'not-a-file' | Oversized;

/**
 * Reads and validates the entry in `dir` against the caller's key and texts. Key or text
 * mismatches are misses (checked before any .bin is opened); damage is corruption.
 */
function inspectDocument(dir: string, key: DocumentKey, texts: readonly string[], dimensions: number | undefined): Inspection {
  return inspectEntry((name, allowed) => readOrMissing(join(dir, name), () => allowed), key, texts, dimensions, () => {
    const kind = kindOf(dir);
    if (kind === 'absent') return { kind: 'absent' };
    return { kind: 'corrupt', reason: kind === 'dir' ? 'metadata.json is missing' : 'the entry is not a folder' };
  });
}

/**
 * The entry's relative folder, `{strategyKey}/{model}/{fileHash16}` with `/` between segments:
 * where it sits below a cache root and inside a pack.
 */
export function documentEntryPath(key: DocumentKey): string {
  checkFileHash(key.fileHash);
  return `${encodePathSegment(key.strategyKey)}/${encodePathSegment(key.model)}/${key.fileHash.slice(0, 16)}`;
}

/**
 * writeFileSync, with the cache entry named in its error: a failed write(2) (ENOSPC, EDQUOT,
 * EIO) carries no path, so a full disk was reported as "no space left on the device" with
 * nothing saying that the embedding cache was where it ran out.
 */
function writeNamed(file: string, data: string | Uint8Array, entry: string): void {
  try {
    writeFileSync(file, data);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e && typeof e === 'object' && typeof e.code === 'string' && e.path === undefined) e.path = entry;
    throw err;
  }
}

/**
 * The vectors of a document entry held in memory as `files` (relative path → bytes, as the Nx
 * plugin's `.pack` of a cache folder holds them), validated exactly as a cache folder's entry
 * is; null unless it is a whole, valid hit. Read-only: nothing is removed or reported.
 */
export function readPackedDocument(files: ReadonlyMap<string, Uint8Array>, key: DocumentKey, texts: readonly string[]): Float32Array[] | null {
  if (typeof key.fileHash !== 'string' || !HEX64.test(key.fileHash)) return null;
  const dir = documentEntryPath(key);
  const found = inspectEntry((name) => files.get(`${dir}/${name}`) ?? 'missing', key, texts, undefined, () => ({ kind: 'absent' }));
  return found.kind === 'hit' ? found.vectors : null;
}

function inspectEntry(
  read: EntryFileReader,
  key: DocumentKey,
  texts: readonly string[],
  dimensions: number | undefined,
  whenNoMetadata: () => Inspection,
): Inspection {
  const raw = read('metadata.json', MAX_ENTRY_READ);
  if (raw === 'missing') return whenNoMetadata();
  if (raw === 'not-a-file') return { kind: 'corrupt', reason: 'metadata.json is not a file' };
  if (!(raw instanceof Uint8Array)) return { kind: 'corrupt', reason: `metadata.json has ${raw.size} bytes, more than any metadata.json can be read (${MAX_ENTRY_READ})` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
  } catch {
    return { kind: 'corrupt', reason: 'metadata.json is not valid JSON' };
  }
  const problem = metadataProblem(parsed);
  if (problem) return { kind: 'corrupt', reason: problem };
  const meta = parsed as DocumentMetadata;

  if (meta.model !== key.model) return { kind: 'miss', reason: `model ${meta.model} ≠ ${key.model}` };
  if (meta.strategyKey !== key.strategyKey) return { kind: 'miss', reason: `strategy ${meta.strategyKey} ≠ ${key.strategyKey}` };
  if (meta.fileHash !== key.fileHash) return { kind: 'miss', reason: 'fileHash differs (16-hex prefix collision)' };
  if (meta.chunkCount !== texts.length) return { kind: 'miss', reason: `chunk count ${meta.chunkCount} ≠ ${texts.length}` };
  // An empty document has no dimension, so it matches any requested one.
  if (dimensions !== undefined && meta.chunkCount > 0 && meta.dimensions !== dimensions) {
    return { kind: 'miss', reason: `dimensions ${meta.dimensions} ≠ ${dimensions}` };
  }
  for (let i = 0; i < texts.length; i++) {
    if (meta.chunks[i]!.textSha256 !== sha256Hex(texts[i]!)) return { kind: 'miss', reason: `chunk ${i}'s text changed` };
  }

  const vectors: Float32Array[] = [];
  const expectedBytes = meta.dimensions * 4;
  for (let i = 0; i < meta.chunkCount; i++) {
    const name = `chunk-${i}.bin`;
    const bytes = read(name, expectedBytes);
    if (bytes === 'missing') return { kind: 'corrupt', reason: `${name} is missing` };
    if (bytes === 'not-a-file') return { kind: 'corrupt', reason: `${name} is not a file` };
    const length = bytes instanceof Uint8Array ? bytes.length : bytes.size;
    if (!(bytes instanceof Uint8Array) || length !== expectedBytes) {
      return { kind: 'corrupt', reason: `${name} has ${length} bytes, expected ${expectedBytes} (truncated or wrong length)` };
    }
    if (sha256OfBytes(bytes).toString('hex') !== meta.chunks[i]!.bytesSha256) {
      return { kind: 'corrupt', reason: `${name} bytes do not match bytesSha256` };
    }
    const vector = decodeVector(bytes, 0, meta.dimensions);
    if (!vector) return { kind: 'corrupt', reason: `${name} holds a non-finite value (NaN or Infinity)` };
    vectors.push(vector);
  }
  return { kind: 'hit', vectors };
}

function checkFileHash(fileHash: string): void {
  if (typeof fileHash !== 'string' || !HEX64.test(fileHash)) {
    // A string is quoted cut short; anything else by its kind (JSON.stringify threw on a cyclic key).
    const shown = typeof fileHash === 'string' ? JSON.stringify(fileHash.length > 80 ? `${fileHash.slice(0, 80)}…` : fileHash) : valueKind(fileHash);
    throw new TypeError(`embedding-cache: fileHash must be a sha256 as 64 lowercase hex characters, got ${shown}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Text entries

type TextInspection =
  | { kind: 'absent' }
  | { kind: 'miss'; reason: string }
  | { kind: 'corrupt'; reason: string }
  | { kind: 'hit'; vector: Float32Array };

function encodeTextEntry(model: string, textSha256: string, vector: Float32Array): Buffer {
  const payload = encodeVector(vector);
  const header = Buffer.alloc(TEXT_HEADER_BYTES);
  header.write(TEXT_MAGIC, 0, 'latin1');
  header.writeUInt32LE(TEXT_VERSION, 4);
  header.writeUInt32LE(vector.length, 8);
  // bytes 12..16 reserved (0): keeps the payload 16-byte aligned for a future mmap reader.
  sha256OfBytes(Buffer.from(model, 'utf8')).copy(header, 16);
  Buffer.from(textSha256, 'hex').copy(header, 48);
  sha256OfBytes(payload).copy(header, 80);
  return Buffer.concat([header, payload]);
}

function inspectTextFile(file: string, model: string, textSha256: string): TextInspection {
  const bytes = readOrMissing(file, textEntryLength);
  if (bytes === 'missing') return { kind: 'absent' };
  if (bytes === 'not-a-file') return { kind: 'corrupt', reason: 'not a regular file (a folder, FIFO or device in its place)' };
  if (!Buffer.isBuffer(bytes)) {
    const dims = (bytes.expected - TEXT_HEADER_BYTES) / 4;
    return { kind: 'corrupt', reason: `${bytes.size} bytes for ${dims} dimensions, expected ${bytes.expected} (truncated or wrong length)` };
  }
  return inspectTextEntry(bytes, model, textSha256);
}

function inspectTextEntry(bytes: Buffer, model: string, textSha256: string): TextInspection {
  if (bytes.length < TEXT_HEADER_BYTES) return { kind: 'corrupt', reason: `${bytes.length} bytes is shorter than the ${TEXT_HEADER_BYTES}-byte header (truncated)` };
  if (bytes.toString('latin1', 0, 4) !== TEXT_MAGIC) return { kind: 'corrupt', reason: 'bad magic (not a chunkyard vector file)' };
  const version = bytes.readUInt32LE(4);
  if (version !== TEXT_VERSION) return { kind: 'corrupt', reason: `format version ${version}, expected ${TEXT_VERSION}` };
  const dims = bytes.readUInt32LE(8);
  const expected = TEXT_HEADER_BYTES + dims * 4;
  if (dims === 0 || bytes.length !== expected) {
    return { kind: 'corrupt', reason: `${bytes.length} bytes for ${dims} dimensions, expected ${expected} (truncated or wrong length)` };
  }
  if (bytes.toString('hex', 48, 80) !== textSha256) return { kind: 'corrupt', reason: 'header text hash does not match the file name' };
  if (!bytes.subarray(16, 48).equals(sha256OfBytes(Buffer.from(model, 'utf8')))) {
    // Two model names folding onto one folder (case-insensitive file systems): not damage.
    return { kind: 'miss', reason: 'written for another model' };
  }
  if (!bytes.subarray(80, 112).equals(sha256OfBytes(bytes.subarray(TEXT_HEADER_BYTES)))) {
    return { kind: 'corrupt', reason: 'payload bytes do not match the header checksum' };
  }
  const vector = decodeVector(bytes, TEXT_HEADER_BYTES, dims);
  if (!vector) return { kind: 'corrupt', reason: 'holds a non-finite value (NaN or Infinity)' };
  return { kind: 'hit', vector };
}

// ---------------------------------------------------------------------------------------------
// The cache

export class EmbeddingCache {
  /** Called when a corrupt entry is found (and removed so that it gets rebuilt). */
  onCorrupt?: (path: string, reason: string) => void;

  /** Paths read or written since trackUse(); null while not tracking. */
  private used: Set<string> | null = null;

  /** Set by reuseFrom(); see there. */
  private reuseRoots: readonly string[] = [];
  private readonly reuseDirs = new Map<string, string[]>();
  private reuseHits = 0;
  private reuseMisses = 0;

  constructor(readonly root: string) {}

  /**
   * A write that met UNWRITABLE's errors is given up, and said once per run for each cause
   * (fs-atomic's warnOnce: `<tool>: warning: …` when the CLI ends), not once per entry: the
   * lead's decision for issue 15. A read-only cache holding the text vectors but no document
   * entry failed `chunkyard spec` with exit 1 (EACCES), though every vector was there; a full
   * disk failed the run that had just paid for the vectors. Anything else is thrown.
   */
  private unwritable(err: unknown): void {
    const code = errCode(err);
    if (code === undefined || !UNWRITABLE.has(code)) throw err;
    warnOnce(
      `embedding-cache\0${resolve(this.root)}\0${code}`,
      `embedding cache ${this.root} cannot be written (${describeFsError(err)}); the run goes on without caching the vectors it computes, and what the cache holds is still read`,
    );
  }

  /**
   * mkdirp(dir), where a file (or FIFO, or symlink that does not lead to a folder) standing at
   * `owned` or below it on the way to `dir` is the cache's own damage: it is removed and
   * reported, and the folder made. Those names (`_by-text/{model}/{hh}`, a document entry's
   * model folder) are computed by the cache and written by nothing else, and a file there
   * failed every later run with EEXIST or ENOTDIR. Above `owned` (the root, a strategy folder,
   * names a user may own with `--cache-dir .`) nothing is removed, and the error is thrown.
   */
  private makeFolder(dir: string, owned: string): void {
    try {
      mkdirp(dir);
      return;
    } catch (err) {
      const code = errCode(err);
      if (code !== 'EEXIST' && code !== 'ENOTDIR') throw err;
      const path = foldersFrom(owned, dir).find((p) => kindOf(p) === 'other');
      if (path === undefined) throw err;
      try {
        unlinkSync(path);
      } catch (e) {
        // Gone, or a folder now (another writer repaired it first): mkdirp below decides.
        if (!['ENOENT', 'EISDIR', 'EPERM', 'ENOTDIR'].includes(errCode(e) ?? '')) throw e;
      }
      this.onCorrupt?.(path, 'a file where the cache keeps a folder');
    }
    mkdirp(dir);
  }

  /**
   * Records every entry this instance reads or writes from now on, so that pruneUnused() can
   * drop the rest. For a cache that belongs to one build output (the Nx plugin gives each topic
   * its own folder and declares it an output of spec): without pruning it would carry every
   * edit's vectors forever, into every cache artifact.
   */
  trackUse(): void {
    this.used ??= new Set();
  }

  /**
   * Removes the cache entries under the root that were not used since trackUse(), and the
   * folders that leaves empty. Returns the number of files removed. Does nothing when not
   * tracking.
   *
   * Only what has an entry's shape is removed: a `_by-text/{model}/{hh}/{64 hex}.bin` file, or
   * a `{strategy}/{model}/{16 hex}/` folder holding only metadata.json and chunk-N.bin. It
   * removed everything unused under the root, so a root that was not a cache folder
   * (`topic-spec --cache-dir . --prune-cache` in a workspace) lost every file in it: the topics'
   * sources, the config, the spec just written. Anything else is left where it is.
   */
  pruneUnused(): number {
    const used = this.used;
    if (!used) return 0;
    let removed = 0;
    const list = (dir: string): Dirent[] => {
      try {
        return readdirSync(dir, { withFileTypes: true });
      } catch {
        return [];
      }
    };
    /** Removes `dir` when this prune emptied it; a folder that was empty before is not ours to judge. */
    const dropIfEmptied = (dir: string, emptied: boolean): void => {
      if (!emptied) return;
      try {
        rmdirSync(dir); // fails unless empty
      } catch {
        // Something else is in it: kept.
      }
    };
    /** Removes a file; false when the cache cannot be written (said once, as for a write). */
    const remove = (path: string): boolean => {
      try {
        rmSync(path, { force: true });
        return true;
      } catch (err) {
        this.unwritable(err);
        return false;
      }
    };
    // Folders are Dirent directories, never symlinks: a link in the tree is not followed.
    const folders = (dir: string): string[] => list(dir).filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name);
    for (const top of folders(this.root)) {
      const topPath = join(this.root, top);
      let topEmptied = false;
      for (const model of folders(topPath)) {
        const modelPath = join(topPath, model);
        let modelEmptied = false;
        if (top === TEXT_STORE_DIR) {
          for (const hh of folders(modelPath)) {
            if (!/^[0-9a-f]{2}$/.test(hh)) continue;
            const hhPath = join(modelPath, hh);
            let hhEmptied = false;
            for (const f of list(hhPath)) {
              const path = join(hhPath, f.name);
              if (!f.isFile() || !TEXT_FILE_NAME.test(f.name) || !f.name.startsWith(hh) || used.has(path)) continue;
              if (!remove(path)) continue;
              removed++;
              hhEmptied = true;
            }
            dropIfEmptied(hhPath, hhEmptied);
            modelEmptied ||= hhEmptied;
          }
        } else {
          for (const entry of folders(modelPath)) {
            const path = join(modelPath, entry);
            if (!/^[0-9a-f]{16}$/.test(entry) || used.has(path)) continue;
            const files = list(path);
            if (!files.every((f) => f.isFile() && ENTRY_FILE_NAME.test(f.name))) continue; // not an entry's shape
            const gone = files.filter((f) => remove(join(path, f.name))).length;
            removed += gone;
            if (gone === 0) continue;
            dropIfEmptied(path, true);
            modelEmptied = true;
          }
        }
        dropIfEmptied(modelPath, modelEmptied);
        topEmptied ||= modelEmptied;
      }
      dropIfEmptied(topPath, topEmptied);
    }
    return removed;
  }

  /** `{root}/{strategyKey}/{model}/{fileHash16}` (segments escaped by {@link encodePathSegment}). */
  documentDir(key: DocumentKey): string {
    return join(this.root, ...documentEntryPath(key).split('/'));
  }

  /** `{root}/_by-text/{model}/{hh}/{textSha256}.bin`, hh = the hash's first two hex digits. */
  textPath(model: string, text: string): string {
    const h = sha256Hex(text);
    return join(this.root, TEXT_STORE_DIR, encodePathSegment(model), h.slice(0, 2), `${h}.bin`);
  }

  /**
   * Full hit only: validated against model, strategy, chunk count, dimensions (when given),
   * every chunk's text hash and bytes; else null. A corrupt entry is removed (so it gets
   * rebuilt) and reported via `onCorrupt` if set.
   */
  getDocument(key: DocumentKey, texts: string[], dimensions?: number): Float32Array[] | null {
    const dir = this.documentDir(key);
    if (this.used) {
      this.used.add(dir);
      // A document hit reads no text entry, but the next edit of the document will need them.
      for (const text of texts) this.used.add(this.textPath(key.model, text));
    }
    const found = this.inspectSettled(dir, key, texts, dimensions);
    if (found.kind === 'hit') return found.vectors;
    if (found.kind !== 'corrupt') return null;
    const moved = moveAside(dir, (aside) => inspectDocument(aside, key, texts, dimensions));
    if (!moved.moved) {
      if (moved.stuck) this.onCorrupt?.(dir, `${found.reason} (could not remove it: ${moved.stuck})`);
      return null;
    }
    if (moved.found.kind === 'corrupt') {
      rmSync(moved.aside, { recursive: true, force: true });
      this.onCorrupt?.(dir, moved.found.reason);
      return null;
    }
    // A writer replaced the corrupt entry after we looked: keep the new one.
    restore(moved.aside, dir);
    return moved.found.kind === 'hit' ? moved.found.vectors : null;
  }

  /**
   * Writes the document entry atomically: the entry is built in a hidden folder beside the
   * target and renamed into place. If another writer's entry is already there and valid for
   * these texts, it is kept and ours dropped; a stale or corrupt one is moved aside and
   * replaced. Losing a race never throws, nor does a cache that cannot be written (see
   * {@link EmbeddingCache.unwritable}): the entry is not written, and that is said once.
   */
  putDocument(key: DocumentKey, texts: string[], vectors: Float32Array[]): void {
    const dir = this.documentDir(key);
    if (texts.length !== vectors.length) {
      throw new RangeError(`embedding-cache: ${texts.length} texts but ${vectors.length} vectors`);
    }
    const dimensions = checkVectors(vectors, 'vector');
    this.used?.add(dir);
    try {
      this.writeDocument(dir, key, texts, vectors, dimensions);
    } catch (err) {
      this.unwritable(err);
    }
  }

  private writeDocument(dir: string, key: DocumentKey, texts: string[], vectors: Float32Array[], dimensions: number): void {
    this.makeFolder(dirname(dir), dirname(dir));
    sweepFolder(dirname(dir));
    const tmp = siblingName(dir);
    try {
      mkdirSync(tmp);
      const chunks = vectors.map((vector, i) => {
        const bytes = encodeVector(vector);
        writeNamed(join(tmp, `chunk-${i}.bin`), bytes, dir);
        return { textSha256: sha256Hex(texts[i]!), bytesSha256: sha256OfBytes(bytes).toString('hex') };
      });
      const meta: DocumentMetadata = {
        schemaVersion: SCHEMA_VERSION,
        createdBy: CREATED_BY,
        model: key.model,
        strategyKey: key.strategyKey,
        fileHash: key.fileHash,
        chunkCount: texts.length,
        dimensions,
        chunks,
      };
      writeNamed(join(tmp, 'metadata.json'), `${JSON.stringify(meta, null, 2)}\n`, dir);
      this.placeDocument(tmp, dir, key, texts, dimensions);
    } finally {
      // After a successful rename `tmp` no longer exists; otherwise this drops our copy.
      rmSync(tmp, { recursive: true, force: true });
    }
  }

  /**
   * The vector cached for `text` under `model`, or null. A corrupt file is removed and reported.
   * A miss here is looked up in the caches given to {@link reuseFrom}, and a vector found there
   * is copied into this cache.
   */
  getText(model: string, text: string): Float32Array | null {
    const file = this.textPath(model, text);
    this.used?.add(file);
    const h = sha256Hex(text);
    return this.ownText(file, model, h) ?? this.reusedText(model, text, h);
  }

  private ownText(file: string, model: string, h: string): Float32Array | null {
    const found = this.inspectTextSettled(file, model, h);
    if (found.kind === 'hit') return found.vector;
    if (found.kind !== 'corrupt') return null;
    const moved = moveAside(file, (aside) => inspectTextFile(aside, model, h));
    if (!moved.moved) {
      if (moved.stuck) this.onCorrupt?.(file, `${found.reason} (could not remove it: ${moved.stuck})`);
      return null;
    }
    if (moved.found.kind === 'corrupt') {
      rmSync(moved.aside, { recursive: true, force: true });
      this.onCorrupt?.(file, moved.found.reason);
      return null;
    }
    restore(moved.aside, file); // a writer replaced it after we looked
    return moved.found.kind === 'hit' ? moved.found.vector : null;
  }

  /**
   * Other caches whose text stores serve this cache's text misses, read-only: the Nx plugin
   * gives each topic project its own cache folder, named after the project, so a renamed or
   * moved topic starts with an empty one while its vectors sit in the old project's folder
   * beside it (see {@link siblingCacheRoots}). A vector found there is validated exactly as
   * this cache validates its own (model, text hash, payload checksum, finite values) and
   * copied in, so this cache stays self-contained. Nothing in those caches is ever written,
   * removed or reported: a corrupt or foreign-model file there is skipped.
   */
  reuseFrom(roots: readonly string[]): void {
    this.reuseRoots = roots.filter((r) => resolve(r) !== resolve(this.root));
    this.reuseDirs.clear();
    this.reuseHits = 0;
    this.reuseMisses = 0;
  }

  /** Per model, the `_by-text/{model}` folders of the reuse roots that have one; a hit moves its folder first. */
  private reuseDirsFor(model: string): string[] {
    let dirs = this.reuseDirs.get(model);
    if (!dirs) {
      // One stat per root and model, once: a lookup then opens one computed path per root that
      // holds the model at all, and none in roots that do not.
      const segment = encodePathSegment(model);
      dirs = this.reuseRoots.map((r) => join(r, TEXT_STORE_DIR, segment)).filter((d) => {
        try {
          return kindOf(d) === 'dir';
        } catch {
          return false; // unreadable: not ours to report, and nothing to reuse
        }
      });
      this.reuseDirs.set(model, dirs);
    }
    return dirs;
  }

  private reusedText(model: string, text: string, h: string): Float32Array | null {
    if (this.reuseRoots.length === 0) return null;
    // Texts no other cache held, beyond those some did, mean these caches have nothing for this
    // run (a new topic, a new model): stop paying one open per root for every text.
    if (this.reuseMisses >= REUSE_MISS_ALLOWANCE + this.reuseHits) return null;
    const dirs = this.reuseDirsFor(model);
    for (let i = 0; i < dirs.length; i++) {
      const dir = dirs[i]!;
      let found: TextInspection;
      try {
        // The store's own path computation: one open per root, no listing.
        found = inspectTextFile(join(dir, h.slice(0, 2), `${h}.bin`), model, h);
      } catch {
        continue; // EACCES, EMFILE… in a cache that is not ours: skip it rather than fail the run
      }
      if (found.kind !== 'hit') continue; // absent, another model's, or corrupt: never trusted, never touched
      // A renamed topic finds every text in one old folder: look there first from now on.
      if (i > 0) dirs.unshift(...dirs.splice(i, 1));
      this.reuseHits++;
      this.putText(model, text, found.vector);
      return found.vector;
    }
    if (dirs.length > 0) this.reuseMisses++;
    return null;
  }

  /**
   * Caches `vector` for `text` under `model` (temp file + rename; concurrent writers are fine).
   * A cache that cannot be written (see {@link EmbeddingCache.unwritable}) leaves it uncached.
   */
  putText(model: string, text: string, vector: Float32Array): void {
    checkVectors([vector], 'vector');
    const h = sha256Hex(text);
    const file = this.textPath(model, text);
    this.used?.add(file);
    try {
      this.makeFolder(dirname(file), join(this.root, TEXT_STORE_DIR));
      sweepFolder(dirname(file));
      const tmp = siblingName(file);
      try {
        writeNamed(tmp, encodeTextEntry(model, h, vector), file);
        try {
          renameSync(tmp, file);
        } catch (err) {
          // On POSIX a rename over a file always succeeds; on Windows it can fail while another
          // process has the file open. Then a valid entry is already there, which is all we need.
          if (!TARGET_IN_THE_WAY.has(errCode(err) ?? '') || this.inspectTextSettled(file, model, h).kind !== 'hit') throw err;
        }
      } finally {
        rmSync(tmp, { force: true });
      }
    } catch (err) {
      this.unwritable(err);
    }
  }

  /**
   * Inspects an entry, and once more when it looks corrupt: a writer replacing the entry
   * between our reads of metadata.json and the .bin files can make a good entry look damaged
   * for an instant, while real damage persists. Only the second verdict can remove anything.
   */
  private inspectSettled(dir: string, key: DocumentKey, texts: readonly string[], dimensions: number | undefined): Inspection {
    const first = inspectDocument(dir, key, texts, dimensions);
    return first.kind === 'corrupt' ? inspectDocument(dir, key, texts, dimensions) : first;
  }

  private inspectTextSettled(file: string, model: string, textSha256: string): TextInspection {
    const first = inspectTextFile(file, model, textSha256);
    return first.kind === 'corrupt' ? inspectTextFile(file, model, textSha256) : first;
  }

  private placeDocument(tmp: string, dir: string, key: DocumentKey, texts: readonly string[], dimensions: number): void {
    for (let attempt = 0; attempt < MAX_PLACE_ATTEMPTS; attempt++) {
      try {
        renameSync(tmp, dir);
        return;
      } catch (err) {
        if (!TARGET_IN_THE_WAY.has(errCode(err) ?? '')) throw err;
      }
      const existing = this.inspectSettled(dir, key, texts, dimensions);
      // Keep a valid entry: replacing it with an equal one gains nothing and would make a
      // concurrent reader's metadata and .bin reads straddle two entries.
      if (existing.kind === 'hit') return;
      if (existing.kind === 'absent') continue; // it vanished meanwhile: rename again
      // Stale (written for other texts) or corrupt: move it out of the way, unless what we
      // move turns out to be another writer's valid entry placed since we looked.
      const moved = moveAside(dir, (aside) => inspectDocument(aside, key, texts, dimensions));
      if (!moved.moved) continue;
      if (moved.found.kind === 'hit') {
        if (restore(moved.aside, dir)) return;
        continue;
      }
      rmSync(moved.aside, { recursive: true, force: true });
      if (moved.found.kind === 'corrupt') this.onCorrupt?.(dir, moved.found.reason);
    }
    // Still contended after every attempt (only seen with Windows file handles): the entry
    // is a cache, so give up quietly; the next run writes it.
  }
}

// ---------------------------------------------------------------------------------------------
// Embedding through the cache

/**
 * Caches the vectors `err` carries for `batch` (see PartialEmbedding), when they fit: a slot per
 * text, finite, all of one length (`dimensions` when known). Never throws: the provider's error
 * is what the caller must see, and a vector that cannot be cached is only paid for again.
 */
function cachePartial(cache: EmbeddingCache, model: string, batch: readonly string[], err: unknown, dimensions: number | undefined): void {
  const partial: unknown = typeof err === 'object' && err !== null ? (err as Partial<PartialEmbedding>).partial : undefined;
  if (!Array.isArray(partial) || partial.length !== batch.length) return;
  const found = partial.flatMap((v: unknown, i) => (v instanceof Float32Array && v.length > 0 && firstNonFinite(v) < 0 ? [{ text: batch[i]!, vector: v }] : []));
  const dims = dimensions ?? found[0]?.vector.length;
  // Lengths that disagree leave nothing to tell which are right.
  if (found.some((f) => f.vector.length !== dims)) return;
  try {
    for (const { text, vector } of found) cache.putText(model, text, vector);
  } catch {
    // Anything else putText throws: the provider's error is the one to see (an unwritable cache is said once by putText).
  }
}

export interface EmbedThroughCacheOptions {
  /** Send at most this many texts per embed() call; each batch is cached as soon as it returns. */
  batchSize?: number;
  /** Expected vector length: cached entries of another length are ignored, and the provider must return it. */
  dimensions?: number;
}

export interface EmbedThroughCacheResult {
  /** One vector per input text, in input order. */
  vectors: Float32Array[];
  stats: {
    /** The whole document came from its document entry (no text lookups, no provider call). */
    documentHit: boolean;
    /** Texts served from the content-addressed text store. */
    textHits: number;
    /** Texts sent to the provider (a text repeated within the document is sent once). */
    embedded: number;
  };
}

/** A value's kind, for a message: never the value itself (a text may be a megabyte, a key cyclic). */
function valueKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/**
 * embedThroughCache's arguments as a JavaScript caller may get them wrong, each a TypeError naming
 * it before anything is read or written. They failed deep inside: a null key or options object
 * with "Cannot read properties of null", an embedder whose model was null with "(reading
 * 'length')", and a number among the texts with node:crypto's 'The "data" argument must be of
 * type string'.
 */
function checkThroughCacheArguments(cache: unknown, embedder: unknown, key: unknown, texts: unknown, options: unknown): void {
  const fail = (what: string, value: unknown, wanted: string): never => {
    throw new TypeError(`embedding-cache: ${what} must be ${wanted}, got ${valueKind(value)}`);
  };
  // By shape, not instanceof: two installed copies of this package each have their own class.
  if (typeof cache !== 'object' || cache === null || typeof (cache as { getDocument?: unknown }).getDocument !== 'function') fail('cache', cache, 'an EmbeddingCache');
  if (typeof embedder !== 'object' || embedder === null) fail('embedder', embedder, 'an object with model and embed');
  const { model, embed } = embedder as { model: unknown; embed: unknown };
  if (typeof model !== 'string') fail('embedder.model', model, 'a string');
  if (typeof embed !== 'function') fail('embedder.embed', embed, 'a function');
  if (typeof key !== 'object' || key === null) fail('key', key, 'an object with strategyKey and fileHash');
  const { strategyKey } = key as { strategyKey: unknown };
  if (typeof strategyKey !== 'string') fail('key.strategyKey', strategyKey, 'a string');
  if (!Array.isArray(texts)) fail('texts', texts, 'an array of strings');
  for (let i = 0; i < (texts as unknown[]).length; i++) {
    if (typeof (texts as unknown[])[i] !== 'string') fail(`texts[${i}]`, (texts as unknown[])[i], 'a string');
  }
  if (options !== undefined && options !== null && typeof options !== 'object') fail('options', options, 'an object');
}

/**
 * Embeds a document's chunk texts through the cache: a document-level hit makes no provider
 * call; otherwise per-text hits are reused and only the misses are sent to the provider (in
 * one embed() call, or in batches of `batchSize`, each batch cached as soon as it returns, so
 * a failure mid-way keeps what was computed and a rerun resumes); finally the document entry
 * is written. A provider error propagates unchanged, and no document entry is written then.
 */
export async function embedThroughCache(
  cache: EmbeddingCache,
  embedder: Embedder,
  key: Omit<DocumentKey, 'model'>,
  texts: string[],
  options: EmbedThroughCacheOptions = {},
): Promise<EmbedThroughCacheResult> {
  checkThroughCacheArguments(cache, embedder, key, texts, options);
  const model = embedder.model;
  const docKey: DocumentKey = { strategyKey: key.strategyKey, model, fileHash: key.fileHash };
  const { batchSize, dimensions } = options ?? {};
  if (batchSize !== undefined && !(Number.isInteger(batchSize) && batchSize >= 1)) {
    throw new RangeError(`embedding-cache: batchSize must be a positive integer, got ${batchSize}`);
  }
  if (dimensions !== undefined && !(Number.isInteger(dimensions) && dimensions >= 1)) {
    throw new RangeError(`embedding-cache: dimensions must be a positive integer, got ${dimensions}`);
  }

  const whole = cache.getDocument(docKey, texts, dimensions);
  if (whole) return { vectors: whole, stats: { documentHit: true, textHits: 0, embedded: 0 } };

  const vectors: (Float32Array | undefined)[] = texts.map((text) => {
    const v = cache.getText(model, text);
    return v && (dimensions === undefined || v.length === dimensions) ? v : undefined;
  });
  let textHits = vectors.filter((v) => v !== undefined).length;
  let embedded = 0;
  let providerDims = dimensions; // what the provider must return; set by its first answer otherwise

  const embedIndices = async (indices: readonly number[]): Promise<void> => {
    const unique = [...new Set(indices.map((i) => texts[i]!))];
    const fresh = new Map<string, Float32Array>();
    const size = batchSize ?? Math.max(1, unique.length);
    for (let start = 0; start < unique.length; start += size) {
      const batch = unique.slice(start, start + size);
      let out: Float32Array[];
      try {
        out = await embedder.embed(batch);
      } catch (err) {
        cachePartial(cache, model, batch, err, providerDims);
        throw err;
      }
      if (!Array.isArray(out) || out.length !== batch.length) {
        throw new Error(`embedding-cache: model ${model} returned ${Array.isArray(out) ? out.length : typeof out} vectors for ${batch.length} texts`);
      }
      out.forEach((v, j) => {
        if (!(v instanceof Float32Array)) throw new TypeError(`embedding-cache: model ${model} returned a non-Float32Array for text #${start + j}`);
        providerDims ??= v.length;
        if (v.length !== providerDims) {
          throw new RangeError(`embedding-cache: model ${model} returned ${v.length} dimensions, expected ${providerDims}`);
        }
        if (firstNonFinite(v) >= 0) throw new RangeError(`embedding-cache: model ${model} returned a non-finite value for text #${start + j}`);
      });
      // Cache the batch before asking for the next, so a later failure keeps it.
      batch.forEach((text, j) => {
        cache.putText(model, text, out[j]!);
        fresh.set(text, out[j]!);
      });
      embedded += batch.length;
    }
    const used = new Set<string>();
    for (const i of indices) {
      const text = texts[i]!;
      const v = fresh.get(text)!;
      // A repeated text gets its own copy, so callers can mutate vectors independently.
      vectors[i] = used.has(text) ? v.slice() : v;
      used.add(text);
    }
  };

  const misses = texts.map((_, i) => i).filter((i) => vectors[i] === undefined);
  if (misses.length > 0) await embedIndices(misses);

  // Text hits from earlier runs may disagree in length with what the provider returns now
  // (a tag like `:latest` that moved to another model version): a document has one dimension,
  // so re-embed those. With no misses and no `dimensions`, only inconsistent hits can be stale
  // and nothing tells which are right, so re-embed them all.
  const lengths = new Set(vectors.map((v) => v!.length));
  const target = providerDims ?? (lengths.size <= 1 ? [...lengths][0] : undefined);
  const stale = texts.map((_, i) => i).filter((i) => vectors[i]!.length !== target);
  if (stale.length > 0) {
    textHits -= stale.length; // only hits can be stale: fresh vectors were checked against providerDims
    await embedIndices(stale);
  }

  const result = vectors as Float32Array[]; // every slot is filled above
  cache.putDocument(docKey, texts, result);
  return { vectors: result, stats: { documentHit: false, textHits, embedded } };
}
