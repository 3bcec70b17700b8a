/**
 * Read-only access to the Nx plugin's packed per-topic caches, `.embedding-cache/<project>.pack`.
 *
 * Why: the plugin's `spec` step keeps each topic's vectors in `.embedding-cache/<project>/` and
 * stores that folder in the Nx cache as one file, `<project>.pack` (packages/nx, executor.cjs:
 * packFolder). A machine that restored the topics from the Nx cache holds only the packs, so
 * without this the embedding fallback re-embedded every chunk into the root cache.
 *
 * Format (written by packFolder, read by its readPack): the line `chunkyard-pack 1`, then per
 * file, sorted by path, a line `<byte length> <posix path>` and the bytes. The files are an
 * `@chunkyard/embedding-cache` folder, and a document entry in it is validated by that cache's
 * own check (readPackedDocument). Anything wrong is a miss: a pack is never written or
 * removed here (it belongs to the Nx cache).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPackedDocument, type DocumentKey } from '@chunkyard/embedding-cache';

export const PACK_MAGIC = 'chunkyard-pack 1\n';
export const PACK_SUFFIX = '.pack';

/**
 * The files of a pack (posix path -> bytes, views into `pack`), or null when it is not a
 * well-formed pack (bad magic, a truncated file, a path that is absolute or has `.`/`..`).
 */
export function readPack(pack: Uint8Array): Map<string, Uint8Array> | null {
  const bytes = Buffer.from(pack.buffer, pack.byteOffset, pack.byteLength);
  if (bytes.subarray(0, PACK_MAGIC.length).toString('latin1') !== PACK_MAGIC) return null;
  const files = new Map<string, Uint8Array>();
  let at = PACK_MAGIC.length;
  while (at < bytes.length) {
    const nl = bytes.indexOf(10, at);
    if (nl < 0) return null;
    const m = /^(\d+) (.+)$/.exec(bytes.subarray(at, nl).toString('utf8'));
    if (!m) return null;
    const size = Number(m[1]);
    const path = m[2]!;
    if (nl + 1 + size > bytes.length || path.includes('\\') || path.split('/').some((p) => p === '' || p === '.' || p === '..')) return null;
    files.set(path, bytes.subarray(nl + 1, nl + 1 + size));
    at = nl + 1 + size;
  }
  return files;
}

/** One packed per-topic cache, read (once, on first use) only when a document is looked up. */
export class PackedCache {
  private files: Map<string, Uint8Array> | null | undefined;

  constructor(readonly file: string) {}

  private load(): Map<string, Uint8Array> | null {
    if (this.files === undefined) {
      try {
        this.files = readPack(readFileSync(this.file));
      } catch {
        this.files = null; // unreadable: a miss, as a missing cache folder is
      }
    }
    return this.files;
  }

  /** Every chunk's vector of the document, or null unless the pack holds the whole, valid entry. */
  getDocument(key: DocumentKey, texts: readonly string[]): Float32Array[] | null {
    const files = this.load();
    return files ? readPackedDocument(files, key, texts) : null;
  }
}

/** The packs directly in `root` (`<project>.pack`, sorted by name); none when `root` does not exist. */
export function nestedPacks(root: string): PackedCache[] {
  let names: string[];
  try {
    names = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(PACK_SUFFIX) && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
  return names.map((n) => new PackedCache(join(root, n)));
}
