/**
 * docs-query: the command-line edge of @chunkyard/retrieval.
 *
 *   docs-query [docs-dir | --base-url URL] [--list | -q TEXT] [options]
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, rangesHelp } from '@chunkyard/config';
import { EmbeddingError } from '@chunkyard/embeddings';
import {
  ContractError,
  createBackend,
  DEFAULT_MAX_HAMMING_DISTANCE,
  discloseTopicsStream,
  DocsClient,
  elideMiddle,
  openSource,
  RANKINGS,
  searchStream,
  SourceError,
  type DocumentDisclosure,
  type DocumentDisclosureStream,
  type EmbeddingBackend,
  type Ranking,
  type RetrievedChunk,
  type SearchResult,
  type SearchStream,
} from '@chunkyard/retrieval';
import { describeFsError, emptyArgument, folderProblem, guardEnvironment, isFsError, NotRegularFileError, numberOption, oneLine, parseCliArgs, quoteArgument, readRegularFile } from '@chunkyard/fs-atomic';
import { exitOnStdoutError as exitOnStdoutErrorOf } from '@chunkyard/fs-atomic';

/** This package's version, read from its own package.json (../ from src/ and dist/ alike), so an installed copy reports itself. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const DEFAULT_DISCLOSE_N = 3;
export const DEFAULT_SEARCH_N = 5;
/** Ceilings of -n and -k: beyond them a value is a typo, and would only size huge arrays. */
export const MAX_N = 100_000;
export const MAX_K = 1_000;

export const HELP = `docs-query — read built chunkyard docs (index.json + chunk files)

Usage:
  docs-query [<docs-dir>] [options]              the first n chunks of every topic's stripe order
  docs-query [<docs-dir>] -q "question" [options] search: SimHash prompt match, else embeddings
  docs-query [<docs-dir>] --list                  list the topics
  docs-query --base-url http://127.0.0.1:8080/ …  the same over HTTP (e.g. from docs-serve)

<docs-dir> is the built docs root, the folder holding the root index.json (default: ./docs).
Topics are found by walking from that index.json by its links.

Options:
  -q, --query TEXT     search for TEXT: chunks whose stored question hashes (prompt_hashes) lie
                       within --max-distance bits of TEXT's SimHash, closest first; when none
                       does, the chunks most similar to TEXT by embedding (cosine)
  -t, --topic ID       only this topic, or the topics below this section (e.g. libraries)
  -n, --n N            chunks per document when disclosing (default ${DEFAULT_DISCLOSE_N}), or in all when
                       searching (default ${DEFAULT_SEARCH_N}); 0..${MAX_N}
      --technical      disclose in stripe_order_technical (documents without a technical
                       baseline use stripe_order, and say so)
      --baseline       disclose the baseline chunk(s) first: chunk 0, or 0 and 1 with
                       --technical (not counted in n)
  -k, --k K            show K neighbouring chunks either side of each chunk, joined with
                       [CHUNK BOUNDARY] lines, overlapping text shown once; 0..${MAX_K} (default 0)
      --max-distance D Hamming distance for a prompt match, 0..64 (default ${DEFAULT_MAX_HAMMING_DISTANCE})
      --no-embeddings  never fall back to embedding search
      --ranking R      how the embedding fallback ranks chunks: hybrid (default: cosine
                       similarity plus BM25 over the chunks searched, each divided by its
                       best; more recall, see the README's Retrieval quality section) or
                       embedding (cosine similarity alone)
      --config FILE    workspace config for the embedding provider (default: the
                       chunkyard.config.yaml of the workspace holding <docs-dir>, or of the
                       current folder with --base-url; else the local provider)
      --base-url URL   read the docs over HTTP(S) from URL (the root index is URL/index.json)
      --list           list the topics (id, title, chunks) and exit
      --json           print JSON on stdout instead of text
  -h, --help           show this help
      --version        print docs-query's version

The embedding fallback embeds the query and every chunk's embedText with the configured
provider. Working from a folder inside a workspace, chunk vectors come from (and go to) the
workspace's .embedding-cache/, so a workspace built with the spec step embeds only the query.

An option that belongs to another mode (-n, -k or --technical with --list, --max-distance,
--ranking or --config without -q, --technical or --baseline with -q) is a usage error.

Numeric settings of the config's embeddings: section, all whole numbers; outside its range a
value is a config error (exit 2) naming file:line, the key and what was given:
  embeddings:
${rangesHelp('embeddings', '    ')}

Exit status: 0 success (also when a search finds nothing); 1 the docs could not be read or
are not valid, or embedding failed; 2 usage or config error (also a --topic that matches
no topic or section: the message names the nearest topics).
`;

export interface Io {
  /**
   * Receives the output a result at a time; a promise it returns is waited for before the next
   * write (backpressure). `unknown`, not `void | Promise<void>`: a plain `(s) => (out += s)`
   * returns the string, and awaiting a value that is not a promise costs nothing.
   */
  stdout: (s: string) => unknown;
  stderr: (s: string) => void;
}

/**
 * The process's stdout, waited for when its buffer is full: results are written one by one,
 * and without waiting they would all pile up in the stream's buffer instead of a string. A
 * failed write (EPIPE, a full disk) is the bin's exitOnStdoutError's to report; 'close' ends
 * the wait too, so a stream that went away without 'drain' does not hang the run.
 */
const processIo: Io = {
  stdout: (s) => {
    if (process.stdout.write(s)) return;
    return new Promise<void>((done) => {
      const finish = () => {
        process.stdout.off('drain', finish);
        process.stdout.off('close', finish);
        done();
      };
      process.stdout.once('drain', finish);
      process.stdout.once('close', finish);
    });
  },
  stderr: (s) => {
    process.stderr.write(s);
  },
};

class UsageError extends Error {}

/**
 * The ports fetch() refuses without trying (the Fetch standard's "bad ports", all of which
 * Node 20's fetch refuses). `docs-serve --port 6666` served, and a --base-url naming it failed
 * with "request failed (fetch failed); is the server running?" while it was.
 */
const FETCH_BAD_PORTS: ReadonlySet<string> = new Set(
  '1 7 9 11 13 15 17 19 20 21 22 23 25 37 42 43 53 69 77 79 87 95 101 102 103 104 109 110 111 113 115 117 119 123 135 137 139 143 161 179 389 427 465 512 513 514 515 526 530 531 532 540 548 554 556 563 587 601 636 989 990 993 995 1719 1720 1723 2049 3659 4045 4190 5060 5061 6000 6566 6665 6666 6667 6668 6669 6679 6697 10080'.split(' '),
);

function parseCli(argv: string[]) {
  const options = {
    query: { type: 'string', short: 'q' },
    topic: { type: 'string', short: 't' },
    n: { type: 'string', short: 'n' },
    k: { type: 'string', short: 'k' },
    technical: { type: 'boolean', default: false },
    baseline: { type: 'boolean', default: false },
    'max-distance': { type: 'string' },
    'no-embeddings': { type: 'boolean', default: false },
    ranking: { type: 'string' },
    config: { type: 'string' },
    'base-url': { type: 'string' },
    list: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
    version: { type: 'boolean', default: false },
  } as const;
  const { values, positionals } = parseCliArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options,
  });
  // An empty value (an unset variable) was read as a path, a URL or the root section: ": no such
  // folder", "cannot read config: : …", and --topic '' disclosed every topic.
  const empty = emptyArgument(values, positionals, ['n', 'k', 'max-distance', 'query', 'ranking']);
  if (empty) throw new UsageError(empty);
  if (positionals.length > 1) throw new UsageError(`one docs folder at most, got ${positionals.length} (quote a query: -q "…")`);
  if (positionals.length === 1 && values['base-url'] !== undefined) throw new UsageError('give a docs folder or --base-url, not both');
  if (values.list && values.query !== undefined) throw new UsageError('--list and --query do not go together');
  // Anything but http(s) would fall through to the folder reader and be reported as a missing
  // docs folder named like "./file:/etc", which says nothing about the real mistake.
  const baseUrl = values['base-url'];
  if (baseUrl !== undefined && !(/^https?:\/\//i.test(baseUrl) && URL.canParse(baseUrl))) {
    throw new UsageError(`--base-url: expected an http(s) URL such as http://127.0.0.1:8080/, got ${JSON.stringify(baseUrl)}${/^file:/i.test(baseUrl) ? '; for a folder, give it as <docs-dir>' : ''}`);
  }
  // fetch refuses a URL with credentials: that was exit 1 "request failed (…); is the server
  // running?" with the password printed twice. The URL is not echoed here.
  if (baseUrl !== undefined && (new URL(baseUrl).username !== '' || new URL(baseUrl).password !== '')) {
    throw new UsageError('--base-url: a user name or password in the URL is not sent (fetch refuses such URLs); leave it out');
  }
  // docs-serve prints the root index's URL (…/index.json) beside the base URL, and that URL
  // given here was read as a folder: "…/index.json/index.json: HTTP 404 Not Found", exit 1, as if
  // the server were broken. A docs folder given as its index.json file is a usage error too.
  if (baseUrl !== undefined && /\/index\.json\/?$/i.test(new URL(baseUrl).pathname)) {
    const root = new URL(baseUrl);
    root.pathname = root.pathname.replace(/index\.json\/?$/i, '');
    root.search = '';
    root.hash = '';
    throw new UsageError(`--base-url: give the URL the docs root is served at, not its index.json: ${root.href}`);
  }
  // A query string was dropped without a word (every file is asked for at its own path), so a
  // host that wants its `?token=…` answered 403 for URLs without it. Not echoed: it may be a secret.
  if (baseUrl !== undefined && new URL(baseUrl).search !== '') {
    throw new UsageError('--base-url: a query string (?…) is not sent: each file is asked for at its own URL, without it; leave it out');
  }
  const port = baseUrl === undefined ? '' : new URL(baseUrl).port;
  // Port 0 asks a listener for any free port; nothing is ever reached at it. It was
  // "request failed (ECONNREFUSED); is the server running?" for a server that was.
  if (port === '0') throw new UsageError('--base-url: port 0 is no port a server answers on (docs-serve --port 0 prints the port it picked); give that port');
  if (FETCH_BAD_PORTS.has(port)) {
    throw new UsageError(`--base-url: port ${port} is one that fetch refuses to connect to (a "bad port" of the Fetch standard, as browsers refuse it too); serve the docs on another port`);
  }
  const int = (name: keyof typeof options, v: string | undefined, max: number): number | undefined => {
    if (v === undefined) return undefined;
    // The option as the user may have typed it: `-n 1e5` reported as "--n" read like another option.
    const spec = options[name];
    return numberOption('short' in spec ? `-${spec.short}/--${name}` : `--${name}`, v, { min: 0, max }, UsageError);
  };
  if (values.query !== undefined && values.query.trim() === '') throw new UsageError('--query: empty');
  const cli = {
    values,
    target: values['base-url'] ?? positionals[0] ?? 'docs',
    n: int('n', values.n, MAX_N),
    k: int('k', values.k, MAX_K) ?? 0,
    maxDistance: int('max-distance', values['max-distance'], 64) ?? DEFAULT_MAX_HAMMING_DISTANCE,
    ranking: rankingOf(values.ranking),
  };
  // After the values' own checks, so a bad value is named as such whatever the mode.
  if (!values.help && !values.version) {
    const mode: Mode = values.list ? 'list' : values.query !== undefined ? 'search' : 'disclose';
    for (const [name, modes] of Object.entries(OPTION_MODES) as [keyof typeof OPTION_MODES, readonly Mode[]][]) {
      const given = values[name] !== undefined && values[name] !== false;
      if (!given || modes.includes(mode)) continue;
      const spec = options[name];
      const shown = 'short' in spec ? `-${spec.short}/--${name}` : `--${name}`;
      throw new UsageError(`${shown} does not apply to ${MODE_NAMES[mode]}; it is for ${modes.map((m) => MODE_NAMES[m]).join(' and ')}`);
    }
  }
  return cli;
}

type Mode = 'list' | 'disclose' | 'search';
const MODE_NAMES: Record<Mode, string> = { list: 'listing topics (--list)', disclose: 'disclosing (no -q, no --list)', search: 'searching (-q)' };
/**
 * The options that belong to some modes only, as HELP describes them: given in another mode
 * they were ignored, so `--max-distance 3` with a forgotten -q disclosed as if it were not
 * there. --topic, --json and the docs source apply everywhere; so does --no-embeddings, which
 * only forbids something (scripts pass it whatever the mode).
 */
const OPTION_MODES = {
  n: ['disclose', 'search'],
  k: ['disclose', 'search'],
  technical: ['disclose'],
  baseline: ['disclose'],
  'max-distance': ['search'],
  ranking: ['search'],
  config: ['search'],
} as const satisfies Record<string, readonly Mode[]>;

function rankingOf(v: string | undefined): Ranking | undefined {
  if (v === undefined) return undefined;
  const r = RANKINGS.find((x) => x === v);
  if (!r) throw new UsageError(`--ranking: expected ${RANKINGS.join(' or ')}, got ${JSON.stringify(v)}`);
  return r;
}

/**
 * Up to five topic ids to offer for a --topic that matched nothing: those sharing the most
 * words with it first (a topic given without its section, a section's word), then by id.
 */
function nearestTopics(given: string, ids: readonly string[]): string {
  if (ids.length === 0) return 'the docs hold no topics';
  const words = (s: string) => new Set(s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1));
  const wanted = words(given);
  const shared = (id: string) => [...words(id)].filter((w) => wanted.has(w)).length;
  const ranked = ids.map((id) => ({ id, n: shared(id) })).sort((a, b) => b.n - a.n || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // Cut as the library cuts what it quotes: a 100 KB topic id made a 100 KB line.
  const shown = ranked.slice(0, 5).map((r) => oneLine(elideMiddle(r.id, 200)));
  const more = ids.length - shown.length;
  return `topics: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''} (--list shows them all)`;
}

/** Runs the CLI; a file-system error that escapes becomes one line and exit 1, never a trace. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  return guardEnvironment('docs-query', io, (safe) => run(argv, safe));
}

async function run(argv: string[], io: Io): Promise<number> {
  let cli: ReturnType<typeof parseCli>;
  try {
    cli = parseCli(argv);
  } catch (err) {
    io.stderr(`docs-query: ${(err as Error).message}\nRun docs-query --help for usage.\n`);
    return 2;
  }
  const { values } = cli;
  if (values.help) {
    io.stdout(HELP);
    return 0;
  }
  if (values.version) {
    io.stdout(`docs-query ${VERSION}\n`);
    return 0;
  }
  const isUrl = values['base-url'] !== undefined;
  const problem = isUrl ? null : folderProblem(cli.target);
  if (problem?.problem === 'not-a-folder') {
    // A file, FIFO or device given as the docs folder was reported as "<it>/index.json: cannot
    // read (ENOTDIR)", exit 1, as if the built docs were broken.
    io.stderr(`docs-query: ${oneLine(cli.target)}: ${problem.reason}; give the built docs root, the folder holding the root index.json\nRun docs-query --help for usage.\n`);
    return 2;
  }
  if (problem) {
    io.stderr(`docs-query: ${oneLine(cli.target)}: ${problem.reason}${argv.some((a) => !a.startsWith('-')) ? '' : ' (give the built docs folder, or --base-url)'}\n`);
    return 2;
  }
  if (values.config !== undefined) {
    // Every other CLI's words for a config it cannot read ("cannot read config: c.yaml: no such
    // file or folder (ENOENT); check the path", a dangling link named as one); this said
    // "--config c.yaml: no such file", path raw, and a folder had no "cannot read config".
    try {
      readRegularFile(values.config);
    } catch (err) {
      if (!(err instanceof NotRegularFileError) && !isFsError(err)) throw err;
      io.stderr(`docs-query: cannot read config: ${describeFsError(err, values.config)}\n`);
      return 2;
    }
  }
  try {
    const source = isUrl ? openSource(cli.target) : openSource(resolve(cli.target));
    const client = new DocsClient(source);
    // A --topic that names nothing is a mistake in the arguments (a typo, a topic given without
    // its section), not an empty result: it printed a line and exited 0, so a script could not
    // tell it from a search that found nothing. Exit 2, as for a docs folder that does not exist.
    if (values.topic !== undefined && (await client.topics(values.topic)).length === 0) {
      io.stderr(`docs-query: --topic ${oneLine(values.topic)}: no topic or section matches; ${nearestTopics(values.topic, (await client.topics()).map((t) => t.id))}\n`);
      return 2;
    }
    if (values.list) {
      const topics = await client.topics(values.topic);
      const rows = topics.map((t) => ({
        id: t.id,
        title: t.title,
        documents: Object.fromEntries(Object.entries(t.index._embedded.chunks).map(([doc, g]) => [doc, g.count])),
      }));
      if (values.json) io.stdout(`${JSON.stringify({ topics: rows }, null, 2)}\n`);
      // One line per topic, three tab-separated fields: an id, title or document name holding a
      // tab or line break (index.json allows both) made extra fields and rows a script read as topics.
      else for (const r of rows) io.stdout(`${oneLine(r.id)}\t${oneLine(r.title)}\t${Object.entries(r.documents).map(([d, c]) => `${oneLine(d)}: ${c} chunks`).join(', ')}\n`);
      if (rows.length === 0) io.stderr('docs-query: no topics\n');
      return 0;
    }
    if (values.query !== undefined) {
      let backend: EmbeddingBackend | undefined;
      const result = await searchStream(client, {
        query: values.query,
        ...(values.topic !== undefined ? { topic: values.topic } : {}),
        n: cli.n ?? DEFAULT_SEARCH_N,
        k: cli.k,
        maxDistance: cli.maxDistance,
        ...(cli.ranking !== undefined ? { ranking: cli.ranking } : {}),
        embeddings: values['no-embeddings']
          ? null
          : () => (backend = createBackend({ folder: source.folder, ...(values.config !== undefined ? { configFile: values.config } : {}) })),
      });
      // A cache this user may not read is passed over; say so once, as the cache's own warnings
      // are said (fs-atomic warnOnce: "docs-query: warning: embedding cache … cannot be written").
      if (backend?.cacheProblem !== undefined) io.stderr(`docs-query: warning: ${oneLine(backend.cacheProblem)}\n`);
      await (values.json ? writeSearchJson(io, result) : writeSearch(io, result, values['no-embeddings']));
      return 0;
    }
    const docs = discloseTopicsStream(client, {
      ...(values.topic !== undefined ? { topic: values.topic } : {}),
      n: cli.n ?? DEFAULT_DISCLOSE_N,
      k: cli.k,
      technical: values.technical,
      withBaseline: values.baseline,
    });
    const written = await (values.json ? writeDisclosureJson(io, docs) : writeDisclosure(io, docs));
    if (written === 0) io.stderr('docs-query: no topics\n');
    return 0;
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr(`docs-query: ${err.message}\n`);
      return 2;
    }
    if (err instanceof ContractError || err instanceof SourceError || err instanceof EmbeddingError || err instanceof RangeError) {
      // A folder without the root index.json is most often not built yet, or not the docs root
      // (a topic folder, the repository): "<dir>/index.json: no such file" alone said neither.
      const unbuilt = err instanceof SourceError && err.problem === 'no such file' && !isUrl && err.where === join(resolve(cli.target), 'index.json');
      const hint = unbuilt ? `; is ${oneLine(cli.target)} the built docs root? Build it first: npx nx run-many -t index (or index-tool)` : '';
      io.stderr(`docs-query: ${oneLine(err.message)}${hint}\n`);
      return 1;
    }
    throw err;
  }
}

// The heading lines hold ids, titles, document names and paths each on one line (oneLine): a
// title with a line break in it (index.json allows one) printed a line of its own, which could
// pass for the heading of another chunk ("── other #3 …"). Only the chunk's text keeps its lines.
function formatChunk(c: RetrievedChunk, note: string): string {
  const span = c.span.from === c.span.to ? '' : ` (with chunks ${c.span.from}..${c.span.to})`;
  return `── ${oneLine(c.topic)} #${c.index} ${oneLine(c.title)}${note}${span}\n   ${oneLine(c.location)}\n\n${c.text.trimEnd()}\n\n`;
}

function disclosureHead(d: Omit<DocumentDisclosure, 'chunks'>, size: number): string {
  const fallback = d.technicalUnavailable ? '; no technical baseline, so the conceptual order' : '';
  return `${oneLine(d.topic)} — ${oneLine(d.title)}\n${oneLine(d.doc)}: ${d.order} order, ${size} of ${d.count} chunks${fallback}\n\n`;
}

export function formatDisclosure(docs: DocumentDisclosure[]): string {
  let out = '';
  for (const d of docs) {
    out += disclosureHead(d, d.chunks.length);
    for (const c of d.chunks) out += formatChunk(c, '');
  }
  return out;
}

/** formatDisclosure's text, written a chunk at a time; returns how many documents there were. */
async function writeDisclosure(io: Io, docs: AsyncIterable<DocumentDisclosureStream>): Promise<number> {
  let count = 0;
  for await (const d of docs) {
    count++;
    await io.stdout(disclosureHead(d, d.size));
    for await (const c of d.chunks) await io.stdout(formatChunk(c, ''));
  }
  return count;
}

function scoreNote(c: RetrievedChunk): string {
  const s = c.score;
  if (s?.kind === 'hamming') return ` — distance ${s.distance}`;
  if (s?.kind === 'cosine') return ` — similarity ${s.similarity.toFixed(3)}`;
  if (s?.kind === 'hybrid') return ` — hybrid ${s.score.toFixed(3)} (similarity ${s.similarity.toFixed(3)}, BM25 ${s.bm25.toFixed(2)})`;
  return '';
}

function searchHead(r: Omit<SearchResult, 'chunks'>, size: number, embeddingsDisabled: boolean): string {
  let head = `query: ${quoteArgument(r.query, 200)} (SimHash ${r.queryHash})\n`;
  if (r.method === 'prompt') head += `prompt match: ${size} chunk(s) with a stored question within ${r.maxDistance} bits\n\n`;
  else if (r.method === 'embedding' && size === 0) head += `no stored question within ${r.maxDistance} bits; embedding search with ${r.model}: nothing found (no chunk shares a word or any similarity with the query)\n`;
  else if (r.method === 'embedding') head += `no stored question within ${r.maxDistance} bits; embedding search with ${r.model}\n\n`;
  else head += `no stored question within ${r.maxDistance} bits${embeddingsDisabled ? ' (embedding fallback off: --no-embeddings)' : ''}; nothing found\n`;
  return head;
}

export function formatSearch(r: SearchResult, embeddingsDisabled: boolean): string {
  return (
    searchHead(r, r.chunks.length, embeddingsDisabled) +
    r.chunks
      .map((c) => formatChunk(c, scoreNote(c)))
      .join('')
  );
}

/** formatSearch's text, written a chunk at a time. */
async function writeSearch(io: Io, r: SearchStream, embeddingsDisabled: boolean): Promise<void> {
  await io.stdout(searchHead(r, r.size, embeddingsDisabled));
  for await (const c of r.chunks) await io.stdout(formatChunk(c, scoreNote(c)));
}

// --json, streamed: the bytes of `JSON.stringify(value, null, 2)`, written an array element at a
// time. Every array streamed is its object's last key, so the object's text up to that array
// is the object stringified with the array empty, less its closing `[]\n}`. JSON.stringify
// escapes newlines inside strings, so indenting a nested value is a matter of its line breaks.

const pad = (depth: number) => '  '.repeat(depth);
const nested = (json: string, depth: number) => json.replaceAll('\n', `\n${pad(depth)}`);

/**
 * Writes `head` with `key: [...items]` added as its last key, as JSON.stringify(…, null, 2)
 * would at nesting `depth` (the opening brace already placed), each element by `each`.
 * Returns how many elements there were.
 */
async function writeJsonObject<T>(io: Io, head: object, key: string, items: AsyncIterable<T>, depth: number, each: (item: T, depth: number) => Promise<void>): Promise<number> {
  const empty = JSON.stringify({ ...head, [key]: [] }, null, 2);
  await io.stdout(nested(empty.slice(0, -'[]\n}'.length), depth));
  let count = 0;
  for await (const item of items) {
    await io.stdout(`${count === 0 ? '[' : ','}\n${pad(depth + 2)}`);
    await each(item, depth + 2);
    count++;
  }
  await io.stdout(`${count === 0 ? '[]' : `\n${pad(depth + 1)}]`}\n${pad(depth)}}`);
  return count;
}

const writeJsonChunk = (io: Io) => async (c: RetrievedChunk, depth: number) => {
  await io.stdout(nested(JSON.stringify(c, null, 2), depth));
};

async function writeDisclosureJson(io: Io, docs: AsyncIterable<DocumentDisclosureStream>): Promise<number> {
  const count = await writeJsonObject(io, { mode: 'disclose' }, 'documents', docs, 0, async ({ size: _size, chunks, ...d }, depth) => {
    await writeJsonObject(io, d, 'chunks', chunks, depth, writeJsonChunk(io));
  });
  await io.stdout('\n');
  return count;
}

async function writeSearchJson(io: Io, r: SearchStream): Promise<void> {
  const { size: _size, chunks, ...head } = r;
  await writeJsonObject(io, { mode: 'search', ...head }, 'chunks', chunks, 0, writeJsonChunk(io));
  await io.stdout('\n');
}

// Run when executed directly (node dist/main.js …), not when imported by the bin or tests.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}

/** For the bin: a failed write to its stdout (a full disk) is one line naming it, not a stack trace. */
export function exitOnStdoutError(tool: string): void {
  exitOnStdoutErrorOf(tool);
}
