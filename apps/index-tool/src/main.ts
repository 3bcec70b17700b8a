/**
 * IndexTool: the I/O edge around @chunkyard/topic-index. Writes `index.json` for a topic (from
 * its topic-spec.md) or for a section folder above topics (from its children's index.json).
 *
 *   index-tool <topic-or-section-dir ...> [--root DOCS_DIR] [--json]
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { counted, emptyArgument, firstInvalidUtf8, FolderGoneError, invalidJsonMessage, linkedFolderHolds, parseCliArgs, processIo, removeStaleTemps, symlinkedFolder, unfinishedBuild, writeFileAtomic } from '@chunkyard/fs-atomic';
import { SIMHASH_VERSION } from '@chunkyard/simhash';
import { parseTopicSpecMd, TopicSpecError } from '@chunkyard/spec';
import { childEntry, formatIndexJson, sectionIndex, topicIndex, type IndexChild, type IndexJson } from '@chunkyard/topic-index';
import { checkSameChunks, chunkFileSha256, ChunkFilesError } from './chunk-hashes.js';
import { builtText, LlmsError, topicDescription, writeLlmsTxt } from './llms.js';
import { notEmbeddingCaches, pruneEmbeddingCaches, pruneGoneTopics, pruneTopiclessRoot } from './prune.js';
import { assertSearchable, brokenLink, describeFsError, entryExists, oneLine, folderProblem, guardEnvironment, isFsError, NotRegularFileError, readDocument, readRegularFile, TOPIC_MARKER, UsageError } from '@chunkyard/topic-io';
import { exitOnStdoutError as exitOnStdoutErrorOf } from '@chunkyard/fs-atomic';

const SPEC_FILE = 'topic-spec.md';
const INDEX_FILE = 'index.json';

/** This package's version, read from its own package.json (../ from src/ and dist/ alike), so an installed copy reports itself. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const HELP = `index-tool — write index.json for topics and the sections above them

Usage:
  index-tool <dir ...> [options]

A topic folder (holding ${TOPIC_MARKER}) gets an index.json built from its ${SPEC_FILE}
(run topic-spec first): seed 001's HAL+JSON with _embedded.chunks.<doc> holding count,
baselines, stripe_order (and stripe_order_technical when chunk 1 is a reference section)
and one item per chunk (with the SHA-256 of its chunk file), plus _embedded.questions
(the qa-pairs questions behind the items' prompt_hashes) when the topic has any. A
section folder (any folder with topics below it, the docs root included) gets an
index.json listing its child topics and sections in _embedded.topics, titled from their
own index.json (build those first; the folders of one call are built children first,
whatever their order). _links.self and _links.parent are
URLs relative to the served docs root; chunk hrefs are relative to the index.json.

Options:
  --root DIR    the docs root, served as / (default: docs); a folder, not the
                filesystem root (ids and links would carry absolute paths)
  --llms-txt    instead: write <root>/llms.txt (llmstxt.org) from the built index.json
                files: an H1 title, a summary, and every topic's markdown with the first
                sentence of its first chunk; give the root as the only folder
  --llms-full   with --llms-txt: also write <root>/llms-full.txt, every topic's
                chunks in stripe reading order (reads the _chunks/*.md files; one
                rewritten since its index.json was built fails the run, nothing written)
  --llms-title T, --llms-summary S
                llms.txt's title (default: the root index.json's) and summary
  --prune       also remove what chunkyard wrote (_chunks/, _keywords/words.md,
                topic-spec.md, index.json) in folders below the root that are no longer
                topics (a topic deleted with git rm keeps its git-ignored outputs, which
                docs-export and docs-store would still read); only files it recognises,
                and the temps killed runs left of them there (._chunks.aside-…, .….tmp-…).
                With the root as the only folder and no topic left in it (its last
                topic deleted), it removes the root's own index.json, llms.txt and
                llms-full.txt as well (index.json last) and writes nothing
  --prune-embedding-cache PATH
                with --prune, also remove the embedding cache of a topic that is gone:
                the folder PATH and PATH.pack, where the Nx plugin keeps each topic's
                (.embedding-cache/topic-…); only a topic cache's layout is removed,
                anything else at PATH is left and named on stdout ("left as it is";
                keptCaches with --json); repeatable (the plugin passes the ones it finds)
  --json        print a JSON summary on stdout instead of text
  -h, --help    show this help
  --version     print index-tool's version

Exit status: 0 success; 1 a folder failed (missing or malformed ${SPEC_FILE}, one whose
prompt hashes are of another SimHash version, one built from other chunks than _chunks/
now holds or listing a chunk file that is missing, a child without index.json): its previous
index.json is left as it was, the others are written; 2 usage error (unknown option, a
root that is missing or /, a folder outside the root or without topics, except the root
alone with --prune; nothing written).
`;

export interface IndexSummary {
  dir: string;
  id: string;
  kind: 'topic' | 'section';
  out: string;
  /** Chunks listed (topics), or children listed (sections). */
  chunks: number;
  children: number;
}

type Io = { stdout: (s: string) => void; stderr: (s: string) => void };

/** A folder whose index.json cannot be built; the message names the file and the fix. */
class IndexError extends Error {}

interface Job {
  dir: string;
  id: string;
  isTopic: boolean;
}

/** Runs the CLI; a file-system error that escapes becomes one line and exit 1, never a trace. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  // main() may run again in one process (the package's API), after the tree changed.
  topicsBelowReported.clear();
  topicsBelowQuiet.clear();
  return guardEnvironment('index-tool', io, (safe) => run(argv, safe));
}

async function run(argv: string[], io: Io): Promise<number> {
  let values: { root: string; json: boolean; help: boolean; version: boolean; 'llms-txt': boolean; 'llms-full': boolean; 'llms-title'?: string; 'llms-summary'?: string; prune: boolean; 'prune-embedding-cache'?: string[] };
  let jobs: Job[];
  let root: string;
  try {
    const options = {
      // No parseArgs default: whether --root was given changes the message of a missing root.
      root: { type: 'string' },
      'llms-txt': { type: 'boolean', default: false },
      'llms-full': { type: 'boolean', default: false },
      'llms-title': { type: 'string' },
      'llms-summary': { type: 'string' },
      prune: { type: 'boolean', default: false },
      'prune-embedding-cache': { type: 'string', multiple: true },
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
    const rootGiven = parsed.values.root !== undefined;
    values = { ...parsed.values, root: parsed.values.root ?? 'docs' } as typeof values;
    if (values.help) {
      io.stdout(HELP);
      return 0;
    }
    if (values.version) {
      io.stdout(`index-tool ${VERSION}\n`);
      return 0;
    }
    const empty = emptyArgument(parsed.values, parsed.positionals);
    if (empty) throw new UsageError(empty);
    if (parsed.positionals.length === 0) throw new UsageError('no topic or section folder given');
    root = resolve(values.root);
    if (values['llms-full'] && !values['llms-txt']) throw new UsageError('--llms-full goes with --llms-txt (llms-full.txt is written beside llms.txt)');
    // Without --llms-txt these were silently ignored while the index.json files were written.
    for (const opt of ['llms-title', 'llms-summary'] as const) {
      if (values[opt] !== undefined && !values['llms-txt']) throw new UsageError(`--${opt} goes with --llms-txt (it is llms.txt's ${opt === 'llms-title' ? 'title' : 'summary'})`);
      // Spaces or control characters only: llms.txt got "# " with no title (its required H1), as
      // the Nx plugin's llmsTxt option already refuses.
      if (values[opt] !== undefined && /^[\s\p{Cc}]*$/u.test(values[opt])) throw new UsageError(`--${opt}: blank; give some text, or leave --${opt} out`);
    }
    if (values.prune && values['llms-txt']) throw new UsageError('--prune goes with the index.json run, not --llms-txt');
    if (values['prune-embedding-cache'] !== undefined && !values.prune) throw new UsageError('--prune-embedding-cache goes with --prune');
    if (values['llms-txt']) {
      if (parsed.positionals.length !== 1 || resolve(parsed.positionals[0]!) !== root) {
        throw new UsageError(`--llms-txt writes llms.txt for the docs root: give the root (${values.root}) as the only folder`);
      }
      checkRoot(root, values.root, rootGiven);
      try {
        const { out, full, topics } = writeLlmsTxt(root, { title: values['llms-title'], summary: values['llms-summary'], full: values['llms-full'] });
        const written = [out, ...(full !== undefined ? [full] : [])].map((f) => relative(process.cwd(), f));
        io.stdout(
          values.json
            ? `${JSON.stringify({ llmsTxt: written[0], ...(full !== undefined ? { llmsFullTxt: written[1] } : {}), topics })}\n`
            : `${values.root}: ${counted(topics, 'topic')} -> ${written.join(', ')}\n`,
        );
        return 0;
      } catch (err) {
        if (!(err instanceof LlmsError)) throw err;
        io.stderr(`index-tool: ${oneLine(err.message)}\n`);
        return 1;
      }
    }
    checkRoot(root, values.root, rootGiven);
    // The root alone, with --prune, may hold no topic any more: its last topic was deleted, and
    // what they left is removed (the Nx plugin keeps a root project for it while there is any).
    const topicless = values.prune && parsed.positionals.length === 1 && resolve(parsed.positionals[0]!) === root;
    const planned = parsed.positionals.map((p) => planJob(p, root, topicless));
    if (planned.includes(null)) return pruneTopicless(root, values.root, values['prune-embedding-cache'] ?? [], values.json, io);
    jobs = childrenFirst(planned as Job[]);
  } catch (err) {
    if (err instanceof UsageError || (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`index-tool: ${oneLine((err as Error).message)}\nRun index-tool --help for usage.\n`);
      return 2;
    }
    throw err;
  }

  const summaries: IndexSummary[] = [];
  const errors: { dir: string; error: string }[] = [];
  // Once per link, however many walks (a section and the sections above it) pass it.
  const skippedLinks = new Set<string>();
  // main() may run again in one process (the package's API), after the tree changed.
  linkedHolds.clear();
  const onSkippedLink: OnSkippedLink = (link, real) => {
    if (skippedLinks.has(link)) return;
    skippedLinks.add(link);
    io.stderr(`index-tool: ${oneLine(link)}: a symlinked folder (it leads to ${oneLine(real)}), skipped: sections list only the folders inside the docs root; move the folder there instead of linking it\n`);
  };
  for (const job of jobs) {
    try {
      const children = childrenOf(job.dir, root, onSkippedLink);
      let index: IndexJson;
      if (job.isTopic) {
        // A chunk build SIGKILLed between its two renames left no _chunks/, only the previous
        // folder moved aside (and its stage): every chunk file was "missing, though topic-spec.md
        // lists it". This run writes index.json here, so the sweep of killed runs' temps that
        // comes with that write (and puts the previous folder back) is done before the reads.
        removeStaleTemps(job.dir);
        const left = unfinishedBuild(job.dir, '_chunks');
        if (left !== null) {
          throw new IndexError(`${job.dir}: this topic has no _chunks/, only ${basename(left.temp)}: a chunk build is running now, or one was killed before it put its folder in; wait for it, or run the chunk step again (nx run <topic>:index runs it and spec), then index-tool`);
        }
        const file = join(job.dir, SPEC_FILE);
        if (!existsSync(file)) {
          // A dangling or looping link was "missing; run topic-spec on the topic first", and
          // topic-spec then refused to write through it ("remove the link and run again").
          const broken = brokenLink(file);
          const why = broken === null ? 'missing; run topic-spec on the topic first' : `${broken.split(';')[0]}; remove the link, then run topic-spec on the topic`;
          throw new IndexError(`${file}: ${why} (nx run <topic>:spec)`);
        }
        let text: string;
        try {
          text = readDocument(file);
        } catch (err) {
          throw new IndexError(`${file}: ${(err as Error).message}`);
        }
        const spec = parseTopicSpecMd(text, file);
        // Prompt hashes of another SimHash version never match a query hashed by this one:
        // an index with them would fall back to embeddings for every query without saying so.
        if (spec.promptMatching.simhash !== SIMHASH_VERSION) {
          throw new IndexError(
            `${file}: its prompt hashes are ${spec.promptMatching.simhash}, but queries are hashed with ${SIMHASH_VERSION}; run topic-spec on the topic again (nx run <topic>:spec)`,
          );
        }
        index = topicIndex(spec, job.id, children, topicDescription(job.dir, spec.chunks[0]?.href), (href) => chunkFileSha256(job.dir, href, file));
        // After the hashing: a chunk step that swapped _chunks/ in before or during it shows in the manifests.
        checkSameChunks(job.dir, spec, file);
      } else {
        index = sectionIndex(job.id, job.id === '' ? basename(root) : basename(job.dir), children);
      }
      const out = join(job.dir, INDEX_FILE);
      try {
        // parents: false: a topic or section folder removed during the run stays removed (it
        // came back holding only index.json).
        writeFileAtomic(out, formatIndexJson(index), { parents: false });
      } catch (err) {
        if (err instanceof FolderGoneError) throw new IndexError(`${job.dir}: the folder was removed during the run; nothing written`);
        throw err;
      }
      summaries.push({
        dir: job.dir,
        id: job.id,
        kind: index.kind,
        out: relative(process.cwd(), out),
        chunks: Object.values(index._embedded.chunks ?? {}).reduce((n, d) => n + d.count, 0),
        children: index._embedded.topics.length,
      });
    } catch (err) {
      // A folder that cannot be written fails its own index only; the others are still written.
      if (isFsError(err)) {
        const message = describeFsError(err);
        errors.push({ dir: job.dir, error: message });
        io.stderr(`index-tool: ${oneLine(message)}\n`);
        continue;
      }
      if (!(err instanceof IndexError || err instanceof TopicSpecError || err instanceof ChunkFilesError)) throw err;
      errors.push({ dir: job.dir, error: err.message });
      io.stderr(`index-tool: ${oneLine(err.message)}\n`);
    }
  }
  // After the indexes: a folder that is no topic is listed by none, so the order does not matter to them.
  const { outputs: pruned, leftovers: prunedLeftovers } = values.prune ? pruneGoneTopics(root) : { outputs: [], leftovers: [] };
  const cacheFolders = values['prune-embedding-cache'] ?? [];
  const prunedCaches = pruneEmbeddingCaches(cacheFolders);
  const keptCaches = notEmbeddingCaches(cacheFolders, prunedCaches);
  for (const error of sectionsListingPruned(root, values.root, pruned, new Set(summaries.map((s) => resolve(s.dir))))) {
    errors.push(error);
    io.stderr(`index-tool: ${oneLine(error.error)}\n`);
  }
  if (values.json) io.stdout(`${JSON.stringify({ indexes: summaries, errors, ...(values.prune ? { pruned, prunedLeftovers, prunedCaches, keptCaches } : {}) }, null, 2)}\n`);
  else {
    for (const p of prunedLeftovers) io.stdout(`${oneLine(join(values.root, p))}: removed (left by a killed run; its folder is no longer a topic)\n`);
    for (const p of pruned) io.stdout(`${oneLine(join(values.root, p))}: removed (its folder is no longer a topic)\n`);
    for (const p of prunedCaches) io.stdout(`${oneLine(p)}: removed (the embedding cache of a topic that is gone)\n`);
    for (const p of keptCaches) io.stdout(`${oneLine(p)}: ${KEPT_CACHE}\n`);
    for (const s of summaries) {
      const what = s.kind === 'topic' ? counted(s.chunks, 'chunk') : counted(s.children, 'child', 'children');
      io.stdout(`${oneLine(s.dir)}: ${s.kind} ${JSON.stringify(s.id)}, ${what} -> ${oneLine(s.out)}\n`);
    }
  }
  return errors.length ? 1 : 0;
}

/**
 * The sections this run did not write whose index.json still lists a folder whose index.json
 * --prune removed: the link leads nowhere, and docs-query failed on the whole tree, while
 * index-tool said nothing and exited 0 (s57 probe: `index-tool --root docs --prune docs` after
 * a topic of docs/libs was deleted; docs/libs/index.json, not named, still listed it). A section
 * written this run lists only folders holding topics, so it lists none of them.
 */
function sectionsListingPruned(root: string, shownRoot: string, pruned: readonly string[], written: ReadonlySet<string>): { dir: string; error: string }[] {
  const out: { dir: string; error: string }[] = [];
  const prunedSet = new Set(pruned);
  for (const p of pruned) {
    if (!p.endsWith(`/${INDEX_FILE}`)) continue;
    const id = p.slice(0, -`/${INDEX_FILE}`.length);
    const parentId = id.includes('/') ? id.slice(0, id.lastIndexOf('/')) : '';
    const parentDir = join(root, ...parentId.split('/').filter(Boolean));
    if (written.has(resolve(parentDir)) || prunedSet.has(parentId === '' ? INDEX_FILE : `${parentId}/${INDEX_FILE}`)) continue;
    let topics: unknown;
    try {
      topics = (JSON.parse(readFileSync(join(parentDir, INDEX_FILE), 'utf8')) as { _embedded?: { topics?: unknown } } | null)?._embedded?.topics;
    } catch {
      continue;
    }
    if (!Array.isArray(topics) || !topics.some((t) => (t as { id?: unknown } | null)?.id === id)) continue;
    const shown = join(shownRoot, ...parentId.split('/').filter(Boolean));
    out.push({
      dir: parentDir,
      error: `${join(shown, INDEX_FILE)}: lists ${id}, which is no longer a topic and whose index.json --prune removed; build that section again (index-tool --root ${shownRoot} ${shown}), or name it with the others`,
    });
  }
  return out;
}

/**
 * The docs root must be a folder, and not the filesystem root: served as /, `--root /` made
 * every id and link carry the folder's absolute path (topic "tmp/ws/docs/x", href
 * "/tmp/ws/docs/x/index.json"), which no server of the docs answers, and `index-tool --root / /`
 * would walk the whole disk looking for topics. A user giving / means the docs folder.
 */
function checkRoot(root: string, shown: string, explicit: boolean): void {
  const problem = folderProblem(root);
  if (problem) throw new UsageError(`--root ${shown}: ${problem.reason}${explicit ? '' : ' (the default root; give --root DOCS_DIR)'}`);
  if (dirname(root) === root) {
    throw new UsageError(`--root ${shown}: the filesystem root cannot be the docs root (ids and links would carry the absolute path of every topic); give the folder the docs are served from, e.g. --root docs`);
  }
}

/**
 * `--prune` over a docs root that holds no topic any more: removes what chunkyard wrote there
 * (pruneTopiclessRoot: the deleted topics' outputs below it, the root's index.json, llms.txt and
 * llms-full.txt, the root's index.json last) and the embedding caches named, and says what it
 * removed. Writes no index.json: one listing nothing is no index of any docs.
 */
function pruneTopicless(root: string, shownRoot: string, caches: readonly string[], json: boolean, io: Io): number {
  // null: a topic appeared since the root was looked at; nothing of it is taken for stale.
  const { outputs: pruned, leftovers: prunedLeftovers } = pruneTopiclessRoot(root) ?? { outputs: [], leftovers: [] };
  const prunedCaches = pruneEmbeddingCaches(caches);
  const keptCaches = notEmbeddingCaches(caches, prunedCaches);
  if (json) {
    io.stdout(`${JSON.stringify({ indexes: [], errors: [], pruned, prunedLeftovers, prunedCaches, keptCaches }, null, 2)}\n`);
    return 0;
  }
  for (const p of prunedLeftovers) io.stdout(`${oneLine(join(shownRoot, p))}: removed (left by a killed run; the docs root holds no topic any more)\n`);
  for (const p of pruned) io.stdout(`${oneLine(join(shownRoot, p))}: removed (the docs root holds no topic any more)\n`);
  for (const p of prunedCaches) io.stdout(`${oneLine(p)}: removed (the embedding cache of a topic that is gone)\n`);
  for (const p of keptCaches) io.stdout(`${oneLine(p)}: ${KEPT_CACHE}\n`);
  if (pruned.length === 0 && prunedLeftovers.length === 0 && prunedCaches.length === 0) io.stdout(`${oneLine(shownRoot)}: holds no topic, and no output of chunkyard's to remove\n`);
  return 0;
}

/** What index-tool says of a path given to --prune-embedding-cache that it left (notEmbeddingCaches). */
const KEPT_CACHE = "left as it is (not a topic's embedding cache)";

/** A job for the folder, or null for the docs root holding no topic when `topiclessRoot` allows it. */
function planJob(dir: string, root: string, topiclessRoot: boolean): Job | null {
  const abs = resolve(dir);
  // As --root is checked: a missing folder, a dangling link or a FIFO each said "not a folder".
  const problem = folderProblem(abs);
  if (problem) throw new UsageError(`${dir}: ${problem.reason}${problem.problem === 'not-a-folder' ? '; give a topic or section folder' : ''}`);
  const rel = relative(root, abs);
  if (rel.startsWith('..') || resolve(root, rel) !== abs) throw new UsageError(`${dir}: outside the docs root ${root} (set --root)`);
  // The section walk (subfolders) never follows a link, so a folder reached through one was
  // indexed (its index.json written through the link) and listed by no section.
  const real = realpathSync(abs);
  if (resolve(realpathSync(root), rel) !== real) {
    throw new UsageError(`${dir}: a symlinked folder (it leads to ${real}); sections list only the folders inside the docs root, so its index would be linked from nowhere: move the folder there instead of linking it`);
  }
  const id = rel.split(sep).join('/');
  assertSearchable(abs);
  const isTopic = entryExists(join(abs, TOPIC_MARKER));
  if (!isTopic && !mayHoldTopics(abs)) {
    if (topiclessRoot && id === '') return null;
    throw new UsageError(`${dir}: neither a topic (no ${TOPIC_MARKER}) nor a section (no topic below it)`);
  }
  return { dir, id, isTopic };
}

/**
 * The jobs with every folder after the folders below it: a section's index reads its
 * children's index.json, so `index-tool docs docs/guides docs/guides/install` (parents first,
 * as a shell glob or a hand-typed list gives them) failed docs and docs/guides with "missing;
 * build the child's index first" though the child was named in the same command. Deeper ids
 * first is enough, as a folder below another has a longer id; the sort is stable, so folders
 * of one depth keep the order given.
 */
function childrenFirst(jobs: Job[]): Job[] {
  const depth = (job: Job) => (job.id === '' ? 0 : job.id.split('/').length);
  return jobs.map((job) => ({ job, depth: depth(job) })).sort((a, b) => b.depth - a.depth).map(({ job }) => job);
}

/** Told of each symlinked folder holding topics that a walk skipped (link path, real path). */
type OnSkippedLink = (link: string, real: string) => void;

/**
 * A folder name as a message shows it: its UTF-8 text, with each byte that is not part of
 * valid UTF-8 as `\xNN`, so the user can find the folder (U+FFFD would hide which byte it is).
 */
function shownName(bytes: Buffer): string {
  let out = '';
  let rest = bytes;
  while (rest.length > 0) {
    const bad = firstInvalidUtf8(rest);
    out += rest.subarray(0, bad).toString('utf8');
    if (bad >= rest.length) break;
    out += `\\x${rest[bad]!.toString(16).padStart(2, '0')}`;
    rest = rest.subarray(bad + 1);
  }
  return out;
}

/** Whether the folder a skipped link leads to (its real path) holds topics, as found this run. */
const linkedHolds = new Map<string, boolean>();

/** Folders that can hold docs: not generated (`_chunks`), hidden or installed ones. */
function subfolders(dir: string, onSkippedLink?: OnSkippedLink): string[] {
  const candidate = (name: string) => !name.startsWith('_') && !name.startsWith('.') && name !== 'node_modules';
  // Names read as bytes: Node decodes a name that is not UTF-8 (a Latin-1 "caf\xe9") with
  // U+FFFD, and that path names no folder, so the walk failed the section (and every section
  // above it) with "docs/sec/caf\ufffd: no such file or folder (ENOENT); check the path".
  const entries = readdirSync(dir, { withFileTypes: true, encoding: 'buffer' }).map((e) => {
    const name = e.name.toString('utf8');
    if (e.isDirectory() && candidate(name) && firstInvalidUtf8(e.name) < e.name.length) {
      throw new IndexError(`${join(dir, shownName(e.name))}: a folder whose name is not valid UTF-8; ids and links of index.json are UTF-8 text, so it cannot be listed: rename it`);
    }
    return { name, isDirectory: () => e.isDirectory(), isSymbolicLink: () => e.isSymbolicLink() };
  }).filter((e) => candidate(e.name));
  if (onSkippedLink) {
    // Not followed (planJob says why for a folder named directly), but no longer unsaid: a
    // linked topic was left out of its section's index with no word, built and reachable from nothing.
    for (const e of entries) {
      if (!e.isSymbolicLink()) continue;
      const link = join(dir, e.name);
      const real = symlinkedFolder(link);
      // A folder there that cannot be listed (its name not UTF-8) may hold topics: the link is named.
      const holds = (d: string) => {
        // Once per folder per run: every link to one folder outside the tree (50 links to a
        // shared assets folder of 2,000 subfolders) walked it again, 11 s for that section.
        const known = linkedHolds.get(d);
        if (known !== undefined) return known;
        let found: boolean;
        try {
          found = entryExists(join(d, TOPIC_MARKER)) || hasTopicBelow(d);
        } catch (err) {
          if (!(err instanceof IndexError)) throw err;
          found = true;
        }
        linkedHolds.set(d, found);
        return found;
      };
      if (real !== null && linkedFolderHolds(link, real, holds)) onSkippedLink(link, real);
    }
  }
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/**
 * hasTopicBelow for a folder given on the command line: a folder below it that cannot be
 * listed (its name not UTF-8) may hold topics, so the folder is a section, and its run reports
 * that folder (exit 1) instead of a usage error about the section.
 */
function mayHoldTopics(dir: string): boolean {
  try {
    return hasTopicBelow(dir);
  } catch (err) {
    if (err instanceof IndexError) return true;
    throw err;
  }
}

/**
 * hasTopicBelow's answers this run, once per folder. Each section's index asks it of every
 * child, and every folder named on the command line asks it too, so a chain of sections walked
 * the whole tree below each of them again: 160 nested sections read 13,000 folders (1.6 s),
 * growing as the square of the depth. A walk that reports skipped links is kept apart from a
 * quiet one, so that a link is still reported by the first walk that may report it.
 */
const topicsBelowReported = new Map<string, boolean>();
const topicsBelowQuiet = new Map<string, boolean>();

function hasTopicBelow(dir: string, onSkippedLink?: OnSkippedLink): boolean {
  const known = topicsBelowReported.get(dir) ?? (onSkippedLink ? undefined : topicsBelowQuiet.get(dir));
  if (known !== undefined) return known;
  const found = subfolders(dir, onSkippedLink).some((name) => entryExists(join(dir, name, TOPIC_MARKER)) || hasTopicBelow(join(dir, name), onSkippedLink));
  (onSkippedLink ? topicsBelowReported : topicsBelowQuiet).set(dir, found);
  return found;
}

/** The child topics and sections of a folder, titled from their built index.json. */
function childrenOf(dir: string, root: string, onSkippedLink?: OnSkippedLink): IndexChild[] {
  const out: IndexChild[] = [];
  for (const name of subfolders(dir, onSkippedLink)) {
    const child = join(dir, name);
    const isTopic = entryExists(join(child, TOPIC_MARKER));
    // Told of links below too: a folder whose only topics are linked would vanish from the list unsaid.
    if (!isTopic && !hasTopicBelow(child, onSkippedLink)) continue;
    const file = join(child, INDEX_FILE);
    if (!existsSync(file)) throw new IndexError(`${file}: missing; build the child's index first (nx run-many -t index builds children before parents)`);
    let text: string;
    try {
      text = builtText(readRegularFile(file), (why) => new IndexError(`${file}: ${why}; build the child's index again (nx run-many -t index builds children before parents)`));
    } catch (err) {
      // The general advice, "point it at a regular file", is for a link: this is the child's
      // output, which a folder or FIFO left there keeps index-tool from writing.
      if (err instanceof NotRegularFileError) throw new IndexError(`${file}: ${err.kind}, not a regular file; remove or rename it, then build the child's index first (nx run-many -t index builds children before parents)`);
      throw err;
    }
    let title: unknown;
    try {
      title = (JSON.parse(text) as { title?: unknown } | null)?.title;
    } catch (err) {
      // Never the parser's words: they quote the file, and a planted link makes it any file.
      throw new IndexError(`${file}: ${invalidJsonMessage(text, err)}; rebuild it with index-tool`);
    }
    if (typeof title !== 'string') throw new IndexError(`${file}: has no title; rebuild it with index-tool`);
    out.push(childEntry(relative(root, child).split(sep).join('/'), isTopic ? 'topic' : 'section', title));
  }
  return out;
}

// Run when executed directly (node dist/main.js …), not when imported by the bin or tests.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}

/** For the bin: a failed write to its stdout (a full disk) is one line naming it, not a stack trace. */
export function exitOnStdoutError(tool: string): void {
  exitOnStdoutErrorOf(tool);
}
