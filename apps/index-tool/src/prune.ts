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
import { rmdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TOPIC_MARKER } from '@chunkyard/topic-io';
import { isTopicCacheFolder, isTopicCachePack, staleOutputs } from './stale-outputs.js';

/** Removes stale outputs below `root`; returns the removed paths, relative to `root`. */
export function pruneStaleOutputs(root: string, marker: string = TOPIC_MARKER): string[] {
  const stale = staleOutputs(root, marker);
  for (const { path, kind } of stale) {
    const file = join(root, path);
    rmSync(file, { recursive: kind === 'chunks', force: true });
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
