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
import { renameSync, rmdirSync, rmSync } from 'node:fs';
import { tempName } from '@chunkyard/fs-atomic';
import { dirname, join } from 'node:path';
import { TOPIC_MARKER } from '@chunkyard/topic-io';
import { isTopicCacheFolder, isTopicCachePack, staleOutputs, topiclessRootOutputs, type StaleOutput } from './stale-outputs.js';

/** Removes stale outputs below `root`; returns the removed paths, relative to `root`. */
export function pruneStaleOutputs(root: string, marker: string = TOPIC_MARKER): string[] {
  return remove(root, staleOutputs(root, marker));
}

/**
 * Removes what chunkyard wrote in a docs root that holds no topic any more, the root's own
 * index.json and llms files included (topiclessRootOutputs; the root's index.json last). null,
 * removing nothing, when a topic is at or below the root.
 */
export function pruneTopiclessRoot(root: string, marker: string = TOPIC_MARKER): string[] | null {
  const stale = topiclessRootOutputs(root, marker);
  return stale === null ? null : remove(root, stale);
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
