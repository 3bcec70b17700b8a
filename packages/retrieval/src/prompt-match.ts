/**
 * Prompt matching (seed 001 §6): the SimHash of the query against the `prompt_hashes` stored
 * per chunk (SimHashes of qa-pairs.md questions close to that chunk). A chunk matches when one
 * of its hashes lies within `maxDistance` bits of the query's. Pure over loaded indexes.
 */
import { fromHex, hammingDistance, simhash64, toHex } from '@chunkyard/simhash';
import { shownValue } from './similarity.js';
import type { LoadedTopic } from './walk.js';

/**
 * Default Hamming distance for a match, set by `measure-prompt-threshold.mjs` on the 7 sample
 * topics as built by IndexTool (main at 1ad2cf3, local provider) with eval/prompt-queries.json
 * (55 stored questions × 3 paraphrases): the best precision-weighted F0.5 is at 13 — precision
 * 91.7%, 17% of paraphrases reach their question's chunks, 1 of 165 reaches another topic.
 * Precision weighs more than recall because a prompt match suppresses the embedding fallback,
 * while a miss only falls back. Beyond 14 bits other-topic matches climb quickly (16 at 14,
 * 68 at 16). Re-measure when the questions, the SimHash or the spec threshold change.
 */
export const DEFAULT_MAX_HAMMING_DISTANCE = 13;

/** One chunk's stored hashes. */
export interface PromptCandidate {
  topicId: string;
  doc: string;
  index: number;
  hashes: bigint[];
}

export interface PromptMatch {
  topicId: string;
  doc: string;
  index: number;
  /** Smallest distance between the query and one of the chunk's hashes. */
  distance: number;
  /** The stored hash at that distance. */
  hash: string;
}

export function promptCandidates(topics: readonly Pick<LoadedTopic, 'id' | 'index'>[]): PromptCandidate[] {
  const out: PromptCandidate[] = [];
  for (const t of topics) {
    for (const [doc, group] of Object.entries(t.index._embedded.chunks)) {
      for (const item of group.items) {
        if (item.prompt_hashes?.length) out.push({ topicId: t.id, doc, index: item.index, hashes: item.prompt_hashes.map(fromHex) });
      }
    }
  }
  return out;
}

export function checkMaxDistance(maxDistance: number): number {
  // shownValue: a string "3" (JSON, a CLI) was shown as `got 3`, as if 3 were refused.
  if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance > 64) throw new RangeError(`max Hamming distance must be an integer 0..64, got ${shownValue(maxDistance)}`);
  return maxDistance;
}

/**
 * Chunks with a hash within `maxDistance` of `queryHash`, closest first (ties by topic, doc,
 * chunk index). A query without content words hashes to 0 and matches nothing: 0 is not a
 * question, and would sit near every hash with few bits set.
 */
export function matchPrompts(queryHash: bigint, candidates: readonly PromptCandidate[], maxDistance: number): PromptMatch[] {
  checkMaxDistance(maxDistance);
  if (queryHash === 0n) return [];
  const matches: PromptMatch[] = [];
  for (const c of candidates) {
    let best: { distance: number; hash: bigint } | null = null;
    for (const h of c.hashes) {
      const d = hammingDistance(queryHash, h);
      if (d <= maxDistance && (best === null || d < best.distance)) best = { distance: d, hash: h };
    }
    if (best) matches.push({ topicId: c.topicId, doc: c.doc, index: c.index, distance: best.distance, hash: toHex(best.hash) });
  }
  return matches.sort(
    (a, b) => a.distance - b.distance || cmp(a.topicId, b.topicId) || cmp(a.doc, b.doc) || a.index - b.index,
  );
}

export function matchQuery(query: string, candidates: readonly PromptCandidate[], maxDistance: number): { queryHash: bigint; matches: PromptMatch[] } {
  const queryHash = simhash64(query);
  return { queryHash, matches: matchPrompts(queryHash, candidates, maxDistance) };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
