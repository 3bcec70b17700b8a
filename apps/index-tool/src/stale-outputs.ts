/**
 * Which files below a docs root are outputs of a topic that is gone: what `index-tool --prune`
 * removes (prune.ts), and what the Nx plugin looks for each time it makes the projects, so
 * that the root's index-json reruns while any are there (a checkout back to a built commit
 * replays that task from the cache, and Nx hashes no git-ignored file). One list for both: a
 * file the plugin counted and prune kept would rerun the task on every build; one prune
 * removed and the plugin missed would stay after such a checkout.
 *
 * Its own entry (`@chunkyard/index-tool/stale-outputs`) with Node builtins only (and topic-io's
 * builtins-only entryExists), because the plugin loads it while Nx makes the project graph,
 * before any task: it must not pull in the tool's bundle.
 *
 * Only files that are recognisably chunkyard's count (a user's own `index.json` or
 * `topic-spec.md` in a plain folder is not), and only in folders index-tool would list (not
 * `_x`, `.x`, node_modules, nor behind a symlink). One readdir per folder, a few reads per
 * folder without a topic: linear in the tree.
 */
import { lstatSync, readdirSync, readFileSync, type Dirent } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
// Its own entry of topic-io (Node builtins only): a path the kernel refuses to look up
// (ENAMETOOLONG, ELOOP) is thrown, so a topic there is never taken for a gone one.
import { entryExists } from '@chunkyard/topic-io/entry-exists';

export interface StaleOutput {
  /** Relative to the docs root, with `/`. */
  path: string;
  /**
   * `chunks` is a folder (chunking-tool's `_chunks/`); `words` is `_keywords/words.md`; `llms`
   * is the docs root's `llms.txt` or `llms-full.txt` (topiclessRootOutputs only).
   */
  kind: 'chunks' | 'words' | 'spec' | 'index' | 'llms';
}

/**
 * A folder the walk found that is no topic (no marker) though index-tool would list it: where a
 * deleted topic's outputs, and the temps its killed builds left, are. `path` relative to the
 * docs root with `/` ('' for the root); `below`: a topic is below it (a section).
 */
export interface NotATopic {
  path: string;
  below: boolean;
}

const listed = (name: string) => !name.startsWith('_') && !name.startsWith('.') && name !== 'node_modules';

/** The first bytes of a file, or '' when it is not a regular file (never follows a link). */
function head(file: string, bytes = 4096): string {
  try {
    if (!lstatSync(file).isFile()) return '';
    return readFileSync(file).subarray(0, bytes).toString('utf8');
  } catch {
    return '';
  }
}

/** A `_chunks` folder chunking-tool wrote: it holds a manifest with its schema's keys. */
function isChunksFolder(dir: string): boolean {
  try {
    if (!lstatSync(dir).isDirectory()) return false;
    return readdirSync(dir).some((f) => f.endsWith('.json') && /"schemaVersion"[\s\S]*"strategyKey"/.test(head(join(dir, f))));
  } catch {
    return false;
  }
}

/**
 * index.json that index-tool wrote for the folder `id` (its self link is the folder's, each
 * segment percent-encoded as topic-index's indexHref writes it). Compared with the raw id, the
 * index.json of a deleted topic named `getting started` or `über` (self link
 * `/getting%20started/index.json`) was never recognised, so --prune left it for docs-score and
 * docs-query to read, and the plugin never saw it.
 */
function isOurIndex(file: string, id: string): boolean {
  const text = head(file, 1 << 20);
  if (text === '') return false;
  try {
    const j = JSON.parse(text) as { kind?: unknown; _links?: { self?: { href?: unknown } } } | null;
    const self = id === '' ? '/index.json' : `/${id.split('/').map(encodeURIComponent).join('/')}/index.json`;
    return (j?.kind === 'topic' || j?.kind === 'section') && j._links?.self?.href === self;
  } catch {
    return false;
  }
}

/**
 * The stale outputs below `root` (the root itself is always a section or a topic), children
 * before the folder holding them, for a docs tree whose topics hold a file named `marker`.
 */
export function staleOutputs(root: string, marker: string, notTopics?: NotATopic[]): StaleOutput[] {
  const { out, visit } = walker(root, marker, notTopics);
  for (const e of readdirSync(root, { withFileTypes: true })) if (e.isDirectory() && listed(e.name)) visit(join(root, e.name));
  return out;
}

/**
 * What `--prune` removes from a docs root that holds no topic any more (its last topic was
 * deleted): what staleOutputs lists below it, the root's own outputs as of any folder that is
 * no longer a topic (its index.json, and `_chunks/`, `_keywords/words.md`, `topic-spec.md` if the
 * root was itself a topic), and its `llms.txt` and `llms-full.txt`. null when a topic is at or
 * below the root (staleOutputs is the list then). With no topic left, no section or root
 * project is left to prune: the root's index.json went on listing the deleted topics, and
 * docs-export, docs-store and docs-query went on reading them.
 *
 * The llms files count only beside an index.json of the root that index-tool wrote (they are
 * built from it, and a hand-written llms.txt has none), and in the shape `--llms-txt` writes
 * (an H1 title line, a blank line, a `> ` summary line). They come before that index.json,
 * and the index.json last, so a removal cut short leaves the evidence, and a rerun finishes it.
 */
export function topiclessRootOutputs(root: string, marker: string, notTopics?: NotATopic[]): StaleOutput[] | null {
  const { out, visit } = walker(root, marker, notTopics);
  if (visit(root)) return null;
  const last = out.at(-1);
  if (last?.kind !== 'index' || last.path !== 'index.json') return out;
  out.pop();
  for (const name of ['llms-full.txt', 'llms.txt']) {
    if (/^# [^\n]*\n\n> [^\n]*\n/.test(head(join(root, name)))) out.push({ path: name, kind: 'llms' });
  }
  out.push(last);
  return out;
}

/**
 * staleOutputs' walk: `visit(dir)` adds dir's stale outputs (and those below it) to `out`, and
 * each folder it finds no topic in to `notTopics` when given (for --prune's leftover temps).
 */
function walker(root: string, marker: string, notTopics?: NotATopic[]): { out: StaleOutput[]; visit: (dir: string) => boolean } {
  const out: StaleOutput[] = [];
  const rel = (p: string) => relative(root, p).split(sep).join('/');
  const at = (p: string) => (p === root ? '' : `${rel(p)}/`);
  /** Walks `dir`; returns whether a topic is at or below it. */
  const visit = (dir: string): boolean => {
    let below = false;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      // Unreadable (or a name Node cannot decode): it may hold topics, so nothing above it counts.
      return true;
    }
    for (const e of entries) if (e.isDirectory() && listed(e.name) && visit(join(dir, e.name))) below = true;
    if (entryExists(join(dir, marker))) return true;
    notTopics?.push({ path: rel(dir), below });
    if (isChunksFolder(join(dir, '_chunks'))) out.push({ path: `${at(dir)}_chunks`, kind: 'chunks' });
    if (head(join(dir, '_keywords', 'words.md')).startsWith('Generated by KeywordExtractor')) out.push({ path: `${at(dir)}_keywords/words.md`, kind: 'words' });
    if (/^---\r?\nschemaVersion: \d+\r?\n/.test(head(join(dir, 'topic-spec.md')))) out.push({ path: `${at(dir)}topic-spec.md`, kind: 'spec' });
    if (!below && isOurIndex(join(dir, 'index.json'), rel(dir))) out.push({ path: `${at(dir)}index.json`, kind: 'index' });
    return below;
  };
  return { out, visit };
}

/**
 * The Nx plugin keeps each topic's embedding cache in `<cacheRoot>/<name>/` and packs it into
 * `<name>.pack` (an output of the topic's spec task), named after the topic's project: always
 * `topic-…`. Other names there (`_by-text/`, a strategy key's folder) are the cache of the
 * tools run by hand, never a topic's. A folder counts when everything in it is a folder (the
 * cache's layout), a pack when it starts with the pack format's first line.
 */
const TOPIC_CACHE = /^topic-/;

/** Whether `path` (a folder named `topic-…`) is a topic's embedding-cache folder. */
export function isTopicCacheFolder(path: string): boolean {
  try {
    if (!TOPIC_CACHE.test(basename(path)) || !lstatSync(path).isDirectory()) return false;
    return readdirSync(path, { withFileTypes: true }).every((e) => e.isDirectory());
  } catch {
    return false;
  }
}

/** Whether `path` (a file named `topic-….pack`) is a packed topic embedding cache. */
export function isTopicCachePack(path: string): boolean {
  return TOPIC_CACHE.test(basename(path)) && path.endsWith('.pack') && head(path, 64).startsWith('chunkyard-pack ');
}

/**
 * The topic embedding caches in `cacheRoot` whose topic is gone: the names (without `.pack`)
 * of folders and packs not in `live`, sorted. A deleted topic's cache stayed there for good
 * (an incremental build differed from a clean one by it).
 */
export function staleEmbeddingCaches(cacheRoot: string, live: ReadonlySet<string>): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(cacheRoot, { withFileTypes: true });
  } catch {
    return [];
  }
  const stale = new Set<string>();
  for (const e of entries) {
    const name = e.name.endsWith('.pack') ? e.name.slice(0, -'.pack'.length) : e.name;
    if (live.has(name) || stale.has(name)) continue;
    const path = join(cacheRoot, e.name);
    if (e.name.endsWith('.pack') ? isTopicCachePack(path) : isTopicCacheFolder(path)) stale.add(name);
  }
  return [...stale].sort();
}
