// The cap on stored (question, chunk) pairs: a spec either holds every pair that reaches the
// threshold, exactly as without the cap, or, when they are more than the cap, is refused with
// PromptHashLimitError. Hostile vectors: zero, identical, opposite and tiny ones.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildTopicSpec, MAX_PROMPT_HASHES, PromptHashLimitError, type BuildSpecInput } from './build.js';

const DIM = 3;
const vector = fc.oneof(
  fc.constant([0, 0, 0]),
  fc.constant([1, 0, 0]),
  fc.constant([-1, 0, 0]),
  fc.tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 })),
  fc.tuple(fc.double({ min: -1e-30, max: 1e-30, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), fc.constant(0)),
).map((v) => Float32Array.from(v));

function input(chunkVectors: Float32Array[], questionVectors: Float32Array[], threshold: number): BuildSpecInput {
  return {
    title: 'T',
    embedding: { provider: 'local', model: 'm', dimensions: DIM },
    documents: [
      {
        doc: 'golden-reference',
        source: 'golden-reference.md',
        strategyKey: 's',
        sourceSha256: '0'.repeat(64),
        fileTitle: 'T',
        chunks: chunkVectors.map((_, i) => ({ chunkNumber: i, originalText: `chunk ${i}`, sectionTitle: `S${i}`, isCode: false, tokenStats: { tokens: 2 } })),
        vectors: chunkVectors,
      },
    ],
    keywords: [],
    // Distinct words, so distinct SimHashes (a shared hash is stored once and counted once).
    questions: questionVectors.map((vector, i) => ({ question: `${'why '.repeat(i + 1)}question ${i}?`, vector })),
    promptThreshold: threshold,
  };
}
const pairsOf = (spec: ReturnType<typeof buildTopicSpec>) => spec.chunks.reduce((n, c) => n + (c.prompt_hashes?.length ?? 0), 0);

describe('buildTopicSpec: at most maxPromptHashes (question, chunk) pairs', () => {
  it('stores every pair as without a cap when they fit, and refuses with PromptHashLimitError when they do not', () => {
    fc.assert(
      fc.property(
        fc.array(vector, { minLength: 1, maxLength: 12 }),
        fc.array(vector, { maxLength: 12 }),
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.nat({ max: 150 }),
        (chunks, questions, threshold, limit) => {
          const all = buildTopicSpec(input(chunks, questions, threshold));
          const pairs = pairsOf(all);
          if (pairs <= limit) {
            expect(buildTopicSpec({ ...input(chunks, questions, threshold), maxPromptHashes: limit })).toEqual(all);
          } else {
            let thrown: unknown;
            try {
              buildTopicSpec({ ...input(chunks, questions, threshold), maxPromptHashes: limit });
            } catch (err) {
              thrown = err;
            }
            expect(thrown).toBeInstanceOf(PromptHashLimitError);
            const e = thrown as PromptHashLimitError;
            expect([e.limit, e.questions, e.chunks, e.threshold]).toEqual([limit, questions.length, chunks.length, threshold]);
            expect(e.message).toContain(`more than ${limit.toLocaleString('en-US')} (question, chunk) pairs`);
            expect(e.message).toMatch(/raise spec\.promptThreshold/);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('defaults to MAX_PROMPT_HASHES, and refuses a cap that is not a whole number', () => {
    expect(MAX_PROMPT_HASHES).toBe(2_000_000);
    const one = input([Float32Array.from([1, 0, 0])], [Float32Array.from([1, 0, 0])], 0.3);
    expect(pairsOf(buildTopicSpec(one))).toBe(1);
    for (const bad of [-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => buildTopicSpec({ ...one, maxPromptHashes: bad }), String(bad)).toThrow(/maxPromptHashes must be a whole number/);
    }
  });
});
