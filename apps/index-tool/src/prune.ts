/**
 * `--prune`: removes what chunkyard wrote into folders below the docs root that are no longer
 * topics. A topic deleted with `git rm -r` (or moved away with the folder left behind, or whose
 * marker was removed) keeps its git-ignored outputs, since git removes only tracked files and no
 * Nx task owns that folder any more. No section listed it, but docs-export and docs-store walk
 * the tree for `_chunks/` manifests and docs-score for every index.json, so the deleted topic's
 * chunks went on being exported and ingested; a clean build has none of them. The Nx plugin
 * passes `--prune` to the root's index.json task, which reruns on any edit under the root.
 *
 * Which files count is stale-outputs.ts, shared with the plugin.
 */
import { readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { isAbandonedTemp, tempName, tempTarget } from '@chunkyard/fs-atomic';
import { dirname, join } from 'node:path';
import { entryExists, TOPIC_MARKER } from '@chunkyard/topic-io';
import { isTopicCacheFolder, isTopicCachePack, staleOutputs, topiclessRootOutputs, type NotATopic, type StaleOutput } from './stale-outputs.js';

/** What a prune removed, relative to the docs root: the stale outputs, and killed runs' temps of them (`leftovers`). */
export interface Pruned {
  outputs: string[];
  leftovers: string[];
}

/** Removes stale outputs below `root`; returns the removed paths, relative to `root`. */
export function pruneStaleOutputs(root: string, marker: string = TOPIC_MARKER): string[] {
  return pruneGoneTopics(root, marker).outputs;
}

/**
 * Removes stale outputs below `root` and the temps of them that killed runs left in folders no
 * longer topics (goneTopicLeftovers); returns both, relative to `root`.
 */
export function pruneGoneTopics(root: string, marker: string = TOPIC_MARKER): Pruned {
  const notTopics: NotATopic[] = [];
  return removeFound(root, staleOutputs(root, marker, notTopics), notTopics);
}

/**
 * Removes what chunkyard wrote in a docs root that holds no topic any more, the root's own
 * index.json and llms files included (topiclessRootOutputs; the root's index.json last), and
 * killed runs' temps of them. null, removing nothing, when a topic is at or below the root.
 */
export function pruneTopiclessRoot(root: string, marker: string = TOPIC_MARKER): Pruned | null {
  const notTopics: NotATopic[] = [];
  const stale = topiclessRootOutputs(root, marker, notTopics);
  return stale === null ? null : removeFound(root, stale, notTopics);
}

/** The walk's stale outputs and the leftovers in its folders that are no topic, removed: leftovers first (removeLeftovers). */
function removeFound(root: string, stale: readonly StaleOutput[], notTopics: readonly NotATopic[]): Pruned {
  const leftovers = removeLeftovers(root, notTopics);
  return { outputs: remove(root, stale), leftovers };
}

/**
 * The temps beside an output, by the output's name, that a killed run leaves: a chunk or keyword
 * build killed between StagedDir.commit's renames leaves `._chunks.aside-…` (the previous folder)
 * and `._chunks.tmp-…` (the new one), a killed write `.index.json.tmp-…`, a prune cut short its
 * `._chunks.tmp-…`. In a topic the next run's sweep (fs-atomic removeStaleTemps) puts an aside
 * back and removes the rest; in a folder that is no topic any more nothing runs to sweep, so
 * --prune removed the deleted topic's outputs and left these for good (the aside a whole copy
 * of its chunks). `index.json` counts only where no topic is below (a section's is live), the
 * llms files only at a docs root that holds no topic.
 */
const TOPIC_OUTPUTS = ['_chunks', '_keywords', 'topic-spec.md'];

/**
 * Removes the temps killed runs left of a gone topic's outputs in each folder of `notTopics`
 * (TOPIC_OUTPUTS, and words.md's in its `_keywords/`), those of a run that is over only
 * (fs-atomic isAbandonedTemp: a live run's are left, as its sweep leaves them). Before the
 * outputs, so a removal cut short leaves the outputs a rerun looks for. The removed paths.
 */
function removeLeftovers(root: string, notTopics: readonly NotATopic[]): string[] {
  const removed: string[] = [];
  const prefix = (p: string) => (p === '' ? '' : `${p}/`);
  const sweep = (rel: string, targets: readonly string[]) => {
    const dir = join(root, rel);
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of entries.sort()) {
      const target = tempTarget(name);
      if (target === null || !targets.includes(target)) continue;
      // A temp name (TEMP_NAME), of a run that is over: false for anything else.
      if (!isAbandonedTemp(dir, name)) continue;
      rmSync(join(dir, name), { recursive: true, force: true });
      removed.push(`${prefix(rel)}${name}`);
    }
  };
  for (const { path, below } of notTopics) {
    const keywords = `${prefix(path)}_keywords`;
    const before = removed.length;
    sweep(keywords, ['words.md']);
    if (removed.length > before) {
      try {
        rmdirSync(join(root, keywords));
      } catch {
        // not empty: words.md (removed with the outputs), or something else lives in _keywords/
      }
    }
    sweep(path, [...TOPIC_OUTPUTS, ...(below ? [] : ['index.json']), ...(path === '' ? ['llms.txt', 'llms-full.txt'] : [])]);
  }
  return removed;
}

function remove(root: string, stale: readonly StaleOutput[]): string[] {
  for (const { path, kind } of stale) {
    const file = join(root, path);
    if (kind === 'chunks') {
      // Out of the way in one rename, then removed: a reader walking the tree for _chunks/
      // (docs-export, docs-store) sees the whole folder or none of it, never its manifest
      // without its chunk files, and a run cut short leaves a temp name the tools sweep.
      const aside = tempName(file);
      try {
        renameSync(file, aside);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      rmSync(aside, { recursive: true, force: true });
      continue;
    }
    rmSync(file, { force: true });
    if (kind === 'words') {
      try {
        rmdirSync(dirname(file));
      } catch {
        // not empty: something else lives in _keywords/
      }
    }
  }
  return stale.map((s) => s.path);
}

/**
 * `--prune-embedding-cache`: removes each folder that is a topic's embedding cache and its
 * `.pack` (the Nx plugin names the ones whose topic is gone: staleEmbeddingCaches). Anything
 * else at those paths is left. Returns the removed paths as given, `.pack` ones with it.
 */
export function pruneEmbeddingCaches(folders: readonly string[]): string[] {
  const removed: string[] = [];
  for (const folder of folders) {
    if (isTopicCacheFolder(folder)) {
      rmSync(folder, { recursive: true, force: true });
      removed.push(folder);
    }
    const pack = `${folder}.pack`;
    if (isTopicCachePack(pack)) {
      rmSync(pack, { force: true });
      removed.push(pack);
    }
  }
  return removed;
}

/**
 * The paths given to `--prune-embedding-cache` where something is that pruneEmbeddingCaches did
 * not remove (`removed`, its answer): no topic cache's layout, so it was left as it is. A path
 * where nothing is was pruned already (the plugin names a gone topic's cache until it is gone).
 * Before, a mistyped path (`--prune-embedding-cache /etc`) was left without a word, as if pruned.
 */
export function notEmbeddingCaches(folders: readonly string[], removed: readonly string[]): string[] {
  const gone = new Set(removed);
  return folders.filter((folder) => !gone.has(folder) && !gone.has(`${folder}.pack`) && entryExists(folder));
}
