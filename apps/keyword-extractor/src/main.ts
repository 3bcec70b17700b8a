/**
 * KeywordExtractor: the I/O edge around @chunkyard/keywords.
 *
 *   keyword-extractor <topic-dir ...> [--out DIR] [--max N] [--json] [--help]
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, parseConfig } from '@chunkyard/config';
import { assertConfigSize, assertSearchable, checkFolderOption, configText, describeFsError, errorLines, oneLine, entryExists, guardEnvironment, isFsError, readDocument as readTextFile, readRegularFile, readTopicSource, TOPIC_MARKER, topicFolderProblem, UsageError } from '@chunkyard/topic-io';
import { counted, emptyArgument, numberOption, parseCliArgs, processIo, replaceDirAtomic, tempName, writeFileAtomic } from '@chunkyard/fs-atomic';
import { DEFAULT_MAX, extractKeywords, formatWordsMd, KeywordTableError, parseWordsMd, type KeywordEntry } from '@chunkyard/keywords';
import { exitOnStdoutError as exitOnStdoutErrorOf } from '@chunkyard/fs-atomic';

const QA_PAIRS = 'qa-pairs.md';
const HAND_WRITTEN = 'keywords.md';
/** Also accepted: a hand-written words.md beside golden-reference.md (the name seed 001 uses for the table). */
const HAND_WRITTEN_ALIAS = 'words.md';
const OUT_DIR = '_keywords';
const OUT_FILE = 'words.md';

/** This package's version, read from its own package.json (../ from src/ and dist/ alike), so an installed copy reports itself. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The ceiling of --max: a table far longer than anyone reads is a typo, not a wish. */
export const MAX_KEYWORDS = 100_000;

export const HELP = `keyword-extractor — write a topic's keyword authority table (_keywords/words.md)

Usage:
  keyword-extractor <topic-dir ...> [options]

Each argument is a topic folder (a folder holding ${TOPIC_MARKER}). Its sources are
${TOPIC_MARKER} (or the \`sources\` its topic.yaml lists) and ${QA_PAIRS} when present;
generated files (_chunks/, _keywords/, topic-spec.md, index.json) are never read.
A ${HAND_WRITTEN} (or ${HAND_WRITTEN_ALIAS}) in the topic folder holds hand-written keywords in
the same table format: they are always included and their scores win over extracted ones.

The table (| keyword | score |, scores 1-10, best first) goes to
<topic>/${OUT_DIR}/${OUT_FILE}. That folder is replaced as a whole, so it holds exactly ${OUT_FILE}.

Options:
  --out DIR     write ${OUT_FILE} into DIR instead (one topic only, and DIR not a topic
                folder, a topic's _chunks/ or another topic's _keywords/; other files
                in DIR stay)
  --max N       keep at most N keywords, 0..${MAX_KEYWORDS} (default ${DEFAULT_MAX}); hand-written
                ones always stay
  --json        print a JSON summary on stdout instead of text
  -h, --help    show this help
  --version     print keyword-extractor's version

Exit status: 0 success; 1 a document could not be read (missing, a directory, binary,
not UTF-8), ${HAND_WRITTEN} is malformed, or the output folder cannot be written: that topic
keeps its previous ${OUT_FILE}, the other topics are still written; 2 usage or topic.yaml
error (nothing written).
`;

export interface TopicSummary {
  topic: string;
  /** The words.md written. */
  out: string;
  /** Source files read, relative to the topic folder. */
  sources: string[];
  /** The hand-written table, relative to the topic folder, or null. */
  handWritten: string | null;
  keywords: KeywordEntry[];
}

interface Job {
  /** The topic folder as given. */
  topic: string;
  /** Source paths relative to the topic folder. */
  sources: string[];
  /** The topic.yaml whose `sources` listed them, or null for the default (named in a read error). */
  sourcesListedIn: string | null;
  /** qa-pairs.md is among `sources` because it was found in the folder, not because it was listed. */
  qaPairsFound: boolean;
  handWritten: string | null;
  outDir: string;
  /** The topic's own _keywords folder is owned whole; an --out folder is shared. */
  ownsDir: boolean;
}

type Io = { stdout: (s: string) => void; stderr: (s: string) => void };

/** Runs the CLI; a file-system error that escapes becomes one line and exit 1, never a trace. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  return guardEnvironment('keyword-extractor', io, (safe) => run(argv, safe));
}

/** Bytes of the longest name keyword-extractor writes in an --out folder: words.md, or its temp name (fs-atomic's tempName, the longer). */
export function outLongestInside(): number {
  return Math.max(Buffer.byteLength(OUT_FILE), Buffer.byteLength(basename(tempName(join('/', OUT_FILE)))));
}

async function run(argv: string[], io: Io): Promise<number> {
  let args: ReturnType<typeof parseCli>;
  try {
    args = parseCli(argv);
  } catch (err) {
    io.stderr(`keyword-extractor: ${oneLine((err as Error).message)}\nRun keyword-extractor --help for usage.\n`);
    return 2;
  }
  if (args.values.help) {
    io.stdout(HELP);
    return 0;
  }
  if (args.values.version) {
    io.stdout(`keyword-extractor ${VERSION}\n`);
    return 0;
  }
  let jobs: Job[];
  try {
    // An --out folder is written in, never swapped in whole (staged: false), and what goes in
    // it is words.md, first written beside itself under a temp name: its real length, not any
    // 255-byte name (--out paths it fits in were refused).
    checkFolderOption('out', args.values.out, { staged: false, longestInside: outLongestInside() });
    jobs = planJobs(args.positionals, args.values.out);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      io.stderr(errorLines(err).map((line) => `keyword-extractor: ${line}\n`).join(''));
      return 2;
    }
    throw err;
  }
  const max = args.values.max;

  const summaries: TopicSummary[] = [];
  const errors: { source: string; error: string }[] = [];
  for (const job of jobs) {
    const texts: { name: string; text: string }[] = [];
    let handWritten: KeywordEntry[] = [];
    let failed = false;
    const fail = (file: string, message: string) => {
      failed = true;
      errors.push({ source: file, error: message });
      io.stderr(`keyword-extractor: ${oneLine(file)}: ${oneLine(message)}\n`);
    };
    for (const name of job.sources) {
      const file = join(job.topic, name);
      try {
        // A qa-pairs.md found beside the sources was not listed: topic.yaml is not where to fix it.
        const listedIn = name === QA_PAIRS && job.qaPairsFound ? null : job.sourcesListedIn;
        texts.push({ name, text: readTopicSource(file, listedIn, { allowEmpty: true }) });
      } catch (err) {
        fail(file, (err as Error).message);
      }
    }
    if (job.handWritten) {
      const file = join(job.topic, job.handWritten);
      try {
        // An empty keywords.md (made with `touch`, to be filled later) holds no keywords, as an
        // empty golden-reference.md does; it failed the topic with "no keyword table". Text
        // without a table is still an error: those words were meant to count.
        const text = readDocument(file);
        handWritten = text.trim() === '' ? [] : parseWordsMd(text, file);
      } catch (err) {
        // A KeywordTableError already names file:line.
        if (err instanceof KeywordTableError) {
          failed = true;
          errors.push({ source: file, error: err.message });
          io.stderr(`keyword-extractor: ${oneLine(err.message)}\n`);
        } else fail(file, (err as Error).message);
      }
    }
    // A topic is written only when every one of its documents was read.
    if (failed) continue;

    const keywords = extractKeywords(texts, { max: max ?? DEFAULT_MAX, handWritten });
    const text = formatWordsMd(keywords, { source: job.sources, handWritten: job.handWritten });
    try {
      // parents: false: a topic folder removed or renamed during the run stays so.
      if (job.ownsDir) replaceDirAtomic(job.outDir, new Map([[OUT_FILE, text]]), { parents: false });
      else writeFileAtomic(join(job.outDir, OUT_FILE), text);
    } catch (err) {
      // A folder that cannot be written fails its own topic only; the others are still written.
      if (!isFsError(err)) throw err;
      const message = describeFsError(err);
      errors.push({ source: job.topic, error: message });
      io.stderr(`keyword-extractor: ${oneLine(message)}\n`);
      continue;
    }
    summaries.push({
      topic: job.topic,
      out: relative(process.cwd(), join(job.outDir, OUT_FILE)),
      sources: job.sources,
      handWritten: job.handWritten,
      keywords,
    });
  }

  if (args.values.json) {
    io.stdout(`${JSON.stringify({ topics: summaries, errors }, null, 2)}\n`);
  } else {
    for (const s of summaries) {
      const hand = s.handWritten ? ` + ${s.handWritten}` : '';
      io.stdout(`${oneLine(s.topic)}: ${counted(s.keywords.length, 'keyword')} from ${s.sources.map(oneLine).join(', ')}${hand} -> ${oneLine(s.out)}\n`);
    }
  }
  return errors.length ? 1 : 0;
}

function parseCli(argv: string[]) {
  const options = {
    out: { type: 'string' },
    max: { type: 'string' },
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
  if (parsed.values.help || parsed.values.version) return { ...parsed, values: { ...parsed.values, max: undefined } };
  // --max has its own range message, "" included.
  const empty = emptyArgument(parsed.values, parsed.positionals, ['max']);
  if (empty) throw new Error(empty);
  if (parsed.positionals.length === 0) throw new Error('no topic folder given');
  let max: number | undefined;
  if (parsed.values.max !== undefined) max = numberOption('--max', parsed.values.max, { min: 0, max: MAX_KEYWORDS }, Error);
  return { ...parsed, values: { ...parsed.values, max } };
}

/** Outputs of the pipeline, relative to a topic: never keyword sources, even when topic.yaml lists them. */
function isGenerated(rel: string): boolean {
  const p = rel.split('\\').join('/').replace(/^\.\//, '');
  return /^(?:_chunks|_keywords)(?:\/|$)/.test(p) || p === 'topic-spec.md' || p === 'index.json' || p === HAND_WRITTEN || p === HAND_WRITTEN_ALIAS;
}

function planJobs(paths: string[], out: string | undefined): Job[] {
  if (out !== undefined && paths.length > 1) {
    throw new UsageError(`--out ${out}: takes one topic, got ${paths.length} (each would write ${OUT_FILE} there)`);
  }
  // A topic folder reads its words.md as hand-written keywords: --out naming the topic itself
  // replaced that input with the generated table, which every later run then kept whole.
  if (out !== undefined && entryExists(join(out, TOPIC_MARKER))) {
    throw new UsageError(`--out ${out}: a topic folder, where ${OUT_FILE} is read as that topic's hand-written keywords; choose a folder of its own`);
  }
  // Another topic's _keywords/ (or any topic's _chunks/, which chunking-tool replaces whole):
  // --out replaced that topic's words.md with this one's keywords, which its spec step then
  // used without a word (s57 probe), as docs-export refuses an --out among the generated files.
  if (out !== undefined && (basename(resolve(out)) === '_keywords' || basename(resolve(out)) === '_chunks')) {
    const owner = dirname(resolve(out));
    const name = basename(resolve(out));
    if (entryExists(join(owner, TOPIC_MARKER)) && (name === '_chunks' || paths.every((p) => resolve(p) !== owner))) {
      throw new UsageError(
        `--out ${out}: the generated ${name}/ folder of the topic ${join(out, '..')}, ${name === '_chunks' ? 'which chunking-tool replaces whole' : `whose ${OUT_FILE} it would replace`}; choose a folder of its own`,
      );
    }
  }
  const seen = new Map<string, string>();
  return paths.map((p): Job => {
    topicFolderProblem(p);
    assertSearchable(p);
    if (!entryExists(join(p, TOPIC_MARKER))) throw new UsageError(`${p}: a folder, but not a topic (no ${TOPIC_MARKER} in it)`);
    const dir = resolve(p);
    const other = seen.get(dir);
    if (other !== undefined) throw new UsageError(`${other} and ${p} are the same topic; give it once`);
    seen.set(dir, p);

    let sources = [TOPIC_MARKER];
    let sourcesListedIn: string | null = null;
    const topicYaml = join(p, 'topic.yaml');
    if (entryExists(topicYaml)) {
      let bytes: Buffer;
      assertConfigSize(topicYaml);
      try {
        bytes = readRegularFile(topicYaml);
      } catch (err) {
        throw new UsageError(`cannot read: ${describeFsError(err, topicYaml)}`);
      }
      const listed = parseConfig(configText(bytes, topicYaml), topicYaml, { topic: true }).sources;
      if (listed) {
        sources = listed;
        sourcesListedIn = topicYaml;
      }
    }
    sources = sources.filter((s) => !isGenerated(s));
    // entryExists, not existsSync (which follows links): a qa-pairs.md or keywords.md symlink
    // whose target is gone read as "absent", and the table was written without its questions
    // or hand-written keywords, exit 0 and no word. Found, the link is read and reported broken.
    const qaPairsFound = !sources.includes(QA_PAIRS) && entryExists(join(p, QA_PAIRS));
    if (qaPairsFound) sources.push(QA_PAIRS);
    return {
      topic: p,
      sources,
      sourcesListedIn,
      qaPairsFound,
      handWritten: handWrittenOf(p),
      outDir: resolve(out ?? join(p, OUT_DIR)),
      ownsDir: out === undefined,
    };
  });
}

/** The topic's hand-written table, if any; both names at once would be ambiguous. */
function handWrittenOf(topic: string): string | null {
  const found = [HAND_WRITTEN, HAND_WRITTEN_ALIAS].filter((name) => entryExists(join(topic, name)));
  if (found.length > 1) throw new UsageError(`${topic}: has both ${HAND_WRITTEN} and ${HAND_WRITTEN_ALIAS}; keep one hand-written keyword table`);
  return found[0] ?? null;
}

/** Reads one document as UTF-8 text (BOM dropped); an empty source is fine here (no keywords). */
export function readDocument(file: string): string {
  return readTextFile(file, { allowEmpty: true });
}

// Run when executed directly (node dist/main.js …), not when imported by the bin or tests.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}

/** For the bin: a failed write to its stdout (a full disk) is one line naming it, not a stack trace. */
export function exitOnStdoutError(tool: string): void {
  exitOnStdoutErrorOf(tool);
}
