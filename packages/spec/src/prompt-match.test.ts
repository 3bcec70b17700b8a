// Prompt matching compares every question with every chunk: questions × chunks cosines, each
// over all the vector's dimensions, each summing three products a dimension. A topic of 3,200
// sections and 3,200 questions spent 24 s of topic-spec's 35 s there (helper-85 probe), though
// a question embedded by the local provider has 5 or so non-zero dimensions of 512. The
// questions are now prepared once (norm and non-zero dimensions) and each chunk's norm taken
// once, and the stored hashes are exactly those cosine() >= threshold gives.
import { LocalLexicalProvider } from '@chunkyard/embeddings';
import { simhash64, toHex } from '@chunkyard/simhash';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildTopicSpec, type BuildSpecInput, type ManifestChunk } from './build.js';
import { cosine } from './similarity.js';

const provider = new LocalLexicalProvider();

function chunk(i: number, text: string): ManifestChunk {
  return { chunkNumber: i, originalText: text, sectionTitle: `Section ${i}`, isCode: false, tokenStats: { tokens: 10 } };
}

function input(vectors: Float32Array[], questions: { question: string; vector: Float32Array }[], promptThreshold: number): BuildSpecInput {
  return {
    title: 'T',
    embedding: { provider: 'test', model: 'm', dimensions: vectors[0]?.length ?? 0 },
    documents: [{ doc: 'g', source: 'g.md', strategyKey: 's', sourceSha256: '0'.repeat(64), fileTitle: 'T', chunks: vectors.map((_, i) => chunk(i, 'x')), vectors }],
    keywords: [],
    questions,
    promptThreshold,
    maxPromptHashes: Number.MAX_SAFE_INTEGER,
  };
}

/** The hashes of the questions whose cosine() to each chunk reaches the threshold, as the spec stores them. */
function bruteForce(vectors: Float32Array[], questions: { question: string; vector: Float32Array }[], threshold: number): (string[] | undefined)[] {
  return vectors.map((v) => {
    const hashes = new Set<string>();
    for (const q of questions) if (cosine(q.vector, v) >= threshold) hashes.add(toHex(simhash64(q.question)));
    return hashes.size ? [...hashes].sort() : undefined;
  });
}

describe('prompt matching', () => {
  it('stores exactly the pairs cosine() puts at or over the threshold, whatever the vectors hold (property)', () => {
    // Zeros most of all (sparse vectors), signed zeros, tiny and huge values, and NaN or infinities a provider might send.
    const component = fc.oneof(
      { weight: 6, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.constant(-0) },
      { weight: 4, arbitrary: fc.float({ noNaN: true, noDefaultInfinity: true }) },
      { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e-45, 3.4e38) },
    );
    const dims = 6;
    const vector = fc.array(component, { minLength: dims, maxLength: dims }).map((xs) => Float32Array.from(xs));
    fc.assert(
      fc.property(
        fc.array(vector, { minLength: 1, maxLength: 6 }),
        fc.array(vector, { maxLength: 6 }),
        fc.oneof(fc.constantFrom(-1, -0.5, 0, 0.3, 1), fc.double({ min: -1, max: 1, noNaN: true })),
        (vectors, qvs, threshold) => {
          const questions = qvs.map((vector, i) => ({ question: `Question ${i}?`, vector }));
          const spec = buildTopicSpec(input(vectors, questions, threshold));
          expect(spec.chunks.map((c) => c.prompt_hashes)).toEqual(bruteForce(vectors, questions, threshold));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a question of another size as cosine() does', () => {
    const q = { question: 'Why?', vector: new Float32Array(4) };
    expect(() => buildTopicSpec(input([new Float32Array(8)], [q], 0.3))).toThrow('cannot compare vectors of 4 and 8 dimensions');
  });

  it('is fast for the local provider: 3,000 questions on 3,000 chunks in well under the 17 s it took', async () => {
    const n = 3000;
    const vectors = await provider.embed(Array.from({ length: n }, (_, i) => `The server${i} handles request${i} with FooBar${i} and the config value ${i}. Some more filler words about servers and configuration.`));
    const questions = (await provider.embed(Array.from({ length: n }, (_, i) => `How does server${i} handle request${i}?`))).map((vector, i) => ({ question: `How does server${i} handle request${i}?`, vector }));
    const started = performance.now();
    const spec = buildTopicSpec(input(vectors, questions, 0.3));
    const elapsed = performance.now() - started;
    expect(spec.chunks[7]!.prompt_hashes).toContain(toHex(simhash64('How does server7 handle request7?')));
    expect(elapsed).toBeLessThan(4000);
  }, 120_000);
});
