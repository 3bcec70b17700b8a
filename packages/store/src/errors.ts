/** Errors the store raises for a caller to report; anything else is a bug. */
import { accessSync, constants } from 'node:fs';
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
