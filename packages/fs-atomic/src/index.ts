/**
 * @chunkyard/fs-atomic — every output is written to a temporary name beside
 * its target and renamed into place, so a reader (or an Nx cache restore)
 * never sees half a file, and a failed run leaves the previous output intact.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

function tempName(target: string): string {
  return join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** Writes `data` to `file` atomically (temp file in the same folder + rename). */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = tempName(file);
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Replaces the directory `dir` with one holding exactly `files` (name → content).
 * The new directory is built beside the old one and swapped in with two
 * renames; if anything fails before the swap, `dir` is untouched.
 */
export function replaceDirAtomic(dir: string, files: ReadonlyMap<string, string | Uint8Array>): void {
  mkdirSync(dirname(dir), { recursive: true });
  const fresh = tempName(dir);
  const old = tempName(dir);
  try {
    mkdirSync(fresh);
    for (const [name, data] of files) {
      if (name.includes('/') || name.includes('\\') || name === '..' || name === '.') throw new Error(`bad output file name: ${name}`);
      writeFileSync(join(fresh, name), data);
    }
    let hadOld = true;
    try {
      renameSync(dir, old);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      hadOld = false;
    }
    try {
      renameSync(fresh, dir);
    } catch (err) {
      if (hadOld) renameSync(old, dir);
      throw err;
    }
    if (hadOld) rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
}
