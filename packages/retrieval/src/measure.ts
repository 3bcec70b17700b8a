/**
 * Measures prompt matching per Hamming distance, to choose DEFAULT_MAX_HAMMING_DISTANCE:
 * given paraphrases of qa-pairs.md questions, how often does a paraphrase reach its
 * question's chunks (recall), how many of the chunks it reaches are those (precision), and
 * how often it, or another topic's question, falls within the distance of a question of a
 * different topic (false matches). Pure over loaded indexes; the script
 * `measure-prompt-threshold.mjs` is its I/O edge.
 */
import { hammingDistance, simhash64 } from '@chunkyard/simhash';
import { checkMaxDistance, promptCandidates } from './prompt-match.js';
import type { LoadedTopic } from './walk.js';

export interface ParaphraseEntry {
  /** Topic id, e.g. `libraries/system-text-json-source-generation`. */
  topic: string;
  /** The question exactly as in the topic's qa-pairs.md. */
  question: string;
  paraphrases: string[];
}

export interface ThresholdRow {
  distance: number;
  paraphrases: number;
  /** Paraphrases matching at least one of their question's chunks. */
  hitRate: number;
  /** Matched chunks that are the question's, over all matched chunks (null: nothing matched). */
  precision: number | null;
  /** Question chunks matched, over question chunks, summed over paraphrases. */
  recall: number;
  f1: number | null;
  /** F0.5: precision weighted over recall (a false prompt match suppresses the embedding fallback; a miss does not). */
  f05: number | null;
  /** Chunks of other topics matched by paraphrases. */
  otherTopicMatches: number;
  /** Paraphrases matching at least one chunk of another topic. */
  paraphrasesWithOtherTopicMatch: number;
  /** Pairs of stored questions of different topics within the distance, over all such pairs. */
  crossTopicQuestionPairRate: number | null;
}

export interface Measurement {
  rows: ThresholdRow[];
  /** Entries whose question has no stored hash (not in qa-pairs.md, or below the spec threshold). */
  unmatchedQuestions: { topic: string; question: string }[];
  /** The distance with the best F0.5 (smallest on ties); null when nothing was measurable. */
  suggested: number | null;
}

const key = (topic: string, doc: string, index: number): string => `${topic}\u0000${doc}\u0000${index}`;

export function measureThresholds(topics: readonly Pick<LoadedTopic, 'id' | 'index'>[], entries: readonly ParaphraseEntry[], maxDistance = 20): Measurement {
  // Checked first: NaN measured no distance and 1.5 stopped at 1, both without a word, and 65
  // was refused only after every distance up to 64 had been measured.
  checkMaxDistance(maxDistance);
  const candidates = promptCandidates(topics);
  const keys = candidates.map((c) => key(c.topicId, c.doc, c.index));
  // The candidates holding each stored hash: a question finds its chunks by one lookup, not by
  // comparing its hash as hex with every stored one (entries × stored hashes strings before).
  const byHash = new Map<bigint, number[]>();
  for (let k = 0; k < candidates.length; k++) {
    for (const h of candidates[k]!.hashes) {
      const holders = byHash.get(h);
      if (holders === undefined) byHash.set(h, [k]);
      else if (holders[holders.length - 1] !== k) holders.push(k);
    }
  }
  const unmatchedQuestions: Measurement['unmatchedQuestions'] = [];
  const cases: { topic: string; relevant: Set<string>; hashes: bigint[] }[] = [];
  for (const e of entries) {
    const relevant = new Set<string>();
    for (const k of byHash.get(simhash64(e.question)) ?? []) if (candidates[k]!.topicId === e.topic) relevant.add(keys[k]!);
    if (relevant.size === 0) {
      unmatchedQuestions.push({ topic: e.topic, question: e.question });
      continue;
    }
    cases.push({ topic: e.topic, relevant, hashes: e.paraphrases.map((p) => simhash64(p)) });
  }

  // Counts by distance, summed into "within d" below: each paraphrase's distance to each chunk
  // is found once, not once per distance measured (21 times by default).
  const size = maxDistance + 1;
  const matchedAt = new Float64Array(size);
  const goodAt = new Float64Array(size);
  const otherAt = new Float64Array(size);
  /** Paraphrases whose nearest chunk of their question (of another topic) is at the distance. */
  const hitFrom = new Float64Array(size);
  const withOtherFrom = new Float64Array(size);
  let paraphrases = 0;
  let relevantTotal = 0;
  for (const c of cases) {
    for (const h of c.hashes) {
      paraphrases++;
      relevantTotal += c.relevant.size;
      // A hash of 0 matches nothing (matchPrompts: no content words).
      if (h === 0n) continue;
      let nearestGood = size;
      let nearestOther = size;
      for (let k = 0; k < candidates.length; k++) {
        const candidate = candidates[k]!;
        let best = size;
        for (const stored of candidate.hashes) best = Math.min(best, hammingDistance(h, stored));
        if (best >= size) continue;
        matchedAt[best] = matchedAt[best]! + 1;
        if (c.relevant.has(keys[k]!)) {
          goodAt[best] = goodAt[best]! + 1;
          nearestGood = Math.min(nearestGood, best);
        }
        if (candidate.topicId !== c.topic) {
          otherAt[best] = otherAt[best]! + 1;
          nearestOther = Math.min(nearestOther, best);
        }
      }
      if (nearestGood < size) hitFrom[nearestGood] = hitFrom[nearestGood]! + 1;
      if (nearestOther < size) withOtherFrom[nearestOther] = withOtherFrom[nearestOther]! + 1;
    }
  }

  // Pairs of distinct stored hashes of different topics, counted by distance (every pair's
  // distance was kept in an array: memory quadratic in the stored hashes). A hash held by one
  // topic only is the same-topic case; one held by several topics pairs across topics with any.
  const onlyTopic: (string | null)[] = [];
  const topicsOf = new Map<bigint, Set<string>>();
  for (const c of candidates) for (const h of c.hashes) topicsOf.set(h, (topicsOf.get(h) ?? new Set()).add(c.topicId));
  // As 32-bit halves: a BigInt XOR and popcount per pair took over a minute for 20,000 hashes.
  const high = new Uint32Array(topicsOf.size);
  const low = new Uint32Array(topicsOf.size);
  for (const [h, held] of topicsOf) {
    high[onlyTopic.length] = Number(h >> 32n);
    low[onlyTopic.length] = Number(h & 0xffffffffn);
    onlyTopic.push(held.size === 1 ? held.values().next().value! : null);
  }
  const pairsAt = new Float64Array(65);
  let pairs = 0;
  for (let i = 0; i < onlyTopic.length; i++) {
    const hi = high[i]!;
    const lo = low[i]!;
    const ti = onlyTopic[i];
    for (let j = i + 1; j < onlyTopic.length; j++) {
      if (ti !== null && ti === onlyTopic[j]) continue;
      const distance = popcount32(hi ^ high[j]!) + popcount32(lo ^ low[j]!);
      pairsAt[distance] = pairsAt[distance]! + 1;
      pairs++;
    }
  }

  const rows: ThresholdRow[] = [];
  let hits = 0;
  let tp = 0;
  let matched = 0;
  let other = 0;
  let withOther = 0;
  let pairsWithin = 0;
  for (let d = 0; d <= maxDistance; d++) {
    hits += hitFrom[d]!;
    tp += goodAt[d]!;
    matched += matchedAt[d]!;
    other += otherAt[d]!;
    withOther += withOtherFrom[d]!;
    pairsWithin += pairsAt[d]!;
    const precision = matched > 0 ? tp / matched : null;
    const recall = relevantTotal > 0 ? tp / relevantTotal : 0;
    const fBeta = (b: number) => (precision !== null && precision + recall > 0 ? ((1 + b * b) * precision * recall) / (b * b * precision + recall) : null);
    const f1 = fBeta(1);
    const f05 = fBeta(0.5);
    rows.push({
      distance: d,
      paraphrases,
      hitRate: paraphrases > 0 ? hits / paraphrases : 0,
      precision,
      recall,
      f1,
      f05,
      otherTopicMatches: other,
      paraphrasesWithOtherTopicMatch: withOther,
      crossTopicQuestionPairRate: pairs > 0 ? pairsWithin / pairs : null,
    });
  }
  let suggested: number | null = null;
  let best = -1;
  for (const r of rows) {
    if (r.f05 !== null && r.f05 > best) {
      best = r.f05;
      suggested = r.distance;
    }
  }
  return { rows, unmatchedQuestions, suggested };
}

/** Set bits of a 32-bit value (the usual SWAR count). */
function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Validates the paraphrase file's parsed JSON; `where` names it in errors. */
export function parseParaphraseFile(json: unknown, where: string): ParaphraseEntry[] {
  if (!Array.isArray(json)) throw new Error(`${where}: expected an array of { topic, question, paraphrases }`);
  return json.map((e: unknown, i) => {
    const o = e as Record<string, unknown> | null;
    const ok =
      o !== null &&
      typeof o === 'object' &&
      typeof o.topic === 'string' &&
      typeof o.question === 'string' &&
      Array.isArray(o.paraphrases) &&
      o.paraphrases.every((p) => typeof p === 'string');
    if (!ok) throw new Error(`${where}: [${i}]: expected { "topic": string, "question": string, "paraphrases": string[] }`);
    return { topic: o.topic as string, question: o.question as string, paraphrases: o.paraphrases as string[] };
  });
}
