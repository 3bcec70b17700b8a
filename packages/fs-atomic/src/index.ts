/**
 * @chunkyard/fs-atomic — every output is written to a temporary name beside
 * its target and renamed into place, so a reader (or an Nx cache restore)
 * never sees half a file, and a failed run leaves the previous output intact.
 */
import { accessSync, chmodSync, closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { commitSeam } from './commit-seam.js';
import { procFd } from './proc-fd.js';
import { stdoutIsFile, writeAllToStdout } from './stdout.js';
import { tempRandom } from './temp-random.js';
import { firstInvalidUtf8 } from './utf8.js';

/** The longest file name, in bytes, of the file systems written to (ext4, xfs, btrfs, tmpfs, APFS). */
const NAME_MAX = 255;

/**
 * The temp name a write to `target` uses beside it: `.<name>.tmp-<pid>~<space>-<8 hex>`, within
 * NAME_MAX, where `<space>` (pidSpace) says in which pid namespace the pid means this process.
 * `kind: 'aside'` gives `.<name>.aside-<pid>~<space>-<8 hex>`, the name StagedDir.commit moves
 * the previous folder to: the sweep puts such a folder back when its target is missing (a run
 * killed between the commit's two renames), where a `.tmp-` one (a stage, a file being
 * written, a folder moved away to be deleted) is only ever removed.
 */
export function tempName(target: string, kind: 'tmp' | 'aside' = 'tmp'): string {
  const suffix = `.${kind}-${process.pid}~${pidSpace()}-${tempRandom.bytes(4).toString('hex')}`;
  // The dot and suffix add up to 23 bytes, so a legal target name of 233..255 bytes gave a temp
  // name the file system refuses (ENAMETOOLONG for `--out` of a 250-byte name). The name part
  // is only there for a person looking at a leftover; cut it, whole characters only.
  return join(dirname(target), `.${cutUtf8(basename(target), NAME_MAX - 1 - Buffer.byteLength(suffix))}${suffix}`);
}

/** How many temp names a writer tries before it gives up: a name is taken only by a leftover or by something planted there. */
const TEMP_ATTEMPTS = 5;

/**
 * open(2) flags of a temp file: created by this open, never an existing entry. O_EXCL makes a
 * file or symlink already at the name EEXIST (a link is neither opened nor followed, dangling
 * or not); O_NOFOLLOW, where the platform has it, says the same of a link at the name. With
 * flag 'w' a symlink planted at the temp name was followed: the write went to its target,
 * and the rename then put the link itself in place of the output.
 */
const TEMP_FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Makes a temp entry beside `target` with `make(name)` (an exclusive open, a mkdir), which must
 * fail with EEXIST when the name is taken: then another name is tried, up to TEMP_ATTEMPTS.
 * The name and what `make` returned; nothing is made when it throws.
 */
function createTemp<T>(target: string, make: (name: string) => T): [name: string, made: T] {
  for (let attempt = 1; ; attempt++) {
    const name = tempName(target);
    try {
      return [name, make(name)];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= TEMP_ATTEMPTS) throw err;
    }
  }
}

/**
 * Writes `data` to a new temp file beside `file` (opened exclusively, TEMP_FILE_FLAGS); its
 * name, for the caller to rename and, on failure, remove. A write that fails removes the temp
 * and throws an error naming it (ENOSPC and EFBIG carry no path).
 */
function writeTemp(file: string, data: string | Uint8Array): string {
  const [tmp, fd] = createTemp(file, (name) => openSync(name, TEMP_FILE_FLAGS, 0o666));
  try {
    try {
      writeFileSync(fd, data);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    removeBestEffort(tmp);
    throw withPath(err, tmp);
  }
  return tmp;
}

/**
 * A temp name beside `target` that nothing holds now (lstat), for a rename onto it: a rename
 * replaces what is there without following it, but a file or link there fails a folder's
 * rename (ENOTDIR), so a taken name is passed over, up to TEMP_ATTEMPTS.
 */
function freeTempName(target: string, kind: 'tmp' | 'aside' = 'tmp'): string {
  for (let attempt = 1; ; attempt++) {
    const name = tempName(target, kind);
    try {
      lstatSync(name);
    } catch {
      return name;
    }
    if (attempt >= TEMP_ATTEMPTS) return name;
  }
}

/** `text`'s longest prefix of at most `bytes` UTF-8 bytes that ends on a whole character. */
function cutUtf8(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) return text;
  let used = 0;
  let end = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (used + n > bytes) break;
    used += n;
    end += ch.length;
  }
  return text.slice(0, end);
}

/**
 * `.<name>.tmp-<pid>~<space>-<8 hex>` and `.<name>.aside-…`: the temp names tempName gives (and,
 * without `~<space>`, those of earlier versions). Groups: target name, kind, pid, pid space.
 */
const TEMP_NAME = /^\.(.+)\.(tmp|aside)-(\d+)(?:~([0-9a-f]{4}))?-[0-9a-f]{8}$/;

/** The output a temp entry is of (`._chunks.aside-…` → `_chunks`), or null when `name` is no temp name. */
export function tempTarget(name: string): string | null {
  return TEMP_NAME.exec(name)?.[1] ?? null;
}

let ownPidSpace: string | undefined;

/**
 * 4 hex digits naming where this process's pid means this process: the host, its boot and the
 * pid namespace. A pid says whether a temp's writer is alive only there: a run in a container
 * sharing the docs folder (its own pid namespace) found the host run's pid missing and removed
 * its staging folder while it was being filled (issue 15 probe).
 */
function pidSpace(): string {
  if (ownPidSpace === undefined) {
    let ns = '';
    let boot = '';
    try {
      ns = readlinkSync('/proc/self/ns/pid');
    } catch {
      // No /proc (macOS): the host alone.
    }
    try {
      boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      // as above
    }
    ownPidSpace = createHash('sha256').update(`${hostname()}\0${boot}\0${ns}`).digest('hex').slice(0, 4);
  }
  return ownPidSpace;
}

/**
 * A temp entry older than this is removed even when its pid is alive: pids are reused, and no
 * write of ours keeps a temp name for an hour (the content is ready before the temp is made).
 */
export const STALE_TEMP_AGE_MS = 60 * 60 * 1000;

/**
 * Whether a process with this pid exists on this host (in this pid namespace): this process,
 * one `kill(pid, 0)` reaches, or one that exists but belongs to another user (EPERM). Only
 * meaningful for a pid from this pid space (see the temp names' `~<4 hex>`); pids are reused.
 */
export function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const swept = new Set<string>();

/**
 * Removes the temp files and folders that killed runs left in `dir` (a SIGKILL skips every
 * cleanup, so a 10 MB `._chunks.tmp-*` would otherwise stay forever): those whose pid is no
 * longer alive, or older than STALE_TEMP_AGE_MS. A live process's temps are left alone, so
 * parallel runs (Nx tasks) never delete each other's work in progress. A temp made in another
 * pid space (a container, another host on a shared disk) is judged by its age alone: its pid
 * means nothing here. Best effort: a temp that cannot be removed is not this run's problem.
 * Each folder is swept once per process.
 */
export function removeStaleTemps(dir: string, now = Date.now()): string[] {
  const removed: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return removed;
  }
  const dead: { path: string; name: string; target: string; aside: boolean }[] = [];
  for (const name of entries) {
    const m = TEMP_NAME.exec(name);
    if (!m) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (!runIsOver(m, st.mtimeMs, now)) continue;
      dead.push({ path, name, target: m[1]!, aside: m[2] === 'aside' });
    } catch {
      // Gone already (another run swept it): nothing to do.
    }
  }
  restoreInterruptedCommits(dir, dead);
  for (const { path } of dead) {
    try {
      if (!entryPresent(path)) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch (err) {
      // Not removable by this user (an older version's run, or another user's, left it): kept,
      // and guardEnvironment names it, so that a folder nobody will ever clear does not sit
      // beside the outputs unremarked. Gone meanwhile (another run swept it): nothing to say.
      if (entryPresent(path)) unremovableTemps.set(path, whyNotRemoved(path, err));
    }
  }
  return removed;
}

/** What stopped a removal, and who can do it: `<path>: permission denied (EACCES); it is owned by uid 0`. */
function whyNotRemoved(temp: string, err: unknown): string {
  const code = isFsError(err) ? err.code : undefined;
  const known = code !== undefined ? FS_ERRORS[code] : undefined;
  const at = isFsError(err) && err.path ? `${err.path}: ` : '';
  let owner = '';
  try {
    owner = `; it is owned by uid ${lstatSync(temp).uid}`;
  } catch {
    // Gone meanwhile: the removal's error is all there is to say.
  }
  return `${at}${known ? `${known[0]} (${code})` : err instanceof Error ? err.message : String(err)}${owner}`;
}

/** Dead runs' temps removeStaleTemps could not remove in this process, with why; takeUnremovableTemps hands them out. */
const unremovableTemps = new Map<string, string>();

/**
 * The temps of runs that are over which this process could not remove (path and why), each
 * once: what guardEnvironment reports as a warning when a CLI ends.
 */
export function takeUnremovableTemps(): { path: string; reason: string }[] {
  const out = [...unremovableTemps].map(([path, reason]) => ({ path, reason }));
  unremovableTemps.clear();
  return out;
}

function entryPresent(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A run killed between StagedDir.commit's two renames (target moved aside, staged folder not
 * yet in) left no target at all, only two temps of its own: the previous folder and the new
 * one. Sweeping both removed the topic's _chunks/ or _keywords/ for good, so the next tool to
 * sweep the topic (keyword-extractor, say) deleted the chunks (issue 15 probe). The previous
 * folder carries an `.aside-` name (tempName's kind), so it is told from the stage by name and
 * goes back in place; the stage and the rest are swept as usual. Telling them apart by mtime
 * (the older folder taken for the previous one) put the new folder in instead when the old
 * one's mtime was the later (copied with its times from a clock ahead, a clock set back), and
 * could not tell a stage from a folder moved away to be deleted (index-tool's --prune).
 * Of several asides of one target (a commit that also moved aside another run's folder that
 * landed meanwhile), each a whole folder a run committed, the first by name goes back.
 * A `.tmp-` temp is never put back: a single stage of a missing target is a first run killed
 * while staging (it may be partial), and earlier versions' asides were `.tmp-` names too.
 */
function restoreInterruptedCommits(dir: string, dead: readonly { path: string; name: string; target: string; aside: boolean }[]): void {
  const byTarget = new Map<string, string[]>();
  for (const t of dead) {
    // A name cut to fit NAME_MAX (tempName) no longer says its target: only uncut ones are restored.
    if (!t.aside || Buffer.byteLength(t.name) > NAME_MAX - 4) continue;
    byTarget.set(t.target, [...(byTarget.get(t.target) ?? []), t.path]);
  }
  for (const [name, asides] of byTarget) {
    const target = join(dir, name);
    if (entryPresent(target)) continue;
    try {
      renameSync([...asides].sort()[0]!, target);
    } catch {
      // Something took the name meanwhile (a run committing now): its folder stands; sweep ours.
    }
  }
}

/**
 * What a build of `dir/<name>` (a topic's `_chunks` or `_keywords`) left when `dir/<name>` is
 * missing and a temp of it is there: the temp (its path), and whether it is the previous
 * folder moved aside (`aside`: a run killed between StagedDir.commit's renames, which the next
 * run of any tool writing beside it puts back) or a stage (a first build killed, or one under
 * way). null when `dir/<name>` is there or no temp of it is. For readers, which otherwise took
 * such a topic for one never built and skipped it without a word.
 */
export function unfinishedBuild(dir: string, name: string): { temp: string; aside: boolean } | null {
  if (entryPresent(join(dir, name))) return null;
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return null;
  }
  let found: { temp: string; aside: boolean } | null = null;
  for (const entry of entries.sort()) {
    const m = TEMP_NAME.exec(entry);
    if (!m || m[1] !== name) continue;
    if (m[2] === 'aside') return { temp: join(dir, entry), aside: true };
    found ??= { temp: join(dir, entry), aside: false };
  }
  return found;
}

/**
 * Whether the temp entry `name` in `dir` (a tempName) belongs to a run that is over: its pid
 * gone here, or older than STALE_TEMP_AGE_MS; removeStaleTemps's test, for a writer that must
 * undo a killed run's half-done work before that sweep removes what it needs to undo it.
 */
export function isAbandonedTemp(dir: string, name: string, now = Date.now()): boolean {
  const m = TEMP_NAME.exec(name);
  if (!m) return false;
  try {
    return runIsOver(m, lstatSync(join(dir, name)).mtimeMs, now);
  } catch {
    return false;
  }
}

/**
 * Whether the run that made a temp (`m`, its name matched by TEMP_NAME) is over: older than
 * STALE_TEMP_AGE_MS, or made in this pid space by a pid no longer alive. A temp of another pid
 * space is judged by its age alone: its pid means nothing here.
 */
function runIsOver(m: RegExpExecArray, mtimeMs: number, now: number): boolean {
  if (now - mtimeMs > STALE_TEMP_AGE_MS) return true;
  const here = m[4] === undefined || m[4] === pidSpace();
  return here && !pidAlive(Number(m[3]));
}

/** removeStaleTemps, at most once per folder per process (for writers that write there often). */
export function removeStaleTempsOnce(dir: string): void {
  if (swept.has(dir)) return;
  swept.add(dir);
  removeStaleTemps(dir);
}

/**
 * `mkdir -p`: creates `dir` and its missing parents. Node's own `mkdirSync(dir, { recursive:
 * true })` loops forever where the kernel answers ENOENT for a child of a folder that exists
 * (/proc, /proc/self/fd, some FUSE mounts: `--out /proc/x` hung every CLI); here the missing
 * folders are found first and made one by one, so such a path is an ENOENT error. An existing
 * folder is fine; an existing non-folder is EEXIST (the path itself) or ENOTDIR (a parent),
 * as with mkdirSync.
 */
export function mkdirp(dir: string): void {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    let stat: Stats | undefined;
    try {
      stat = statSync(at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (stat) {
      // The path itself is a file: mkdirSync says EEXIST. A parent that is a file: the first
      // mkdirSync below says ENOTDIR.
      if (!stat.isDirectory() && missing.length === 0) mkdirSync(at);
      break;
    }
    missing.push(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      mkdirSync(missing[i]!);
    } catch (err) {
      // Made meanwhile by a parallel run: fine when it is a folder.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(missing[i]!).isDirectory()) throw err;
    }
  }
}

/**
 * What a write does when the output path is a symlink. `refuse` (the default) is for every
 * output whose path the tool derives itself (a topic's topic-spec.md, index.json, llms.txt, the
 * files of chunk-inspector's page): a docs tree is often someone else's (a pull request), and
 * a link committed at `docs/x/topic-spec.md` made the next run overwrite whatever it pointed
 * to (~/.npmrc, .git/hooks/pre-commit, /etc/passwd as root). Such a write throws
 * SymlinkOutputError and writes nothing; the link is left for the user to remove, not
 * silently replaced by a file. `follow` writes through the link to the file it leads to
 * (writeTarget): for a path the user names on the command line (`docs-export --out
 * latest.jsonl`, a link to this week's export), where the link is the user's own choice.
 */
export type SymlinkPolicy = 'refuse' | 'follow';

/**
 * A generated output's path is a symlink (SymlinkPolicy `refuse`): nothing was written there
 * nor through it. `target` is what the link holds (readlink), null when it cannot be read.
 */
export class SymlinkOutputError extends Error {
  override name = 'SymlinkOutputError';
  readonly code = 'ESYMLINK';
  constructor(
    readonly path: string,
    readonly target: string | null,
  ) {
    super(`${oneLine(path)}: is a symlink${target === null ? '' : ` (it points to ${oneLine(target)})`}; a generated output is never written through a link, so nothing was written; remove the link and run again`);
  }
}

/**
 * Throws SymlinkOutputError when `file` is a symlink (dangling and looping ones included). A
 * link made after this look is no escape: the rename that follows replaces a link at the
 * target, it never writes through one.
 */
export function refuseSymlink(file: string): void {
  let link = false;
  try {
    link = lstatSync(file).isSymbolicLink();
  } catch {
    return;
  }
  if (!link) return;
  let target: string | null = null;
  try {
    target = readlinkSync(file);
  } catch {
    // gone or unreadable meanwhile: still a link when looked at
  }
  throw new SymlinkOutputError(file, target);
}

/**
 * The file a write to `file` replaces: `file` itself, or the file the symlink there leads to.
 * A temp + rename over a symlink replaced the link with a regular file, so `--out latest.jsonl`
 * (a link to this week's export) cut the link and left its target as it was. A link that
 * leads nowhere (or loops) is an error on the link (ENOENT or ELOOP, which describeFsError
 * words as "a dangling symlink … fix or remove the link"), not a file made in its place.
 * Only for a path the user named (SymlinkPolicy `follow`); a generated output refuses links.
 */
export function writeTarget(file: string): string {
  try {
    if (!lstatSync(file).isSymbolicLink()) return file;
  } catch {
    return file;
  }
  try {
    return realpathSync(file);
  } catch (err) {
    // realpath names the missing target; the link is what the user gave and has to fix.
    if (err instanceof Error) (err as NodeJS.ErrnoException).path = file;
    throw err;
  }
}

/** The path a write to `path` renames onto, by `policy`. */
function outputFile(path: string, policy: SymlinkPolicy = 'refuse'): string {
  if (policy === 'follow') return writeTarget(path);
  refuseSymlink(path);
  return path;
}

/** Options of writeFileAtomic and writeFilesAtomic. */
export interface WriteOptions {
  /**
   * What a symlink at the output path gets: `refuse` (the default: SymlinkOutputError, nothing
   * written) for outputs whose path the tool derives, `follow` (written through) only for a
   * path the user named. See SymlinkPolicy.
   */
  symlink?: SymlinkPolicy;
}

/**
 * Writes `data` to `file` atomically (temp file in the same folder + rename). A symlink at
 * `file` is refused unless `symlink: 'follow'` (SymlinkPolicy). Missing folders are made unless
 * `parents` is false: a file that belongs in an input folder (a topic's topic-spec.md) must not
 * bring back a folder that was removed while the run read it.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, options: { parents?: boolean } & WriteOptions = {}): void {
  const file = outputFile(path, options.symlink);
  if (options.parents !== false) mkdirp(dirname(file));
  removeStaleTempsOnce(dirname(file));
  let tmp: string | null = null;
  try {
    tmp = writeTemp(file, data);
    renameSync(tmp, file);
  } catch (err) {
    if (tmp !== null) removeBestEffort(tmp);
    if (options.parents === false && isFsError(err) && err.code === 'ENOENT' && !existsSync(dirname(file))) throw new FolderGoneError(dirname(file));
    // A folder at the target: the rename's error names the temp file, which describeFsError
    // turned into "<parent>: cannot write in this folder", and its advice into "remove or
    // rename that folder" of the parent (found by a probe). The target is what to fix.
    if (isFsError(err) && err.code === 'EISDIR' && err.syscall === 'rename') {
      throw Object.assign(new Error(`EISDIR: illegal operation on a directory, rename '${file}'`), { code: 'EISDIR', syscall: 'rename', path: file });
    }
    throw tmp === null ? err : withPath(err, tmp);
  }
}

/**
 * writeFileAtomic's error when `parents: false` and the file's folder is not there (removed
 * while the run read it): the caller says what that means for its run, instead of an ENOENT
 * that names a temp file.
 */
export class FolderGoneError extends Error {
  override name = 'FolderGoneError';
  readonly code = 'ENOENT';
  constructor(readonly path: string) {
    super(`${path}: the folder was removed or renamed during the run; nothing written there`);
  }
}

/**
 * Writes several files as one set (each path → content): every content goes to a temp file
 * beside its target first, then every target is checked (a folder standing there would stop
 * the renames halfway), and only then is each renamed into place. A write that fails (a full
 * disk, EFBIG) or a folder in the way leaves every target as it was; writeFileAtomic one
 * after another left the first file new and the second old (index-tool's llms.txt beside an
 * older llms-full.txt). The renames themselves can still fail in between (a target folder
 * made read-only meanwhile), which no file system lets a set of files avoid. A symlink at a
 * path is refused unless `symlink: 'follow'` (SymlinkPolicy), and every path is looked at
 * before anything is written: one link among them leaves every file as it was.
 */
export function writeFilesAtomic(files: ReadonlyMap<string, string | Uint8Array>, options: WriteOptions = {}): void {
  const targets = [...files].map(([path, data]) => [outputFile(path, options.symlink), data] as const);
  const temps: [tmp: string, file: string][] = [];
  try {
    for (const [file, data] of targets) {
      mkdirp(dirname(file));
      removeStaleTempsOnce(dirname(file));
      temps.push([writeTemp(file, data), file]);
    }
    for (const [, file] of temps) {
      let folder = false;
      try {
        folder = lstatSync(file).isDirectory();
      } catch {
        // absent: the rename creates it
      }
      if (folder) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, rename '${file}'`), { code: 'EISDIR', syscall: 'rename', path: file });
    }
    for (const [tmp, file] of temps) renameSync(tmp, file);
  } finally {
    for (const [tmp] of temps) removeBestEffort(tmp);
  }
}

/**
 * A folder built beside `target` under a temp name and swapped in whole: until commit(),
 * `target` is untouched, and a killed run's staged folder carries a temp name that the next
 * run's removeStaleTemps clears. The temp folder is made on first use of `path`, so a stage
 * nobody writes to costs nothing. For writers that fill the folder as they go (the
 * chunking-tool streams a big document's chunk files into one); replaceDirAtomic is the
 * whole-map form.
 */
export class StagedDir {
  private dir: string | null = null;

  /** `parents: false`: as for writeFileAtomic, the target's folder is not made (FolderGoneError when it is gone). */
  constructor(
    readonly target: string,
    private readonly options: { parents?: boolean } = {},
  ) {}

  /** True once the temp folder exists (something was staged). */
  get created(): boolean {
    return this.dir !== null;
  }

  /** The temp folder, made (with the target's parents, after sweeping killed runs' temps) on first use. */
  get path(): string {
    if (this.dir === null) {
      const parent = dirname(this.target);
      if (this.options.parents !== false) mkdirp(parent);
      removeStaleTempsOnce(parent);
      let dir: string;
      try {
        // mkdir never follows a link at the name; a name taken (EEXIST) is passed over.
        [dir] = createTemp(this.target, (name) => mkdirSync(name));
      } catch (err) {
        if (this.options.parents === false && isFsError(err) && err.code === 'ENOENT' && !existsSync(parent)) throw new FolderGoneError(parent);
        throw err;
      }
      this.dir = dir;
    }
    return this.dir;
  }

  /**
   * Swaps the staged folder in with two renames (target → temp, staged → target), putting the
   * old folder back if the second fails; the old folder is then removed, best effort, since
   * the new one is already in place. Another run's commit to the same target can land between
   * the two renames (two runs of a tool on one topic): its folder is then moved aside too and
   * removed, and this one goes in (the last to commit wins, as with a file's rename). The
   * second rename failed with ENOTEMPTY, and putting the old folder back failed the same way,
   * so the run failed with "is a folder that is not empty" naming the topic's folder (issue 15
   * probe).
   */
  commit(): void {
    const fresh = this.path;
    const aside: string[] = [];
    const moveAside = (): boolean => {
      const name = freeTempName(this.target, 'aside');
      try {
        renameSync(this.target, name);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        return false;
      }
      aside.push(name);
      return true;
    };
    /** moveAside for a retry: a failure there leaves the rename's own error to report. */
    const movedAsideAgain = (): boolean => {
      try {
        return moveAside();
      } catch {
        return false;
      }
    };
    // Before anything moves: an old folder this user cannot empty would be swapped out and then
    // stay beside the new one for good (removeBestEffort and every later sweep fail alike).
    const blocked = unremovableFolder(this.target);
    if (blocked !== null) throw new FolderNotReplaceableError(this.target, blocked.path, blocked.reason);
    const hadOld = moveAside();
    commitSeam.between(this.target);
    for (let attempt = 1; ; attempt++) {
      try {
        renameSync(fresh, this.target);
        break;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // Another commit put its folder there meanwhile: move it aside as well and try again.
        if ((code === 'ENOTEMPTY' || code === 'EEXIST') && attempt < TEMP_ATTEMPTS && movedAsideAgain()) continue;
        if (hadOld) {
          try {
            renameSync(aside[0]!, this.target);
            aside.shift();
          } catch {
            // Something stands there again; the old folder stays aside for a later sweep.
          }
        }
        throw err;
      }
    }
    this.dir = null;
    for (const name of aside) removeBestEffort(name);
  }

  /** Removes the staged folder, if any, without throwing (safe in a finally after commit). */
  discard(): void {
    if (this.dir !== null) removeBestEffort(this.dir);
    this.dir = null;
  }
}

/**
 * StagedDir.commit refused to swap: the folder in place (`path`) could be moved aside but not
 * removed afterwards by this user, since `blocker` (the folder or one inside it) cannot be
 * emptied. A probe ran chunking-tool as a user who may write the topic folder over a `_chunks/`
 * of root's (mode 555): it exited 0, and the old outputs stayed beside the new ones as
 * `._chunks.tmp-*`, which no later run as that user can remove. Nothing was changed: the
 * previous folder is in place, and the caller's discard() takes the staged one.
 */
export class FolderNotReplaceableError extends Error {
  override name = 'FolderNotReplaceableError';
  readonly code = 'EACCES';
  constructor(
    readonly path: string,
    readonly blocker: string,
    readonly reason: string,
  ) {
    const where = blocker === path ? 'its entries' : `the entries of ${oneLine(blocker)}`;
    super(`${oneLine(path)}: cannot replace this folder: this user cannot remove ${where} (${reason}), so the old outputs would be left behind; have it made writable for this user (chmod -R, or chown -R to this user) or run as its owner; the previous outputs were left as they were`);
  }
}

/** This process's uid, or null where there are none (Windows). */
function ownUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

/**
 * Whether this user can remove the folder `dir` (lstat: a link or file is no folder) and all it
 * holds, once renamed aside (which needs only its parent): null when it can, or is no folder,
 * else the first folder that stops it and why. A folder is emptied when this user may list,
 * write and search it, or owns it (removeBestEffort makes it so with chmod), or it is empty; a
 * sticky folder of someone else's lets go only of this user's own entries. Every entry below
 * is looked at, one readdir per folder and one lstat per entry: linear, as the removal is.
 */
function unremovableFolder(dir: string): { path: string; reason: string } | null {
  const uid = ownUid();
  // No uids, no mode bits that mean them (Windows): the removal is tried as before.
  if (uid === null) return null;
  let top: Stats;
  try {
    top = lstatSync(dir);
  } catch {
    return null;
  }
  if (!top.isDirectory()) return null;
  // One's own folders opened with u+rx for the look (mode 000 or 311 hid what they hold, a
  // folder of root's say, which removeBestEffort's chmod cannot open), with their modes, put
  // back deepest first once the look is over: the old folder is left exactly as it was.
  const opened: [path: string, mode: number][] = [];
  try {
    const pending: [path: string, stat: Stats][] = [[dir, top]];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const [path, stat] = next;
      const owned = stat.uid === uid;
      let denied: NodeJS.ErrnoException | null = null;
      try {
        accessSync(path, constants.R_OK | constants.W_OK | constants.X_OK);
      } catch (err) {
        denied = err as NodeJS.ErrnoException;
      }
      // EACCES on one's own folder is cured by chmod; EPERM (immutable, chattr +i) is not.
      const curable = owned && denied?.code === 'EACCES';
      if (curable && (stat.mode & 0o500) !== 0o500) {
        try {
          chmodSync(path, (stat.mode & 0o7777) | 0o500);
          opened.push([path, stat.mode & 0o7777]);
        } catch {
          // Left closed: the readdir below says so.
        }
      }
      let names: string[] | null;
      try {
        names = readdirSync(path);
      } catch (err) {
        names = null;
        denied ??= err as NodeJS.ErrnoException;
      }
      const blocking = denied !== null && (denied.code === 'EACCES' || denied.code === 'EPERM');
      if (blocking && !curable && !(names !== null && names.length === 0)) {
        return { path, reason: `${denied!.code === 'EPERM' ? 'EPERM, immutable or append-only' : 'permission denied, EACCES'}; owned by uid ${stat.uid}, mode ${(stat.mode & 0o7777).toString(8)}` };
      }
      // Any other failure (ENOENT: removed meanwhile) leaves nothing to remove.
      if (names === null) continue;
      const sticky = (stat.mode & 0o1000) !== 0 && !owned && uid !== 0;
      for (const name of names) {
        const child = join(path, name);
        let childStat: Stats;
        try {
          childStat = lstatSync(child);
        } catch {
          continue; // gone meanwhile: nothing to remove
        }
        if (sticky && childStat.uid !== uid) {
          return { path, reason: `a sticky folder (mode ${(stat.mode & 0o7777).toString(8)}, owned by uid ${stat.uid}) holding ${oneLine(name)} of uid ${childStat.uid}` };
        }
        if (childStat.isDirectory()) pending.push([child, childStat]);
      }
    }
    return null;
  } finally {
    for (let i = opened.length - 1; i >= 0; i--) {
      try {
        chmodSync(opened[i]![0], opened[i]![1]);
      } catch {
        // It was chmod-able a moment ago; a folder removed meanwhile needs no mode.
      }
    }
  }
}

/** open(2) flags that pin a folder: a folder only, and not through a symlink at its name. */
const PIN_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * A derived output folder that a run writes into entry by entry (renames in, stale files
 * removed) over a long run, such as a markdown file's `<folder>/_chunks`. Looking once
 * (refuseSymlink) left a window: a link swapped in at the path after the look, while the
 * document was being chunked, was followed by every later mkdir, rename and unlink.
 *
 * `open` makes the folder if it is missing (mkdir never follows a link at the name) and opens
 * it with O_DIRECTORY | O_NOFOLLOW, so a link there is SymlinkOutputError, and the descriptor
 * then pins that very folder. Where the system lets a path reach a folder through its
 * descriptor (Linux's /proc/self/fd/N), `at(name)` is such a path: every operation lands in
 * the pinned folder whatever the original path holds by then, so a link swapped in later is
 * never written through. Elsewhere `at(name)` is the plain path, given only after lstat shows
 * the same folder still there (the same device and inode, not a link): the window is then
 * that lstat to the operation that follows it. `check()` says whether the path still holds the
 * pinned folder, for a run to refuse to move its outputs into a folder that was swapped.
 */
export class PinnedDir {
  private fd: number | null;
  private readonly dev: number;
  private readonly ino: number;
  /** The /proc/self/fd path of the descriptor, or null where there is none to use. */
  private readonly viaFd: string | null;

  private constructor(readonly path: string, fd: number | null, stat: Stats) {
    this.fd = fd;
    this.dev = stat.dev;
    this.ino = stat.ino;
    let viaFd: string | null = null;
    if (fd !== null) {
      const candidate = procFd.path(fd);
      try {
        const seen = statSync(candidate);
        if (seen.dev === stat.dev && seen.ino === stat.ino) viaFd = candidate;
      } catch {
        // No /proc (macOS, a container without it): the plain path, checked before each use.
      }
    }
    this.viaFd = viaFd;
  }

  /** Pins the folder at `path`, making it (and, unless `parents` is false, its parents) when missing. */
  static open(path: string, options: { parents?: boolean } = {}): PinnedDir {
    refuseSymlink(path);
    if (options.parents !== false) mkdirp(dirname(path));
    try {
      mkdirSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (constants.O_NOFOLLOW === undefined || constants.O_DIRECTORY === undefined) {
      // Windows: no way to open a folder without following a link; lstat it, then check before each use.
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) refuseSymlink(path);
      if (!stat.isDirectory()) mkdirSync(path); // EEXIST, naming what stands there
      return new PinnedDir(path, null, stat);
    }
    let fd: number;
    try {
      fd = openSync(path, PIN_FLAGS);
    } catch (err) {
      // A link made since the mkdir: ELOOP, or ENOTDIR with O_DIRECTORY (Linux).
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || code === 'ENOTDIR') refuseSymlink(path);
      throw err;
    }
    try {
      return new PinnedDir(path, fd, fstatSync(fd));
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /**
   * SymlinkOutputError when the path is now a link, FolderGoneError when it holds no folder or
   * another one: whether outputs may still be moved in under the path's name.
   */
  check(): void {
    let stat: Stats;
    try {
      stat = lstatSync(this.path);
    } catch {
      throw new FolderGoneError(this.path);
    }
    if (stat.isSymbolicLink()) refuseSymlink(this.path);
    if (!stat.isDirectory() || stat.dev !== this.dev || stat.ino !== this.ino) throw new FolderGoneError(this.path);
  }

  /** The path to hand to a file-system call for `name` in the pinned folder (`''`: the folder). */
  at(name = ''): string {
    if (this.viaFd !== null) return name === '' ? this.viaFd : join(this.viaFd, name);
    this.check();
    return name === '' ? this.path : join(this.path, name);
  }

  /** `err`'s path and dest as the user knows them: the folder's own path in place of /proc/self/fd/N. */
  restorePaths<T>(err: T): T {
    const via = this.viaFd;
    if (via === null || !(err instanceof Error)) return err;
    const e = err as NodeJS.ErrnoException & { dest?: string };
    const back = (p: string | undefined) => (p !== undefined && (p === via || p.startsWith(`${via}/`)) ? this.path + p.slice(via.length) : p);
    if (e.path !== undefined) e.path = back(e.path);
    if (e.dest !== undefined) e.dest = back(e.dest);
    return err;
  }

  /** Closes the descriptor; the folder's stale temps may be swept again under the number's next use. */
  close(): void {
    if (this.fd === null) return;
    if (this.viaFd !== null) for (const dir of swept) if (dir === this.viaFd || dir.startsWith(`${this.viaFd}/`)) swept.delete(dir);
    closeSync(this.fd);
    this.fd = null;
  }
}

/**
 * Replaces the directory `dir` with one holding exactly `files` (name → content).
 * The new directory is built beside the old one and swapped in with two
 * renames; if anything fails before the swap, `dir` is untouched.
 */
export function replaceDirAtomic(dir: string, files: ReadonlyMap<string, string | Uint8Array>, options: { parents?: boolean } = {}): void {
  const staged = new StagedDir(dir, options);
  try {
    const fresh = staged.path;
    for (const [name, data] of files) {
      if (name.includes('/') || name.includes('\\') || name === '..' || name === '.') throw new Error(`bad output file name: ${name}`);
      try {
        // Into a folder just made by this run; a link there (planted meanwhile) is not
        // followed (O_NOFOLLOW, where the platform has it): ELOOP, and nothing is swapped in.
        const fd = openSync(join(fresh, name), STAGED_FILE_FLAGS, 0o666);
        try {
          writeFileSync(fd, data);
        } finally {
          closeSync(fd);
        }
      } catch (err) {
        throw withPath(err, fresh);
      }
    }
    staged.commit();
  } finally {
    staged.discard();
  }
}

/** open(2) flags of a file written into a staged folder: as 'w', but never through a symlink at its name where O_NOFOLLOW exists. */
const STAGED_FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);

/** A write error (ENOSPC, EIO) carries no path; give it the one that was being written. */
function withPath(err: unknown, path: string): unknown {
  if (err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string' && (err as NodeJS.ErrnoException).path === undefined) {
    (err as NodeJS.ErrnoException).path = path;
  }
  return err;
}

/**
 * Removes a temp entry without throwing, so a cleanup problem never hides the error that made
 * the cleanup necessary. A read-only folder (an old `_chunks/` made read-only) is made writable
 * first, since its files cannot be unlinked otherwise; what still cannot be removed is left
 * for removeStaleTemps of a later run.
 */
function removeBestEffort(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
    return;
  } catch {
    // fall through: try again with write permission
  }
  try {
    const walk = (p: string): void => {
      if (!lstatSync(p).isDirectory()) return;
      try {
        chmodSync(p, 0o755);
      } catch {
        // Another user's folder inside (EPERM) may still be writable to us: rmSync finds out.
        // It stopped the walk, so the folders of one's own after it stayed read-only.
      }
      let names: string[];
      try {
        names = readdirSync(p);
      } catch {
        return;
      }
      for (const name of names) walk(join(p, name));
    };
    walk(path);
    rmSync(path, { recursive: true, force: true });
  } catch {
    // left for a later run's sweep
  }
}

/**
 * An error for a path that is not a regular file (a FIFO, a device, a socket): reading one
 * would block forever (a FIFO with no writer) or never end (/dev/zero), so tools refuse it
 * before reading. `code` lets describeFsError word it like the system's own errors.
 */
export class NotRegularFileError extends Error {
  override name = 'NotRegularFileError';
  readonly code = 'ENOTREG';
  constructor(readonly path: string, readonly kind: string) {
    super(`${path}: ${kind}, not a regular file`);
  }
}

/** A user's word for what a non-regular file is. */
export function fileKind(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a directory';
  return 'a special file';
}

/**
 * Reads a whole regular file (symlinks followed), refusing anything else at once. The file is
 * opened non-blocking and checked with fstat on that same descriptor, so a FIFO cannot block
 * the open and a swap between check and read cannot sneak a device in.
 */
export function readRegularFile(file: string): Buffer {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new NotRegularFileError(file, fileKind(stat));
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Why following the symlink at `p` fails ("a dangling symlink …" or "a symlink loop …", with
 * what to do), or null when it is not a broken symlink: for every "no such file/folder" message,
 * which is wrong for a link that exists but leads nowhere.
 */
export function brokenLink(p: string): string | null {
  let code: string | undefined;
  try {
    statSync(p);
    return null;
  } catch (err) {
    code = (err as NodeJS.ErrnoException).code;
  }
  try {
    if (!lstatSync(p).isSymbolicLink()) return null;
  } catch {
    return null;
  }
  return code === 'ELOOP' ? 'a symlink loop (it never reaches a file); fix or remove the link' : 'a dangling symlink (its target does not exist); fix or remove the link';
}

/** What keeps a path from being read as a folder; see folderProblem. */
export interface FolderProblem {
  /**
   * `missing`: nothing usable is there (no entry, a dangling or looping symlink, or a file
   * standing where a parent folder belongs); `not-a-folder`: a file, FIFO, device or socket is
   * there; `unusable`: the path cannot be looked at (too long, a parent without permission).
   */
  readonly problem: 'missing' | 'not-a-folder' | 'unusable';
  /** The text after "<path>: ": "no such folder", "not a folder (a FIFO (named pipe))", "name too long (ENAMETOOLONG); use a shorter path". */
  readonly reason: string;
}

/**
 * Why `p` cannot be read as a folder (symlinks followed), or null when it is one: the check
 * every CLI taking a folder argument makes before any work, so each says the same thing for
 * the same path and only adds its own hint ("give the built docs root"). `missing` words the
 * plain-absent case ("no such folder" by default; "no such file or folder" where either is
 * taken), `file` the word for a regular file in "not a folder (…)" ("a regular file" by
 * default). A path that is too long or behind a folder without permission is said so, where a
 * bare existsSync would have called it missing.
 */
export function folderProblem(p: string, words: { missing?: string; file?: string } = {}): FolderProblem | null {
  const stat = statFor(p, words.missing ?? 'no such folder');
  if (!('isDirectory' in stat)) return stat;
  if (stat.isDirectory()) return null;
  return { problem: 'not-a-folder', reason: `not a folder (${stat.isFile() ? (words.file ?? 'a regular file') : fileKind(stat)})` };
}

/**
 * Throws the access error (EACCES, naming `dir`) when this user may not search `dir`: no x
 * permission (mode 000 or 644) puts every entry out of reach, so a check for one answered
 * "not there", and a topic folder of that mode was "a folder, but not a topic (no
 * golden-reference.md in it)" though the file is there. Thrown, it is reported as what it is
 * (guardEnvironment: the folder, permission denied, what to do; exit 1). Read permission is
 * not asked for: a folder of mode 311 still lets a reader open the paths it knows.
 */
export function assertSearchable(dir: string): void {
  accessSync(dir, constants.X_OK);
}

/** What keeps a path from being read as a regular file; see fileProblem. */
export interface FileProblem {
  /** As FolderProblem's, with `not-a-file` for a folder, FIFO, device or socket. */
  readonly problem: 'missing' | 'not-a-file' | 'unusable';
  /** The text after "<path>: ": "no such file", "a FIFO (named pipe), not a regular file". */
  readonly reason: string;
}

/** folderProblem's counterpart for an input file option (`--queries FILE`): null for a regular file. */
export function fileProblem(p: string, words: { missing?: string } = {}): FileProblem | null {
  const stat = statFor(p, words.missing ?? 'no such file');
  if (!('isDirectory' in stat)) return stat;
  if (stat.isFile()) return null;
  return { problem: 'not-a-file', reason: `${fileKind(stat)}, not a regular file` };
}

/**
 * The folder the symlink at `p` leads to (its real path), or null when it leads to none (a
 * dangling link, a loop, a file). Folder walks do not follow links (one could lead back into
 * the tree or out of it); with this they can name a linked folder they skip instead of
 * leaving it out unsaid.
 */
export function symlinkedFolder(p: string): string | null {
  try {
    return statSync(p).isDirectory() ? realpathSync(p) : null;
  } catch {
    return null;
  }
}

/**
 * Whether the folder a skipped symlink leads to (`real`, from symlinkedFolder) holds what a
 * walk looks for, as `holds(real)` says, for naming the link. A link to a folder at or above
 * itself ("..", "/") leads back into the tree being walked: walking it to look made docs-score
 * recurse until "Maximum call stack size exceeded" and the others walk the whole disk (failing
 * on /proc with EACCES), so it is named without a look. A folder that cannot be looked through
 * is named too (it may hold some); `holds` must not follow links itself.
 */
export function linkedFolderHolds(link: string, real: string, holds: (dir: string) => boolean): boolean {
  let from: string;
  try {
    from = realpathSync(dirname(link));
  } catch {
    return true;
  }
  if (from === real || from.startsWith(real.endsWith(sep) ? real : `${real}${sep}`)) return true;
  try {
    return holds(real);
  } catch (err) {
    if (isFsError(err)) return true;
    throw err;
  }
}

/** The Unicode form a name is in, for a message: NFC, NFD, or neither. */
function unicodeForm(name: string): string {
  if (name === name.normalize('NFC')) return 'NFC';
  return name === name.normalize('NFD') ? 'NFD' : 'neither NFC nor NFD';
}

/**
 * The entry of `dir` whose name is not valid UTF-8 and decodes to `name`, shown as its UTF-8
 * text with each byte that is not part of it as `\xNN` (so the user can find it); undefined
 * when there is none.
 */
function undecodable(dir: string, name: string): string | undefined {
  let entries: Buffer[];
  try {
    entries = readdirSync(dir, { encoding: 'buffer' });
  } catch {
    return undefined;
  }
  const raw = entries.find((e) => firstInvalidUtf8(e) < e.length && e.toString('utf8') === name);
  if (raw === undefined) return undefined;
  let out = '';
  let rest = raw;
  while (rest.length > 0) {
    const bad = firstInvalidUtf8(rest);
    out += escapeControl(rest.subarray(0, bad).toString('utf8'));
    if (bad >= rest.length) break;
    out += `\\x${rest[bad]!.toString(16).padStart(2, '0')}`;
    rest = rest.subarray(bad + 1);
  }
  return out;
}

/**
 * What to do when `file` is missing but its folder holds a name that reads the same: the same
 * letters in another Unicode form (a name typed as NFC "café.md" in topic.yaml, the file saved
 * as NFD by macOS or an archive: "docs/t/café.md: no such file" beside a listing that shows
 * café.md), or the same name in another case. Undefined when there is none, or the folder
 * cannot be listed. For files and folders alike (readDocument's "no such file", folderProblem's
 * "no such folder").
 */
export function lookalikeAdvice(file: string): string | undefined {
  const name = basename(file);
  let entries: string[];
  try {
    entries = readdirSync(dirname(file));
  } catch {
    return undefined;
  }
  // Node reads every argument as UTF-8, a byte that is not becoming U+FFFD: a Latin-1 folder
  // "caf\xe9" given on the command line arrives as "caf\ufffd", which names nothing.
  if (name.includes('\ufffd')) {
    const raw = undecodable(dirname(file), name);
    if (raw !== undefined) return `"${raw}" is there, a name that is not valid UTF-8, which no argument can name (each is read as UTF-8); rename it to UTF-8 text`;
  }
  const nfc = name.normalize('NFC');
  const shown = (e: string) => escapeControl(JSON.stringify(e));
  const sameLetters = entries.find((e) => e !== name && e.normalize('NFC') === nfc);
  if (sameLetters !== undefined) {
    return `${shown(sameLetters)} is there instead, the same name in another Unicode form (on disk ${unicodeForm(sameLetters)}, asked for ${unicodeForm(name)}); rename it, or write its name as it is on disk`;
  }
  const sameCase = entries.find((e) => e !== name && e.normalize('NFC').toLowerCase() === nfc.toLowerCase());
  return sameCase === undefined ? undefined : `${shown(sameCase)} is there instead, which differs in case; names are case-sensitive here: write it as it is on disk`;
}

/**
 * Why `p` cannot be reached, and what to do, when a folder on its path (as written, outermost
 * first) may not be searched by this user: "permission denied (EACCES): this user (uid 65534)
 * may not search the folder docs/locked (mode 644, owned by uid 0), so …" and "give that
 * folder search permission …".
 * Undefined when every folder may be searched (the EACCES came from elsewhere). A folder that
 * hides a file was "no such file", or "check its permissions" of the file, which is fine.
 */
export function searchDeniedReason(p: string): { reason: string; advice: string } | undefined {
  const folders: string[] = [];
  for (let dir = dirname(p); ; dir = dirname(dir)) {
    folders.push(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of folders.reverse()) {
    try {
      accessSync(dir, constants.X_OK);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EACCES') continue;
      let how = '';
      try {
        const st = statSync(dir);
        how = ` (mode ${(st.mode & 0o7777).toString(8)}, owned by uid ${st.uid})`;
      } catch {
        // Its own parent hides it too: the folder alone is named.
      }
      const uid = ownUid();
      return {
        reason: `permission denied (EACCES): this user${uid === null ? '' : ` (uid ${uid})`} may not search the folder ${oneLine(dir)}${how}, so nothing in it can be reached`,
        advice: 'give that folder search permission for this user (chmod +x, or chown) or run as a user who may read it',
      };
    }
  }
  return undefined;
}

/** `p`'s stat (symlinks followed), or why there is none. */
function statFor(p: string, missing: string): Stats | { problem: 'missing' | 'unusable'; reason: string } {
  try {
    return statSync(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES') {
      const denied = searchDeniedReason(p);
      if (denied !== undefined) return { problem: 'unusable', reason: `${denied.reason}; ${denied.advice}` };
    }
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') {
      const lookalike = code === 'ENOENT' ? lookalikeAdvice(p) : undefined;
      return { problem: 'missing', reason: brokenLink(p) ?? (lookalike === undefined ? missing : `${missing}; ${lookalike}`) };
    }
    return { problem: 'unusable', reason: errnoReason(err) };
  }
}

/**
 * "permission denied (EACCES); check its permissions …" for a known errno, else the error's own
 * message: describeFsError's words without the path, for a caller that names the file itself.
 */
export function errnoReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const known = typeof code === 'string' ? FS_ERRORS[code] : undefined;
  if (known) return `${known[0]} (${code}); ${known[1]}`;
  return escapeControl(err instanceof Error ? err.message : String(err));
}

/** What each errno means for a user, and what to do about it. */
const FS_ERRORS: Record<string, [what: string, fix: string]> = {
  EACCES: ['permission denied', 'check its permissions or choose another location'],
  EPERM: ['operation not permitted', 'check its permissions (and that it is not immutable, lsattr) or choose another location'],
  EROFS: ['on a read-only file system', 'choose a writable location'],
  ENOTDIR: ['a part of this path is a file where a folder is expected', 'remove or rename that file'],
  EISDIR: ['is a folder where a file is expected', 'remove or rename that folder'],
  ENOENT: ['no such file or folder', 'check the path'],
  EEXIST: ['already exists', 'remove it or choose another location'],
  ENOTEMPTY: ['is a folder that is not empty', 'remove it or choose another location'],
  ENOSPC: ['no space left on the device', 'free some space and run again'],
  EDQUOT: ['disk quota exceeded', 'free some space and run again'],
  EFBIG: ['file too large for this file system', 'choose another location'],
  ELOOP: ['a symlink loop (too many levels of symbolic links)', 'fix or remove the link'],
  ENAMETOOLONG: ['name too long', 'use a shorter path'],
  EMFILE: ['too many open files', 'raise the open-file limit (ulimit -n) and run again'],
  ENFILE: ['too many open files in the system', 'close other programs and run again'],
  EBUSY: ['busy (in use by another process or a mount point)', 'stop what uses it and run again'],
  EIO: ['input/output error', 'check the disk'],
  EXDEV: ['crosses file systems', 'keep the output on the same file system as its folder'],
  ENOTREG: ['not a regular file', 'point it at a regular file'],
};

// uv_cwd: process.cwd() (and path.resolve of a relative path) in a current folder that was removed.
const FS_SYSCALL = /^(?:open|read|write|close|f?stat|lstat|statfs|mkdir|mkdtemp|rmdir|rm|rename|unlink|scandir|opendir|copyfile|cp|chmod|chown|utime|symlink|readlink|realpath|access|fsync|fdatasync|ftruncate|link|uv_cwd)$/;

/** True for errors raised by the file system (an errno code), as opposed to a bug in our code. */
export function isFsError(err: unknown): err is NodeJS.ErrnoException {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  const syscall = (err as NodeJS.ErrnoException).syscall;
  // Network errors carry errno codes too (ECONNREFUSED from connect): those are the embedding
  // provider's to word, so only file-system calls count.
  if (typeof code !== 'string' || typeof syscall !== 'string' || !FS_SYSCALL.test(syscall)) return code === 'ENOTREG' || err instanceof FolderGoneError || err instanceof SymlinkOutputError || err instanceof FolderNotReplaceableError;
  return code in FS_ERRORS || /^E[A-Z]+$/.test(code);
}

/**
 * One line for a user: the path, what is wrong and what to do, with no stack trace and no
 * control characters from the path. `fallbackPath` names the file when the error carries none.
 */
export function describeFsError(err: unknown, fallbackPath?: string): string {
  if (err instanceof NotRegularFileError) return `${oneLine(err.path)}: ${err.kind}, not a regular file; point it at a regular file`;
  if (err instanceof FolderGoneError) return oneLine(err.message);
  if (err instanceof SymlinkOutputError || err instanceof FolderNotReplaceableError) return err.message;
  const e = err as NodeJS.ErrnoException & { dest?: string };
  const code = typeof e?.code === 'string' ? e.code : undefined;
  // It names no path, and no path given would help: the folder the user stands in is gone.
  if (e?.syscall === 'uv_cwd' && code === 'ENOENT') return 'the current folder no longer exists (it was removed or renamed); cd into an existing folder and run again';
  let path = e?.path ?? fallbackPath;
  // A file in a staging folder (StagedDir) that vanished: the folder holding it was removed or
  // renamed while the run wrote into it (it named the temp file, which means nothing to a user).
  if (code === 'ENOENT' && path !== undefined) {
    const staging = stagingFolderOf(path);
    if (staging !== null && !existsSync(staging)) return `${oneLine(dirname(staging))}: the folder was removed or renamed during the run; nothing written there`;
  }
  let dest = e?.dest;
  // A temp (or staged) file renamed onto its output, refused with EPERM or EACCES: the temp was
  // made in that folder, so the folder takes writes; the output file is what refuses (immutable
  // or append-only, chattr; another user's file in a sticky folder). It was "docs/t: cannot
  // write in this folder", or the staged path "_chunks/.staged.tmp-…/x-0.md -> _chunks/x-0.md",
  // and lsattr on the folder showed nothing (issue 15 probe).
  // So is a folder standing where the output goes (EISDIR): "remove or rename that folder" is
  // about the output, not the staged file.
  if (e?.syscall === 'rename' && (code === 'EPERM' || code === 'EACCES' || code === 'EISDIR') && path !== undefined && dest !== undefined && isTempPath(path) && !isTempPath(dest)) {
    path = dest;
    dest = undefined;
  }
  // A temp name means nothing to a user; the folder it was made in is what needs fixing.
  let prefix = '';
  if (path !== undefined && TEMP_NAME.test(basename(path))) {
    path = dirname(path);
    dest = undefined;
    prefix = 'cannot write in this folder: ';
  }
  // Moving a folder aside to a temp name (replaceDirAtomic) failed: the folder is what to fix.
  if (dest !== undefined && TEMP_NAME.test(basename(dest))) dest = undefined;
  // A recursive mkdir names the deepest folder it wanted; the one to fix is the deepest that exists.
  if ((code === 'EACCES' || code === 'EPERM' || code === 'EROFS') && e.syscall === 'mkdir' && path !== undefined) {
    const existing = deepestExisting(path);
    if (existing !== null && existing !== resolve(path)) {
      path = existing;
      prefix = 'cannot create folders in it: ';
    }
  }
  // A symlink that leads nowhere, at the path or above it, is "no such file" to the system
  // (`--out dangling-link` said "no such file or folder (ENOENT); check the path" in every
  // CLI, though the link is there to fix): name the link, as folderProblem does for inputs.
  if ((code === 'ENOENT' || code === 'ELOOP') && path !== undefined) {
    const link = deepestExisting(path);
    const broken = link === null ? null : brokenLink(link);
    if (broken !== null) return `${oneLine(link!)}: ${prefix}${broken}`;
  }
  // ENOTDIR names the whole path; the user needs the file that stands where a folder belongs.
  if (code === 'ENOTDIR' && path !== undefined) {
    const culprit = firstNonFolder(path);
    if (culprit !== null) return `${oneLine(culprit)}: is a file where a folder is expected (ENOTDIR); remove or rename it`;
  }
  const where = path === undefined ? '' : `${oneLine(path)}${dest ? ` -> ${oneLine(dest)}` : ''}: `;
  const known = code ? FS_ERRORS[code] : undefined;
  if (known) return `${where}${prefix}${known[0]} (${code}); ${known[1]}`;
  return `${where}${escapeControl(e instanceof Error ? e.message : String(err))}`;
}

/** True for a temp name, or a path inside a temp (staging) folder. */
function isTempPath(path: string): boolean {
  return TEMP_NAME.test(basename(path)) || stagingFolderOf(path) !== null;
}

/** The temp folder (a tempName) that `path` lies inside, or null. */
function stagingFolderOf(path: string): string | null {
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) if (TEMP_NAME.test(basename(dir))) return dir;
  return null;
}

/**
 * The first ancestor of `path` that exists and is not a folder (null when a missing one comes
 * first): after ENOTDIR, the file that stands where a folder of the path belongs.
 */
export function firstNonFolder(path: string): string | null {
  const parts = resolve(path).split(sep);
  for (let i = 2; i < parts.length; i++) {
    const p = parts.slice(0, i).join(sep) || sep;
    try {
      if (!statSync(p).isDirectory()) return p;
    } catch {
      return null;
    }
  }
  return null;
}

/** The deepest ancestor of `path` (or `path` itself) that exists. */
function deepestExisting(path: string): string | null {
  for (let p = resolve(path); ; p = dirname(p)) {
    try {
      lstatSync(p);
      return p;
    } catch {
      if (dirname(p) === p) return null;
    }
  }
}

/**
 * For a CLI's bin: a write to stdout that fails (a full disk under `> out.txt`, or /dev/full)
 * fails after main() handed the text over, as an 'error' event on process.stdout, which unheard
 * was an uncaught exception with a stack trace. It becomes one line on stderr naming stdout and
 * exit status 1. A reader that left early (`| head`, EPIPE) is its choice: the exit is quiet.
 */
export function exitOnStdoutError(tool: string): void {
  stdoutTool = tool;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    const why = err.code === 'ENOSPC' ? 'no space left on the device (ENOSPC); free some space and run again' : err.message;
    process.stderr.write(`${tool}: cannot write to stdout: ${oneLine(why)}\n`);
    process.exit(1);
  });
}

/** Where a CLI writes; what guardEnvironment wraps. */
export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

/** The tool a failed write to stdout is reported for (exitOnStdoutError names it). */
let stdoutTool = 'chunkyard';

/**
 * The process's own stdout and stderr: every CLI's default io. A stdout that is a regular file
 * is written to its last byte (see stdout.ts): a write that fails there (EFBIG past `ulimit -f`,
 * ENOSPC) is one line on stderr and exit status 1, as exitOnStdoutError reports one on a pipe.
 */
export const processIo: CliIo = {
  stdout: (s) => {
    if (!stdoutIsFile()) {
      process.stdout.write(s);
      return;
    }
    try {
      writeAllToStdout(s);
    } catch (err) {
      process.stderr.write(`${stdoutTool}: cannot write to stdout: ${oneLine(errnoReason(err))}\n`);
      process.exit(1);
    }
  },
  stderr: (s) => {
    process.stderr.write(s);
  },
};

/** `io` with every write passed through escapeControl. */
export function safeIo<T extends CliIo>(io: T): T {
  return { ...io, stdout: (s: string) => io.stdout(escapeControl(s)), stderr: (s: string) => io.stderr(escapeControl(s)) };
}

/**
 * Runs a CLI's body with an io that escapes control characters (titles, headings, snippets and
 * paths come from documents, and a terminal must not obey them), and turns a file-system error
 * that escaped the body into one line on stderr and exit status 1, so a permission problem, a
 * full disk or a file where a folder belongs is a message naming the path, never a stack
 * trace. Anything else is a bug and still throws.
 */
export async function guardEnvironment<T extends CliIo>(tool: string, io: T, body: (io: T) => Promise<number>): Promise<number> {
  const safe = safeIo(io);
  guards++;
  try {
    return await body(safe);
  } catch (err) {
    if (err instanceof NotRegularFileError || isFsError(err)) {
      safe.stderr(`${tool}: ${describeFsError(err)}\n`);
      return 1;
    }
    throw err;
  } finally {
    guards--;
    for (const { path, reason } of takeUnremovableTemps()) {
      safe.stderr(`${tool}: warning: ${oneLine(path)} was left by an earlier run that stopped before it finished, and this user cannot remove it (${oneLine(reason)}); remove it by hand, as its owner or root (it holds no output of this run)\n`);
    }
    for (const message of takeWarnings()) safe.stderr(`${tool}: warning: ${oneLine(message)}\n`);
  }
}

/** guardEnvironment calls under way: while there is one, warnOnce's warnings wait for it to end. */
let guards = 0;
const warnings = new Map<string, string>();
const warned = new Set<string>();

/**
 * A warning from library code that goes on past a problem (an embedding cache that cannot be
 * written), said once per run for each `key` however often it happens. Inside guardEnvironment
 * it is printed when the CLI ends, as `<tool>: warning: <message>`, on the tool's own stderr;
 * outside one (a script using the library) at once, on process.stderr, as `warning: <message>`.
 */
export function warnOnce(key: string, message: string): void {
  if (warned.has(key)) return;
  warned.add(key);
  if (guards > 0) warnings.set(key, message);
  else process.stderr.write(`warning: ${oneLine(message)}\n`);
}

/** The warnings warnOnce held for the end of the run, each once; the run's "once" starts over. */
export function takeWarnings(): string[] {
  const out = [...warnings.values()];
  warnings.clear();
  if (guards === 0) warned.clear();
  return out;
}

/**
 * Makes text from documents safe for a terminal: C0 controls (but tab, newline and the CR of a
 * CRLF), DEL and C1 controls become \u001b-style escapes, so a title cannot clear the screen,
 * set the window title or move the cursor. So do the bidirectional embeddings, overrides and
 * isolates (U+202A–202E, U+2066–2069): they reorder what a terminal shows, so a title or path
 * could display as something else ("Trojan Source"). The form is JSON's own, so escaping JSON
 * output keeps it valid JSON (JSON.stringify leaves DEL, C1 and these raw).
 */
export function escapeControl(text: string): string {
  return text.replace(/\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, unicodeEscape);
}

/**
 * A path, or an error message that names one, as one line: escapeControl's escapes and also
 * newline, tab and CR, which a file or folder name may hold (a folder named `a\nb` printed as
 * two lines, the second of which could pass for a line of the tool's own output). Error
 * messages are one line by construction, so a line break in one came from a name.
 */
export function oneLine(path: string): string {
  // eslint-disable-next-line no-control-regex
  return path.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, unicodeEscape);
}

/**
 * `n` and its noun, in the singular for one (`1 chunk`, `2 chunks`; `plural` for nouns without
 * a plain -s: `child`, `children`). The tools' summaries said "1 chunks" and "1 topics".
 */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

function unicodeEscape(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}


export { firstInvalidUtf8, foreignEncoding, invalidUtf8Message, notUtf8Reason, tooLargeTextMessage, utf8TextProblem } from './utf8.js';
export { stdoutIsFile, writeAllToStdout } from './stdout.js';
export { invalidJsonMessage, jsonProblem, type JsonProblem } from './json.js';
export { editDistance, emptyArgument, joinNegativeValues, numberOption, numberProblem, parseCliArgs, quoteArgument, type ArgOptions, type NumberRange } from './cli-args.js';

export { RealPaths, type RealPathOps } from './real-paths.js';
