/**
 * ChunkingTool: the I/O edge around @chunkyard/chunking.
 *
 *   chunking-tool <topic-dir | file.md ...> [--out DIR] [--config FILE] [--content-type doc]
 *                 [--strategy semantic] [--json] [--help]
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, existsSync, fstatSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chunkDocumentStream, ChunkOptionsError, PAGES_MANIFEST, resolveOptions, STRATEGIES, type ChunkDocumentResult, type ChunkOptions, type ChunkRecord, type ChunkStream, type StrategyName } from '@chunkyard/chunking';
import { ConfigError, rangesHelp, type ChunkyardConfig } from '@chunkyard/config';
import { counted, emptyArgument, isAbandonedTemp, parseCliArgs, PinnedDir, processIo, refuseSymlink, replaceDirAtomic, StagedDir } from '@chunkyard/fs-atomic';
import { checkFolderOption, describeFsError, errorLines, oneLine, docNameOf, entryExists, guardEnvironment, isFsError, loadConfigFile, readTopicSource, statOrNull, TOPIC_MARKER, topicSettings, UsageError } from '@chunkyard/topic-io';
import { llmLeadWriter, type LeadWriter } from './llm-leads.js';
import { groupByOutDir, Outcomes } from './outcomes.js';
import { outputSeam } from './seam.js';
import { exitOnStdoutError as exitOnStdoutErrorOf } from '@chunkyard/fs-atomic';

export const MANIFEST_SCHEMA_VERSION = 1;

/** This package's version, read from its own package.json (../ from src/ and dist/ alike), so an installed copy reports itself. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const HELP = `chunking-tool — split markdown into retrieval-ready chunks

Usage:
  chunking-tool <topic-dir | file.md ...> [options]

Each argument is a topic folder (a folder holding ${TOPIC_MARKER}) or a markdown file.
For a document X.md it writes X-0.md … X-N.md (each chunk's exact text) and X.json
(the manifest: schemaVersion, source, sourceSha256, strategy, strategyKey, options,
fileTitle, chunks). With --strategy paginate each X-N.md is the emitted page (a
<!--CT {…}--> comment, lead-in, the exact text, lead-out) and chunks.json holds the
continuity-token graph with a SHA-256 checksum (so no document may be named chunks.md).
A topic's outputs go to <topic>/_chunks/ (replaced as a whole,
so stale files of an earlier run disappear); a file's go to <its folder>/_chunks/,
which must not be a symlink (refused, exit 1: remove the link, or name it with --out).

Options:
  --out DIR            write outputs to DIR instead (not another topic's _chunks/, nor a
                       topic's _keywords/)
  --config FILE        workspace config (default: ./chunkyard.config.yaml if present);
                       a topic's topic.yaml overrides it
  --content-type TYPE  content type used in chunk ids, one word without ":" (default: doc)
  --strategy NAME      chunking strategy: semantic (default), token-window, hierarchical
                       or paginate; overrides chunkyard.config.yaml and topic.yaml
  --json               print a JSON summary on stdout instead of text
  -h, --help           show this help
  --version            print chunking-tool's version

Numeric config settings (llm.temperature a number, the others whole numbers); outside its
range a value is a config error naming file:line, the key and what was given:
  chunking: (chunkyard.config.yaml, topic.yaml)
${rangesHelp('chunking', '    ')}
  llm: (chunkyard.config.yaml; paginate's lead lines with leadLines: true)
${rangesHelp('llm', '    ')}

Exit status: 0 success; 1 a document could not be processed (the others are still
written, and earlier outputs of the failed one are left as they were), or an output
folder could not be written (a full disk: none of its outputs land, its earlier ones
stay); 2 usage or config error (nothing written).
`;

export interface DocumentSummary {
  source: string;
  out: string;
  chunks: number;
  strategyKey: string;
  tokens: number;
}

interface Job {
  /** Display path of the source. */
  source: string;
  file: string;
  outDir: string;
  /** A topic's _chunks folder is owned whole; a file's outputs share a folder. */
  ownsDir: boolean;
  options: Partial<ChunkOptions>;
  /** Where `options` came from, for a message about them: the config files and command-line options that set any. */
  settingsFrom: string[];
  /** The topic.yaml whose `sources` listed this document, or null (named in a read error). */
  listedIn: string | null;
  /**
   * A file's derived output folder (`<its folder>/_chunks`, as the user's path names it), which
   * must not be a symlink: its outputs are renamed into that folder one by one and its stale
   * X-N.md removed there, so a linked `_chunks` committed in a docs tree made the run write and
   * delete in whatever folder the link led to. Null for a topic (its `_chunks` is replaced
   * whole: a link there is replaced, never written through) and for `--out` (the user's own
   * choice of folder, link or not).
   */
  refuseLinkAt: string | null;
}

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

/** Runs the CLI; a file-system error that escapes becomes one line and exit 1, never a trace. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  return guardEnvironment('chunking-tool', io, (safe) => run(argv, safe));
}

async function run(argv: string[], io: Io): Promise<number> {
  let args: ReturnType<typeof parseCli>;
  try {
    args = parseCli(argv);
  } catch (err) {
    io.stderr(`chunking-tool: ${oneLine((err as Error).message)}\nRun chunking-tool --help for usage.\n`);
    return 2;
  }
  if (args.values.help) {
    io.stdout(HELP);
    return 0;
  }
  if (args.values.version) {
    io.stdout(`chunking-tool ${VERSION}\n`);
    return 0;
  }
  let jobs: Job[];
  let leads: LeadWriter;
  try {
    jobs = planJobs(args.positionals, args.values);
    // llm.leadLines: paginate's lead sentences from the configured model (identity otherwise).
    leads = llmLeadWriter(args.values.config, io.stderr);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      io.stderr(errorLines(err).map((line) => `chunking-tool: ${line}\n`).join(''));
      return 2;
    }
    throw err;
  }

  const outcomes = new Outcomes<DocumentSummary>();
  /** The folder's documents fail with one message (a folder that cannot be written): exit 1, the other folders are still written. */
  const failFolder = (group: Job[], message: string): void => {
    for (const job of group) outcomes.failed(job.source, message);
    io.stderr(`chunking-tool: ${oneLine(message)}\n`);
  };
  // Jobs sharing an owned folder (a topic with several sources) are written together.
  for (const [outDir, group] of groupByOutDir(jobs)) {
    // A file's `_chunks` that is a symlink is refused before anything is staged, written or
    // removed (issue 15 probe: a linked `x/_chunks` got settings.json and settings-N.md, and
    // lost its own settings-*.md, in the folder it led to). A topic's is replaced whole.
    const link = group[0]!.ownsDir ? null : (group.find((job) => job.refuseLinkAt !== null)?.refuseLinkAt ?? null);
    if (link !== null) {
      try {
        refuseSymlink(link);
      } catch (err) {
        if (!isFsError(err)) throw err;
        failFolder(group, describeFsError(err));
        continue;
      }
      outputSeam.reached('checked', link);
    }
    const files = new Map<string, string>();
    const pages: PagedDocument[] = [];
    // Documents' outputs are written as their records come (see Stage); only paginate's pages are held in `files`.
    const stage = new Stage(outDir, group[0]!.ownsDir, link);
    let failed = false;
    for (const job of group) {
      try {
        const read = readJob(job);
        // Only paginate's pages need the whole result (lead sentences, chunks.json): every other
        // document is written a record at a time. Built as one string, the manifest of a 20 MB
        // document cut at 16 tokens (the plain-text path, chunked whole) passed V8's longest
        // string: "Invalid string length" on valid input (fuzz seed 4003).
        if (read.stream.strategy !== 'paginate') {
          outcomes.succeeded(stage.write(job, read));
          continue;
        }
        const { sectioned: _sectioned, ...rest } = read.stream;
        const whole = { ...rest, chunks: [...read.stream.chunks], sourceSha256: read.sourceSha256 };
        assertChunks(whole.chunks.length);
        const result = await leads(whole, job.source);
        for (const [name, data] of outputsOf(job, result)) files.set(name, data);
        if (result.strategy === 'paginate') pages.push({ name: docNameOf(job.file), source: basename(job.file), result });
        outcomes.succeeded({
          source: job.source,
          out: relative(process.cwd(), outDir) || '.',
          chunks: result.chunks.length,
          strategyKey: result.strategyKey,
          tokens: result.chunks.reduce((n, c) => n + c.tokenStats.tokens, 0),
        });
      } catch (err) {
        if (err instanceof ChunkOptionsError) {
          io.stderr(`chunking-tool: ${oneLine(job.source)}: ${oneLine(err.message)}\n`);
          // The stage and the pin (an open descriptor) go too: main() also runs in-process.
          stage.remove();
          return 2;
        }
        failed = true;
        // Writing the stage failed (a full disk): the folder's fault, not the document's; it is
        // reported once below for every document of the folder, and nothing of theirs lands.
        if (err === stage.writeError) {
          stage.discard(job);
          continue;
        }
        stage.discard(job);
        outcomes.failed(job.source, (err as Error).message);
        io.stderr(`chunking-tool: ${oneLine(job.source)}: ${oneLine((err as Error).message)}\n`);
      }
    }
    if (pages.length) files.set(PAGES_MANIFEST, pagesManifest(pages));
    try {
      if (stage.writeError !== null) throw stage.writeError;
      // An owned folder is replaced only when every document in it succeeded.
      if (group[0]!.ownsDir) {
        if (!failed) {
          if (stage.used) stage.replace(files);
          else replaceDirAtomic(outDir, files, { parents: false });
        }
      } else {
        // An --out folder is the user's, and may hold their own files: an X-N.md there is an
        // earlier run's only when that run's X.json listed it (N below its chunk count), read
        // before this run's replaces it. `chunking-tool guide.md --out notes` deleted a
        // hand-written notes/guide-1.md (guide had one chunk, guide-0.md). A derived
        // `<folder>/_chunks` holds only outputs: its stale X-N.md always go (null: no bound).
        const outGiven = args.values.out !== undefined;
        const stale = group
          .filter((job) => !outcomes.hasFailed(job.source))
          .map((job) => [docNameOf(job.file), outGiven ? earlierChunkCount(join(outDir, `${docNameOf(job.file)}.json`)) : null] as const);
        // Every output is staged first, so a write that fails (a full disk, a file-size
        // limit) leaves the previous set as it was; only renames reach outDir.
        const written = new Set(stage.moveInto(files));
        stage.removeStale(new Map(stale), written);
      }
    } catch (err) {
      // A folder that cannot be written fails its own documents only: the other topics and
      // files are still written, as for a bad document (exit 1).
      if (!isFsError(err)) throw err;
      failFolder(group, describeFsError(err));
    } finally {
      stage.remove();
    }
  }

  const { summaries, errors } = outcomes;
  if (args.values.json) {
    io.stdout(`${JSON.stringify({ documents: summaries, errors }, null, 2)}\n`);
  } else {
    for (const s of summaries) io.stdout(`${oneLine(s.source)}: ${counted(s.chunks, 'chunk')}, ${counted(s.tokens, 'token')} (${s.strategyKey}) -> ${oneLine(s.out)}\n`);
  }
  return errors.length ? 1 : 0;
}

function parseCli(argv: string[]) {
  const options = {
    out: { type: 'string' },
    config: { type: 'string' },
    'content-type': { type: 'string' },
    strategy: { type: 'string' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
    version: { type: 'boolean', default: false },
  } as const;
  const parsed = parseCliArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options,
  });
  const empty = emptyArgument(parsed.values, parsed.positionals);
  if (empty) throw new Error(empty);
  if (!parsed.values.help && !parsed.values.version && parsed.positionals.length === 0) throw new Error('no topic folder or markdown file given');
  return parsed;
}

type CliValues = ReturnType<typeof parseCli>['values'];

function planJobs(paths: string[], values: CliValues): Job[] {
  const configPath = values.config ?? (existsSync('chunkyard.config.yaml') ? 'chunkyard.config.yaml' : null);
  const base: ChunkyardConfig = configPath ? loadConfigFile(configPath, false) : { chunking: {} };
  const cliOverrides: Partial<ChunkOptions> = {};
  if (values['content-type'] !== undefined) cliOverrides.contentType = values['content-type'];
  if (values.strategy !== undefined) {
    if (!(STRATEGIES as readonly string[]).includes(values.strategy)) {
      throw new UsageError(`--strategy: unknown strategy ${JSON.stringify(values.strategy)} (known: ${STRATEGIES.join(', ')})`);
    }
    cliOverrides.strategy = values.strategy as StrategyName;
  }
  checkFolderOption('out', values.out);
  const baseFrom = configPath ? [configPath] : [];
  const cliFrom = Object.keys(cliOverrides).length > 0 ? ['the command line'] : [];
  const jobs: Job[] = [];
  const given = new Map<string, string>();
  for (const p of paths) {
    const stat = statOrNull(p);
    // Named twice (`docs/x docs/x/`): the output check below said "docs/x/golden-reference.md and
    // docs/x/golden-reference.md would both write golden-reference-N.md", one path twice.
    const first = given.get(resolve(p));
    if (first !== undefined) throw new UsageError(`${first} and ${p} are the same ${stat?.isDirectory() ? 'topic' : 'document'}; give it once`);
    given.set(resolve(p), p);
    if (stat?.isDirectory()) {
      const { config, sources, sourcesListedIn } = topicSettings(p, base);
      if (sourcesListedIn !== null) refuseGeneratedSources(sources, sourcesListedIn);
      const outDir = resolve(values.out ?? join(p, '_chunks'));
      const topicYaml = join(p, 'topic.yaml');
      const from = [...baseFrom, ...(entryExists(topicYaml) ? [topicYaml] : []), ...cliFrom];
      for (const name of sources) {
        jobs.push({ source: join(p, name), file: join(p, name), outDir, ownsDir: values.out === undefined, options: { ...config.chunking, ...cliOverrides }, settingsFrom: from, listedIn: sourcesListedIn, refuseLinkAt: null });
      }
    } else {
      // Missing files and other problems with one document are reported per document (exit 1).
      const outDir = resolve(values.out ?? join(dirname(p), '_chunks'));
      const refuseLinkAt = values.out === undefined ? join(dirname(p), '_chunks') : null;
      jobs.push({ source: p, file: p, outDir, ownsDir: false, options: { ...base.chunking, ...cliOverrides }, settingsFrom: [...baseFrom, ...cliFrom], listedIn: null, refuseLinkAt });
    }
  }
  // Outputs must never land on or beside their sources (stale-file removal would
  // delete a source named like X-2.md), and two documents may not share output names.
  const seen = new Map<string, string>();
  // Output names that differ only in case or in Unicode normalization are one file on macOS and
  // Windows (case-insensitive, normalization-insensitive file systems): a docs repo is cloned
  // there too, where one document's chunks would overwrite the other's.
  const folded = new Map<string, { source: string; name: string }>();
  for (const job of jobs) {
    // Another topic's _chunks/ (or any topic's _keywords/, which keyword-extractor replaces
    // whole): the document's chunk files and manifest replaced that topic's of the same name,
    // and stale-file removal took the rest (s57 probe: 78 chunk files became 22, exit 0).
    if (values.out !== undefined) {
      const owner = dirname(job.outDir);
      const name = basename(job.outDir);
      const own = resolve(job.file).startsWith(`${owner}/`);
      if ((name === '_chunks' || name === '_keywords') && entryExists(join(owner, TOPIC_MARKER)) && (name === '_keywords' || !own)) {
        throw new UsageError(
          `--out ${values.out}: the generated ${name}/ folder of the topic ${join(values.out, '..')}, ${name === '_keywords' ? 'which keyword-extractor replaces whole' : "whose chunk files and manifests it would replace"}; choose a folder of its own`,
        );
      }
    }
    if (resolve(dirname(job.file)) === job.outDir) {
      throw new UsageError(`--out ${relative(process.cwd(), job.outDir) || '.'}: holds the source ${job.source}; choose a folder of its own (e.g. _chunks)`);
    }
    // Its manifest would take the name of paginate's pages manifest, which every reader of
    // _chunks/ leaves out: the document would build and then be missing from every export.
    if (`${docNameOf(job.file)}.json` === PAGES_MANIFEST) {
      throw new UsageError(`${job.source}: its manifest would be ${PAGES_MANIFEST}, the name of paginate's pages manifest in _chunks/; rename the file (e.g. ${docNameOf(job.file)}-guide${extname(job.file)})`);
    }
    const key = join(job.outDir, docNameOf(job.file));
    const other = seen.get(key);
    if (other) throw new UsageError(`${other} and ${job.source} would both write ${docNameOf(job.file)}-N.md into ${job.outDir}`);
    seen.set(key, job.source);
    const foldedKey = key.normalize('NFC').toLowerCase();
    const alike = folded.get(foldedKey);
    if (alike) {
      throw new UsageError(
        `${alike.source} and ${job.source} would write ${alike.name}-N.md and ${docNameOf(job.file)}-N.md into ${job.outDir}, names that differ only in case or accent encoding: one file on macOS and Windows; rename one`,
      );
    }
    folded.set(foldedKey, { source: job.source, name: docNameOf(job.file) });
  }
  // Settings that only contradict each other once merged (workspace config + topic.yaml + CLI)
  // are a config error too: reject them here, before any job has written anything.
  for (const job of jobs) {
    try {
      resolveOptions(job.options);
    } catch (err) {
      // The settings are at fault, not the document: name where they were set (the rest are defaults).
      if (err instanceof ChunkOptionsError) throw new UsageError(`${job.source}: chunking settings (${[...job.settingsFrom, 'the defaults'].join(' + ')}): ${err.message}; fix them in ${job.settingsFrom.length > 0 ? job.settingsFrom.join(' or ') : 'a chunkyard.config.yaml'}`);
      throw err;
    }
  }
  return jobs;
}

/** Files the pipeline writes at a topic's root, rewritten by every build (its folders, _chunks/ and _keywords/, are refused by the config parser). */
const TOPIC_OUTPUTS: Readonly<Record<string, string>> = { 'topic-spec.md': "topic-spec's output" };

/**
 * Refuses a topic.yaml `sources` entry that names a generated file: `sources: [guide.md,
 * topic-spec.md]` chunked the spec into _chunks/, whose new chunks changed the next spec, so no
 * build ever settled (a source that is its own output), while keyword-extractor leaves
 * generated files out (issue 15 probe).
 */
function refuseGeneratedSources(sources: readonly string[], topicYaml: string): void {
  for (const name of sources) {
    const path = name.split(/[\\/]+/).filter((part) => part !== '.' && part !== '').join('/');
    const what = Object.hasOwn(TOPIC_OUTPUTS, path) ? TOPIC_OUTPUTS[path] : undefined;
    if (what !== undefined) throw new UsageError(`${topicYaml}: sources: ${JSON.stringify(name)} is ${what}, which every build rewrites; a source cannot be an output: take it out of sources`);
  }
}

interface ReadJob {
  stream: ChunkStream;
  sourceSha256: string;
}

/**
 * Reads a document and starts chunking it: a big markdown document comes back as a stream
 * of records made a window at a time (`sectioned`), anything else chunked whole.
 */
function readJob(job: Job): ReadJob {
  const text = readTopicSource(job.file, job.listedIn);
  // A topic's golden-reference.md that names no title (no front matter title, no H1) is titled
  // by its topic's folder: "golden-reference" opened every chunk's embedText and titled the spec.
  const fallbackTitle = basename(job.file) === TOPIC_MARKER ? basename(dirname(resolve(job.file))) : undefined;
  const stream = chunkDocumentStream(text, { ...job.options, docName: docNameOf(job.file), sourceFile: basename(job.file), ...(fallbackTitle ? { fallbackTitle } : {}) });
  return { stream, sourceSha256: createHash('sha256').update(text).digest('hex') };
}

function assertChunks(n: number): void {
  if (n === 0) throw new Error('no content to chunk (only front matter); write the text below the front matter');
}

/**
 * Where documents' outputs (paginate's pages aside) are written as their records come, so that
 * a big document never holds all its records (sectioned) nor its manifest as one string:
 * fs-atomic's StagedDir beside the output folder (a killed run's
 * is swept by the next). A topic's folder is then swapped in whole; a file's outputs are
 * renamed one by one into the shared folder. Nothing reaches the output folder before the
 * document is complete.
 */
class Stage {
  private stagedDir: StagedDir | null = null;
  /** A file's own `<folder>/_chunks`, pinned on first use (see `pinAt`). */
  private pin: PinnedDir | null = null;
  private readonly names = new Map<string, string[]>();
  /** The file-system error a write into the stage met, if any: then nothing of the stage lands. */
  writeError: NodeJS.ErrnoException | null = null;
  /**
   * The output folder (a file's `_chunks`, or `--out` and the parents made for it) when this
   * run made it for its stage, deepest first, so that remove() takes them back if nothing landed: a document that failed (only front matter, a
   * name too long for its chunk files) left a new, empty `_chunks/` beside it.
   */
  private madeFolders: string[] = [];

  /**
   * A topic's own folder is staged beside it and swapped in whole. Files share `--out` (or
   * `<folder>/_chunks`) with outputs of other runs: they are staged inside it, so only that
   * folder needs to be writable (its parent may not be: `--out .`), and the renames into it
   * never cross a file system.
   *
   * `pinAt`, a file's derived `<folder>/_chunks` as the user's path names it, is opened once
   * without following a link (PinnedDir) when something is first staged, and every later
   * mkdir, write, rename and removal there goes through that pin. It was looked at once,
   * before chunking: a link swapped in during a long document's chunking was then written
   * through (issue 15 probe). Null for a topic (its folder is replaced whole, a link there is
   * replaced, never followed) and for `--out` (the user's own choice, link or not).
   */
  constructor(
    private readonly outDir: string,
    private readonly ownsDir: boolean,
    private readonly pinAt: string | null,
  ) {}

  /** The folder as file-system calls reach it: through the pin when there is one. */
  private at(name = ''): string {
    if (this.pinAt === null) return name === '' ? this.outDir : join(this.outDir, name);
    if (this.pin === null) {
      this.madeFolders = missingFolders(this.pinAt);
      this.pin = PinnedDir.open(this.pinAt);
    }
    return this.pin.at(name);
  }

  /** Made on first use, so a folder whose documents all fail gets no stage (nor a new `_chunks`). */
  private get staged(): StagedDir {
    // parents: false for a topic's _chunks: a topic folder removed or renamed during the run
    // stays so (it came back holding only _chunks/).
    if (this.stagedDir === null && !this.ownsDir && this.pinAt === null) this.madeFolders = missingFolders(this.outDir);
    // Before StagedDir sweeps the folder and, with a killed run's stage, the links that undo it.
    if (this.stagedDir === null && !this.ownsDir) this.rollBackKilledMoves();
    this.stagedDir ??= this.ownsDir ? new StagedDir(this.outDir, { parents: false }) : new StagedDir(join(this.at(), 'staged'));
    return this.stagedDir;
  }

  get used(): boolean {
    return this.stagedDir?.created ?? false;
  }

  /** `err` naming the folder by its path rather than the pin's /proc/self/fd/N. */
  private named<T>(err: T): T {
    return this.pin === null ? err : this.pin.restorePaths(err);
  }

  /** Writes one document's chunk files and manifest (byte for byte what outputsOf gives) as its records come. */
  write(job: Job, read: ReadJob): DocumentSummary {
    let dir: string;
    try {
      dir = this.staged.path;
    } catch (err) {
      if (isFsError(err)) this.writeError = this.named(err);
      throw err;
    }
    const name = docNameOf(job.file);
    const names: string[] = [];
    this.names.set(job.source, names);
    const { stream } = read;
    const manifest = manifestOf(job, stream, read.sourceSha256, []);
    // JSON.stringify(manifest, null, 2) with the records spliced in where `[]` stands.
    const head = JSON.stringify(manifest, null, 2);
    const cut = head.lastIndexOf('[]');
    const manifestName = `${name}.json`;
    names.push(manifestName);
    let n = 0;
    let tokens = 0;
    // A write error (ENOSPC, EFBIG) carries no path: name the output it was for.
    let writing = join(this.outDir, manifestName);
    let fd = -1;
    try {
      fd = openSync(join(dir, manifestName), 'w');
      writeSync(fd, head.slice(0, cut + 1));
      for (const c of stream.chunks) {
        const file = `${name}-${n}.md`;
        names.push(file);
        writing = join(this.outDir, file);
        writeFileSync(join(dir, file), c.originalText);
        writing = join(this.outDir, manifestName);
        writeSync(fd, `${n > 0 ? ',' : ''}\n    ${JSON.stringify(c, null, 2).replace(/\n/g, '\n    ')}`);
        tokens += c.tokenStats.tokens;
        n++;
      }
      assertChunks(n);
      writeSync(fd, `\n  ${head.slice(cut + 1)}\n`);
    } catch (err) {
      if (isFsError(err)) {
        // A write error (ENOSPC, EFBIG) carries no path, and one that does names the staging
        // folder (ENAMETOOLONG: a 252-byte name.md gives a 257-byte name.json): the output is
        // what the user can act on.
        if (err.path === undefined || err.path.startsWith(`${dir}/`)) err.path = writing;
        this.writeError = this.named(err);
      }
      throw err;
    } finally {
      if (fd !== -1) closeSync(fd);
    }
    return { source: job.source, out: relative(process.cwd(), this.outDir) || '.', chunks: n, strategyKey: stream.strategyKey, tokens };
  }

  /**
   * Removes a failed document's staged files, best effort: one that could not be made (its name
   * too long) threw again here, past the folder's error report and the stage's removal.
   */
  discard(job: Job): void {
    if (this.used) {
      for (const name of this.names.get(job.source) ?? []) {
        try {
          rmSync(join(this.staged.path, name), { force: true });
        } catch {
          // remove() takes the whole stage
        }
      }
    }
    this.names.delete(job.source);
  }

  /** A topic: the other documents' files join the staged ones, and the folder replaces outDir. */
  replace(files: ReadonlyMap<string, string>): void {
    const dir = this.staged.path;
    for (const [name, data] of files) stageFile(dir, name, data, this.outDir);
    this.staged.commit();
  }

  /**
   * Files: `files` (the documents chunked whole) join the staged outputs, and then each is
   * renamed into outDir (one atomic rename each); their names. Writing them one by one into
   * outDir left a partial set when a write failed (issue 15 probe: a full disk): the new
   * chunk files of one document beside the old manifest of another. A pinned folder swapped
   * for a link or another folder since it was pinned gets nothing (SymlinkOutputError,
   * FolderGoneError); one swapped after that check still gets the renames, not the link.
   */
  moveInto(files: ReadonlyMap<string, string>): string[] {
    if (!this.used && files.size === 0) return [];
    let dir: string | null = null;
    try {
      dir = this.staged.path;
      for (const [name, data] of files) stageFile(dir, name, data, this.outDir);
      outputSeam.reached('staged', this.pinAt ?? this.outDir);
      this.pin?.check();
      outputSeam.reached('moving', this.pinAt ?? this.outDir);
      // A folder where an output goes (`--out notes` holding a folder notes/guide-3.md) refuses
      // that rename (EISDIR) after the ones before it landed: a new manifest and chunks 0-2
      // beside the earlier run's later chunks. Looked for first, so that none lands; the rename
      // is tried there only to fail with the system's own EISDIR, which names the output.
      for (const names of [...this.names.values(), [...files.keys()]]) {
        for (const name of names) {
          if (isFolder(this.at(name))) renameSync(join(dir, name), this.at(name));
        }
      }
      const order = [...this.names.values(), [...files.keys()]].flat();
      const previous = this.keepPrevious(dir, order);
      // For a run killed during the renames (rollBackKilledMoves): the outputs that had no
      // earlier version, which undoing means removing. Written after the links, so a journal
      // always comes with them; without one (killed before) nothing was moved yet.
      writeFileSync(join(dir, JOURNAL), JSON.stringify(order.filter((name) => previous.get(name) === null)));
      const moved: string[] = [];
      try {
        for (const name of order) {
          renameSync(join(dir, name), this.at(name));
          outputSeam.reached('moved', this.at(name));
          moved.push(name);
        }
      } catch (err) {
        this.putBack(moved, previous);
        throw err;
      }
      // The set is whole: from here a kill leaves the new outputs, and nothing is undone.
      rmSync(join(dir, JOURNAL), { force: true });
      return moved;
    } catch (err) {
      throw this.named(dir === null ? err : outsideStage(err, dir, this.at()));
    }
  }

  /**
   * A second name (a hard link, in the stage) for each output `names` would replace, so that a
   * rename that fails part-way can be undone: an immutable or append-only file there (EPERM),
   * a sticky folder's file of another user. The earlier renames had landed, and the set was
   * half new, half old: a new manifest beside old chunk files (issue 15 probe). A link moves
   * nothing, so a run killed here leaves the outputs as they were; the stage goes with its
   * links. Maps each name to its link, or to null when it had no output to replace; a name
   * whose output could not be linked (a file system without hard links) is left out, and
   * cannot be undone.
   */
  private keepPrevious(dir: string, names: readonly string[]): Map<string, string | null> {
    const previous = new Map<string, string | null>();
    // Output names end in .md or .json: no output is named this.
    const linksDir = join(dir, 'previous');
    mkdirSync(linksDir);
    for (const name of names) {
      const output = this.at(name);
      if (!entryExists(output)) {
        previous.set(name, null);
        continue;
      }
      const link = join(linksDir, name);
      try {
        linkSync(output, link);
        previous.set(name, link);
      } catch {
        // not kept: see above
      }
    }
    return previous;
  }

  /**
   * Undoes what a run killed during moveInto's renames left: a new manifest beside old chunk
   * files, or the reverse (issue 15 probe: 96 of 772 chunk files disagreed with the manifest),
   * which no later run put right unless it chunked that very document again; its stage, the
   * only record of the earlier files, was swept. Each abandoned stage holding a journal puts
   * back its links (the earlier outputs) and removes the outputs it added that had none.
   * Best effort, as the sweep is.
   */
  private rollBackKilledMoves(): void {
    let entries: string[];
    try {
      entries = readdirSync(this.at());
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.startsWith('.staged.tmp-') || !isAbandonedTemp(this.at(), entry)) continue;
      const stage = this.at(entry);
      let added: unknown;
      try {
        added = JSON.parse(readFileSync(join(stage, JOURNAL), 'utf8'));
      } catch {
        continue; // no journal: killed before its renames or after them, nothing to undo
      }
      if (!Array.isArray(added)) continue;
      try {
        for (const name of readdirSync(join(stage, 'previous'))) renameSync(join(stage, 'previous', name), this.at(name));
        for (const name of added) {
          // Still in the stage: never moved, so nothing of it landed.
          if (typeof name === 'string' && !entryExists(join(stage, name))) rmSync(this.at(name), { force: true });
        }
        rmSync(join(stage, JOURNAL), { force: true });
      } catch {
        // the sweep that follows removes the stage; the outputs stay as they are
      }
    }
  }

  /** Undoes the renames of `moved`, best effort: each output back as keepPrevious found it. */
  private putBack(moved: readonly string[], previous: ReadonlyMap<string, string | null>): void {
    for (const name of [...moved].reverse()) {
      const link = previous.get(name);
      try {
        if (link === null) rmSync(this.at(name), { force: true });
        else if (link !== undefined) renameSync(link, this.at(name));
      } catch {
        // the rest are still put back; the error reported is the rename's
      }
    }
  }

  /**
   * Removes the chunk files (`<name>-N.md`) an earlier run left in outDir that this one did
   * not write: a document that now has fewer chunks. Through the pin, as the renames are.
   * `stale` maps each document name to the bound on N (only the files that run's manifest
   * listed), or null for none. The folder is listed once for all of them: once per document,
   * 3,000 files into one `_chunks/` took 12 s to rerun, 1,000 took 2 s (quadratic).
   */
  removeStale(stale: ReadonlyMap<string, number | null>, written: ReadonlySet<string>): void {
    if (stale.size === 0) return;
    try {
      const entries = readdirSync(this.at());
      outputSeam.reached('listed', this.pinAt ?? this.outDir);
      for (const entry of entries) {
        // `<name>-N.md` splits one way: N is the digits after the last "-" ("a-1-2.md" is a-1's chunk 2).
        const m = /^(.*)-(\d+)\.md$/s.exec(entry);
        if (m === null || written.has(entry) || !stale.has(m[1]!)) continue;
        const below = stale.get(m[1]!)!;
        if (below === null || Number(m[2]) < below) rmSync(this.at(entry), { force: true });
      }
    } catch (err) {
      throw this.named(err);
    }
  }

  /** The temp folder and the pin, whatever happened; and the output folder this run made, when nothing landed in it. */
  remove(): void {
    this.stagedDir?.discard();
    this.pin?.close();
    try {
      // Only an empty folder goes (rmdir): outputs moved in, another run's stage or a link
      // swapped in since (ENOTDIR) keep it, and the folders above it.
      for (const folder of this.madeFolders) rmdirSync(folder);
    } catch {
      // kept, as said
    }
  }
}

/**
 * `err` naming what the user can act on instead of a path inside the stage `dir`: a rename
 * out of it names its output (its dest), anything else (the folder of links that undo a
 * failed set, a link) the output folder `outDir`. Issue 15 probe (EIO, ENOSPC injected):
 * "docs/t/_chunks/.staged.tmp-11046~5d31-7e53cd97/golden-reference.json -> docs/t/_chunks/
 * golden-reference.json: input/output error", and ".staged.tmp-…/previous: no space left".
 */
function outsideStage(err: unknown, dir: string, outDir: string): unknown {
  if (!isFsError(err) || err.path === undefined || !err.path.startsWith(`${dir}/`)) return err;
  const e = err as NodeJS.ErrnoException & { dest?: string };
  if (e.syscall === 'rename' && e.dest !== undefined && !e.dest.startsWith(`${dir}/`)) {
    e.path = e.dest;
    delete e.dest;
  } else {
    e.path = outDir;
    delete e.dest;
  }
  return e;
}

/** A stage's record of the renames under way (moveInto); output names end in .md or .json, so none is named this. */
const JOURNAL = 'journal';

/** Whether a folder itself (not a link to one) is at `p`. */
function isFolder(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** `dir` and each folder above it that is missing, deepest first: what making `dir` with its parents makes. */
function missingFolders(dir: string): string[] {
  const missing: string[] = [];
  for (let at = resolve(dir); !entryExists(at) && dirname(at) !== at; at = dirname(at)) missing.push(at);
  return missing;
}

/** How a chunk record's first key starts in a manifest (both writers indent records by 4, their keys by 6); no string value holds a raw line break. */
const RECORD_START = Buffer.from('\n      "chunkNumber": ');

/**
 * The number of chunk records in the manifest an earlier run wrote at `file` (0 when there is
 * none, or it cannot be read as a regular file): the X-N.md it listed are N below this. Counted
 * a block at a time, since a streamed document's manifest may pass V8's longest string.
 */
function earlierChunkCount(file: string): number {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return 0;
  }
  try {
    if (!fstatSync(fd).isFile()) return 0;
    const block = Buffer.alloc(1 << 20);
    let carry = Buffer.alloc(0);
    let count = 0;
    for (;;) {
      const n = readSync(fd, block, 0, block.length, null);
      if (n === 0) return count;
      const buf = Buffer.concat([carry, block.subarray(0, n)]);
      let at = 0;
      for (let i = buf.indexOf(RECORD_START); i >= 0; i = buf.indexOf(RECORD_START, at)) {
        count++;
        at = i + RECORD_START.length;
      }
      // A record start cut by the block's end is found with the next block.
      carry = buf.subarray(Math.max(at, buf.length - (RECORD_START.length - 1)));
    }
  } catch {
    return 0;
  } finally {
    closeSync(fd);
  }
}

/** Writes one output into the stage; a write error (ENOSPC, EFBIG carry no path) names the output it was for. */
function stageFile(dir: string, name: string, data: string, outDir: string): void {
  try {
    writeFileSync(join(dir, name), data);
  } catch (err) {
    if (isFsError(err) && (err.path === undefined || err.path === join(dir, name))) err.path = join(outDir, name);
    throw err;
  }
}

/** A document's manifest (`<name>.json`); the stream writes it with `chunks: []` and splices the records in. */
function manifestOf(job: Job, result: Omit<ChunkDocumentResult, 'chunks'>, sourceSha256: string, chunks: readonly ChunkRecord[]) {
  return {
    schemaVersion: MANIFEST_SCHEMA_VERSION,
    source: basename(job.file),
    sourceSha256,
    strategy: result.strategy,
    strategyKey: result.strategyKey,
    options: result.options,
    fileTitle: result.fileTitle,
    frontMatter: result.frontMatter,
    headingDetection: result.headingDetection,
    removed: result.removed ?? [],
    chunks,
  };
}

function outputsOf(job: Job, result: ChunkDocumentResult & { sourceSha256: string }): Map<string, string> {
  const name = docNameOf(job.file);
  const files = new Map<string, string>();
  // paginate emits pages: the CT comment and lead lines around the exact text (seed 000).
  result.chunks.forEach((c, i) => files.set(`${name}-${i}.md`, c.page?.text ?? c.originalText));
  const manifest = manifestOf(job, result, result.sourceSha256, result.chunks);
  files.set(`${name}.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  return files;
}

export { PAGES_MANIFEST };

interface PagedDocument {
  name: string;
  source: string;
  result: ChunkDocumentResult;
}

/**
 * `chunks.json`: per document, each page's continuity token, file, exact token
 * count, SHA-256 of the file and JSON-LD record; `checksum.value` is the
 * SHA-256 of `JSON.stringify(documents)`, so a reader can tell the manifest
 * (and, through the per-file hashes, the pages) is intact.
 */
export function pagesManifest(pages: PagedDocument[]): string {
  const documents = pages.map(({ name, source, result }) => ({
    source,
    strategyKey: result.strategyKey,
    chunks: result.chunks.map((c, i) => ({
      ct: c.page!.ct,
      file: `${name}-${i}.md`,
      tokens: c.page!.tokens,
      nmax: c.page!.nmax,
      sha256: createHash('sha256').update(c.page!.text).digest('hex'),
      jsonLd: c.page!.jsonLd,
    })),
  }));
  const checksum = { algorithm: 'sha256', of: 'JSON.stringify(documents)', value: createHash('sha256').update(JSON.stringify(documents)).digest('hex') };
  return `${JSON.stringify({ schemaVersion: 1, checksum, documents }, null, 2)}\n`;
}

// Run when executed directly (node dist/main.js …), not when imported by the bin or tests.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}

/** For the bin: a failed write to its stdout (a full disk) is one line naming it, not a stack trace. */
export function exitOnStdoutError(tool: string): void {
  exitOnStdoutErrorOf(tool);
}
