/**
 * The file edge of llms.txt: gathers every topic from the built index.json files, following
 * links from the root's as a client would, and writes `<root>/llms.txt` atomically. It reads
 * only index.json files, so the Nx target that runs it hashes exactly those. With `full` it also
 * writes `<root>/llms-full.txt`, which reads the chunk files the indexes link (`_chunks/*.md`),
 * so that target hashes those too.
 */
import { basename, dirname, join } from 'node:path';
import { brokenLink, invalidJsonMessage, notUtf8Reason, unfinishedBuild, utf8TextProblem, writeFileAtomic, writeFilesAtomic } from '@chunkyard/fs-atomic';
import { chunkTextSha256, describeChunk, llmsFullTxt, llmsTxt, stripeReadingOrder, type IndexJson, type LlmsFullTopic, type LlmsTopic } from '@chunkyard/topic-index';
import { readRegularFile } from '@chunkyard/topic-io';

/** Something the built tree lacks; the message names the file and the fix. */
export class LlmsError extends Error {}

/**
 * A built file's text (an index.json, a chunk file: our own output, always UTF-8), or
 * `toError(why)` when its bytes are not UTF-8: decoded with replacement characters, a damaged
 * byte of a child's title became U+FFFD in its section's index.json and in llms.txt (exit 0),
 * and a damaged chunk file was hashed into its topic's index, which docs-query then refused.
 */
export function builtText(bytes: Buffer, toError: (why: string) => Error): string {
  if (utf8TextProblem(bytes) !== null) throw toError(`${notUtf8Reason(bytes)}, so it was damaged or replaced after the build`);
  return bytes.toString('utf8');
}

function readIndex(file: string): IndexJson {
  let text: string;
  try {
    text = builtText(readRegularFile(file), (why) => new LlmsError(`${file}: ${why}; rebuild it with index-tool`));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new LlmsError(`${file}: missing; build the indexes first (nx run-many -t index)`);
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    // Never the parser's words: they quote the file, and a planted link makes it any file.
    throw new LlmsError(`${file}: ${invalidJsonMessage(text, err)}; rebuild it with index-tool`);
  }
  return checkIndex(json, file);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A relative path of plain names: `a/b`, never `..`, `.`, empty parts or a leading slash. */
const isInnerPath = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.split('/').every((part) => part !== '' && part !== '.' && part !== '..');

/**
 * The file a chunk href names below `dir`, or null when it names none there. Hrefs are URLs,
 * each segment percent-encoded (topic-spec writes `_chunks/my%20guide-0.md` for a document
 * "my guide.md", `caf%C3%A9-0.md` for "café.md"): joined as they were, they named no file, so
 * --llms-full failed every such topic ("…/my%20guide-0.md: missing") and its description was
 * left out. Decoded, a segment must still be a plain name (`%2E%2E` is "..", `%2F` a slash).
 */
export function hrefFile(dir: string, href: string): string | null {
  let parts: string[];
  try {
    parts = href.split('/').map(decodeURIComponent);
  } catch {
    return null;
  }
  if (parts.some((part) => part === '' || part === '.' || part === '..' || part.includes('/') || part.includes('\0'))) return null;
  return join(dir, ...parts);
}

/**
 * The fields llms.txt reads, checked: a null, a list or an index without `_embedded` was a
 * TypeError with a stack trace, and a child id or chunk href with `..` was read from outside
 * the docs root (an index.json is our output, but a hand-edited or corrupt one is input).
 */
function checkIndex(json: unknown, file: string): IndexJson {
  const bad = (what: string) => new LlmsError(`${file}: ${what}; rebuild it with index-tool`);
  if (!isObj(json)) throw bad('not an index.json object');
  if (typeof json.title !== 'string') throw bad('"title" is not a string');
  if (json.kind !== 'topic' && json.kind !== 'section') throw bad('"kind" is neither "topic" nor "section"');
  if (json.description !== undefined && typeof json.description !== 'string') throw bad('"description" is not a string');
  const embedded = json._embedded;
  if (!isObj(embedded) || !Array.isArray(embedded.topics)) throw bad('"_embedded.topics" is not a list');
  embedded.topics.forEach((t: unknown, i) => {
    if (!isObj(t) || !isInnerPath(t.id)) throw bad(`_embedded.topics[${i}].id is not a folder path below the docs root`);
  });
  if (json.kind === 'topic' && embedded.chunks !== undefined) {
    if (!isObj(embedded.chunks)) throw bad('"_embedded.chunks" is not an object');
    for (const [doc, g] of Object.entries(embedded.chunks)) {
      const where = `_embedded.chunks.${doc}`;
      if (!isObj(g) || typeof g.source !== 'string' || !Number.isInteger(g.count) || !Array.isArray(g.stripe_order) || !Array.isArray(g.items)) {
        throw bad(`${where} lacks its source, count, stripe_order or items`);
      }
      // index-tool writes one item per chunk. The reading order walks 0..count, so a hand-edited
      // count of 1e308 filled a Set until V8 threw (a stack trace), and one of 1e9 spun for minutes.
      if (g.count !== g.items.length) throw bad(`${where}.count is ${g.count}, not its number of items (${g.items.length})`);
      g.items.forEach((item: unknown, i) => {
        if (!isObj(item) || !Number.isInteger(item.index) || typeof item.href !== 'string' || hrefFile('.', item.href) === null) throw bad(`${where}.items[${i}] is not { index, href } with href below the topic`);
        if (item.sha256 !== undefined && (typeof item.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(item.sha256))) throw bad(`${where}.items[${i}].sha256 is not 64 lowercase hex digits`);
      });
    }
  }
  return json as unknown as IndexJson;
}

export interface LlmsOptions {
  title?: string;
  summary?: string;
  /** Also write llms-full.txt: every topic's chunks, in stripe reading order. */
  full?: boolean;
}

/**
 * A chunk file's text, checked against the item's sha256 when its index has one: read between
 * the topic's chunk step and its index step (a build under way), the index's stripe order put
 * the new chunks' texts in the old chunks' places in llms-full.txt.
 */
function readChunk(file: string, sha256: string | undefined, indexFile: string): string {
  let text: string;
  try {
    text = builtText(readRegularFile(file), (why) => new LlmsError(`${file}: ${why}; rebuild the topic (nx run <topic>:index)`));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      // A dangling link, the file's or its _chunks/'s, is named as one, not as a missing file (issue 15 probe).
      for (const p of [file, dirname(file)]) {
        const broken = brokenLink(p);
        if (broken !== null) throw new LlmsError(`${p}: ${broken}`);
      }
      throw new LlmsError(`${file}: missing, but its topic's index.json links it; rebuild the topic (nx run <topic>:index)`);
    }
    throw err;
  }
  if (sha256 !== undefined && chunkTextSha256(text) !== sha256) {
    throw new LlmsError(
      `${file}: holds other text than ${indexFile} was built from (its SHA-256 differs from the index item's sha256): the topic is being rebuilt, or its index step has not run since its chunk step; run --llms-txt again when the build has finished (nothing written)`,
    );
  }
  return text;
}

/** A topic's documents with their chunk texts in stripe reading order, read through its index. */
function fullTopic(root: string, id: string, index: IndexJson): LlmsFullTopic {
  const dir = join(root, ...id.split('/'));
  // A chunk build SIGKILLed between its two renames left the topic no _chunks/, only the
  // previous folder moved aside (._chunks.aside-*) and the new one staged: the first chunk file
  // was "missing, but its topic's index.json links it". --llms-txt writes nothing in the topic,
  // so it does not put the folder back (a tool writing there does); it names the topic, the
  // temp and what to run, as docs-export does.
  const left = unfinishedBuild(dir, '_chunks');
  if (left !== null) {
    const what = left.aside ? 'its previous _chunks/, moved aside' : 'a new _chunks/ staged, never put in place';
    throw new LlmsError(
      `${dir}: this topic has no _chunks/, only ${basename(left.temp)} (${what}): a chunk build of the topic was killed before it finished, or is running now; build it again (npx nx run-many -t index, or chunkyard chunk ${dir}), then run --llms-txt --llms-full again (nothing written)`,
    );
  }
  const documents = Object.values(index._embedded.chunks ?? {}).map((doc) => {
    const byIndex = new Map(doc.items.map((item) => [item.index, item]));
    return {
      source: doc.source,
      chunks: stripeReadingOrder(doc)
        .map((i) => byIndex.get(i))
        .filter((item) => item !== undefined)
        // checkIndex made sure every href names a file below the topic.
        .map((item) => readChunk(hrefFile(dir, item.href)!, item.sha256, join(dir, 'index.json'))),
    };
  });
  return { id, title: index.title, documents };
}

/** Writes `<root>/llms.txt` (and llms-full.txt if asked); returns their paths and the number of topics listed. */
export function writeLlmsTxt(root: string, options: LlmsOptions): { out: string; full?: string; topics: number } {
  const topics: LlmsTopic[] = [];
  const fullTopics: LlmsFullTopic[] = [];
  const sectionTitles: Record<string, string> = {};
  const seen = new Set<string>();
  let rootTitle = '';
  const visit = (id: string) => {
    // A link cycle or a duplicate link lists a topic once.
    if (seen.has(id)) return;
    seen.add(id);
    const index = readIndex(join(root, ...(id === '' ? [] : id.split('/')), 'index.json'));
    if (id === '') rootTitle = index.title;
    if (index.kind === 'section' && id !== '' && !id.includes('/')) sectionTitles[id] = index.title;
    if (index.kind === 'topic') {
      const first = Object.values(index._embedded.chunks ?? {})[0];
      topics.push({ id, title: index.title, source: first?.source ?? '', description: index.description ?? '' });
      if (options.full) fullTopics.push(fullTopic(root, id, index));
    }
    for (const child of index._embedded.topics) visit(child.id);
  };
  visit('');
  const summary =
    options.summary ??
    `${topics.length} topic${topics.length === 1 ? '' : 's'}, each linked to its markdown source. Retrieval-ready chunks of each are listed in its index.json (HAL+JSON), built by chunkyard.`;
  const out = join(root, 'llms.txt');
  const title = options.title ?? rootTitle;
  const text = llmsTxt({ title, summary, sectionTitles, topics });
  if (!options.full) {
    writeFileAtomic(out, text);
    return { out, topics: topics.length };
  }
  // One set: a failure writing llms-full.txt left a new llms.txt beside an older full text.
  const full = join(root, 'llms-full.txt');
  writeFilesAtomic(new Map([[out, text], [full, llmsFullTxt({ title, summary, topics: fullTopics })]]));
  return { out, full, topics: topics.length };
}

/** The one-line description of a topic: the first sentence of its first document's first chunk. */
export function topicDescription(topicDir: string, firstChunkHref: string | undefined): string {
  const file = firstChunkHref === undefined ? null : hrefFile(topicDir, firstChunkHref);
  if (file === null) return '';
  try {
    return describeChunk(readRegularFile(file).toString('utf8'));
  } catch (err) {
    // The chunk files are the chunk step's output: without them the index is still useful.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}
