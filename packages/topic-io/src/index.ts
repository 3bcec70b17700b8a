/**
 * @chunkyard/topic-io — the file edge the pipeline tools share (topic-spec, index-tool and the
 * later CLIs), so each reads documents, the config and a topic's settings the same way and
 * reports the same problems in the same words.
 */
import { statSync, type Stats } from 'node:fs';
import { basename, dirname, extname, join, resolve, sep } from 'node:path';
import { entryExists } from './entry-exists.js';
import { docNameControl } from '@chunkyard/chunking/interop';
import { ConfigError, MAX_CONFIG_CHARS, mergeTopic, parseConfig, type ChunkyardConfig } from '@chunkyard/config';
export { ConfigError, rangesHelp } from '@chunkyard/config';
import { assertSearchable, brokenLink, describeFsError, errnoReason, fileKind, fileProblem, folderProblem, foreignEncoding, invalidUtf8Message, isFsError, lookalikeAdvice, NotRegularFileError, notUtf8Reason, readRegularFile, oneLine, searchDeniedReason, utf8TextProblem } from '@chunkyard/fs-atomic';

// The environment-error helpers live in fs-atomic (no dependencies, so the reading tools can
// use them too); the pipeline tools get them from here with the rest of their file edge.
export { assertSearchable, brokenLink, describeFsError, escapeControl, fileKind, fileProblem, folderProblem, guardEnvironment, isFsError, NotRegularFileError, readRegularFile, oneLine } from '@chunkyard/fs-atomic';

/** Files the tools write (besides _chunks/*.json): never a topic's document. As @chunkyard/nx's topicMarker check. */
const GENERATED_NAMES = ['index.json', 'topic-spec.md', 'llms.txt', 'llms-full.txt', 'words.md'];
/** Files the tools read from every topic as something else: hand-written keywords, questions, settings. */
const OWN_MEANING_NAMES = ['keywords.md', 'qa-pairs.md', 'topic.yaml'];

/**
 * The file that makes a folder a topic, and the document a topic chunks by default. The
 * environment variable CHUNKYARD_TOPIC_MARKER (a plain file name) changes it for every tool:
 * the Nx plugin's `topicMarker` option sets it on each task it runs. An unusable value is not
 * replaced silently: every "not a topic (no X in it)" message then names it.
 */
export const TOPIC_MARKER = topicMarkerFrom(process.env);
export function topicMarkerFrom(env: Record<string, string | undefined>): string {
  const name = env.CHUNKYARD_TOPIC_MARKER || 'golden-reference.md';
  // "." and ".." are in every folder, so every folder was a topic whose document was itself or
  // its parent ("docs/lib: is a directory, not a markdown file"), and a path reached outside
  // the topic. Such a value becomes a name no folder holds (no slash, no control character)
  // that says what is wrong, so every "not a topic (no X in it)" message explains itself.
  if (name === '.' || name === '..' || /[/\\\u0000-\u001f\u007f]/.test(name)) {
    return `CHUNKYARD_TOPIC_MARKER=${JSON.stringify(name).replace(/[/\\]/g, '∕')} (not a plain file name)`;
  }
  // What the Nx plugin refuses as its topicMarker option, refused here too (s58 probe): with
  // CHUNKYARD_TOPIC_MARKER=keywords.md, keyword-extractor read the hand-written table as the
  // topic's document, filtered it out of the sources and wrote "1 keyword from  + keywords.md",
  // exit 0; index.json or words.md made a tool's own output the document it reads; a glob
  // character is a name the plugin cannot find topics by.
  if (/[*?{}[\]]/.test(name)) return `CHUNKYARD_TOPIC_MARKER=${JSON.stringify(name)} (a glob character, which the Nx plugin refuses; give a plain file name)`;
  if (GENERATED_NAMES.includes(name) || name.endsWith('.json')) {
    return `CHUNKYARD_TOPIC_MARKER=${JSON.stringify(name)} (a name of a file chunkyard writes; give the name of the hand-written document)`;
  }
  if (OWN_MEANING_NAMES.includes(name)) {
    return `CHUNKYARD_TOPIC_MARKER=${JSON.stringify(name)} (a file the tools read with a meaning of its own; give the name of the hand-written document)`;
  }
  return name;
}
export const CONFIG_FILE = 'chunkyard.config.yaml';

/** A problem with how a tool was called or configured (exit 2), as opposed to a bad document (exit 1). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * A usage or config error's message as the lines a tool prints to stderr (each after its
 * `tool: `), each made safe with oneLine. A ConfigError lists every problem of its file, one
 * `file:line: problem` per line, so that the user fixes them in one pass; oneLine over the
 * whole message turned those line breaks into a literal \u000a. Its lines are rebuilt from
 * file and problems (not split on "\n", which a file name may hold), each escaped.
 */
export function errorLines(err: Error): string[] {
  if (!(err instanceof ConfigError) || err.problems.length < 2) return [oneLine(err.message)];
  return err.problems.map((p) => oneLine(`${err.file}${p.line ? `:${p.line}` : ''}: ${p.message}`));
}

/**
 * Refuses an option naming an output or cache folder when something else is there. The write
 * itself failed with "<path>: already exists (EEXIST); remove it" or "is a file where a folder
 * is expected; remove or rename it", advice to delete /dev/null or, for `--out
 * golden-reference.md`, the source document itself.
 *
 * A path no file system takes (a name in it over 255 bytes, or the whole over the system's
 * limit) is refused too, naming the option: it failed later, exit 1, naming
 * `<out>/golden-reference.md` (the first path a tool looked at under it), a file the user never
 * gave. A missing folder above the long name hid it from stat (ENOENT comes first).
 */
export function checkFolderOption(option: string, path: string | undefined, writes: FolderWrites = {}): void {
  if (path === undefined) return;
  const long = longestName(path);
  if (long > NAME_MAX) throw new UsageError(`--${option} ${oneLine(path)}: name too long (a name in it is ${long} bytes; a file system takes at most ${NAME_MAX}); use a shorter path`);
  // A path within PATH_MAX but not far enough within it for what the tool makes there (its
  // stage beside the folder, its files and their temp names in it) passed, and the tool failed
  // after the work, exit 1, naming `<out>/golden-reference.json` (issue 15 leftover). A path
  // over PATH_MAX itself is stat's ENAMETOOLONG below.
  const abs = resolve(path);
  const bytes = Buffer.byteLength(abs);
  const reach = bytes <= PATH_BYTES ? writtenReach(abs, writes) : 0;
  if (reach > PATH_BYTES) {
    throw new UsageError(`--${option} ${oneLine(path)}: path too long (it is ${bytes} bytes from the root, and what this tool writes in it reaches ${reach}; a path may be at most ${PATH_BYTES} bytes); use a shorter path`);
  }
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException)?.code === 'ENAMETOOLONG') throw new UsageError(`--${option} ${oneLine(path)}: name too long (ENAMETOOLONG: the path is ${Buffer.byteLength(resolve(path))} bytes from the root); use a shorter path`);
    return;
  }
  if (stat.isDirectory()) return;
  throw new UsageError(`--${option} ${oneLine(path)}: ${stat.isFile() ? 'a file' : fileKind(stat)}, not a folder; give a folder (or one not yet made)`);
}

/** The longest name in a path a file system takes (NAME_MAX of ext4, XFS, Btrfs, APFS: 255 bytes). */
const NAME_MAX = 255;

/** The longest path the kernel takes, in bytes (PATH_MAX less its NUL): 4095 on Linux, 1023 on macOS; none Node keeps to on Windows. */
const PATH_BYTES = process.platform === 'darwin' ? 1023 : process.platform === 'win32' ? Infinity : 4095;

/** What a tool makes under a folder option, for checkFolderOption's length check. */
export interface FolderWrites {
  /**
   * Bytes of the longest relative path the tool writes below the folder, temp names included
   * (fs-atomic writes each file beside its target as `.<name>.tmp-<pid>~<space>-<8 hex>`).
   * Default NAME_MAX (255): a tool whose files are named after documents may write any name.
   */
  longestInside?: number;
  /**
   * Whether the folder is built beside itself under a temp name and swapped in whole (fs-atomic's
   * StagedDir, replaceDirAtomic: `.<folder>.tmp-…`, the old one moved to `.<folder>.aside-…`), so
   * its files are first written in that longer-named sibling. Default true.
   */
  staged?: boolean;
}

/** The bytes of the longest path a tool makes for folder `abs` (absolute), as FolderWrites describes it. */
function writtenReach(abs: string, writes: FolderWrites = {}): number {
  const { longestInside = NAME_MAX, staged = true } = writes;
  let folder = Buffer.byteLength(abs);
  if (staged && dirname(abs) !== abs) {
    // fs-atomic's tempName: '.' + the name (cut to fit) + '.aside-<pid>~<4 hex>-<8 hex>', at most NAME_MAX.
    const suffix = '.aside-'.length + String(process.pid).length + '~'.length + 4 + '-'.length + 8;
    const stage = Math.min(NAME_MAX, 1 + Buffer.byteLength(basename(abs)) + suffix);
    folder = Math.max(folder, Buffer.byteLength(dirname(abs)) + (dirname(abs).endsWith(sep) ? 0 : 1) + stage);
  }
  return folder + 1 + longestInside;
}

/** Bytes (UTF-8) of the longest name in `path`, split at `/` (and `\` on Windows). */
function longestName(path: string): number {
  let longest = 0;
  for (const name of path.split(process.platform === 'win32' ? /[\\/]/ : '/')) longest = Math.max(longest, Buffer.byteLength(name));
  return longest;
}

export function statOrNull(p: string): Stats | null {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

export { entryExists };

/** What readDocument found wrong with a file: a code for callers, in place of matching its words. */
export type DocumentProblem = 'missing' | 'broken-link' | 'directory' | 'not-regular' | 'unreadable' | 'empty' | 'binary' | 'not-utf8';

/**
 * readDocument's error. `message` is what a person reads (unchanged: `reason`, then `; advice`
 * when there is advice); `code` is what a caller tests, and `reason` the words without the
 * advice, for a caller that gives its own (topic-spec, for a file an earlier step wrote).
 */
export class DocumentReadError extends Error {
  constructor(
    readonly code: DocumentProblem,
    readonly reason: string,
    readonly advice?: string,
  ) {
    super(advice === undefined ? reason : `${reason}; ${advice}`);
  }
}

/** The most bytes Node reads into one buffer (readFileSync refuses more, in its own words). */
const MAX_READ_BYTES = 2 ** 31 - 1;
const SPLIT = 'split it into smaller documents';
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/**
 * Reads a markdown (or other text) file as UTF-8 (BOM dropped), or throws a DocumentReadError
 * whose message says what is wrong with it: missing, a dangling or looping symlink, a
 * directory, not a regular file, unreadable (permissions, a failing disk), binary, not UTF-8,
 * or (unless allowed) empty. Every tool reads its documents through this, so they word
 * problems alike.
 */
export function readDocument(file: string, opts: { allowEmpty?: boolean } = {}): string {
  let stat: Stats;
  try {
    stat = statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A folder on the way that this user may not search hides the file: "no such file" (what
    // every failed stat was called) sent the author looking for a file that is there.
    if (code === 'EACCES') {
      const denied = searchDeniedReason(file);
      throw denied === undefined ? new DocumentReadError('unreadable', errnoReason(err)) : new DocumentReadError('unreadable', denied.reason, denied.advice);
    }
    if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'ELOOP' && isFsError(err)) throw new DocumentReadError('unreadable', errnoReason(err));
    const broken = brokenLink(file);
    throw broken === null ? new DocumentReadError('missing', 'no such file', lookalikeAdvice(file)) : new DocumentReadError('broken-link', broken);
  }
  if (stat.isDirectory()) throw new DocumentReadError('directory', 'is a directory, not a markdown file');
  const pointAt = 'point it at a markdown file';
  if (!stat.isFile()) throw new DocumentReadError('not-regular', `${fileKind(stat)}, not a regular file`, pointAt);
  // Node reads at most 2 GiB into one buffer: a larger document was "File size (3221225472) is
  // greater than 2 GiB", Node's words and no advice (s58 probe).
  if (stat.size > MAX_READ_BYTES) throw new DocumentReadError('unreadable', `too large to read (${mib(stat.size)}; a document is read whole, and at most 2 GiB)`, SPLIT);
  let bytes: Buffer;
  try {
    bytes = readRegularFile(file);
  } catch (err) {
    if (err instanceof NotRegularFileError) throw new DocumentReadError('not-regular', `${err.kind}, not a regular file`, pointAt);
    // Thrown as it was, every tool printed Node's words ("EACCES: permission denied, open
    // 'docs/t/golden-reference.md'"), which say nothing of what to do.
    if (isFsError(err)) throw new DocumentReadError('unreadable', errnoReason(err));
    throw err;
  }
  // What to do, not only what is wrong (a new topic's empty placeholder failed every `index`
  // target above it with "empty file").
  const fill = 'write its text, or remove it';
  if (!opts.allowEmpty && bytes.length === 0) throw new DocumentReadError('empty', 'empty file', fill);
  // UTF-16 and UTF-32 text holds NUL bytes too: "binary file" sent the author looking for the wrong fix.
  if (foreignEncoding(bytes) !== null) throw new DocumentReadError('not-utf8', notUtf8Reason(bytes), 'save it as UTF-8');
  if (bytes.includes(0)) throw new DocumentReadError('binary', 'binary file (contains NUL bytes), not markdown text');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (err) {
    // Valid UTF-8 of more characters than a string holds (2^29 - 24) fails too: it was "not
    // valid UTF-8 (first bad byte at offset <its length>)", a byte that is not there (s58 probe).
    if ((err as { code?: unknown }).code !== 'ERR_ENCODING_INVALID_ENCODED_DATA') {
      throw new DocumentReadError('unreadable', `too large to read as text (${mib(bytes.length)}; a document is read whole, into at most 512 Mi characters)`, SPLIT);
    }
    // With what to do, as for UTF-16 above and a settings file (utf8TextProblem): it said what
    // was wrong and where, and stopped there.
    throw new DocumentReadError('not-utf8', invalidUtf8Message(bytes), 'save it as UTF-8');
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!opts.allowEmpty && !text.trim()) throw new DocumentReadError('empty', 'empty file (only whitespace)', fill);
  return text;
}

/**
 * readDocument for a topic's source, whose message also says where the name came from when
 * topic.yaml's `sources` listed it (`listedIn`, that topic.yaml) and the name leads to no
 * regular file (missing, a dangling link, a folder, a FIFO): "docs/t/red.md: no such file" sent
 * the author looking for a file when the fix was a line of topic.yaml. A file that is there but
 * unreadable or not markdown text is the file's problem, and its message stays as it is.
 */
export function readTopicSource(file: string, listedIn: string | null, opts: { allowEmpty?: boolean } = {}): string {
  try {
    return readDocument(file, opts);
  } catch (err) {
    if (listedIn !== null && err instanceof Error) {
      const problem = fileProblem(file);
      if (problem !== null && problem.problem !== 'unusable') err.message += ` (listed in the sources of ${oneLine(listedIn)})`;
    }
    throw err;
  }
}

/**
 * Throws a ConfigError when `file` is larger than any config can be, before it is read: a
 * 1.5 GB topic.yaml was read whole (9 s, 1.5 GB of memory) and then called "not valid UTF-8
 * (first bad byte at offset 1572864000)", a byte past its end, and one over 2 GiB "cannot read:
 * File size (3221225472) is greater than 2 GiB" (s58 probe). UTF-8 spends at most 3 bytes on a
 * UTF-16 unit, so a file over 3 MiB holds more than parseConfig's 1 MiB of text.
 */
export function assertConfigSize(file: string, size = sizeOf(file)): void {
  if (size > 3 * MAX_CONFIG_CHARS) {
    throw new ConfigError(file, null, `${mib(size)} is larger than a config file can be (1 MiB); a config holds a few settings, so check that this is the right file`);
  }
}
function sizeOf(file: string): number {
  try {
    const stat = statSync(file);
    return stat.isFile() ? stat.size : -1;
  } catch {
    return -1; // the read that follows says why
  }
}

/** Reads and validates a config file; an unreadable file is a UsageError, a bad one a ConfigError. */
export function loadConfigFile(file: string, topic: boolean): ChunkyardConfig {
  assertConfigSize(file);
  let bytes: Buffer;
  try {
    bytes = readRegularFile(file);
  } catch (err) {
    throw new UsageError(`cannot read config: ${describeFsError(err, file)}`);
  }
  return parseConfig(configText(bytes, file), file, { topic });
}

/**
 * A settings file's bytes as text, or a ConfigError (exit 2) when they are not UTF-8: decoded
 * with replacement characters, a UTF-16 file was "expected a mapping of settings at the top
 * level" and a Latin-1 byte became U+FFFD in a value (issue 15 probe).
 */
export function configText(bytes: Buffer, file: string): string {
  assertConfigSize(file, bytes.length);
  const problem = utf8TextProblem(bytes);
  if (problem !== null) throw new ConfigError(file, null, problem);
  return bytes.toString('utf8');
}

export interface Workspace {
  /** Folder of the config file, or the current folder when there is none. */
  root: string;
  configFile: string | null;
  config: ChunkyardConfig;
}

/** The workspace config: `--config FILE` when given, else ./chunkyard.config.yaml when present. */
export function loadWorkspace(configFile: string | undefined, cwd = process.cwd()): Workspace {
  const file = configFile ?? (entryExists(join(cwd, CONFIG_FILE)) ? join(cwd, CONFIG_FILE) : null);
  if (!file) return { root: resolve(cwd), configFile: null, config: { chunking: {} } };
  return { root: dirname(resolve(cwd, file)), configFile: file, config: loadConfigFile(file, false) };
}

export interface TopicSettings {
  /** The topic folder as given. */
  dir: string;
  config: ChunkyardConfig;
  /** Source documents, relative to the topic folder: topic.yaml `sources`, else golden-reference.md. */
  sources: string[];
  /** The topic.yaml that listed `sources`, or null when they are the default (for readTopicSource). */
  sourcesListedIn: string | null;
}

/**
 * Throws a UsageError when `dir` cannot be read as a folder, in folderProblem's words (as
 * every folder-taking CLI says them), with a topic hint when something else stands there. A
 * missing folder, a dangling link and a FIFO were all "not a topic folder (not a folder
 * holding golden-reference.md)", which hid what was wrong.
 */
export function topicFolderProblem(dir: string): void {
  const problem = folderProblem(dir);
  if (problem) throw new UsageError(`${oneLine(dir)}: ${problem.reason}${problem.problem === 'not-a-folder' ? `; give a topic folder (a folder holding ${TOPIC_MARKER})` : ''}`);
}

/** Checks that `dir` is a topic folder and merges its topic.yaml over the workspace config. */
export function topicSettings(dir: string, base: ChunkyardConfig, marker = TOPIC_MARKER): TopicSettings {
  topicFolderProblem(dir);
  assertSearchable(dir);
  // A broken marker symlink still makes a topic: its source is then reported as broken (exit 1).
  if (!entryExists(join(dir, marker))) throw new UsageError(`${oneLine(dir)}: a folder, but not a topic (no ${marker} in it)`);
  const topicYaml = join(dir, 'topic.yaml');
  const topic = entryExists(topicYaml) ? loadConfigFile(topicYaml, true) : null;
  const config = mergeTopic(base, topic);
  const sources = config.sources ?? [marker];
  for (const source of sources) {
    const problem = docNameProblem(docNameFrom(source));
    if (problem) throw new UsageError(`${oneLine(join(dir, source))}${topic?.sources ? ` (listed in the sources of ${oneLine(topicYaml)})` : ''}: ${problem}`);
  }
  return { dir, config, sources, sourcesListedIn: topic?.sources ? topicYaml : null };
}

/**
 * Why `name` (a document name, its file's name without the extension) cannot go into chunk ids,
 * or null. The name opens every chunk id (`{contentType}:{docName}::ch{n}`), so `a<ESC>[31m.md`
 * or `a<TAB>b.md` went into every id, manifest and terminal line as given (issue 15 leftover).
 * The characters refused are @chunkyard/chunking's (docNameControl: C0, DEL, C1 and the bidi
 * controls), the same ones chunkDocument refuses in a docName and visibleDocName replaces.
 */
export function docNameProblem(name: string): string | null {
  const code = docNameControl(name);
  if (code === null) return null;
  return `its name goes into every chunk id (doc:<name>::ch<n>) and holds a control character (${code}); rename the file without it`;
}

const docNameFrom = (file: string): string => basename(file, extname(file));

/**
 * `golden-reference.md` → `golden-reference`: the name of its chunk files and manifest, and of
 * every chunk id. A UsageError naming the file when the name holds a control character
 * (docNameProblem); `::` is kept (`std::vector.md`): an id is read from its end, where
 * `::ch<digits>` always is, and the content type before the first `:` holds no colon.
 */
export function docNameOf(file: string): string {
  const name = docNameFrom(file);
  const problem = docNameProblem(name);
  if (problem) throw new UsageError(`${oneLine(file)}: ${problem}`);
  return name;
}
