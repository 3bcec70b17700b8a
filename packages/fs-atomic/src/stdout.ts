/**
 * Writes to a stdout that is a regular file (`tool > out.json`), to the last byte or an error.
 *
 * Node writes to such a stdout synchronously and takes a short write as done: the kernel
 * writes what fits before the file-size limit (`ulimit -f`) or a full disk and returns that
 * count, Node drops the rest, and the next write's EFBIG or ENOSPC is not always reached. So
 * a cut file ended with exit 0. Writing the rest again gets the error.
 */
import { fstatSync, writeSync } from 'node:fs';

let isFile: boolean | undefined;

/** Whether fd 1 is a regular file (asked once: a run's stdout does not change). */
export function stdoutIsFile(): boolean {
  if (isFile === undefined) {
    try {
      isFile = fstatSync(1).isFile();
    } catch {
      isFile = false;
    }
  }
  return isFile;
}

/** Writes `s` to fd 1 to its last byte; throws the write's error (EFBIG, ENOSPC, EIO). */
export function writeAllToStdout(s: string): void {
  const bytes = Buffer.from(s, 'utf8');
  for (let at = 0; at < bytes.length; ) at += writeSync(1, bytes, at, bytes.length - at);
}
