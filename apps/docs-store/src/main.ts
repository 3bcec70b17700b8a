/**
 * docs-store: the I/O edge around @chunkyard/store.
 *
 *   docs-store ingest <files | topic dirs ...> [--built] [--db PATH] [--json]
 *   docs-store search <query> [--mode hybrid|fts|vector] [--no-routes] [--limit N] [--expand K] [--index exact|ivf|auto] [--probes N] [--json]
 *   docs-store expand <chunk-id> [--k N] [--json]
 *   docs-store stats [--json]
 *   docs-store mcp [--http [--port N] [--host H] [--token T]]
 */
import { accessSync, constants, fstatSync, lstatSync, readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { parseArgs } from 'node:util';
import type { ContentHint } from '@chunkyard/chunking';
import { escapeControl, numberOption, oneLine, parseCliArgs, quoteArgument } from '@chunkyard/fs-atomic';
import { ConfigError } from '@chunkyard/config';
import { EmbeddingCache } from '@chunkyard/embedding-cache';
import { cacheBatchSize, EmbeddingError, progressReporter, type ProgressReporter } from '@chunkyard/embeddings';
import { DocStore, EmptyStoreError, embedPlans, InputError, queryWithoutWords, sqliteFailure, storageFailed, StoreError, UnknownFilterError, stagedCachedVectors, type AnnStatus, type CacheStats, type IngestOutcome, type SearchHit, type SearchMode, type VectorIndexKind } from '@chunkyard/store';
import { serveHttp, TOKEN_ENV } from './http.js';
import { serveStdio } from './mcp.js';
import { planInputs } from './plan-inputs.js';
import { defaultDbPath, findWorkspaceRoot, loadWorkspaceConfig, providerFor, UsageError } from './workspace.js';
import { exitOnStdoutError as exitOnStdoutErrorOf } from '@chunkyard/fs-atomic';

/** This package's version, read from its own package.json (../ from src/ and dist/ alike), so an installed copy reports itself (here and to MCP clients). */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const HINTS: readonly ContentHint[] = ['prose', 'table', 'code', 'list', 'quote', 'mixed'];

export const HELP = `docs-store — the SQLite artifact store: ingest docs, search them, serve them to agents

Usage:
  docs-store ingest <file | topic-dir ...> [--built] [--topic T] [--content-type T]
                                      [--index exact|ivf|auto]
  docs-store search <query> [--mode hybrid|fts|vector] [--no-routes] [--limit N]
                            [--expand K] [--topic T] [--content-type T] [--hint H ...]
                            [--index exact|ivf|auto] [--probes N]
  docs-store expand <chunk-id> [--k N]
  docs-store stats
  docs-store mcp                      serve the store to agents over MCP on stdio
  docs-store mcp --http [--port N] [--host H] [--token T]
                                      the same over Streamable HTTP at http://H:N/mcp

ingest: a topic folder (holding golden-reference.md) contributes its sources (topic.yaml
  "sources", else golden-reference.md); a file is one document. Documents of at most 1200
  cl100k tokens are stored whole, larger ones chunked with the configured strategy. All
  embeddings are computed first, then everything is written in one transaction: if the
  provider fails, nothing is written. Unchanged documents are skipped; a changed one
  (its content, or its topic or content type) replaces its old chunks. A bad document
  (binary, empty, not UTF-8, over 32 MiB) is reported and left out; the others are
  stored (a line of any length is taken). What
  chunkyard generates (index.json, topic-spec.md, _chunks/, _keywords/) is skipped, so
  docs/libraries/* is safe to pass.
  --built reads topic folders' _chunks/*.json manifests and takes vectors from
  .embedding-cache/, and from the per-topic caches an Nx build keeps in it (read only),
  embedding only what is missing, instead of chunking again.
search: hybrid (the default) retrieves as docs-query does (issue 17's routes): every chunk
  scored by cosine + BM25 (k1 0.6) plus the same two scores of its window (the chunks
  within ±1 and ±2 of it), adjacent matching chunks merged into one unit (small-to-big,
  gated at 0.65 of the best score, 30 ranks deep), and a unit's edge sentences that share
  no word with the query trimmed. Each hit is a unit: the chunks it spans, its text (chunks
  joined by [CHUNK BOUNDARY]), and its best chunk's id. --limit caps the units. For the
  same built docs (ingest --built) and question it returns what docs-query returns.
  --no-routes: hybrid fuses FTS5 BM25 and vector ranks by reciprocal rank (k = 60), one
  chunk per hit (the ranking before routes); under the local model a query of CJK words
  alone is ranked by FTS5 alone (its cosines are hash collisions). --expand K adds K
  neighbouring chunks on each side, joined by [CHUNK BOUNDARY]. fts needs no embedding
  provider. A store written by an older docs-store needs its documents ingested again for
  routed search (--no-routes works on it as it is).
expand: prints a chunk with its ±k neighbours (default k = 1).

--index (ingest, search, mcp): the vector index of vector search and --no-routes (routed
  search scores every chunk exactly and fts uses no vectors: there --index ivf and --probes
  are not used, and stderr says so). exact scans every vector (an int8 scan
  with an exact rerank: the true top hits; --probes with it is not used, and stderr
  says so). ivf is the approximate index (k-means lists,
  persisted in the same database file): a query scans the --probes nearest lists (default
  3/8 of them, at least 8). auto (the default) is exact below 256M vector cells
  (500,000 chunks at 512 dimensions) and ivf from there. ingest builds or updates the
  ivf index after writing when --index resolves to ivf, so that later searches find it
  ready; a search that finds it out of date repairs it in memory.

mcp: tools ingest_artifact, search_docs, expand_chunk, store_stats; every stored unit as a
  resource (chunk://<artifact id>/<chunk index>, or /whole); the prompt answer_from_docs.
  --http serves it over Streamable HTTP (stateless) on --host (default 127.0.0.1; any other
  address is reachable from the network and prints a warning) and --port (default 3333,
  0 picks a free one; the URL goes to stderr). --token T, or the DOCS_STORE_MCP_TOKEN
  environment variable (which ps cannot show), makes every request need
  "Authorization: Bearer T"; without it the answer is 401.

Ranges (whole numbers; anything else is a usage error, exit 2):
  --limit N            1..100 (default 10)
  --expand K           0..10 (default 0)
  --k N                0..20 (default 1)
  --port N             0..65535 (default 3333)
  --probes N           1..4096

Options:
  --db PATH            the database (default: <workspace>/.chunkyard/store.db, where the
                       workspace is the nearest folder up holding chunkyard.config.yaml
                       or nx.json, else the current folder; refused when it or .chunkyard
                       is a symlink: a --db you name may be one)
  --config FILE        workspace config (default: <workspace>/chunkyard.config.yaml); its
                       chunking: and embeddings: sections apply (default provider: local)
  --json               machine-readable output on stdout
  -h, --help           show this help
  --version            print docs-store's version

An option the command does not use (stats --config, expand --limit, search --mode fts
--config) is a usage error.

Exit status: 0 success; 1 a document, the embedding provider or the store failed (a
failed ingest writes nothing); 2 usage or config error.
`;

export interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Where progress bars go (only drawn on a TTY, never with CI set). */
  progressStream?: NodeJS.WritableStream & { isTTY?: boolean };
  cwd?: string;
  env?: Record<string, string | undefined>;
}

const defaultIo: Io = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

const OPTIONS = {
  db: { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', default: false },
  built: { type: 'boolean', default: false },
  topic: { type: 'string' },
  'content-type': { type: 'string' },
  mode: { type: 'string' },
  limit: { type: 'string' },
  expand: { type: 'string' },
  hint: { type: 'string', multiple: true },
  k: { type: 'string' },
  http: { type: 'boolean', default: false },
  port: { type: 'string' },
  host: { type: 'string' },
  token: { type: 'string' },
  index: { type: 'string' },
  probes: { type: 'string' },
  'no-routes': { type: 'boolean', default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values'];

interface Context {
  values: Values;
  args: string[];
  io: Io;
  root: string;
  dbPath: string;
  /**
   * A link at the store path: followed for a --db the user named, refused for the default
   * `<workspace>/.chunkyard/store.db`, which lies in a docs repo a pull request may fill.
   */
  dbLinks: 'follow' | 'refuse';
}

export async function main(argv: string[], rawIo: Io = defaultIo): Promise<number> {
  // Titles, snippets and source paths come from documents: a terminal must not obey control
  // characters in them (C1 ones too: ingest refuses C0 ones, but U+009B is a CSI to some
  // terminals). The MCP server writes its protocol to process.stdout directly, not here.
  const io: Io = { ...rawIo, stdout: (s) => rawIo.stdout(escapeControl(s)), stderr: (s) => rawIo.stderr(escapeControl(s)) };
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseCliArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    io.stderr(`docs-store: ${(err as Error).message}\nRun docs-store --help for usage.\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.version && !values.help) {
    io.stdout(`docs-store ${VERSION}\n`);
    return 0;
  }
  if (values.help || positionals.length === 0) {
    (values.help ? io.stdout : io.stderr)(HELP);
    return values.help ? 0 : 2;
  }
  const [command, ...args] = positionals as [string, ...string[]];
  const cwd = io.cwd ?? process.cwd();
  const root = findWorkspaceRoot(cwd);
  const ctx: Context = { values, args, io, root, dbPath: values.db ? resolve(cwd, values.db) : defaultDbPath(root), dbLinks: values.db ? 'follow' : 'refuse' };
  try {
    // An empty value is a mistake, never a choice: `--topic ''` stored or searched the topic ""
    // (every search then came back empty, without a word) and `--db ''` opened the current
    // folder as the database. (An empty --token has its own message, with --http.)
    for (const name of ['topic', 'content-type', 'db', 'config', 'host'] as const) {
      // Spaces only are empty too (s37 probe: `--host ' '` went on to the resolver).
      if (values[name]?.trim() === '') throw new UsageError(`--${name}: empty; give a value, or leave --${name} out`);
    }
    // resolve() drops a trailing "/" (and "/."), so `--db out/` (a folder meant) made a store file
    // named out, and `--db store.db/` opened store.db, where any other program says "Not a
    // directory" (s55 probe).
    const folderForm = values.db === undefined ? null : /\/\.{0,2}$/.exec(values.db);
    if (folderForm) {
      const inside = `${values.db!.replace(/\/+$/, '')}/store.db`;
      throw new UsageError(`--db: ${quoteArgument(values.db!, 100)} names a folder (it ends in "${folderForm[0]}"); give the store's file path, such as ${quoteArgument(inside, 100)}`);
    }
    unusedOption(command, values);
    switch (command) {
      case 'ingest':
        return await ingest(ctx);
      case 'search':
        return await search(ctx);
      case 'expand':
        return expand(ctx);
      case 'stats':
        return stats(ctx);
      case 'mcp':
        return await mcp(ctx);
      default:
        throw new UsageError(`unknown command ${quoteArgument(command, 100)} (commands: ingest, search, expand, stats, mcp)`);
    }
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      io.stderr(`docs-store: ${err.message}\n`);
      return 2;
    }
    // A --topic or --content-type that matches nothing is the caller's to fix (docs-query says so with exit 2 too).
    // Quoted and cut short as the store's own message does: named whole, a 1 MB value came back whole.
    if (err instanceof UnknownFilterError) {
      io.stderr(`docs-store: ${err.filter === 'topic' ? '--topic' : '--content-type'} ${quoteArgument(err.value, 100)}: ${err.reason}\n`);
      return 2;
    }
    // One line each by construction: a line break in one came from a name (the --db path).
    if (err instanceof StoreError || err instanceof InputError) {
      io.stderr(`docs-store: ${oneLine(err.message)}\n`);
      return 1;
    }
    if (err instanceof EmbeddingError || err instanceof ListenError) {
      io.stderr(`docs-store: ${err.message}\n`);
      return 1;
    }
    // The environment (permissions, a full disk, a path that is not what it should be) is
    // reported as a message; only a real bug keeps its stack trace.
    const env = environmentMessage(err, ctx.dbPath);
    if (env) {
      io.stderr(`docs-store: ${oneLine(env)}\n`);
      return 1;
    }
    throw err;
  }
}

/**
 * The options each command reads (besides --help and --version). One it does not read was
 * ignored without a word: `stats --config other.yaml` printed the default store's stats as if
 * the config had been taken into account, `expand --limit 3` ignored the limit.
 */
const COMMAND_OPTIONS: Readonly<Record<string, readonly (keyof typeof OPTIONS)[]>> = {
  ingest: ['db', 'config', 'json', 'built', 'topic', 'content-type', 'index'],
  search: ['db', 'config', 'json', 'topic', 'content-type', 'mode', 'limit', 'expand', 'hint', 'index', 'probes', 'no-routes'],
  expand: ['db', 'json', 'k'],
  stats: ['db', 'json'],
  mcp: ['db', 'config', 'http', 'port', 'host', 'token', 'index'],
};

/** An unknown command, or an option given to a command that does not read it, as a usage error. */
function unusedOption(command: string, values: Values): void {
  const allowed = Object.hasOwn(COMMAND_OPTIONS, command) ? COMMAND_OPTIONS[command]! : undefined;
  if (allowed === undefined) throw new UsageError(`unknown command ${quoteArgument(command, 100)} (commands: ${Object.keys(COMMAND_OPTIONS).join(', ')})`);
  for (const [name, v] of Object.entries(values)) {
    if (v === undefined || v === false || name === 'help' || name === 'version' || (allowed as readonly string[]).includes(name)) continue;
    throw new UsageError(`--${name}: ${command} does not use it (${command} takes ${allowed.map((o) => `--${o}`).join(', ')}); leave it out`);
  }
}

/**
 * The documented range of every numeric option. The bounds keep a typo (--limit 1e9) from
 * becoming gigabytes of work, and match the MCP tools' own limits.
 */
export const RANGES = {
  limit: { min: 1, max: 100, fallback: 10 },
  expand: { min: 0, max: 10, fallback: 0 },
  k: { min: 0, max: 20, fallback: 1 },
  port: { min: 0, max: 65535, fallback: 3333 },
  probes: { min: 1, max: 4096, fallback: 0 },
} as const;

const INDEX_KINDS: readonly VectorIndexKind[] = ['exact', 'ivf', 'auto'];

function indexOption(value: string | undefined): VectorIndexKind {
  if (value === undefined) return 'auto';
  if (!INDEX_KINDS.includes(value as VectorIndexKind)) throw new UsageError(`--index must be exact, ivf or auto, got ${quoteArgument(value, 100)}`);
  return value as VectorIndexKind;
}

function intOption(name: keyof typeof RANGES, value: string | undefined): number {
  const { min, max, fallback } = RANGES[name];
  return value === undefined ? fallback : numberOption(`--${name}`, value, { min, max }, UsageError);
}

const ERRNO_HINTS: Record<string, string> = {
  EACCES: 'permission denied; check the permissions',
  EPERM: 'operation not permitted; check the permissions',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'a folder, where a file was expected',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
  EMFILE: 'too many open files',
};

/** A file-system or SQLite failure as one line naming the path, or null for anything else. */
function environmentMessage(err: unknown, dbPath: string): string | null {
  if (!(err instanceof Error)) return null;
  const e = err as NodeJS.ErrnoException & { code?: unknown };
  if (typeof e.code === 'string' && e.syscall) {
    const hint = ERRNO_HINTS[e.code] ?? e.message;
    return `${e.path ?? e.syscall}: ${hint} (${e.code})`;
  }
  // A fault SQLite finds after the store opened (a corrupt page deep in the file, a full disk
  // mid-write, another process's write): the database named, with what to do.
  return sqliteFailure(dbPath, err);
}

/**
 * A path as output names it: relative to the cwd when inside it, on one line (the io escapes
 * C0 controls but keeps line breaks, so `--db $'x\ny.db'` printed as two lines, the second of
 * which could pass for a line of output).
 */
function display(ctx: Context, path: string): string {
  const rel = relative(ctx.io.cwd ?? process.cwd(), path);
  return oneLine(rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path);
}

/** A stored name (a topic) as one line, cut after 200 characters with its length said: MCP's ingest_artifact takes any topic. */
function shortName(name: string): string {
  return oneLine(name.length > 200 ? `${name.slice(0, 200)}… (${name.length} characters)` : name);
}

/** The store's file, and the ones SQLite keeps beside it. */
const STORE_FILES = ['', '-wal', '-shm', '-journal'] as const;

async function ingest(ctx: Context): Promise<number> {
  const { values, io, root } = ctx;
  if (ctx.args.length === 0) throw new UsageError('ingest: no file or topic folder given');
  // "" resolves to the current folder: `docs-store ingest "$TOPIC"` with TOPIC unset ingested
  // the folder it ran in, exit 0 when that was a topic (s55 probe), as docs-serve refuses.
  if (ctx.args.includes('')) throw new UsageError('ingest: an empty argument (""); give a file or topic folder');
  const cwd = io.cwd ?? process.cwd();
  const { config } = loadWorkspaceConfig(root, values.config && resolve(cwd, values.config));
  const { plans, errors, skipped } = planInputs({
    root,
    config,
    paths: ctx.args.map((p) => resolve(cwd, p)),
    built: values.built,
    ...(values.topic !== undefined ? { topic: values.topic } : {}),
    ...(values['content-type'] !== undefined ? { contentType: values['content-type'] } : {}),
  });
  if (skipped.length > 0) io.stderr(`docs-store: skipped ${skipped.length} generated ${skipped.length === 1 ? 'path' : 'paths'} (index.json, topic-spec.md, _chunks/, _keywords/): ${skipped.map(oneLine).join(', ')}\n`);
  for (const e of errors) io.stderr(`docs-store: ${oneLine(e.source)}: ${oneLine(e.error)}\n`);
  const indexKind = indexOption(values.index);
  const provider = providerFor(config, io.env ?? process.env);
  let outcomes: IngestOutcome[] = [];
  let ann: AnnStatus | null = null;
  const cacheStats: CacheStats = { documentHits: 0, textHits: 0, embedded: 0 };
  if (plans.length > 0) {
    // The store's files this run makes. When a full disk or a file size limit stops it they are
    // removed (the ingest's transaction wrote nothing): a 0-byte or half-made store was left
    // behind (s60 probe), which the next search named as an empty database. A store there before
    // keeps what it held; one an ingest whose provider failed makes, tables and no document, is
    // kept as ever.
    const made = STORE_FILES.filter((suffix) => {
      try {
        lstatSync(`${ctx.dbPath}${suffix}`);
        return false;
      } catch (err) {
        // ENOTDIR and the like: the open below says what is wrong with the path.
        return (err as NodeJS.ErrnoException).code === 'ENOENT';
      }
    });
    try {
      const store = DocStore.open(ctx.dbPath, { links: ctx.dbLinks });
      // SQLite opens a store file this user may only read read-only, without a word, and refuses
      // at the first write: every document was embedded first (a paid provider's calls) for nothing.
      try {
        accessSync(ctx.dbPath, constants.W_OK);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EACCES' || code === 'EPERM') {
          store.close();
          throw new StoreError(`${ctx.dbPath}: cannot write the store: the file is read-only to this user (${code}); check its permissions or choose another --db`);
        }
      }
      // One bar per stage (embedding, then writing); silent unless stderr is a TTY without CI.
      let bar: { stage: string; reporter: ProgressReporter } | null = null;
      try {
        const onProgress = (e: { stage: 'embed' | 'write'; done: number; total: number }) => {
          if (bar?.stage !== e.stage) {
            bar?.reporter.stop();
            const label = e.stage === 'embed' ? 'embedding' : 'writing  ';
            bar = { stage: e.stage, reporter: progressReporter(e.total, label, io.progressStream ?? process.stderr, io.env ?? process.env) };
          }
          bar.reporter.update(e.done);
        };
        const onWait = () => io.stderr(`docs-store: ${display(ctx, ctx.dbPath)}: another process is writing the store; waiting for it to finish\n`);
        if (values.built) {
          const source = stagedCachedVectors(new EmbeddingCache(join(root, '.embedding-cache')), provider, cacheStats, { batchSize: cacheBatchSize(config.embeddings) });
          outcomes = await store.ingestRefs(plans, provider.model, source, { onProgress, onWait });
        } else {
          // Files given whole are planned in memory, and embedPlans sends each distinct text once across them.
          outcomes = await store.ingestPlans(
            plans.map((ref) => ref.load()),
            provider.model,
            (pending, progress) => embedPlans(pending, provider, progress),
            { onProgress, onWait },
          );
        }
        ann = store.prepareVectorIndex(indexKind);
      } catch (err) {
        // Said before the store is closed: closing removes its -wal, and with it the sign that a
        // file size limit (EFBIG), not the disk, stopped the write.
        const room = storageFailed(err) ? sqliteFailure(ctx.dbPath, err) : null;
        throw room === null ? err : new StoreError(room, { cause: err });
      } finally {
        (bar as { reporter: ProgressReporter } | null)?.reporter.stop();
        store.close();
      }
    } catch (err) {
      if (made.includes('') && storageFailed(err)) for (const suffix of made) rmSync(`${ctx.dbPath}${suffix}`, { force: true });
      throw err;
    }
  }
  if (values.json) {
    io.stdout(`${JSON.stringify({ db: ctx.dbPath, model: provider.model, artifacts: outcomes, errors, skipped, ...(values.built ? { cache: cacheStats } : {}), vectorIndex: ann ?? { kind: 'exact' } }, null, 2)}\n`);
  } else {
    for (const o of outcomes) {
      const what = o.isChunked ? `${o.numChunks} chunks` : 'stored whole';
      io.stdout(`${oneLine(o.sourceFile ?? o.artifactId)}: ${o.status} ${o.artifactId} (${what}, ${o.tokenCount} tokens)\n`);
    }
    if (values.built) io.stdout(`embedding cache: ${cacheStats.documentHits} document hits, ${cacheStats.textHits} text hits, ${cacheStats.embedded} embedded\n`);
    if (ann) {
      const what = ann.rebuilt ? `built (${ann.rebuilt})` : ann.persisted ? `updated (${ann.assigned} placed, ${ann.removed} dropped)` : 'up to date';
      io.stdout(`vector index: ivf, ${ann.lists} lists over ${ann.rows} units, ${what}\n`);
    }
    io.stdout(`${display(ctx, ctx.dbPath)}: ${outcomes.filter((o) => o.status !== 'unchanged').length} written, ${outcomes.filter((o) => o.status === 'unchanged').length} unchanged, ${errors.length} failed\n`);
  }
  return errors.length > 0 ? 1 : 0;
}

function openForReading(ctx: Context, vectorIndex: VectorIndexKind = 'auto'): DocStore {
  return DocStore.open(ctx.dbPath, { readonly: true, vectorIndex, links: ctx.dbLinks });
}

async function search(ctx: Context): Promise<number> {
  const { values, io } = ctx;
  if (ctx.args.length === 0) throw new UsageError('search: no query given');
  const query = ctx.args.join(' ');
  // A blank query matched everything with score 0 (one unit spanning a whole document).
  if (query.trim() === '') throw new UsageError('search: the query is blank; give the words to search for');
  const mode = (values.mode ?? 'hybrid') as SearchMode;
  if (!['hybrid', 'fts', 'vector'].includes(mode)) throw new UsageError(`--mode must be hybrid, fts or vector, got ${quoteArgument(values.mode ?? '', 100)}`);
  // fts ranks stored text by FTS5 BM25: the config's embeddings: section (the query embedder)
  // and chunking: section (ingest's) play no part in it, so --config was read by nothing, and a
  // missing or broken file passed without a word. Refused, as stats --config is.
  if (mode === 'fts' && values.config !== undefined) {
    throw new UsageError('--config: search --mode fts does not use it (fts matches the stored text; the config\'s embeddings: section serves --mode hybrid and vector); leave it out');
  }
  if (values['no-routes'] && mode !== 'hybrid') throw new UsageError(`--no-routes is for hybrid search; --mode ${mode} has no routes`);
  const routes = mode === 'hybrid' && !values['no-routes'];
  const limit = intOption('limit', values.limit);
  const expandK = intOption('expand', values.expand);
  for (const h of values.hint ?? []) if (!HINTS.includes(h as ContentHint)) throw new UsageError(`--hint must be one of ${HINTS.join(', ')}, got ${quoteArgument(h, 100)}`);
  const indexKind = indexOption(values.index);
  const probes = values.probes === undefined ? undefined : intOption('probes', values.probes);
  // Routed search scores every chunk exactly, and fts has no vectors: an ivf request there was
  // silently ignored, so a user could believe results came through the approximate index.
  const notApplied = routes ? 'routed hybrid search scores every chunk exactly' : mode === 'fts' ? 'fts search uses no vectors' : null;
  if (notApplied !== null && (values.index === 'ivf' || probes !== undefined)) {
    const given = [values.index === 'ivf' ? '--index ivf' : null, probes !== undefined ? '--probes' : null].filter(Boolean).join(' and ');
    io.stderr(`docs-store: ${given} not used: ${notApplied}; the ivf index serves --mode vector and hybrid --no-routes\n`);
  } else if (values.index === 'exact' && probes !== undefined) {
    // The lists of the ivf index to scan: with --index exact there are none, and --probes was ignored without a word (s57 probe).
    io.stderr('docs-store: --probes not used: --index exact scans every vector; --probes goes with --index ivf (or auto on a store large enough for ivf)\n');
  }
  const { config } = mode === 'fts' ? { config: null } : loadWorkspaceConfig(ctx.root, values.config && resolve(io.cwd ?? process.cwd(), values.config));
  const store = openForReading(ctx, indexKind);
  try {
    // Before the query is embedded. With no document stored, "no results" (exit 0) read as if
    // the docs had been searched and did not cover the question.
    if (!store.hasDocuments()) throw new EmptyStoreError(ctx.dbPath);
    const hits = await store.search(query, {
      mode,
      limit,
      expand: expandK,
      ...(routes ? {} : { routes: false as const }),
      ...(probes !== undefined ? { probes } : {}),
      ...(config ? { embedder: providerFor(config, io.env ?? process.env) } : {}),
      filters: {
        ...(values.topic !== undefined ? { topic: values.topic } : {}),
        ...(values['content-type'] !== undefined ? { contentType: values['content-type'] } : {}),
        ...(values.hint?.length ? { contentHints: values.hint as ContentHint[] } : {}),
      },
    });
    // An empty result of a query with no word to search for (`the`, `?!`) says so: "no results"
    // alone read as if the docs did not cover the question (helper 102 probe).
    const reason = hits.length === 0 ? queryWithoutWords(query) : null;
    if (values.json) io.stdout(`${JSON.stringify({ query, mode, ...(mode === 'hybrid' ? { routes } : {}), ...(mode === 'fts' || routes ? {} : { index: store.resolveIndexKind() }), hits, ...(reason ? { reason } : {}) }, null, 2)}\n`);
    else if (hits.length === 0) io.stdout(`no results for ${quoteArgument(query, 200)}${reason ? `: ${reason}` : ''}\n`);
    else hits.forEach((h, i) => io.stdout(formatHit(h, i)));
  } finally {
    store.close();
  }
  return 0;
}

/**
 * A score as text: four decimals, or three significant digits where those would round a
 * nonzero score to 0.0000 (FTS5's BM25 floors its IDF at 1e-6 for a word in half a small
 * store's documents or more, so every fts hit there printed "score 0.0000", as if nothing matched).
 */
export function formatScore(score: number): string {
  const fixed = score.toFixed(4);
  return score !== 0 && Number(fixed) === 0 ? score.toPrecision(3) : fixed;
}

function formatHit(h: SearchHit, i: number): string {
  if (h.unit) {
    // A routed unit: its whole text (units are small, and the edges are trimmed already).
    const c = h.unit.chunks;
    const span = c === null ? 'stored whole' : c.from === c.to ? `chunk ${c.from}` : `chunks ${c.from}-${c.to}, ${h.unit.hits} ${h.unit.hits === 1 ? 'hit' : 'hits'}`;
    const where = oneLine([h.title, h.sectionTitle].filter(Boolean).join(' › '));
    return `${i + 1}. ${oneLine(h.sourceFile ?? '(no file)')}  ${h.unitId}\n   ${where}  [score ${formatScore(h.score)}; ${span}]\n${indent(h.unit.text.trim())}\n\n`;
  }
  const ranks = Object.entries(h.ranks).map(([k, r]) => `${k} #${r}`).join(', ');
  const where = oneLine([h.title, h.sectionTitle].filter(Boolean).join(' › '));
  const text = (h.expanded ?? h.content).trim();
  const body = h.expanded !== undefined ? text : text.replace(/\s+/g, ' ').slice(0, 240) + (text.length > 240 ? '…' : '');
  return `${i + 1}. ${oneLine(h.sourceFile ?? '(no file)')}  ${h.unitId}\n   ${where}  [score ${formatScore(h.score)}; ${ranks}]\n${indent(body)}\n\n`;
}

const indent = (s: string) => s.split('\n').map((l) => `   ${l}`).join('\n');

function expand(ctx: Context): number {
  const { values, io } = ctx;
  if (ctx.args.length !== 1) throw new UsageError('expand: give exactly one chunk id');
  // No id is blank: it was looked up and reported as "no chunk or artifact with id " (s55 probe).
  if (ctx.args[0]!.trim() === '') throw new UsageError('expand: the chunk id is blank; give one (search prints each hit\'s)');
  const k = intOption('k', values.k);
  const store = openForReading(ctx);
  try {
    const e = store.expand(ctx.args[0]!, k);
    io.stdout(values.json ? `${JSON.stringify(e, null, 2)}\n` : `${e.text}\n`);
  } finally {
    store.close();
  }
  return 0;
}

function stats(ctx: Context): number {
  // As mcp: an extra word (a path meant for --db) must not pass silently.
  if (ctx.args.length > 0) throw new UsageError(`stats: takes no arguments, got ${ctx.args.map((a) => quoteArgument(a, 100)).join(' ')} (the database is --db PATH)`);
  const store = openForReading(ctx);
  try {
    const s = store.stats();
    if (ctx.values.json) ctx.io.stdout(`${JSON.stringify(s, null, 2)}\n`);
    else {
      ctx.io.stdout(
        `${display(ctx, s.path)} (schema v${s.schemaVersion}, ${(s.fileBytes / 1024).toFixed(0)} KiB)\n` +
          `  ${s.artifacts} artifacts (${s.chunkedArtifacts} chunked, ${s.artifacts - s.chunkedArtifacts} whole), ${s.chunks} chunks, ${s.units} searchable units, ${s.tokens} tokens\n` +
          `  embeddings: ${s.embeddingModel ?? '(none yet)'}${s.dimensions ? `, ${s.dimensions} dimensions` : ''}\n` +
          (s.ann ? `  vector index: ivf, ${s.ann.lists} lists over ${s.ann.rows} units (${(s.ann.bytes / 1024).toFixed(0)} KiB), built ${s.ann.builtAt}\n` : '') +
          s.topics.map((t) => `  ${t.topic === null ? '(no topic)' : shortName(t.topic)}: ${t.artifacts}\n`).join(''),
      );
    }
  } finally {
    store.close();
  }
  return 0;
}

async function mcp(ctx: Context): Promise<number> {
  const { values, io } = ctx;
  if (ctx.args.length > 0) throw new UsageError('mcp: takes no arguments');
  const env = io.env ?? process.env;
  if (!values.http) {
    for (const name of ['port', 'host', 'token'] as const) if (values[name] !== undefined) throw new UsageError(`--${name} needs --http (stdio is the default transport)`);
  }
  const port = intOption('port', values.port);
  const host = values.host ?? '127.0.0.1';
  const token = values.token ?? env[TOKEN_ENV];
  if (values.http && token !== undefined && token.trim() === '') throw new UsageError(`the bearer token (--token or ${TOKEN_ENV}) is empty`);
  // A token no header can carry as it is started a server that refused every request: Node's
  // parser rejects a control character (400), reads header bytes as latin1 (a UTF-8 letter
  // never matched), and the header value is trimmed.
  const uncarried = token === undefined || !values.http ? null : /[\u0000-\u001f\u007f]/.test(token) ? 'a control character' : /[^\u0000-\u007f]/.test(token) ? 'a character outside ASCII' : token.trim() !== token ? 'a space at an end' : null;
  if (uncarried !== null) throw new UsageError(`the bearer token (--token or ${TOKEN_ENV}) holds ${uncarried}, which no Authorization header carries as it is; use printable ASCII with no space at either end (openssl rand -hex 16 makes one)`);
  // A folder as stdin (`docs-store mcp < docs/`) fails its first read with EISDIR, which the
  // transport's error handler swallowed: the server exited 0 at once, with no line at all (s55 probe).
  if (!values.http && stdinIsFolder()) throw new UsageError('mcp: stdin is a folder; the stdio transport reads JSON-RPC messages from a pipe (an MCP client starts docs-store mcp and writes to it), or serve over HTTP with --http');
  const { config } = loadWorkspaceConfig(ctx.root, values.config && resolve(io.cwd ?? process.cwd(), values.config));
  const store = DocStore.open(ctx.dbPath, { vectorIndex: indexOption(values.index), links: ctx.dbLinks });
  try {
    const provider = providerFor(config, env);
    if (!values.http) {
      // stdout is the protocol channel: anything else goes to stderr.
      io.stderr(`docs-store mcp: serving ${oneLine(ctx.dbPath)} on stdio\n`);
      await serveStdio(store, provider, VERSION);
      return 0;
    }
    // The signal handlers go in before the URL is printed: a client (or a test) that stops
    // the server as soon as it sees the URL must not meet Node's default, a kill.
    let stopRequested = false;
    let onStop = () => {
      stopRequested = true;
    };
    const stopSignal = () => onStop();
    process.once('SIGINT', stopSignal);
    process.once('SIGTERM', stopSignal);
    let served: Awaited<ReturnType<typeof serveHttp>>;
    try {
      try {
        served = await serveHttp(store, provider, VERSION, { host, port, ...(token !== undefined ? { token } : {}), log: (line) => io.stderr(`${line}\n`) });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') throw new ListenError(`${host}:${port}: the port is in use; pick another --port (0 picks a free one)`);
        // The host quoted and cut short: one with a line break in it was printed as two lines,
        // and getaddrinfo's own EINVAL message (a label over 63 characters) named it whole, twice.
        if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new ListenError(`${quoteArgument(host, 100)}: not an address of this machine (${code}); use --host 127.0.0.1, or an address this machine has`);
        if (code === 'EINVAL' && (err as NodeJS.ErrnoException).syscall === 'getaddrinfo') throw new ListenError(`${quoteArgument(host, 100)}: not a host name (EINVAL); use --host 127.0.0.1, or an address this machine has`);
        if (code === 'EACCES') throw new ListenError(`${host}:${port}: permission denied (EACCES); ports below 1024 need privileges, pick another --port`);
        throw err;
      }
      if (!served.loopback) {
        io.stderr(
          `docs-store mcp: warning: listening on ${host}, which other machines can reach; ` +
            (token !== undefined ? 'every request needs the bearer token, and it travels in clear text over plain HTTP (put TLS in front)\n' : `anyone who reaches it can read and write the store: set --token or ${TOKEN_ENV}\n`),
        );
      }
      io.stderr(`docs-store mcp: serving ${oneLine(ctx.dbPath)} at ${served.url}${token !== undefined ? ' (bearer token required)' : ''}\n`);
      // Serve until told to stop; then finish cleanly so the store closes (WAL checkpointed).
      await new Promise<void>((resolveStop) => {
        onStop = () => {
          served.server.closeAllConnections();
          served.server.close(() => resolveStop());
        };
        if (stopRequested) onStop();
      });
    } finally {
      process.off('SIGINT', stopSignal);
      process.off('SIGTERM', stopSignal);
    }
    return 0;
  } finally {
    store.close();
  }
}

/** The HTTP server could not listen: an environment problem, reported without a trace (exit 1). */
class ListenError extends Error {}

// Run when executed directly (node dist/main.js …), not when imported by the bin or tests.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}

/** For the bin: a failed write to its stdout (a full disk) is one line naming it, not a stack trace. */
export function exitOnStdoutError(tool: string): void {
  exitOnStdoutErrorOf(tool);
}

/** Whether file descriptor 0 is a folder (false when it cannot be looked at: the read will tell). */
function stdinIsFolder(): boolean {
  try {
    return fstatSync(0).isDirectory();
  } catch {
    return false;
  }
}
