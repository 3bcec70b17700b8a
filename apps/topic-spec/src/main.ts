/**
 * TopicSpec: the I/O edge around @chunkyard/spec. For each topic it reads `_chunks/*.json`,
 * `_keywords/words.md` and `qa-pairs.md`, embeds chunks and questions through the embedding
 * cache, and writes `topic-spec.md`.
 *
 *   topic-spec <topic-dir ...> [--config FILE] [--cache-dir DIR] [--prompt-threshold X] [--json]
 */
import { lstatSync, readFileSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, rangesHelp } from '@chunkyard/config';
import { encodePathSegment, EmbeddingCache, embedThroughCache, sha256Hex, siblingCacheRoots, TEXT_STORE_DIR } from '@chunkyard/embedding-cache';
import { cacheBatchSize, createProvider, EmbeddingError, progressReporter, type EmbeddingProvider } from '@chunkyard/embeddings';
import { counted, emptyArgument, FolderGoneError, numberOption, parseCliArgs, processIo, removeStaleTemps, tempName, unfinishedBuild, writeFileAtomic } from '@chunkyard/fs-atomic';
import { KeywordTableError, parseWordsMd } from '@chunkyard/keywords';
import { parseQaPairs, QaPairsError } from '@chunkyard/qa-pairs';
import { buildTopicSpec, DEFAULT_PROMPT_THRESHOLD, formatTopicSpecMd, PromptHashLimitError, type SpecInputDocument, type TopicSpec } from '@chunkyard/spec';
import { brokenLink, checkFolderOption, describeFsError, fileKind, DocumentReadError, entryExists, errorLines, oneLine, docNameOf, guardEnvironment, isFsError, loadWorkspace, readDocument, TOPIC_MARKER, type TopicSettings, topicSettings, UsageError } from '@chunkyard/topic-io';
import { ManifestError, readManifest } from './manifest.js';
import { exitOnStdoutError as exitOnStdoutErrorOf } from '@chunkyard/fs-atomic';

const WORDS = join('_keywords', 'words.md');
const QA_PAIRS = 'qa-pairs.md';
const OUT_FILE = 'topic-spec.md';

/** This package's version, read from its own package.json (../ from src/ and dist/ alike), so an installed copy reports itself. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const HELP = `topic-spec — compute a topic's chunk metadata and write topic-spec.md

Usage:
  topic-spec <topic-dir ...> [options]

Each argument is a topic folder (a folder holding ${TOPIC_MARKER}) whose _chunks/
(chunking-tool) and _keywords/words.md (keyword-extractor) are built. For every chunk it
computes: similarity_conceptual (cosine to chunk 0), similarity_technical (to chunk 1,
when chunk 1's title says Quick Reference, API Reference, Cheat Sheet or Reference),
is_code, the keywords of words.md present in the chunk with their scores, and the
SimHashes of the ${QA_PAIRS} questions whose similarity to the chunk reaches the prompt
threshold. It writes <topic>/${OUT_FILE} (YAML front matter + a readable table), atomically.

Embeddings come from the provider in the config's embeddings: section (default: local,
an offline lexical embedder) and go through the embedding cache, so unchanged chunks are
never embedded twice and an interrupted run resumes where it stopped.

Options:
  --config FILE             workspace config (default: ./chunkyard.config.yaml if present)
  --cache-dir DIR           embedding cache (default: .embedding-cache beside the config); a
                            text it lacks is copied from the caches beside DIR when one holds
                            it (read-only), so a renamed topic is not embedded again
  --prune-cache             after a run in which every topic succeeded, remove what this run
                            did not use from the cache (for a cache folder that belongs to
                            these topics alone, as the Nx plugin gives each topic)
  --prompt-threshold X      similarity 0..1 a question needs to a chunk (default: spec.promptThreshold
                            from the config or topic.yaml, else ${DEFAULT_PROMPT_THRESHOLD})
  --json                    print a JSON summary on stdout instead of text
  -h, --help                show this help
  --version                 print topic-spec's version

Numeric config settings (promptThreshold a number, the others integers); outside its range a
value is a config error naming file:line, the key and what was given:
  spec:
${rangesHelp('spec', '    ')}
  embeddings:
${rangesHelp('embeddings', '    ')}

Exit status: 0 success; 1 a topic failed (missing or malformed _chunks manifest, or one
chunked from another version of its source, words.md
or ${QA_PAIRS}, the embedding provider failed, or ${OUT_FILE} is a symlink, which is never
written through): its previous ${OUT_FILE} is left as it was and the other topics are still
written; 2 usage or config error (nothing written).
`;

export interface TopicSummary {
  topic: string;
  out: string;
  chunks: number;
  questions: number;
  /** Questions whose hash landed on at least one chunk. */
  matchedQuestions: number;
  technicalBaseline: boolean;
  /** Texts sent to the provider, and texts served from the cache. */
  embedded: number;
  cached: number;
}

type Io = { stdout: (s: string) => void; stderr: (s: string) => void; env?: Record<string, string | undefined> };

/** Runs the CLI; a file-system error that escapes becomes one line and exit 1, never a trace. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  return guardEnvironment('topic-spec', io, (safe) => run(argv, safe));
}

async function run(argv: string[], io: Io): Promise<number> {
  let values: ReturnType<typeof parseCli>['values'];
  let positionals: string[];
  try {
    ({ values, positionals } = parseCli(argv));
  } catch (err) {
    io.stderr(`topic-spec: ${oneLine((err as Error).message)}\nRun topic-spec --help for usage.\n`);
    return 2;
  }
  if (values.help) {
    io.stdout(HELP);
    return 0;
  }
  if (values.version) {
    io.stdout(`topic-spec ${VERSION}\n`);
    return 0;
  }

  let topics: TopicSettings[];
  let provider: EmbeddingProvider;
  let cache: EmbeddingCache;
  let batchSize: number;
  try {
    const ws = loadWorkspace(values.config);
    topics = positionals.map((p) => topicSettings(p, ws.config));
    const seen = new Map<string, string>();
    for (const t of topics) {
      const other = seen.get(resolve(t.dir));
      if (other !== undefined) throw new UsageError(`${other} and ${t.dir} are the same topic`);
      seen.set(resolve(t.dir), t.dir);
      // One manifest per document name: chunking-tool refuses two sources of one name, and
      // topic-spec read the first one's manifest for both, writing its chunks twice, exit 0.
      const docs = new Map<string, string>();
      for (const source of t.sources) {
        const doc = docNameOf(source);
        const first = docs.get(doc);
        if (first !== undefined) throw new UsageError(`${join(t.dir, first)} and ${join(t.dir, source)} would both use the chunk manifest ${join(t.dir, '_chunks', `${doc}.json`)}; rename one of them`);
        docs.set(doc, source);
      }
    }
    provider = createProvider({ provider: 'local', ...ws.config.embeddings }, io.env ?? process.env);
    // One call keeps every concurrent request busy; its results are cached before the next
    // call, so a provider that dies mid-topic loses at most one call's worth of work.
    batchSize = cacheBatchSize(ws.config.embeddings);
    // The cache folder is written in, never swapped in whole (staged: false), and its deepest
    // paths are its own layout's, not any one name (the default 255 bytes, and the stage of a
    // folder beside it): --cache-dir paths the cache fits in were refused.
    checkFolderOption('cache-dir', values['cache-dir'], { staged: false, longestInside: cacheLongestInside(provider.model) });
    const cacheRoot = resolve(values['cache-dir'] ?? join(ws.root, '.embedding-cache'));
    const blocked = cacheFolderProblem(cacheRoot);
    if (blocked !== null) throw new UsageError(`${values['cache-dir'] !== undefined ? `--cache-dir ${oneLine(values['cache-dir'])}` : 'the embedding cache (.embedding-cache beside the config)'}: ${blocked}`);
    cache = new EmbeddingCache(cacheRoot);
    // A cache folder of its own (the Nx plugin's `.embedding-cache/<project>`) starts empty when
    // the topic is renamed or moved, while its vectors sit in the old project's folder beside it:
    // a text missing here is taken from there (validated, read-only) rather than paid for again.
    if (values['cache-dir'] !== undefined) cache.reuseFrom(siblingCacheRoots(cache.root));
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError || (err instanceof EmbeddingError && err.kind === 'config')) {
      io.stderr(errorLines(err).map((line) => `topic-spec: ${line}\n`).join(''));
      return 2;
    }
    throw err;
  }
  cache.onCorrupt = (path, reason) => io.stderr(`topic-spec: embedding cache entry ${oneLine(path)} was corrupt (${reason}); rebuilding it\n`);
  if (values['prune-cache']) cache.trackUse();

  const summaries: TopicSummary[] = [];
  const errors: { topic: string; error: string }[] = [];
  for (const topic of topics) {
    try {
      summaries.push(await specOne(topic, provider, cache, batchSize, values['prompt-threshold'], (line) => io.stderr(`topic-spec: ${oneLine(line)}\n`)));
    } catch (err) {
      // A folder that cannot be written fails its own topic only; the others are still written.
      if (isFsError(err)) {
        const message = describeFsError(err);
        errors.push({ topic: topic.dir, error: message });
        io.stderr(`topic-spec: ${oneLine(message)}\n`);
        continue;
      }
      if (!isDocumentProblem(err)) throw err;
      const message = (err as Error).message;
      errors.push({ topic: topic.dir, error: message });
      io.stderr(`topic-spec: ${oneLine(topic.dir)}: ${oneLine(message)}\n`);
    }
  }

  // After a failure the unused entries may be exactly what the next run needs: keep them.
  if (values['prune-cache'] && errors.length === 0) cache.pruneUnused();

  if (values.json) {
    io.stdout(`${JSON.stringify({ topics: summaries, errors }, null, 2)}\n`);
  } else {
    for (const s of summaries) {
      // counted: "1 chunks, 1 questions" for a one-chunk topic, as the other tools' summaries were.
      const qs = s.questions ? `, ${counted(s.questions, 'question')} (${s.matchedQuestions} matched)` : '';
      io.stdout(
        `${oneLine(s.topic)}: ${counted(s.chunks, 'chunk')}${qs}${s.technicalBaseline ? ', technical baseline' : ''}; embedded ${s.embedded}, cached ${s.cached} -> ${oneLine(s.out)}\n`,
      );
    }
  }
  return errors.length ? 1 : 0;
}

/**
 * Bytes of the longest path the embedding cache writes below its root for `model`, temp names
 * included, from its layout (@chunkyard/embedding-cache): a text's vector at
 * `_by-text/<model>/<hh>/<sha256>.bin`, first written beside itself under fs-atomic's temp
 * name; a document's entry `<strategyKey>/<model>/<16 hex>/` (metadata.json, chunk-<n>.bin),
 * first filled as a temp folder beside it. The model's folder name is the real one; a strategy
 * key comes from a manifest, known only later, so its folder is taken at the longest the
 * encoding gives, and a chunk's number at the longest a manifest's list can hold.
 */
export function cacheLongestInside(model: string): number {
  const bytes = (s: string) => Buffer.byteLength(s);
  const temp = (name: string) => bytes(basename(tempName(join(sep, name))));
  const modelDir = bytes(encodePathSegment(model));
  // encodePathSegment cuts a long value to a bounded folder name: its longest, found by asking it.
  let strategyDir = 0;
  for (let n = 1; n <= 256; n++) strategyDir = Math.max(strategyDir, bytes(encodePathSegment('a'.repeat(n))));
  const textEntry = bytes(TEXT_STORE_DIR) + 1 + modelDir + 1 + 2 + 1 + temp(`${'0'.repeat(64)}.bin`);
  const entryFile = Math.max(bytes('metadata.json'), bytes(`chunk-${2 ** 32 - 2}.bin`));
  const documentEntry = strategyDir + 1 + modelDir + 1 + temp('0'.repeat(16)) + 1 + entryFile;
  return Math.max(textEntry, documentEntry);
}

/**
 * Why the cache folder `root` cannot be made, or null: a link that leads nowhere where it or a
 * folder above it should be, or a file above it. These failed every topic alike, each with
 * exit 1 and the same line naming neither --cache-dir nor the cache; a usage error says it
 * once (exit 2) before anything is written. Whatever only an attempt can tell (permissions, a
 * file system that refuses folders) is still each topic's own failure.
 */
function cacheFolderProblem(root: string): string | null {
  for (let p = root; ; p = dirname(p)) {
    let stat: Stats;
    try {
      stat = statSync(p);
    } catch (err) {
      const link = brokenLink(p);
      if (link !== null) return `${oneLine(p)} is ${link}`;
      const code = (err as NodeJS.ErrnoException).code;
      // Not there, or below a file or a looping link: the folder above tells which.
      if ((code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') && dirname(p) !== p) continue;
      return null;
    }
    if (stat.isDirectory()) return null;
    return `${oneLine(p)} is ${stat.isFile() ? 'a file' : fileKind(stat)}, where the cache needs a folder; give a --cache-dir that can be a folder`;
  }
}

function isDocumentProblem(err: unknown): boolean {
  return (
    err instanceof DocumentError ||
    err instanceof ManifestError ||
    err instanceof KeywordTableError ||
    err instanceof QaPairsError ||
    err instanceof EmbeddingError
  );
}

/** A file of the topic could not be read; the message names it. */
class DocumentError extends Error {}

/**
 * `rebuild` is what to run for a file an earlier step wrote: readDocument's advice for a FIFO
 * or a device, "point it at a markdown file", was wrong for a generated manifest or table. It
 * is known by topic-io's error code (`not-regular`), not by the words of its message.
 */
function read(file: string, opts: { allowEmpty?: boolean; rebuild?: string } = {}): string {
  try {
    return readDocument(file, opts);
  } catch (err) {
    if (opts.rebuild !== undefined && err instanceof DocumentReadError && err.code === 'not-regular') throw new DocumentError(`${file}: ${err.reason}; ${opts.rebuild}`);
    throw new DocumentError(`${file}: ${(err as Error).message}`);
  }
}

/**
 * Refuses a manifest chunked from another version of its source: the source edited (or
 * replaced) since chunking-tool ran, and topic-spec run by hand. The spec was written from the
 * old chunks, exit 0, under the old hash. A source that cannot be read is left to
 * chunking-tool to report: the manifest is all a spec needs.
 */
function checkChunkedVersion(source: string, sourceSha256: string, manifestFile: string): void {
  let text: string;
  try {
    // chunking-tool's own read (BOM dropped, UTF-8 checked), so that equal text hashes equal.
    text = readDocument(source);
  } catch {
    return;
  }
  if (sha256Hex(text) !== sourceSha256) {
    throw new DocumentError(`${manifestFile}: chunked from another version of ${source} (it changed since); run chunking-tool on the topic again (nx run <topic>:chunk)`);
  }
}

/**
 * Whether a build output (a chunk manifest, words.md) is there to be read: false only when
 * nothing is (ENOENT, ENOTDIR); a link is there, and its read names it broken. existsSync said
 * no for anything it could not stat, so a manifest that is a dangling link and a `_chunks/` or
 * `_keywords/` the user may not search (EACCES) read as "no chunk manifest; run chunking-tool"
 * (issue 15 probe). A folder that cannot be looked in is named with the system's reason.
 */
function builtOutput(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      // The output's folder may be what is wrong: a file or FIFO where _chunks/ goes (ENOTDIR),
      // a dangling link for it (ENOENT). Each read "no chunk manifest; run chunking-tool", as
      // if never built (issue 15 probe); absent, it is the missing step.
      const dir = dirname(file);
      if (brokenLink(dir) !== null) throw new DocumentError(`${oneLine(dir)}: ${brokenLink(dir)}`);
      if (code === 'ENOTDIR' && entryExists(dir)) throw new DocumentError(`${oneLine(dir)}: not a folder (${describedKind(dir)}); remove or rename it, then build the topic again`);
      return false;
    }
    if (isFsError(err)) {
      // lstat fails so when a folder on the way may not be searched: name the output's folder.
      err.path = dirname(file);
      throw new DocumentError(describeFsError(err));
    }
    throw err;
  }
}

/** "a regular file", "a FIFO (named pipe)": what stands where a folder is expected. */
function describedKind(p: string): string {
  const stat = statSync(p);
  return stat.isFile() ? 'a regular file' : fileKind(stat);
}

/** The folders of a topic an earlier step swaps in whole, and the step that builds each. */
const BUILT_FOLDERS = [
  { name: '_chunks', step: 'chunk', tool: 'chunking-tool' },
  { name: '_keywords', step: 'keywords', tool: 'keyword-extractor' },
] as const;

/**
 * A chunking-tool (or keyword-extractor) SIGKILLed between StagedDir.commit's two renames left
 * the topic no `_chunks/` (`_keywords/`), only the previous folder moved aside
 * (`._chunks.aside-*`) and the new one staged: topic-spec failed with "no chunk manifest; run
 * chunking-tool", though it writes topic-spec.md in the topic, and that write's sweep of killed
 * runs' temps puts the previous folder back; it came only after the reads. The sweep is done
 * first, as index-tool does. What is left then is a run still alive (or another pid space's
 * temp): named, with the topic and what to run.
 */
function interruptedBuilds(dir: string): void {
  removeStaleTemps(dir);
  for (const { name, step, tool } of BUILT_FOLDERS) {
    const left = unfinishedBuild(dir, name);
    if (left === null) continue;
    throw new DocumentError(
      `this topic has no ${name}/, only ${basename(left.temp)}: a ${tool} run is running now, or one was killed before it put its folder in; wait for it, or run ${tool} on the topic again (nx run <topic>:${step}), then topic-spec`,
    );
  }
}

async function specOne(
  topic: TopicSettings,
  provider: EmbeddingProvider,
  cache: EmbeddingCache,
  batchSize: number,
  thresholdFlag: number | undefined,
  warn: (line: string) => void,
): Promise<TopicSummary> {
  const threshold = thresholdFlag ?? topic.config.spec?.promptThreshold ?? DEFAULT_PROMPT_THRESHOLD;
  interruptedBuilds(topic.dir);
  const manifests = topic.sources.map((s) => {
    const file = join(topic.dir, '_chunks', `${docNameOf(s)}.json`);
    if (!builtOutput(file)) throw new DocumentError(`${file}: no chunk manifest; run chunking-tool on the topic first (nx run <topic>:chunk)`);
    const text = read(file, { rebuild: 'run chunking-tool on the topic again (nx run <topic>:chunk)' });
    const manifest = readManifest(text, file);
    checkChunkedVersion(join(topic.dir, s), manifest.sourceSha256, file);
    // What index-tool checks the manifest it finds against: a chunk step run again with other
    // settings keeps the source's hash, so sourceSha256 alone did not tell the runs apart.
    return { doc: docNameOf(s), manifest, manifestSha256: sha256Hex(text) };
  });
  const wordsFile = join(topic.dir, WORDS);
  if (!builtOutput(wordsFile)) throw new DocumentError(`${wordsFile}: no keyword table; run keyword-extractor on the topic first (nx run <topic>:keywords)`);
  const keywords = parseWordsMd(read(wordsFile, { rebuild: 'run keyword-extractor on the topic again (nx run <topic>:keywords)' }), wordsFile);
  const qaFile = join(topic.dir, QA_PAIRS);
  // entryExists, not existsSync (which follows links): a qa-pairs.md symlink whose target is
  // gone read as "no questions", and the spec was written without its prompt hashes, exit 0
  // and no word. Found, the link is read and reported broken (exit 1, the old spec kept).
  const qaText = entryExists(qaFile) ? read(qaFile, { allowEmpty: true }) : null;
  const questions = qaText === null ? [] : parseQaPairs(qaText, qaFile).map((p) => p.question);
  // A qa-pairs.md that is there but gives no question is most likely a mistake (a file emptied,
  // questions written without their `?`): said, and the spec is written without prompt
  // questions, as for a topic with no such file. It was silent (issue 15).
  if (qaText !== null && questions.length === 0) {
    const why = qaText.trim() === '' ? 'empty' : 'no question in it (a question is a "## " heading ending with "?")';
    warn(`${qaFile}: ${why}, so the spec has no prompt questions`);
  }

  const embedder = withProgress(provider, topic.dir);
  // Every text set of the topic: each document's chunks, then the questions.
  const sets: { key: { strategyKey: string; fileHash: string }; texts: string[]; vectors: Float32Array[]; embedded: number }[] = [];
  const embedSet = async (key: { strategyKey: string; fileHash: string }, texts: string[], dimensions: number | null) => {
    // The provider's dimension once known (local, configured, or learned from a response):
    // cached vectors of another length, a model tag that moved, are embedded again.
    const r = await embedThroughCache(cache, embedder, key, texts, { batchSize, ...(dimensions !== null ? { dimensions } : {}) });
    return { key, texts, vectors: r.vectors, embedded: r.stats.embedded };
  };
  for (const { manifest } of manifests) {
    sets.push(await embedSet({ strategyKey: manifest.strategyKey, fileHash: manifest.sourceSha256 }, manifest.chunks.map((c) => c.embedText), provider.dimensions));
  }
  if (questions.length) sets.push(await embedSet({ strategyKey: 'qa-pairs', fileHash: sha256Hex(qaText!) }, questions, provider.dimensions));
  // A set served whole from the cache before the provider's first answer may hold vectors of
  // another length than those embedded after it (a model tag like `:latest` that moved to a
  // version of another size; the document entry was kept): the spec compares every question
  // with every chunk, and cosine's RangeError escaped with a stack trace. Those sets are
  // embedded again at the provider's length, asking it once when nothing told it yet.
  const lengths = new Set(sets.flatMap((set) => set.vectors.map((v) => v.length)));
  let target = provider.dimensions;
  if (target === null && lengths.size > 1) target = (await embedder.embed([sets[0]!.texts[0]!]))[0]!.length;
  if (target !== null) {
    for (let i = 0; i < sets.length; i++) {
      const set = sets[i]!;
      if (set.vectors.some((v) => v.length !== target)) sets[i] = await embedSet(set.key, set.texts, target);
    }
  }
  const documents: SpecInputDocument[] = manifests.map(({ doc, manifest, manifestSha256 }, i) => ({
    doc,
    source: manifest.source,
    strategyKey: manifest.strategyKey,
    sourceSha256: manifest.sourceSha256,
    manifestSha256,
    fileTitle: manifest.fileTitle,
    chunks: manifest.chunks,
    vectors: sets[i]!.vectors,
  }));
  const questionVectors: Float32Array[] = questions.length ? sets[manifests.length]!.vectors : [];
  const embedded = sets.reduce((n, set) => n + set.embedded, 0);
  const cached = sets.reduce((n, set) => n + set.texts.length - set.embedded, 0);
  const dimensions = provider.dimensions ?? documents[0]?.vectors[0]?.length ?? 0;
  const out = join(topic.dir, OUT_FILE);
  let spec: TopicSpec;
  try {
    spec = buildTopicSpec({
      title: manifests[0]?.manifest.fileTitle ?? topic.dir,
      embedding: { provider: provider.provider, model: provider.model, dimensions },
      documents,
      keywords,
      questions: questions.map((question, i) => ({ question, vector: questionVectors[i]! })),
      promptThreshold: threshold,
    });
  } catch (err) {
    // Questions × chunks over the limit: a file too big to write or read back, which was a
    // RangeError (Invalid string length) and a stack trace after minutes. The old file stays.
    if (err instanceof PromptHashLimitError) throw new DocumentError(`${out}: not written (a previous one is kept as it was): ${err.message}`);
    throw err;
  }
  try {
    // parents: false: a topic folder removed during the run stays removed (it came back
    // holding only topic-spec.md).
    writeFileAtomic(out, formatTopicSpecMd(spec), { parents: false });
  } catch (err) {
    if (err instanceof FolderGoneError) throw new DocumentError('the topic folder was removed during the run; nothing written');
    throw err;
  }
  const matched = new Set(spec.chunks.flatMap((c) => c.prompt_hashes ?? []));
  return {
    topic: topic.dir,
    out: relative(process.cwd(), out),
    chunks: spec.chunks.length,
    questions: questions.length,
    matchedQuestions: spec.questions.filter((q) => matched.has(q.hash)).length,
    technicalBaseline: spec.documents.some((d) => d.baseline_technical !== undefined),
    embedded,
    cached,
  };
}

/** The provider, drawing a progress bar (on a terminal, outside CI) while it embeds. */
function withProgress(provider: EmbeddingProvider, label: string) {
  return {
    model: provider.model,
    async embed(texts: string[]): Promise<Float32Array[]> {
      const bar = progressReporter(texts.length, `embedding ${label} (${provider.model})`);
      try {
        return await provider.embed(texts, { onProgress: (done) => bar.update(done) });
      } finally {
        bar.stop();
      }
    },
  };
}

function parseCli(argv: string[]) {
  const options = {
    config: { type: 'string' },
    'cache-dir': { type: 'string' },
    'prune-cache': { type: 'boolean', default: false },
    'prompt-threshold': { type: 'string' },
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
  const empty = emptyArgument(parsed.values, parsed.positionals, ['prompt-threshold']);
  if (empty) throw new Error(empty);
  let threshold: number | undefined;
  const raw = parsed.values['prompt-threshold'];
  if (raw !== undefined) threshold = numberOption('--prompt-threshold', raw, { min: 0, max: 1, whole: false }, Error);
  if (!parsed.values.help && !parsed.values.version && parsed.positionals.length === 0) throw new Error('no topic folder given');
  return { positionals: parsed.positionals, values: { ...parsed.values, 'prompt-threshold': threshold } };
}

// Run when executed directly (node dist/main.js …), not when imported by the bin or tests.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}

/** For the bin: a failed write to its stdout (a full disk) is one line naming it, not a stack trace. */
export function exitOnStdoutError(tool: string): void {
  exitOnStdoutErrorOf(tool);
}
