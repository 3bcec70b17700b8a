/**
 * Measures prompt matching per Hamming distance, to choose DEFAULT_MAX_HAMMING_DISTANCE:
 * given paraphrases of qa-pairs.md questions, how often does a paraphrase reach its
 * question's chunks (recall), how many of the chunks it reaches are those (precision), and
 * how often it, or another topic's question, falls within the distance of a question of a
 * different topic (false matches). Pure over loaded indexes; the script
 * `measure-prompt-threshold.mjs` is its I/O edge.
 */
import { hammingDistance, simhash64, toHex } from '@chunkyard/simhash';
import { checkMaxDistance, matchPrompts, promptCandidates } from './prompt-match.js';
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
  const unmatchedQuestions: Measurement['unmatchedQuestions'] = [];
  const cases: { topic: string; relevant: Set<string>; hashes: bigint[] }[] = [];
  for (const e of entries) {
    const qHex = toHex(simhash64(e.question));
    const relevant = new Set(candidates.filter((c) => c.topicId === e.topic && c.hashes.some((h) => toHex(h) === qHex)).map((c) => key(c.topicId, c.doc, c.index)));
    if (relevant.size === 0) {
      unmatchedQuestions.push({ topic: e.topic, question: e.question });
      continue;
    }
    cases.push({ topic: e.topic, relevant, hashes: e.paraphrases.map((p) => simhash64(p)) });
  }
  // Every distinct stored hash with the topics holding it, for the cross-topic pair rate.
  const stored = new Map<bigint, Set<string>>();
  for (const c of candidates) for (const h of c.hashes) stored.set(h, (stored.get(h) ?? new Set()).add(c.topicId));
  const storedList = [...stored.entries()];
  const pairDistances: number[] = [];
  for (let i = 0; i < storedList.length; i++) {
    for (let j = i + 1; j < storedList.length; j++) {
      const [hi, ti] = storedList[i]!;
      const [hj, tj] = storedList[j]!;
      const sameTopicOnly = ti.size === 1 && tj.size === 1 && [...ti][0] === [...tj][0];
      if (!sameTopicOnly) pairDistances.push(hammingDistance(hi, hj));
    }
  }

  const rows: ThresholdRow[] = [];
  for (let d = 0; d <= maxDistance; d++) {
    let paraphrases = 0;
    let hits = 0;
    let tp = 0;
    let matched = 0;
    let relevantTotal = 0;
    let other = 0;
    let withOther = 0;
    for (const c of cases) {
      for (const h of c.hashes) {
        paraphrases++;
        relevantTotal += c.relevant.size;
        const ms = matchPrompts(h, candidates, d);
        const good = ms.filter((m) => c.relevant.has(key(m.topicId, m.doc, m.index))).length;
        const others = ms.filter((m) => m.topicId !== c.topic).length;
        tp += good;
        matched += ms.length;
        other += others;
        if (good > 0) hits++;
        if (others > 0) withOther++;
      }
    }
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
      crossTopicQuestionPairRate: pairDistances.length > 0 ? pairDistances.filter((x) => x <= d).length / pairDistances.length : null,
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
