/** Errors the store raises for a caller to report; anything else is a bug. */
import { accessSync, constants, readFileSync, statfsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { oneLine, quoteArgument } from '@chunkyard/fs-atomic';

/** How much of a caller's id or filter value a message quotes (as docs-store mcp quotes a tool name). */
const QUOTED_CHARS = 100;

/**
 * A caller's id as a message names it: control characters escaped and cut after 100 characters
 * (its length said). Named whole, a 3 MB chunk_id came back in a 3 MB tool error, and an ESC
 * sequence in one reached the terminal raw (issue 15 probe).
 */
export function quoteId(id: string): string {
  return id.length > QUOTED_CHARS ? `${oneLine(id.slice(0, QUOTED_CHARS))}… (${id.length} characters)` : oneLine(id);
}

/** The document cannot be stored (binary, empty, not UTF-8, a huge single line …). Nothing was stored. */
export class InputError extends Error {
  override name = 'InputError';
  constructor(
    readonly source: string,
    readonly problem: string,
  ) {
    super(`${source}: ${problem}`);
  }
}

/** The request contradicts what the database holds (other embedding model, id collision, unknown id …). */
export class StoreError extends Error {
  override name = 'StoreError';
}

/**
 * The store holds no document, though it has its tables: one an ingest created and then wrote
 * nothing to (its provider failed; the tables are made before anything is embedded).
 * A search there said "no results", as if the docs had been searched and did not cover it.
 * (A file nothing was written to is refused in the same words when it is opened.) `how` is the
 * way to store documents where the message is read.
 */
export class EmptyStoreError extends StoreError {
  override name = 'EmptyStoreError';
  constructor(
    readonly path: string,
    how = `docs-store ingest … --db ${path}`,
  ) {
    super(`${path}: an empty database, no documents stored in it yet; store some first (${how})`);
  }
}

/**
 * A search filter names a topic, or a content type, that no stored document has (a typo, a
 * section, a ./ path): said so, with the values there are, where an empty result read as "the
 * docs do not cover it".
 */
export class UnknownFilterError extends StoreError {
  override name = 'UnknownFilterError';
  /** What follows the value in a message: "no stored topic matches (topics: …); give …". */
  readonly reason: string;
  constructor(
    readonly filter: 'topic' | 'content type',
    readonly value: string,
    readonly known: readonly string[],
  ) {
    const plural = filter === 'topic' ? 'topics' : 'content types';
    const shown = known.length === 0 ? `the store holds no ${plural}` : `${plural}: ${known.slice(0, 20).map(quoteId).join(', ')}${known.length > 20 ? `, and ${known.length - 20} more` : ''}`;
    const reason = filter === 'topic' ? `no stored topic matches (${shown}); give a topic's path or its last segments` : `no stored document has this content type (${shown})`;
    // Cut short and terminal-safe: a 3 MB topic came back whole in search's tool error.
    super(`${filter} ${quoteArgument(value, QUOTED_CHARS)}: ${reason}`);
    this.reason = reason;
  }
}

/**
 * A SQLite failure after the store opened (a write another process's transaction blocks, a
 * store file this user may only read, a corrupt page deep in the file, a full disk), as one
 * line naming the store and what to do; null for anything that is not a SqliteError. The CLI
 * and the MCP server's tool errors both say it: the tools said only "database is locked" or
 * "attempt to write a readonly database", naming no file.
 */
export function sqliteFailure(path: string, err: unknown): string | null {
  if (!(err instanceof Error) || err.name !== 'SqliteError') return null;
  const code = String((err as { code?: unknown }).code);
  const room = roomFailure(path, code, err.message);
  if (room !== null) return room;
  const fix =
    code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB'
      ? `the database is corrupt (${err.message}); rebuild it with "docs-store ingest" into a new --db`
      : code === 'SQLITE_FULL'
        ? `the disk is full (${err.message}); free some space and run again`
        : code.startsWith('SQLITE_IOERR')
          ? `input/output error (${code}: ${err.message}); check the disk`
          : code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED'
            ? `the store is locked by another process (${err.message}); try again when it finishes`
            : code.startsWith('SQLITE_READONLY')
              ? `cannot write the store${readOnlyFile(path) ? ': the file is read-only to this user (EACCES)' : ` (${err.message})`}; check its permissions or choose another --db`
              : `the store failed: ${err.message} (${code})`;
  return `${path}: ${fix}`;
}

/** Whether `path` exists and this process may not write it (SQLite then opens it read-only, and says so only at the first write). */
function readOnlyFile(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EACCES';
  }
}

/**
 * A write SQLite could not make for want of room, as one line naming the store, or null. SQLite
 * says only "disk I/O error" (SQLITE_IOERR_WRITE, _SHMSIZE …) or "database or disk is full"
 * (SQLITE_FULL, a short write), whether the disk is full (ENOSPC) or a file would grow past
 * this process's file size limit (EFBIG, `ulimit -f`): an ingest under a limit of a few KiB said
 * "cannot open the store for writing (SQLITE_IOERR_WRITE: disk I/O error); check that the folder
 * exists and is writable" (s60 probe). Which it was is told by the free space of the folder and
 * by the limit with the sizes of the store's files.
 */
export function roomFailure(path: string, code: string, message: string): string | null {
  if (code !== 'SQLITE_FULL' && !code.startsWith('SQLITE_IOERR')) return null;
  if (diskFull(dirname(resolve(path)))) return `${path}: the disk is full (${code === 'SQLITE_FULL' ? message : `${code}: ${message}`}); free some space and run again`;
  const limit = fileSizeLimit();
  // SQLite grows a file a page, a WAL frame or 32 KiB of -shm at a time: one that stops within
  // that of the limit stopped at it.
  if (limit !== null && storeFileSizes(path).some((size) => size + 64 * 1024 > limit)) {
    return `${path}: a file of the store would grow past this process's file size limit of ${limit} bytes (EFBIG: file too large; ${code}: ${message}); raise the limit (ulimit -f) and run again`;
  }
  return code === 'SQLITE_FULL' ? `${path}: the disk is full (${message}); free some space and run again` : null;
}

/** Whether the file system holding `dir` has less room left than SQLite's shared-memory file takes (32 KiB). */
export function diskFull(dir: string): boolean {
  try {
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize < 32 * 1024;
  } catch {
    return false;
  }
}

/** This process's file size limit in bytes (RLIMIT_FSIZE, `ulimit -f`), or null where there is none or it cannot be read (only Linux shows it, in /proc/self/limits). */
export function fileSizeLimit(): number | null {
  try {
    const line = /^Max file size\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    const limit = Number(line?.[1]);
    return Number.isSafeInteger(limit) ? limit : null;
  } catch {
    return null;
  }
}

/** The sizes of the store's file and of the -wal, -shm and -journal files SQLite keeps beside it, those that exist. */
function storeFileSizes(path: string): number[] {
  return ['', '-wal', '-shm', '-journal'].flatMap((suffix) => {
    const size = statSync(`${path}${suffix}`, { throwIfNoEntry: false })?.size;
    return size === undefined ? [] : [size];
  });
}

/**
 * Whether `err` (or the error it was made from) is a write the store's disk could not take: a
 * full disk, a file size limit, an I/O error. An ingest into a store it created removes the
 * store when its run fails so (docs-store ingest): a 0-byte or half-made file was left.
 */
export function storageFailed(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = String((e as { code?: unknown }).code);
    if (e.name === 'SqliteError' && (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR'))) return true;
    if (['ENOSPC', 'EFBIG', 'EDQUOT', 'EIO'].includes(code)) return true;
  }
  return false;
}
