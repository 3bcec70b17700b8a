/**
 * Real paths of many paths below one tree, each folder looked up once (RealPaths).
 */
import { lstatSync, readlinkSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** The calls a RealPaths makes (tests count them through real ones). */
export interface RealPathOps {
  lstat: (p: string) => { isSymbolicLink(): boolean };
  /** Follows links; only its failure is used. */
  stat: (p: string) => unknown;
  readlink: (p: string) => string;
}

/** Linux's bound on the links one lookup follows (SYMLOOP_MAX), as realpath(3) has it. */
const MAX_LINKS = 40;

/**
 * realpathSync's answers (ENOENT, ELOOP, EACCES thrown as it throws them), with each folder
 * looked up once for all the paths asked. realpathSync lstat's every component of every path
 * it is given, so looking up every topic of a chain of d nested sections cost d²/2 lstats, each a
 * kernel walk of up to d components: docs-export --out over 640 nested sections took 7 s (6.8
 * of them here), docs-score 4 s (session 56; each app had a copy of this class). A path's
 * real path is its parent's joined with its name unless the name is a link; a link's target
 * is resolved through the same cache. `..` is taken lexically, as realpathSync takes it.
 */
export class RealPaths {
  private readonly known = new Map<string, string>();
  constructor(private readonly ops: RealPathOps = { lstat: lstatSync, stat: statSync, readlink: (p) => readlinkSync(p, 'utf8') }) {}

  of(p: string): string {
    return this.real(resolve(p), 0);
  }

  private real(p: string, links: number): string {
    const hit = this.known.get(p);
    if (hit !== undefined) return hit;
    const parent = dirname(p);
    if (parent === p) return p;
    const here = join(this.real(parent, links), basename(p));
    let real = here;
    if (this.ops.lstat(here).isSymbolicLink()) {
      // The kernel follows the link first, as realpathSync has it do: a link whose target
      // fails physically (`a -> a/..` loops; `b -> x/..` with no x) fails here, though its
      // target read lexically would be a folder.
      this.ops.stat(here);
      if (links >= MAX_LINKS) throw Object.assign(new Error(`ELOOP: too many symbolic links encountered, realpath '${p}'`), { code: 'ELOOP', errno: -40, syscall: 'realpath', path: p });
      real = this.real(resolve(dirname(here), this.ops.readlink(here)), links + 1);
    }
    this.known.set(p, real);
    return real;
  }
}
