/**
 * docs-score: seed 000's aio-scorer, offline. Checks built topics and, on request,
 * measures retrieval quality on question sets.
 *
 *   docs-score <topic-dir | docs-dir ...> [--qa] [--questions FILE.csv] [--json]
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brokenLink, emptyArgument, escapeControl, fileProblem, folderProblem, numberOption, oneLine, parseCliArgs, RealPaths } from '@chunkyard/fs-atomic';
import { createProvider, EmbeddingError, type EmbeddingSettings } from '@chunkyard/embeddings';
import { checkIndexes, checkTopic, checkUniqueIds, QuestionsError, report, Tally, type BuiltReport, type Finding, type GraphReport, type Stat } from '@chunkyard/quality';
import { QaPairsError } from '@chunkyard/qa-pairs';
import { ConfigError, describeFsError, guardEnvironment, isFsError, loadWorkspace, rangesHelp, UsageError } from '@chunkyard/topic-io';
import { findTarget, loadIndexes, loadTopic, topicId, type Target } from './load.js';
import { corporaOf, csvQuestions, measureRetrieval, qaQuestions, readText, usableTopics, type RetrievalReport } from './retrieval.js';
import { createChatClient, LlmError, type LlmSettings } from '@chunkyard/llm';
import { answerDocsOf, DEFAULT_THRESHOLDS, formatAnswers, measureAnswers, METRICS, parseMetrics, parseQueries, QueriesError, type AnswerReport, type MetricName, type Thresholds } from './answers.js';
import { exitOnStdoutError as exitOnStdoutErrorOf } from '@chunkyard/fs-atomic';

/** This package's version, read from its own package.json (../ from src/ and dist/ alike), so an installed copy reports itself. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/** Seed 000: "Any dangling or circular CT graph edges trigger immediate failure (EXIT_CODE=13)". */
export const EXIT_CONTINUITY = 13;

export const HELP = `docs-score — check built topics and measure their retrieval quality

Usage:
  docs-score <topic-dir | docs-dir ...> [options]

Every topic (a folder holding golden-reference.md) at or below each folder is
checked, as its last build left it (_chunks/<doc>.json, _chunks/<doc>-N.md,
_chunks/chunks.json for paginate, index.json):

  continuity  prevId/nextId of every chunk (per tier for hierarchical), the
              <!--CT {...}--> comments of pages and chunks.json's CT graph:
              dangling, circular or duplicate ids break the graph, and so
              does an id two documents of one topic share; a pointer that
              disagrees with reading order is a continuity miss
  tokens      every chunk within its cap (maxTokens; the tier's max; Nmax for
              pages, CT comment and lead lines included), counts recorded exactly
  markdown    every chunk file: no unclosed code fence, no table rows without
              their header and delimiter row
  offsets     source.slice(charStart, charEnd) is the chunk's text; each chunk
              file holds its chunk; no missing or stale chunk files
  checksum    the manifest's sourceSha256 matches the source; chunks.json's
              checksum and per-page SHA-256 match
  hrefs       every link of every index.json resolves to a file

It prints a table, the failures, and seed 000's Pagination Integrity Score:
PIS = continuity hits / (hits + misses) x 100.

Retrieval quality (the Chroma chunking-evaluation metric: recall, precision,
IoU and precision_omega over characters, top k of one pooled collection):
  --qa                 questions from each topic's qa-pairs.md (its excerpts)
  --questions FILE     questions from a CSV in the Chroma format (question,
                       references, corpus_id); corpus_id is <topic> (its
                       golden-reference) or <topic>/<doc>, <topic> being the
                       topic's path below the folder given
  --k N                chunks retrieved per question, 1..1000 (default 5)
  --min-recall X       fail (exit 1) when mean recall is below X (0..1); with
                       --qa or --questions only, as --min-iou
  --min-iou X          fail (exit 1) when mean IoU is below X (0..1)
  --provider NAME      embedder: local (default, offline), ollama or openai;
                       other settings from the config's embeddings: section
  --config FILE        chunkyard.config.yaml (default: ./chunkyard.config.yaml)

LLM evaluation (seed 000's protocol; the model from the config's llm: section):
  --queries FILE       queries.yaml: questions with reference answers (README)
  --metrics LIST       any of f1,recall,pis,latency (default: all four)
                       f1       answer F1 (also exact match and semantic) of the
                                experimental group: the top --k chunks of the
                                document restored through the CT graph
                                (prev/next); the control group gets the
                                unsplit document
                       recall   Context Recall: share of the reference's
                                required tokens in the restored context
                       pis      Pagination Integrity Score of the checks
                       latency  Latency Delta, experimental vs control
  --min-f1 X           gate, 0..1 (default 0.92); the gates need --queries
  --min-context-recall X
                       gate, 0..1 (default 0.97)
  --min-pis X          gate, 0..100 (default 98)
  --max-latency-delta P
                       gate in percent, -100..10000 (default 15, i.e. at most +15%)
  Without an llm: section, f1 and latency are skipped with a one-line
  message; recall and PIS still run. A failed gate exits 1.

Other options:
  --json               print the full report as JSON on stdout
  -h, --help           show this help
  --version            print docs-score's version

Numeric config settings (llm.temperature a number, the others whole numbers);
outside its range a value is a config error (exit 2) naming file:line, the key and
what was given:
  embeddings:
${rangesHelp('embeddings', '    ', 80)}
  llm:
${rangesHelp('llm', '    ', 80)}

Exit status: 0 every check passed; 13 a continuity graph is broken (dangling,
circular or duplicate ids; seed 000); 1 another check failed, or retrieval is
below a --min threshold, or a --queries gate failed; 2 usage or config error
(unknown option, no topic found, bad question or queries file, a --config that
cannot be read or is not valid).
`;

type Io = { stdout: (s: string) => void; stderr: (s: string) => void };
const defaultIo: Io = { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) };

interface Options {
  json: boolean;
  qa: boolean;
  questions: string | undefined;
  k: number;
  minRecall: number | null;
  minIou: number | null;
  provider: string | undefined;
  config: string | undefined;
  queries: string | undefined;
  metrics: MetricName[];
  thresholds: Thresholds;
}

export interface ScoreResult {
  targets: string[];
  topics: string[];
  passed: boolean;
  exitCode: number;
  checks: BuiltReport;
  retrieval: RetrievalReport | null;
  /** The LLM evaluation of --queries; null without it. */
  answers: AnswerReport | null;
}

function fraction(name: string, v: string | undefined): number | null {
  return v === undefined ? null : numberOption(`--${name}`, v, { min: 0, max: 1, whole: false }, UsageError);
}

function parse(argv: string[]): { opts: Options; dirs: string[] } | 'help' | 'version' {
  const options = {
    json: { type: 'boolean', default: false },
    qa: { type: 'boolean', default: false },
    questions: { type: 'string' },
    k: { type: 'string', default: '5' },
    'min-recall': { type: 'string' },
    'min-iou': { type: 'string' },
    provider: { type: 'string' },
    config: { type: 'string' },
    queries: { type: 'string' },
    metrics: { type: 'string' },
    'min-f1': { type: 'string' },
    'min-context-recall': { type: 'string' },
    'min-pis': { type: 'string' },
    'max-latency-delta': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
    version: { type: 'boolean', default: false },
  } as const;
  const { values, positionals } = parseCliArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options,
  });
  if (values.help) return 'help';
  if (values.version) return 'version';
  const empty = emptyArgument(values, positionals, ['k', 'min-recall', 'min-iou', 'min-f1', 'min-context-recall', 'min-pis', 'max-latency-delta']);
  if (empty) throw new UsageError(empty);
  if (positionals.length === 0) throw new UsageError('no topic or docs folder given');
  const k = numberOption('--k', values.k!, { min: 1, max: 1000 }, UsageError);
  // A folder or FIFO given for a questions file is a bad question file (exit 2, as the help says),
  // found before any embedding work; it was exit 1 after the checks ran.
  const inputFile = (name: string, file: string | undefined, what: string): void => {
    if (file === undefined) return;
    const problem = fileProblem(file);
    if (problem) throw new UsageError(`--${name} ${escapeControl(file)}: ${problem.reason}${problem.problem === 'not-a-file' ? `; give ${what}` : ''}`);
  };
  inputFile('questions', values.questions, 'a CSV file (question,references,corpus_id)');
  inputFile('queries', values.queries, 'a queries.yaml file');
  if (values.metrics !== undefined && values.queries === undefined) throw new UsageError('--metrics needs --queries FILE (questions with reference answers)');
  // Checked here, not by the embedder after the checks ran: its message (exit 1) said to set
  // embeddings.provider in the config, for a word typed on the command line.
  if (values.provider !== undefined && !(PROVIDERS as readonly string[]).includes(values.provider)) {
    throw new UsageError(`--provider: expected ${PROVIDERS.slice(0, -1).join(', ')} or ${PROVIDERS.at(-1)}, got ${JSON.stringify(values.provider)}`);
  }
  const number = (name: string, v: string | undefined, min: number, max: number, fallback: number): number =>
    v === undefined ? fallback : numberOption(`--${name}`, v, { min, max, whole: false }, UsageError);
  const thresholds: Thresholds = {
    f1: number('min-f1', values['min-f1'], 0, 1, DEFAULT_THRESHOLDS.f1),
    contextRecall: number('min-context-recall', values['min-context-recall'], 0, 1, DEFAULT_THRESHOLDS.contextRecall),
    pis: number('min-pis', values['min-pis'], 0, 100, DEFAULT_THRESHOLDS.pis),
    latencyDeltaPct: number('max-latency-delta', values['max-latency-delta'], -100, 10_000, DEFAULT_THRESHOLDS.latencyDeltaPct),
  };
  const minRecall = fraction('min-recall', values['min-recall']);
  const minIou = fraction('min-iou', values['min-iou']);
  // A gate without the measurement it gates was ignored (exit 0), so "docs-score docs
  // --min-recall 0.9" in CI passed whatever the retrieval: each is refused, after its range.
  const retrieval = values.qa! || values.questions !== undefined;
  for (const name of ['min-recall', 'min-iou'] as const) {
    if (values[name] !== undefined && !retrieval) throw new UsageError(`--${name} needs --qa or --questions FILE (the retrieval it gates)`);
  }
  if (values.provider !== undefined && !retrieval && values.queries === undefined) {
    throw new UsageError('--provider needs --qa, --questions FILE or --queries FILE (the embedding it chooses)');
  }
  for (const name of ['min-f1', 'min-context-recall', 'min-pis', 'max-latency-delta'] as const) {
    if (values[name] !== undefined && values.queries === undefined) throw new UsageError(`--${name} needs --queries FILE (the evaluation it gates)`);
  }
  return {
    dirs: positionals,
    opts: {
      json: values.json!,
      qa: values.qa!,
      questions: values.questions,
      k,
      minRecall,
      minIou,
      provider: values.provider,
      config: values.config,
      queries: values.queries,
      metrics: values.metrics === undefined ? [...METRICS] : parseMetrics(values.metrics),
      thresholds,
    },
  };
}

/** The embedders --provider names (the config's embeddings.provider takes the same). */
const PROVIDERS = ['local', 'ollama', 'openai'] as const satisfies readonly NonNullable<EmbeddingSettings['provider']>[];

const pct = (s: Stat): string => `${(100 * s.mean).toFixed(1)} ± ${(100 * s.std).toFixed(1)}`;

function formatChecks(r: BuiltReport, topics: number): string {
  const lines = [`${topics} topic(s)`, '', 'check        checked  failed  status'];
  for (const t of r.tallies) {
    const status = t.checked === 0 ? 'n/a' : t.failed === 0 ? 'pass' : 'FAIL';
    lines.push(`${t.check.padEnd(12)} ${String(t.checked).padStart(7)} ${String(t.failed).padStart(7)}  ${status}`);
  }
  // With no graph there is nothing to score: 100 (no misses among no hits) read as a pass
  // on a docs folder whose topics were never built.
  lines.push('', r.graphs === 0 ? 'Pagination Integrity Score: n/a (no continuity graph: no built chunks to check)' : `Pagination Integrity Score: ${r.pis.toFixed(1)} (${r.graphs} continuity graph(s))`);
  if (r.findings.length) {
    lines.push('', 'Failures:');
    const shown = r.findings.slice(0, 200);
    // oneLine: a path or id holding a line break (a folder named "a\nb", an id in a hand-edited
    // manifest) split a failure in two, and the second half could pass for a line of the report.
    for (const f of shown) lines.push(`  ${f.check}${f.graphBreak ? ' (graph broken)' : ''}: ${oneLine(f.file)}: ${oneLine(f.message)}`);
    if (r.findings.length > shown.length) lines.push(`  … and ${r.findings.length - shown.length} more (see --json)`);
  }
  return `${lines.join('\n')}\n`;
}

function formatRetrieval(r: RetrievalReport): string {
  const lines = [
    '',
    `Retrieval: ${r.questions} question(s), ${r.chunks} chunks pooled, k = ${r.k}, embedder ${r.embedder} (percent, mean ± population std)`,
    '',
    '| corpus | questions | recall | precision | precision_Ω | IoU |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const [id, s] of [...Object.entries(r.corpora), ['(all)', r.all] as const]) {
    lines.push(`| ${oneLine(id)} | ${s.recall.n} | ${pct(s.recall)} | ${pct(s.precision)} | ${pct(s.precisionOmega)} | ${pct(s.iou)} |`);
  }
  return `${lines.join('\n')}\n`;
}

/** --qa found no question: the files read named (a few; each was named above with its reason). */
function noQaQuestions(files: readonly string[], unbuilt: readonly string[]): string {
  const few = (list: readonly string[]) => `${list.slice(0, 5).map(oneLine).join(', ')}${list.length > 5 ? `, and ${list.length - 5} more` : ''}`;
  let message = 'no qa-pairs.md with reference excerpts in the scored topics';
  if (files.length > 0) message += ` (read ${files.length}: ${few(files)})`;
  // A topic never built has no chunks to retrieve, so its qa-pairs.md is not read: this was the
  // whole message for a docs tree not yet built, which sent users looking at their questions.
  if (unbuilt.length > 0) message += `; ${unbuilt.length === 1 ? '1 topic is' : `${unbuilt.length} topics are`} not built (${few(unbuilt)}): build them first (npx nx run-many -t index)`;
  return message;
}

async function score(dirs: string[], opts: Options, io: Io): Promise<ScoreResult> {
  // A --config given is read and checked first, whatever else is asked: the checks alone never
  // opened it, so a typo in its path or a broken file passed silently until a later --qa run.
  // The default ./chunkyard.config.yaml is read only when embedding needs it.
  const given = opts.config !== undefined ? loadWorkspace(opts.config) : null;
  const workspace = () => given ?? loadWorkspace(opts.config);
  const targets: Target[] = dirs.map(findTarget);
  // Once each, though a folder given twice (or within another given) walks past it twice.
  for (const link of new Set(targets.flatMap((t) => t.skippedLinks.map((s) => `${s.link}\0${s.real}`)))) {
    const [path, real] = link.split('\0') as [string, string];
    io.stderr(`docs-score: ${oneLine(path)}: a symlinked folder (it leads to ${oneLine(real)}), skipped: the walk does not follow links (one could lead back into the tree or out of it); give the folder itself to score it\n`);
  }
  const tally = new Tally();
  const graphs: GraphReport[] = [];
  const loaded: { id: string; topic: NonNullable<ReturnType<typeof loadTopic>> }[] = [];
  const topicDirs: string[] = [];
  const unbuilt: string[] = [];
  // A topic reached twice (given twice, or as a topic and within a docs folder given too) is
  // scored once: it was checked and counted twice ("2 topic(s)", every tally doubled), and its
  // questions asked twice. The same holds for an index.json.
  const seen = new Set<string>();
  const realPaths = new RealPaths();
  const firstTime = (p: string): boolean => {
    let key = resolve(p);
    try {
      key = realPaths.of(p);
    } catch {
      // unreadable: its own check reports it
    }
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  for (const target of targets) {
    for (const dir of target.topics) {
      if (!firstTime(dir)) continue;
      topicDirs.push(dir);
      const topic = loadTopic(dir);
      if (!topic || topic.documents.length === 0) {
        tally.item('offsets', false, dir, () => chunksFolderProblem(dir) ?? 'not built: no _chunks/<doc>.json manifest (run chunking-tool first)');
        unbuilt.push(dir);
        continue;
      }
      checkTopic(topic, tally, graphs);
      // Each graph above is one document's; ids must also be unique across the topic (seed 000's CT collision).
      checkUniqueIds(topic, tally);
      loaded.push({ id: topicId(target, dir), topic });
    }
    checkIndexes(loadIndexes(target.indexes.filter(firstTime)), (f) => existsSync(f), tally);
  }
  const checks = report(tally, graphs);

  // Scoring reads only the documents the checks could read; each other one is named once.
  const scored = opts.qa || opts.questions || opts.queries ? usableTopics(loaded) : { topics: loaded, skipped: [] };
  for (const s of scored.skipped) io.stderr(`docs-score: ${oneLine(s.file)}: ${oneLine(s.problem)}, so its document adds nothing to the scores (rebuild: npx nx run-many -t index)\n`);

  let retrieval: RetrievalReport | null = null;
  if (opts.qa || opts.questions) {
    const corpora = corporaOf(scored.topics);
    const qa = opts.questions ? null : qaQuestions(scored.topics, corpora);
    // As a skipped link: named on stderr, and the run goes on with the other topics' questions.
    for (const f of qa?.files ?? []) if (f.problem !== null) io.stderr(`docs-score: ${oneLine(f.file)}: ${f.problem}, so its topic adds no question to the retrieval score\n`);
    const questions = qa ? qa.questions : csvQuestions(opts.questions!, corpora);
    if (questions.length === 0) throw new UsageError(opts.questions ? `${opts.questions}: no questions` : noQaQuestions(qa!.files.map((f) => f.file), unbuilt));
    const ws = workspace();
    const settings = { provider: 'local', ...(ws.config.embeddings ?? {}), ...(opts.provider ? { provider: opts.provider } : {}) } as EmbeddingSettings;
    if (!opts.json) io.stderr(`docs-score: embedding ${corpora.reduce((n, c) => n + c.spans.length, 0)} chunks and ${questions.length} questions (${settings.provider})…\n`);
    retrieval = await measureRetrieval(questions, corpora, createProvider(settings), opts.k);
  }

  let answers: AnswerReport | null = null;
  if (opts.queries) {
    const file = opts.queries;
    const queries = parseQueries(readText(file, (problem) => new QueriesError(`${file}: ${problem}`)), file);
    const ws = workspace();
    const settings = { provider: 'local', ...(ws.config.embeddings ?? {}), ...(opts.provider ? { provider: opts.provider } : {}) } as EmbeddingSettings;
    const llm = ws.config.llm;
    // leadLines and cacheDir are chunking-tool's; the rest are the client's settings.
    const chat = llm?.provider ? createChatClient({ ...llm, provider: llm.provider } as LlmSettings) : null;
    if (!opts.json) io.stderr(`docs-score: ${queries.length} queries, ${chat ? `LLM ${chat.provider}/${chat.model}` : 'no LLM'}, embedder ${settings.provider}…\n`);
    answers = await measureAnswers({
      queries,
      docs: answerDocsOf(scored.topics),
      embedder: createProvider(settings),
      chat,
      k: opts.k,
      hops: 1,
      metrics: opts.metrics,
      thresholds: opts.thresholds,
      pis: checks.pis,
      file: opts.queries,
    });
    for (const s of answers.skipped) io.stderr(`docs-score: ${s}; ${opts.metrics.filter((m) => m === 'recall' || m === 'pis').join(' and ') || 'the checks'} still run\n`);
  }

  const broken = checks.findings.some((f: Finding) => f.graphBreak);
  const failed = checks.findings.length > 0;
  const belowMin =
    retrieval !== null && ((opts.minRecall !== null && retrieval.all.recall.mean < opts.minRecall) || (opts.minIou !== null && retrieval.all.iou.mean < opts.minIou));
  const gateFailed = answers !== null && answers.gates.some((g) => g.status === 'fail');
  const exitCode = broken ? EXIT_CONTINUITY : failed || belowMin || gateFailed ? EXIT_FAILED : EXIT_OK;
  return { targets: targets.map((t) => t.dir), topics: topicDirs, passed: exitCode === EXIT_OK, exitCode, checks, retrieval, answers };
}

/** Runs the CLI; a file-system error that escapes becomes one line and exit 1, never a trace. */
export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  return guardEnvironment('docs-score', io, (safe) => run(argv, safe));
}

async function run(argv: string[], io: Io): Promise<number> {
  try {
    const parsed = parse(argv);
    if (parsed === 'help') {
      io.stdout(HELP);
      return EXIT_OK;
    }
    if (parsed === 'version') {
      io.stdout(`docs-score ${VERSION}\n`);
      return EXIT_OK;
    }
    const { opts, dirs } = parsed;
    const result = await score(dirs, opts, io);
    if (opts.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    else {
      io.stdout(formatChecks(result.checks, result.topics.length));
      if (result.retrieval) io.stdout(formatRetrieval(result.retrieval));
      if (result.answers) io.stdout(formatAnswers(result.answers));
      if (result.retrieval && result.exitCode === EXIT_FAILED && result.checks.findings.length === 0) {
        io.stdout(`\nRetrieval below threshold: recall ${(100 * result.retrieval.all.recall.mean).toFixed(1)}%, IoU ${(100 * result.retrieval.all.iou.mean).toFixed(1)}%\n`);
      }
      if (result.exitCode === EXIT_CONTINUITY) io.stderr('docs-score: continuity graph broken (exit 13, seed 000)\n');
    }
    return result.exitCode;
  } catch (err) {
    // parseArgs throws TypeErrors with ERR_PARSE_ARGS_* codes for unknown or malformed options.
    const usage =
      err instanceof UsageError || err instanceof ConfigError || err instanceof QueriesError || err instanceof QuestionsError || err instanceof QaPairsError || (err as { code?: string })?.code?.startsWith('ERR_PARSE_ARGS') === true;
    if (err instanceof EmbeddingError || err instanceof LlmError) {
      io.stderr(`docs-score: ${err.message}\n`);
      return EXIT_FAILED;
    }
    if (isFsError(err)) {
      io.stderr(`docs-score: ${describeFsError(err)}\n`);
      return EXIT_FAILED;
    }
    // One line (oneLine): the messages name folders, topic ids and files as given, and a CR LF
    // in a folder's name passed the io's escaping, the rest of the name a line of its own. A
    // ConfigError lists a file's problems a line each, its values escaped already.
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(`docs-score: ${err instanceof ConfigError ? message : oneLine(message)}\n`);
    if (usage) {
      io.stderr('Run docs-score --help for usage.\n');
      return EXIT_USAGE;
    }
    return EXIT_FAILED;
  }
}

// Run when executed directly (node dist/main.js …), not when imported by the bin or tests.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}

/** For the bin: a failed write to its stdout (a full disk) is one line naming it, not a stack trace. */
export function exitOnStdoutError(tool: string): void {
  exitOnStdoutErrorOf(tool);
}

/**
 * What stands where a topic's _chunks/ goes when it is neither a folder nor plainly absent: a
 * dangling or looping link, a file, a FIFO. Each read "not built: … (run chunking-tool first)"
 * (issue 15 probe), a dangling link taken for a build never made.
 */
function chunksFolderProblem(dir: string): string | null {
  const chunks = join(dir, '_chunks');
  const problem = folderProblem(chunks);
  if (problem === null || (problem.problem === 'missing' && brokenLink(chunks) === null)) return null;
  return `_chunks/: ${problem.reason}`;
}
