/**
 * docs-export: every chunk of a built docs tree, one JSON object per line, in the shape a RAG
 * library loads.
 *
 *   docs-export <docsRoot> --format langchain|llamaindex|jsonl [--with-embeddings] [--out FILE]
 */
import { chmodSync, createWriteStream, existsSync, lstatSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, type WriteStream } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, parseConfig, rangesHelp, type ChunkyardConfig } from '@chunkyard/config';
import { counted, describeFsError, emptyArgument, errnoReason, escapeControl, fileKind, firstNonFolder, folderProblem, guardEnvironment, isFsError, oneLine, parseCliArgs, NotRegularFileError, readRegularFile, RealPaths, removeStaleTemps, stdoutIsFile, tempName, utf8TextProblem, writeAllToStdout, writeTarget } from '@chunkyard/fs-atomic';
import { createProvider, EmbeddingError, type EmbeddingProvider } from '@chunkyard/embeddings';
import { PAGE_CONTENTS, type PageContent } from '@chunkyard/chunking/interop';
import { cacheDirsFor, ExportError, FORMATS, loadSurveyed, manifestPaths, recordsOf, surveyBuiltDocs, vectorsFor, type Format, type SurveyedDocument, type VectorSource } from './export.js';
import { exitOnStdoutError as exitOnStdoutErrorOf } from '@chunkyard/fs-atomic';

export { builtTopicDirs, cacheDirsFor, exportId, ExportError, FORMATS, loadSurveyed, manifestPaths, readBuiltDocs, readManifest, recordsFor, recordsOf, surveyBuiltDocs, vectorsFor, type BuiltDocument, type ExportOptions, type Format, type Manifest, type OnSkippedLink, type SurveyedDocument } from './export.js';

/** This package's version, read from its own package.json (../ from src/ and dist/ alike), so an installed copy reports itself. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const HELP = `docs-export — every chunk of a built docs tree as JSON lines for LangChain, LlamaIndex or a vector database

Usage:
  docs-export <docsRoot> --format langchain|llamaindex|jsonl [--with-embeddings] [--out FILE]
              [--page-content original|embed]

Reads every built topic under docsRoot (each folder holding _chunks/<doc>.json manifests, as
nx run-many -t index or chunking-tool leave them) and writes one JSON object per chunk and
line, in path order:
  langchain   a LangChain.js Document: { pageContent, metadata, id }
  llamaindex  a LlamaIndex.TS TextNode as JSON.stringify(node) writes it: id_, text, metadata,
              startCharIdx/endCharIdx (also as start_char_idx/end_char_idx) and relationships
              SOURCE, PREVIOUS, NEXT, PARENT, CHILD
  jsonl       { id, topic, source, strategyKey, metadata, chunk }: the whole chunk record
Ids are <topic>/<chunk id> (chunk ids repeat across topics). Metadata, flat (strings,
numbers, booleans, null): chunk id, prev/next/parent ids, headerBreadcrumb, charStart/charEnd,
startLine/endLine, tokens, topic, source file …

Options:
  --format F           langchain, llamaindex or jsonl (required)
  --page-content P     langchain: what pageContent holds, which is what a LangChain vector store
                       embeds: original (default) the chunk as the source has it; embed the
                       chunk behind its heading breadcrumb (embedText: what chunkyard embeds,
                       and what --with-embeddings vectors are of)
  --with-embeddings    add each chunk's vector ("embedding") and model ("embeddingModel"): the
                       vectors the spec step cached (.embedding-cache/<project>, then
                       .embedding-cache) for the model chunkyard.config.yaml configures (local
                       by default); chunks with no cached vector are embedded with that
                       provider, and the count is reported
  --cached-only        with --with-embeddings: fail (exit 1) instead of embedding uncached chunks
  --cache-dir DIR      another embedding cache to look in first (repeatable)
  --config FILE        workspace config (default: chunkyard.config.yaml in the nearest folder
                       up from docsRoot holding it or nx.json; with neither, the current
                       folder's, where topic-spec caches too)
  --out FILE           write FILE (atomically: a temp file renamed into place on success)
                       instead of stdout (- is stdout); not a file of the exported docs (a
                       source, _chunks/, _keywords/, index.json)
  -h, --help           show this help
  --version            print docs-export's version

When stdout is not a terminal, a progress line goes to stderr every few seconds.

Numeric settings of the config's embeddings: section (--with-embeddings), all whole numbers;
outside its range a value is a config error (exit 2) naming file:line, the key and what was
given:
  embeddings:
${rangesHelp('embeddings', '    ')}

Exit status: 0 success; 1 a manifest could not be read, no topic is built, or vectors are
missing (--cached-only) or the provider failed (with --out, FILE is left as it was);
2 usage or config error.
`;

export interface Io {
  /** Receives the output lines; may return a promise to apply backpressure. */
  stdout: (s: string) => void | Promise<void>;
  stderr: (s: string) => void;
  /** Whether stdout is a terminal (no progress lines then). Default: process.stdout.isTTY. */
  stdoutIsTTY?: boolean;
  /** Milliseconds between progress lines (default 3000). */
  progressIntervalMs?: number;
  cwd?: string;
  env?: Record<string, string | undefined>;
}

/** A failed write to a stdout that is a regular file; run() words it and exits 1. */
class StdoutFileError extends Error {
  constructor(cause: unknown) {
    super(`cannot write to stdout: ${errnoReason(cause)}`, { cause });
  }
}

/** Writes to a stdout that is a regular file, every byte or a StdoutFileError (fs-atomic's stdout.ts says why). */
function writeAllToStdoutFile(s: string): void {
  try {
    writeAllToStdout(s);
  } catch (err) {
    throw new StdoutFileError(err);
  }
}

const defaultIo: Io = {
  stdout: (s) => {
    if (stdoutIsFile()) return writeAllToStdoutFile(s);
    return process.stdout.write(s) ? undefined : new Promise<void>((done) => process.stdout.once('drain', () => done()));
  },
  stderr: (s) => process.stderr.write(s),
};

class UsageError extends Error {}

/** Characters of JSON lines gathered into one write (UTF-16 units; a few MB at most in memory). */
const WRITE_BATCH = 1 << 20;

const CONFIG_FILE = 'chunkyard.config.yaml';

/**
 * The nearest folder at or above `from` holding chunkyard.config.yaml or nx.json, else `cwd`:
 * with neither, topic-spec's workspace is the current folder and its cache ./.embedding-cache.
 * Falling back to `from` looked in docs/.embedding-cache, where nothing is.
 */
function findWorkspaceRoot(from: string, cwd: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (entryPresent(join(dir, CONFIG_FILE)) || entryPresent(join(dir, 'nx.json'))) return dir;
    if (dirname(dir) === dir) return resolve(cwd);
  }
}

/**
 * Whether anything, a broken symlink included, is at `p`. existsSync follows links: a
 * chunkyard.config.yaml that was a dangling or looping link read as no config, so
 * --with-embeddings exported the default model's vectors (or a config further up the tree)
 * without a word, where every other tool refuses that config, naming the link (issue 15 probe).
 */
function entryPresent(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function loadConfig(file: string | null): ChunkyardConfig {
  if (!file) return { chunking: {} };
  let bytes: Buffer;
  try {
    // A FIFO or a device is refused at once (a plain read would block on a FIFO).
    bytes = readRegularFile(file);
  } catch (err) {
    // A FIFO or device too (describeFsError words NotRegularFileError as fileProblem does;
    // it was "<file>: cannot read config (a FIFO (named pipe), not a regular file)").
    // "cannot read config (ENOENT)" named the errno only: the other CLIs' wording says what to do.
    throw new UsageError(`cannot read config: ${describeFsError(err, file)}`);
  }
  // Decoded with replacement characters, a UTF-16 config was "expected a mapping of settings".
  const problem = utf8TextProblem(bytes);
  if (problem !== null) throw new ConfigError(file, null, problem);
  return parseConfig(bytes.toString('utf8'), file);
}

/**
 * Streams to a temp file beside `target`, renamed over it only by commit(): readers never see
 * half a file. A symlink at --out is written through (fs-atomic's writeTarget, its `follow`
 * policy): the rename replaced the link with a regular file and left what it points to as it
 * was. --out is a path the user names; outputs a tool names itself refuse a link instead.
 */
class AtomicOut {
  readonly target: string;
  private readonly temp: string;
  private readonly stream: WriteStream;
  private failed: Error | null = null;
  /** The permission bits of the file replaced, kept by the new one; null for a new file. */
  private readonly mode: number | null;

  constructor(out: string) {
    const target = writeTarget(out);
    this.target = target;
    // The rename replaced a private (0600) export with a new file of the umask's mode (0644),
    // readable by everyone: the file is the user's, its permissions theirs too.
    let mode: number | null = null;
    try {
      mode = statSync(target).mode & 0o7777;
    } catch {
      // not there yet: the umask's mode, as any new file
    }
    this.mode = mode;
    // The temps of killed runs (same naming as @chunkyard/fs-atomic: .<name>.tmp-<pid>-<hex>,
    // pid gone or an hour old); a SIGKILL skips abort(), and nothing else would remove them.
    removeStaleTemps(dirname(target));
    // fs-atomic's own name: it shortens the name part so a 250-byte target still gets a temp.
    this.temp = tempName(target);
    // Made with the mode at once (the umask may narrow it; commit sets it exactly), so the
    // temp is never more readable than the file it replaces.
    this.stream = createWriteStream(this.temp, { flags: 'wx', ...(mode !== null ? { mode } : {}) });
    this.stream.on('error', (err) => (this.failed = err));
  }

  write = (s: string): void | Promise<void> => {
    if (this.failed) throw this.failed;
    if (this.stream.write(s)) return;
    return new Promise<void>((done, fail) => {
      const onError = (err: Error) => fail(err);
      this.stream.once('error', onError);
      this.stream.once('drain', () => {
        this.stream.off('error', onError);
        done();
      });
    });
  };

  private close(): Promise<void> {
    return new Promise((done, fail) => {
      if (this.failed) return fail(this.failed);
      this.stream.end((err?: Error | null) => (err ? fail(err) : done()));
    });
  }

  async commit(): Promise<void> {
    await this.close();
    if (this.mode !== null) chmodSync(this.temp, this.mode);
    renameSync(this.temp, this.target);
  }

  async abort(): Promise<void> {
    await this.close().catch(() => undefined);
    // Best effort: the temp may never have been created (a folder that refuses it), and the
    // error that made us abort is the one to report, not this one.
    try {
      rmSync(this.temp, { force: true });
    } catch {
      // left for the next run's sweep
    }
  }
}

interface Parsed {
  docsRoot: string;
  format: Format;
  pageContent: PageContent;
  withEmbeddings: boolean;
  cachedOnly: boolean;
  cacheDirs: string[];
  config: string | undefined;
  out: string | undefined;
  /** --out as given, for messages. */
  outGiven: string | undefined;
}

/**
 * Why a --cache-dir cannot be a cache, or null. A folder not made yet is an empty cache (as
 * topic-spec --cache-dir makes it), but a FIFO, device or file there, or a symlink to nothing
 * (an unmounted volume, a moved cache), was silently skipped: --cached-only then blamed the
 * caches instead of the option, and without it every vector was embedded again.
 */
function cacheDirProblem(dir: string): string | null {
  let link;
  try {
    link = lstatSync(dir);
  } catch (err) {
    // A file where a parent folder belongs: the cache can never be made there.
    const culprit = (err as NodeJS.ErrnoException).code === 'ENOTDIR' ? firstNonFolder(dir) : null;
    if (culprit !== null) {
      const st = statSync(culprit);
      return `${culprit} is ${st.isFile() ? 'a regular file' : fileKind(st)}, so no folder can be made below it`;
    }
    return null; // not made yet (or unreadable: reading the cache reports that, naming it)
  }
  try {
    const st = statSync(dir);
    if (st.isDirectory()) return null;
    return st.isFile() ? 'a regular file, not a folder' : `${fileKind(st)}, not a folder`;
  } catch (err) {
    if (link.isSymbolicLink() && (err as NodeJS.ErrnoException).code === 'ENOENT') {
      return `a symlink to ${resolve(dirname(dir), readlinkSync(dir))}, which does not exist`;
    }
    if (link.isSymbolicLink() && (err as NodeJS.ErrnoException).code === 'ELOOP') return 'a symlink loop';
    return null; // unreadable: reading the cache reports that, naming it
  }
}

function parse(argv: string[], cwd: string): Parsed | 'help' | 'version' {
  let parsed;
  try {
    const options = {
      format: { type: 'string' },
      'page-content': { type: 'string' },
      'with-embeddings': { type: 'boolean', default: false },
      'cached-only': { type: 'boolean', default: false },
      'cache-dir': { type: 'string', multiple: true },
      config: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', default: false },
    } as const;
    parsed = parseCliArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (values.version) return 'version';
  const empty = emptyArgument(values, positionals);
  if (empty) throw new UsageError(empty);
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'no docs root given' : `one docs root, got ${positionals.length}: ${positionals.join(' ')}`);
  if (values.format === undefined) throw new UsageError(`--format is required: ${FORMATS.join(', ')}`);
  if (!(FORMATS as readonly string[]).includes(values.format)) throw new UsageError(`--format must be ${FORMATS.join(', ')}, got ${JSON.stringify(values.format)}`);
  const pageContent = values['page-content'];
  if (pageContent !== undefined && !(PAGE_CONTENTS as readonly string[]).includes(pageContent)) throw new UsageError(`--page-content must be ${PAGE_CONTENTS.join(' or ')}, got ${JSON.stringify(pageContent)}`);
  // LlamaIndex keeps the two apart itself (the node's text, and its metadata shown to the
  // embedding as excludedEmbedMetadataKeys say); jsonl carries both texts in its record.
  if (pageContent !== undefined && values.format !== 'langchain') throw new UsageError(`--page-content applies to --format langchain only (${values.format === 'llamaindex' ? 'a TextNode embeds its text behind the breadcrumb lines its metadata shows' : 'a jsonl record holds both originalText and embedText'})`);
  if (values['cached-only'] && !values['with-embeddings']) throw new UsageError('--cached-only applies to --with-embeddings only');
  const docsRoot = resolve(cwd, positionals[0]!);
  const problem = folderProblem(docsRoot);
  if (problem) throw new UsageError(`${positionals[0]}: ${problem.reason}${problem.problem === 'not-a-folder' ? '; give the docs root, e.g. docs' : ''}`);
  // `-` is stdout, as for most Unix tools: it wrote a file named `-` (s57 probe).
  const out = values.out === undefined || values.out === '-' ? undefined : resolve(cwd, values.out);
  if (out !== undefined && !existsSync(dirname(out))) throw new UsageError(`--out ${values.out}: folder ${dirname(out)} does not exist`);
  if (out !== undefined) {
    // --out is replaced by a rename: a FIFO or a device there would silently become a regular
    // file (and a reader on the FIFO would wait forever). Piping is what stdout is for.
    let kind: string | null = null;
    try {
      const st = statSync(out);
      if (!st.isFile()) kind = fileKind(st);
    } catch {
      // missing (or unreadable: the write reports that, naming the folder)
    }
    if (kind) throw new UsageError(`--out ${values.out}: ${kind}, not a regular file; give a file path, or leave out --out to write to stdout`);
  }
  const cacheDirs = (values['cache-dir'] ?? []).map((d) => {
    const dir = resolve(cwd, d);
    const problem = cacheDirProblem(dir);
    if (problem) throw new UsageError(`--cache-dir ${d}: ${problem}; give an embedding cache folder (or one not yet made)`);
    return dir;
  });
  return {
    docsRoot,
    format: values.format as Format,
    pageContent: (pageContent ?? 'original') as PageContent,
    withEmbeddings: values['with-embeddings'],
    cachedOnly: values['cached-only'],
    cacheDirs,
    config: values.config === undefined ? undefined : resolve(cwd, values.config),
    out,
    outGiven: values.out,
  };
}

export async function main(argv: string[], rawIo: Io = defaultIo): Promise<number> {
  if (rawIo === defaultIo) {
    // `docs-export docs --format jsonl | head` closes the pipe early: that is the reader's
    // choice, not a failure, so stop quietly as other command-line tools do.
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(0);
    });
  }
  // The shared guard escapes control characters in messages (they name paths and arguments as
  // given) and turns a file-system error into one line and exit 1. stdout keeps the raw writer:
  // it is JSON lines already escaped by jsonLine, byte for byte what --out gets.
  return guardEnvironment('docs-export', rawIo, (safe) => run(argv, { ...safe, stdout: rawIo.stdout }));
}

async function run(argv: string[], io: Io): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  let opts: Parsed;
  let provider: EmbeddingProvider | null = null;
  try {
    const p = parse(argv, cwd);
    if (p === 'help') {
      io.stdout(HELP);
      return 0;
    }
    if (p === 'version') {
      io.stdout(`docs-export ${VERSION}\n`);
      return 0;
    }
    opts = p;
    // A --config given is read and checked even without --with-embeddings: a typo in its
    // path should not pass silently.
    const config = opts.config !== undefined ? loadConfig(opts.config) : null;
    if (opts.withEmbeddings) {
      const workspace = findWorkspaceRoot(opts.docsRoot, cwd);
      const configFile = entryPresent(join(workspace, CONFIG_FILE)) ? join(workspace, CONFIG_FILE) : null;
      provider = createProvider({ provider: 'local', ...(config ?? loadConfig(configFile)).embeddings }, io.env ?? process.env);
    }
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError || err instanceof EmbeddingError) {
      // A usage error is one line that names paths and arguments as given: a line break in one
      // (a folder named "a\nb") split it, and the second half could pass for a line of ours.
      const message = err instanceof UsageError ? oneLine(err.message) : err.message;
      io.stderr(`docs-export: ${message}\n${err instanceof UsageError ? 'Run docs-export --help for usage.\n' : ''}`);
      return 2;
    }
    if (err instanceof StdoutFileError) {
      io.stderr(`docs-export: ${err.message}\n`);
      return 1;
    }
    throw err;
  }

  let out: AtomicOut | null = null;
  try {
    // Every manifest is read and checked first, so a broken one fails before any line is written;
    // each is read again when it is written, so memory holds one at a time.
    const docs = surveyBuiltDocs(opts.docsRoot, (link, real) =>
      io.stderr(`docs-export: ${oneLine(link)}: a symlinked folder (it leads to ${oneLine(real)}), skipped: the walk does not follow links (one could lead back into the tree or out of it); export it as a docs folder of its own\n`),
    );
    if (docs.length === 0) {
      throw new ExportError(`${opts.docsRoot}: no built topic (no _chunks/<doc>.json under it); build first: npx nx run-many -t index`);
    }
    // --out is replaced by a rename, so one that names a file of these docs destroyed it: a
    // topic's source (the author's markdown), or the manifest just read (exit 0 both times).
    const clash = opts.out === undefined ? null : outClash(opts.out, opts.docsRoot, docs);
    if (clash !== null) {
      io.stderr(`docs-export: --out ${oneLine(`${opts.outGiven ?? ''}: ${clash}`)}; writing there would replace it: choose a file outside the topics\nRun docs-export --help for usage.\n`);
      return 2;
    }
    const workspace = findWorkspaceRoot(opts.docsRoot, cwd);
    const vectorSource: VectorSource | null = provider && {
      provider,
      cacheDirs: (doc) => cacheDirsFor(workspace, opts.docsRoot, doc.topic, opts.cacheDirs),
      cachedOnly: opts.cachedOnly,
      stats: { cached: 0, computed: 0 },
    };
    const topics = new Set(docs.map((d) => d.topic));
    const totalChunks = docs.reduce((n, d) => n + d.chunks, 0);
    out = opts.out ? new AtomicOut(opts.out) : null;
    const write = out ? out.write : io.stdout;
    const progress = !(io.stdoutIsTTY ?? process.stdout.isTTY);
    const interval = io.progressIntervalMs ?? 3000;
    let lastProgress = Date.now();
    let written = 0;
    for (const [i, surveyed] of docs.entries()) {
      const doc = loadSurveyed(surveyed);
      const vectors = vectorSource ? await vectorsFor(doc, vectorSource) : null;
      // Lines go out in writes of WRITE_BATCH characters or so: one per line would cost more than
      // the JSON, and one per document held a document's whole output (250 MB with vectors).
      let batch = '';
      for (const record of recordsOf(doc, opts.format, vectors, provider?.model ?? null, { pageContent: opts.pageContent })) {
        batch += `${jsonLine(record)}\n`;
        written++;
        if (batch.length >= WRITE_BATCH) {
          await write(batch);
          batch = '';
        }
      }
      if (batch.length > 0) await write(batch);
      if (progress && Date.now() - lastProgress >= interval && i < docs.length - 1) {
        io.stderr(`docs-export: ${i + 1}/${docs.length} documents, ${written}/${totalChunks} chunks\n`);
        lastProgress = Date.now();
      }
    }
    // chunking-tool swaps a topic's _chunks/ in whole: the old folder is renamed aside, then the
    // new one into place. A survey that walked the topic between the two renames saw no
    // _chunks/, took the topic for unbuilt, and the export ended exit 0 without it, though it
    // was built before and after. A manifest there now that the survey did not list is such a
    // change (or a topic built meanwhile): as for a manifest rewritten, the export fails.
    const surveyed = new Set(docs.map((d) => d.manifestFile));
    const appeared = manifestPaths(opts.docsRoot).find((f) => !surveyed.has(f));
    if (appeared !== undefined) throw new ExportError(`${appeared}: appeared while the docs were exported (a build running at the same time?); export again when the build is done`);
    await out?.commit();
    const where = opts.out ? ` to ${oneLine(opts.out)}` : '';
    const vec = vectorSource ? `; vectors of ${provider!.model}: ${vectorSource.stats.cached} cached, ${vectorSource.stats.computed} embedded now` : '';
    io.stderr(`docs-export: ${counted(written, 'chunk')} of ${counted(docs.length, 'document')} in ${counted(topics.size, 'topic')} as ${opts.format}${where}${vec}\n`);
    return 0;
  } catch (err) {
    await out?.abort();
    if (err instanceof ExportError || err instanceof EmbeddingError || err instanceof StdoutFileError) {
      // An ExportError names manifests and folders under the docs root, as one line.
      io.stderr(`docs-export: ${err instanceof ExportError ? oneLine(err.message) : err.message}\n`);
      return 1;
    }
    // A docs root, cache or --out folder that cannot be read or written is guardEnvironment's
    // to word (one line naming the path, exit 1). A failed write(2) (ENOSPC, EIO) carries no
    // path: then it was --out's.
    if (isFsError(err) && err.path === undefined && opts.out !== undefined) err.path = opts.out;
    if (err instanceof NotRegularFileError || isFsError(err)) throw err;
    if ((err as NodeJS.ErrnoException).code && opts.out) {
      io.stderr(`docs-export: cannot write ${oneLine(opts.out)}: ${oneLine((err as Error).message)}\n`);
      return 1;
    }
    throw err;
  }
}

/**
 * One record as JSON, with DEL, C1 controls and the bidi overrides and isolates escaped as
 * well (JSON.stringify escapes C0 but leaves them raw; U+009B is a CSI to some terminals, and
 * U+202E shows "gnp.exe" as "exe.png"): fs-atomic's escapeControl, whose escapes are JSON's
 * own, so the same value for any JSON reader and nothing a terminal obeys.
 */
export function jsonLine(record: unknown): string {
  // U+2028 and U+2029 too: valid JSON raw, but line breaks to Python's str.splitlines() and to
  // editors, which cut a record in two there. They can only stand inside a string here.
  return escapeControl(JSON.stringify(record)).replace(/[\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16)}`);
}

// Run when executed directly (node dist/main.js …), not when imported by the bin or tests.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}

/** The real path of `file`, or of its folder joined with its name when it does not exist yet. */
function realTarget(file: string, real: RealPaths): string {
  try {
    return real.of(file);
  } catch {
    try {
      return join(real.of(dirname(file)), basename(file));
    } catch {
      return resolve(file);
    }
  }
}

/**
 * What --out would overwrite among the exported docs (a topic's source, a file in a topic's
 * `_chunks/` or `_keywords/`, an index.json, topic-spec.md or llms.txt of the docs root), or null.
 */
function outClash(out: string, docsRoot: string, docs: readonly SurveyedDocument[]): string | null {
  // One cache for every path: each folder of the tree is looked up once.
  const real = new RealPaths();
  const target = realTarget(out, real);
  for (const d of docs) {
    const dir = realTarget(d.dir, real);
    const shown = d.topic === '' ? '(the docs root)' : d.topic;
    if (realTarget(join(d.dir, d.source), real) === target) return `the source of topic ${shown}`;
    for (const generated of ['_chunks', '_keywords']) {
      const rel = relative(join(dir, generated), target);
      if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return `in topic ${shown}'s generated ${generated}/ folder`;
    }
  }
  const root = realTarget(docsRoot, real);
  const inRoot = relative(root, target);
  if (!inRoot.startsWith('..') && !isAbsolute(inRoot) && ['index.json', 'topic-spec.md', 'llms.txt', 'llms-full.txt'].includes(basename(target))) {
    return `a generated ${basename(target)} of the docs`;
  }
  return null;
}

/** For the bin: a failed write to its stdout (a full disk) is one line naming it, not a stack trace. */
export function exitOnStdoutError(tool: string): void {
  exitOnStdoutErrorOf(tool);
}
