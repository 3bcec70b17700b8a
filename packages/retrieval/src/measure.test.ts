// The threshold measurement over a real fixture (questions stored by buildFixtureDocs) and
// hand-written paraphrases: the invariants its table must satisfy, and the input check.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureThresholds, parseParaphraseFile } from './measure.js';
import { FolderSource } from './source.js';
import { buildFixtureDocs, REPO, SAMPLE_QUESTIONS, type FixtureDocs } from './test-fixture-docs.js';
import { walkTopics } from './walk.js';

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
