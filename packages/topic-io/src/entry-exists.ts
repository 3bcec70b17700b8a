// Its own module, with Node builtins only, so that a small entry (index-tool's stale-outputs,
// which the Nx plugin loads while Nx makes the project graph) can use it without the rest of
// topic-io (config, YAML).
import { lstatSync } from 'node:fs';

/**
 * Whether anything (a file, a folder, or a symlink even when dangling or looping) is at `p`.
 * existsSync follows symlinks, so a broken `golden-reference.md` link would read as "absent"
 * and a topic would be skipped or called "not a topic" instead of reported as broken.
 */
export function entryExists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch (err) {
    // Only "nothing there" is an answer of no. A path the kernel refuses to look up
    // (ENAMETOOLONG past PATH_MAX, ELOOP through a looping folder link) read as "absent": a
    // topic at a 4,080-byte path was "neither a topic (no golden-reference.md) nor a section"
    // with the file right there. Thrown, it is named as what it is (guardEnvironment). EACCES
    // stays a no: a folder that cannot be searched is refused where it is named (assertSearchable).
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') return false;
    throw err;
  }
}
