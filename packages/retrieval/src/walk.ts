/**
 * Walks a docs tree from its root index.json to every topic, by `_links` alone: each
 * section's `_embedded.topics[]._links.self` is followed, breadth-first, children in the
 * order the index lists them. Every index is validated, and checked against the link that
 * led to it (same id and kind, `self` naming its own URL, `parent` naming the index that
 * listed it), so a broken tree is reported where it breaks.
 */
import { ContractError, parseIndex, type DocsIndex, type TopicIndex } from './contract.js';
import { readJsonCounted, type DocsSource } from './source.js';

export interface LoadedTopic {
  id: string;
  title: string;
  /** URL of the topic's index.json; chunk hrefs resolve against it. */
  url: URL;
  index: TopicIndex;
}

export async function loadIndex(source: DocsSource, url: URL): Promise<DocsIndex> {
  return (await loadIndexCounted(source, url)).index;
}

/** loadIndex, with the file's JSON value count. */
async function loadIndexCounted(source: DocsSource, url: URL): Promise<{ index: DocsIndex; values: number }> {
  const { json, values } = await readJsonCounted(source, url);
  const index = parseIndex(json, source.describe(url));
  const self = new URL(index._links.self.href, url);
  if (self.href !== url.href) {
    // The root index of docs served under a path prefix (a project page such as
    // https://user.github.io/repo/): it says it is /index.json, and every link in it leads out of
    // the base. The cause and the fix were left to the user to work out from the two paths.
    const prefix = url.pathname.slice(0, -'index.json'.length);
    const underPrefix =
      source.folder === null && url.href === source.rootIndexUrl.href && self.pathname === '/index.json' && prefix !== '/'
        ? `: the docs root is served under the path ${prefix} here, and built docs link from / (their hrefs are root-relative); serve the docs folder itself at / (docs-serve <docs-dir>) and give that URL`
        : '';
    throw new ContractError(source.describe(url), `_links.self says ${index._links.self.href}, but it was loaded from ${url.pathname}${underPrefix}`);
  }
  return { index, values };
}

/**
 * How many of a section's children are read at once. All of them were: a section of 300
 * topics held 300 files open together, past macOS's default limit of 256 (EMFILE), and over
 * HTTP sent 300 requests at once.
 */
export const WALK_CONCURRENCY = 16;

/**
 * `Promise.all(items.map(fn))` with at most `limit` calls under way, results in `items` order;
 * after a failure no further item is started, and the first failure is what rejects.
 */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * How deep sections may nest below the root: 2048, the deepest folder tree a 4096-byte path
 * (PATH_MAX) holds at one character and a slash a level. Sections follow the docs' folders, so
 * index-tool builds nothing deeper; until session 56 this was 64, and docs-query refused a tree
 * of 65 levels that index-tool had built. A server whose every section lists one more section
 * is stopped here, or sooner by MAX_WALK_INDEXES.
 */
export const MAX_WALK_DEPTH = 2048;

/** How many index files one walk reads at most (the root's included): the same bound across. */
export const MAX_WALK_INDEXES = 100_000;

/**
 * How many JSON values (MAX_JSON_VALUES's count) one walk's index files may hold together:
 * 40 million, some 1.2 GB of parsed indexes kept for the run. Each file is bounded on its own,
 * but the walk keeps every topic's index: docs-query --list over 10 topics of a million chunks
 * each (7 million values a file) took 40 s and 2 GB, and some 20 of them, 2 GB from a server,
 * ended the process at V8's 4 GB heap with "JavaScript heap out of memory" and a native stack
 * trace (helper-80's probe). At 7 to 20 values a chunk item, that is 2 to 5 million chunks.
 */
export const MAX_WALK_JSON_VALUES = 40_000_000;

export interface WalkOptions {
  /** Only topics whose id equals this or lies below it (`libraries` matches `libraries/x`). */
  topic?: string;
  /** At most this many index files read (default MAX_WALK_INDEXES). */
  maxIndexes?: number;
  /** At most this many JSON values in the index files read, together (default MAX_WALK_JSON_VALUES). */
  maxValues?: number;
}

/**
 * `filter.replace(/^\/+|\/+$/g, '')` in linear time: that pattern tried `\/+$` from every
 * slash of a run not at the end, quadratic in its length (issue 15).
 */
export function trimSlashes(filter: string): string {
  let start = 0;
  let end = filter.length;
  while (start < end && filter.charCodeAt(start) === 0x2f) start++;
  while (end > start && filter.charCodeAt(end - 1) === 0x2f) end--;
  return filter.slice(start, end);
}

export function topicMatches(id: string, filter: string | undefined): boolean {
  return topicFilter(filter)(id);
}

/**
 * topicMatches with `filter` trimmed once, for many ids: trimming it per id was quadratic, a
 * --topic of a million slashes over a section of 5,000 topics took 10 s (issue 15).
 */
export function topicFilter(filter: string | undefined): (id: string) => boolean {
  if (filter === undefined || filter === '') return () => true;
  const f = trimSlashes(filter);
  const below = `${f}/`;
  return (id) => id === f || id.startsWith(below);
}

/** Every topic reachable from the root index, sorted by id (filtered by `options.topic`). */
export async function walkTopics(source: DocsSource, options: WalkOptions = {}): Promise<LoadedTopic[]> {
  const maxIndexes = options.maxIndexes ?? MAX_WALK_INDEXES;
  // NaN turned the bound off (no count is greater than NaN), as Infinity does: a server whose
  // tree has no end then kept the walk going as far as MAX_WALK_DEPTH allowed, level by level.
  if (!Number.isSafeInteger(maxIndexes) || maxIndexes < 1) {
    throw new RangeError(`walkTopics maxIndexes: expected a whole number of index files from 1 (the root's) up, got ${String(maxIndexes)}`);
  }
  const maxValues = options.maxValues ?? MAX_WALK_JSON_VALUES;
  if (!Number.isSafeInteger(maxValues) || maxValues < 1) {
    throw new RangeError(`walkTopics maxValues: expected a whole number of JSON values from 1 up, got ${String(maxValues)}`);
  }
  let values = 0;
  const counted = async (url: URL): Promise<DocsIndex> => {
    const r = await loadIndexCounted(source, url);
    values += r.values;
    if (values > maxValues) {
      throw new ContractError(
        source.describe(url),
        `the index files read so far hold ${values.toLocaleString('en-US')} JSON values together, more than a walk keeps (${maxValues.toLocaleString('en-US')}, 2 to 5 million chunks); is this a chunkyard docs tree?`,
      );
    }
    return r.index;
  };
  const root = await counted(source.rootIndexUrl);
  if (root.kind !== 'section' || root.id !== '') {
    throw new ContractError(source.describe(source.rootIndexUrl), `the root index must be a section with id "" (got ${root.kind} ${JSON.stringify(root.id)})`);
  }
  if (root._links.parent) throw new ContractError(source.describe(source.rootIndexUrl), 'the root index has a parent link');
  const topics: LoadedTopic[] = [];
  const seen = new Set<string>([source.rootIndexUrl.href]);
  /** Which index listed each visited one, to tell a cycle from a second parent. */
  const parentOf = new Map<string, string>();
  let level: { url: URL; index: DocsIndex }[] = [{ url: source.rootIndexUrl, index: root }];
  let read = 1;
  const matches = topicFilter(options.topic);
  const trimmed = options.topic === undefined ? undefined : trimSlashes(options.topic);
  const matchesTrimmed = topicFilter(trimmed);
  for (let depth = 0; level.length > 0; depth++) {
    const next: { url: URL; index: DocsIndex }[] = [];
    for (const { url, index } of level) {
      if (index.kind === 'topic') {
        if (matches(index.id)) topics.push({ id: index.id, title: index.title, url, index });
        continue;
      }
      // Skip sections that cannot hold a matching topic; keep a section above the filter.
      const children = trimmed === undefined ? index._embedded.topics : index._embedded.topics.filter((c) => matchesTrimmed(c.id) || trimmed.startsWith(`${c.id}/`));
      // Checked before any child is loaded: a link listed twice is a duplicate entry, a link to
      // this index or one above it is a cycle, and one another section lists too has two parents.
      // Calling all three "a cycle" sent users looking for a loop that was not there.
      const listedHere = new Set<string>();
      for (const child of children) {
        const childUrl = new URL(child._links.self.href, url);
        if (listedHere.has(childUrl.href)) {
          throw new ContractError(source.describe(url), `${child.id}: ${childUrl.pathname} is listed twice in _embedded.topics; remove the duplicate entry`);
        }
        listedHere.add(childUrl.href);
        if (seen.has(childUrl.href)) {
          const ancestors: string[] = [];
          for (let at: string | undefined = url.href; at !== undefined; at = parentOf.get(at)) ancestors.push(at);
          if (ancestors.includes(childUrl.href)) {
            throw new ContractError(source.describe(url), `${child.id}: links back to ${childUrl.pathname}, which is this index or one above it (a cycle)`);
          }
          throw new ContractError(source.describe(url), `${child.id}: ${childUrl.pathname} is also listed by ${new URL(parentOf.get(childUrl.href) ?? source.rootIndexUrl.href).pathname}; a topic or section has one parent`);
        }
      }
      if (children.length > 0 && depth === MAX_WALK_DEPTH) {
        throw new ContractError(source.describe(url), `${children[0]!.id}: sections nested more than ${MAX_WALK_DEPTH} deep; a docs tree follows its folders, so is this a chunkyard docs tree?`);
      }
      read += children.length;
      if (read > maxIndexes) throw new ContractError(source.describe(url), `more than ${maxIndexes} index files below the root; is this a chunkyard docs tree?`);
      const loaded = await mapLimited(children, WALK_CONCURRENCY, async (child) => {
        const childUrl = new URL(child._links.self.href, url);
        seen.add(childUrl.href);
        parentOf.set(childUrl.href, url.href);
        const childIndex = await counted(childUrl);
        if (childIndex.id !== child.id || childIndex.kind !== child.kind) {
          throw new ContractError(
            source.describe(childUrl),
            `is ${childIndex.kind} ${JSON.stringify(childIndex.id)}, but its parent lists it as ${child.kind} ${JSON.stringify(child.id)}`,
          );
        }
        const parent = childIndex._links.parent;
        if (!parent || new URL(parent.href, childUrl).href !== url.href) {
          throw new ContractError(source.describe(childUrl), `_links.parent is ${parent ? parent.href : 'missing'}, but ${url.pathname} lists it`);
        }
        return { url: childUrl, index: childIndex };
      });
      next.push(...loaded);
    }
    level = next;
  }
  return topics.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
