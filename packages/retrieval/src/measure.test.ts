// The threshold measurement over a real fixture (questions stored by buildFixtureDocs) and
// hand-written paraphrases: the invariants its table must satisfy, and the input check.
import { execFile } from 'node:child_process';
import { hammingDistance, simhash64, toHex } from '@chunkyard/simhash';
import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureThresholds, parseParaphraseFile, type Measurement, type ParaphraseEntry } from './measure.js';
import { matchPrompts, promptCandidates } from './prompt-match.js';
import { FolderSource } from './source.js';
import { buildFixtureDocs, REPO, SAMPLE_QUESTIONS, type FixtureDocs } from './test-fixture-docs.js';
import { walkTopics, type LoadedTopic } from './walk.js';

let fx: FixtureDocs;
beforeAll(async () => {
  fx = await buildFixtureDocs({ questions: SAMPLE_QUESTIONS });
});
afterAll(() => fx?.cleanup());

describe('measureThresholds', () => {
  it('reports each distance 0..20 with recall rising and precision defined once anything matches', async () => {
    const topics = await walkTopics(new FolderSource(fx.docs));
    const entries = [...SAMPLE_QUESTIONS, { topic: 'deployment/native-aot', question: 'Not a stored question?', paraphrases: ['x'] }];
    const m = measureThresholds(topics, entries);
    expect(m.rows.map((r) => r.distance)).toEqual(Array.from({ length: 21 }, (_, i) => i));
    expect(m.unmatchedQuestions).toEqual([{ topic: 'deployment/native-aot', question: 'Not a stored question?' }]);
    const total = SAMPLE_QUESTIONS.reduce((n, q) => n + q.paraphrases.length, 0);
    for (const [i, r] of m.rows.entries()) {
      expect(r.paraphrases).toBe(total);
      if (i > 0) {
        expect(r.recall).toBeGreaterThanOrEqual(m.rows[i - 1]!.recall);
        expect(r.hitRate).toBeGreaterThanOrEqual(m.rows[i - 1]!.hitRate);
        expect(r.otherTopicMatches).toBeGreaterThanOrEqual(m.rows[i - 1]!.otherTopicMatches);
        expect(r.crossTopicQuestionPairRate!).toBeGreaterThanOrEqual(m.rows[i - 1]!.crossTopicQuestionPairRate!);
      }
      if (r.precision !== null) expect(r.precision).toBeGreaterThan(0);
    }
    // Some paraphrases hash exactly like their question, and by 20 bits nearly all are reached.
    expect(m.rows[0]!.hitRate).toBeGreaterThan(0);
    expect(m.rows[20]!.hitRate).toBeGreaterThan(m.rows[0]!.hitRate);
    expect(m.suggested).not.toBeNull();
  });

  it('validates the paraphrase file, naming it', () => {
    expect(parseParaphraseFile([{ topic: 't', question: 'q?', paraphrases: ['p'] }], 'f.json')).toHaveLength(1);
    expect(() => parseParaphraseFile({}, 'f.json')).toThrow(/^f.json: expected an array/);
    expect(() => parseParaphraseFile([{ topic: 't', question: 'q?' }], 'f.json')).toThrow(/^f.json: \[0\]: expected/);
  });
});

describe('measure-prompt-threshold.mjs', () => {
  const script = join(REPO, 'packages/retrieval/measure-prompt-threshold.mjs');
  const run = (...args: string[]) =>
    promisify(execFile)(process.execPath, [script, ...args]).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it('prints a row per distance, or the measurement as JSON', async () => {
    const file = join(fx.workspace, 'paraphrases.json');
    writeFileSync(file, JSON.stringify(SAMPLE_QUESTIONS));
    const text = await run(fx.docs, file, '--max', '12');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('7 topics, 8 chunks with prompt hashes; 8 questions, 24 paraphrases measured');
    expect(text.stdout.split('\n').filter((l) => /^\s*\d+\s+\d/.test(l))).toHaveLength(13);
    const json = await run(fx.docs, file, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ rows: expect.any(Array), currentDefault: expect.any(Number) });
  });

  it('exits 2 on a bad paraphrase file and 1 on unreadable docs', async () => {
    const bad = join(fx.workspace, 'bad.json');
    writeFileSync(bad, '{"topic": 1}');
    expect(await run(fx.docs, bad)).toMatchObject({ code: 2, stderr: expect.stringContaining(`${bad}: expected an array`) });
    const file = join(fx.workspace, 'paraphrases.json');
    expect(await run(join(fx.workspace, 'nowhere'), file)).toMatchObject({ code: 1, stderr: expect.stringContaining('docs folder not found') });
  });
});

describe('measureThresholds maxDistance', () => {
  it('is a whole number 0..64, else a RangeError before anything is measured (NaN measured nothing, 1.5 stopped at 1)', () => {
    for (const max of [NaN, 1.5, -1, 65, Infinity]) {
      expect(() => measureThresholds([], [], max), String(max)).toThrow(new RangeError(`max Hamming distance must be an integer 0..64, got ${max}`));
    }
    expect(measureThresholds([], [], 64).rows).toHaveLength(65);
  });
});

/**
 * measureThresholds as it was before it counted by distance (git 8fc14aa): matchPrompts at
 * every distance and every cross-topic pair's distance kept in an array (memory quadratic in
 * the stored hashes). The reference the counting version must agree with exactly.
 */
function referenceMeasure(topics: readonly Pick<LoadedTopic, 'id' | 'index'>[], entries: readonly ParaphraseEntry[], maxDistance: number): Measurement {
  const key = (topic: string, doc: string, index: number): string => `${topic}\u0000${doc}\u0000${index}`;
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
  const rows: Measurement['rows'] = [];
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
    rows.push({
      distance: d,
      paraphrases,
      hitRate: paraphrases > 0 ? hits / paraphrases : 0,
      precision,
      recall,
      f1: fBeta(1),
      f05: fBeta(0.5),
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

describe('measureThresholds counts by distance', () => {
  // Texts whose SimHashes are stored as questions and asked as paraphrases; '' and '?' hash to 0.
  const TEXTS = ['How do I publish?', 'How do I publish it?', 'Publish the app', 'What is AOT?', 'Native AOT limits', 'Trim warnings', '', '?', 'Configure the build cache', 'Clear the cache', 'How do I configure caching?', 'Read the logs'];
  const HASHES = TEXTS.map((t) => simhash64(t));
  // A stored hash is one of the texts', or one a few bits from it (near but not equal), or any 64 bits.
  const storedHash = fc.oneof(
    fc.nat(TEXTS.length - 1).map((i) => HASHES[i]!),
    fc.tuple(fc.nat(TEXTS.length - 1), fc.array(fc.nat(63), { maxLength: 4 })).map(([i, bits]) => bits.reduce((h, b) => h ^ (1n << BigInt(b)), HASHES[i]!)),
    fc.bigInt({ min: 0n, max: 0xffffffffffffffffn }),
  );
  const topicIds = ['a', 'b', 'c/d'];
  const topicsArb = fc.array(
    fc.record({
      id: fc.constantFrom(...topicIds),
      docs: fc.array(fc.array(fc.array(storedHash, { maxLength: 3 }), { maxLength: 4 }), { minLength: 1, maxLength: 3 }),
    }),
    { maxLength: 4 },
  );
  const entriesArb = fc.array(
    fc.record({
      topic: fc.constantFrom(...topicIds),
      question: fc.constantFrom(...TEXTS),
      paraphrases: fc.array(fc.constantFrom(...TEXTS), { maxLength: 4 }),
    }),
    { maxLength: 6 },
  );

  it('gives exactly what matching at every distance gave, on any stored hashes and paraphrases', () => {
    fc.assert(
      fc.property(topicsArb, entriesArb, fc.nat(64), (topicSpecs, entries, maxDistance) => {
        const topics = topicSpecs.map((t) => ({
          id: t.id,
          index: {
            _embedded: {
              chunks: Object.fromEntries(t.docs.map((items, d) => [`doc${d}.md`, { items: items.map((hashes, index) => ({ index, prompt_hashes: hashes.map(toHex) })) }])),
            },
          },
        })) as unknown as Pick<LoadedTopic, 'id' | 'index'>[]; // only the fields promptCandidates reads
        expect(measureThresholds(topics, entries, maxDistance)).toEqual(referenceMeasure(topics, entries, maxDistance));
      }),
      { numRuns: 300 },
    );
  });

  it('holds 20,000 stored hashes of other topics in memory linear in them', () => {
    // 200 million pairs: kept as an array of distances (8 bytes each) they needed 1.6 GB.
    const items = Array.from({ length: 20_000 }, (_, index) => ({ index, prompt_hashes: [toHex(BigInt.asUintN(64, BigInt(index) * 0x9e3779b97f4a7c15n))] }));
    const topics = [0, 1].map((t) => ({ id: `t${t}`, index: { _embedded: { chunks: { 'a.md': { items: items.filter((i) => i.index % 2 === t) } } } } })) as unknown as Pick<LoadedTopic, 'id' | 'index'>[];
    const before = process.memoryUsage().heapUsed;
    const m = measureThresholds(topics, [], 64);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(200 * 1024 * 1024);
    expect(m.rows[64]!.crossTopicQuestionPairRate).toBe(1);
    expect(m.rows[0]!.crossTopicQuestionPairRate).toBe(0);
  });
});
