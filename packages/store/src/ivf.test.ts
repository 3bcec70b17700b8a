import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assign, IvfIndex, listsFor, train, unitKey } from './ivf.js';
import { VectorIndex } from './vector-index.js';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
}

/** `rows` vectors: uniform in [-1, 1)^dims, or around `clusters` random centres with noise `spread`. */
function vectors(rows: number, dims: number, seed: number, clusters = 0, spread = 0.3): Float32Array[] {
  const rand = lcg(seed);
  const centres = Array.from({ length: clusters }, () => Float32Array.from({ length: dims }, rand));
  return Array.from({ length: rows }, (_, i) => {
    const c = clusters ? centres[i % clusters]! : null;
    return Float32Array.from({ length: dims }, (_, d) => (c ? c[d]! : 0) + (c ? spread : 1) * rand());
  });
}

const indexOf = (vecs: Float32Array[], dims: number) =>
  VectorIndex.fromRows(
    dims,
    vecs.map((v, i) => ({ unit: { unitId: `u${i}`, artifactId: `a${i % 7}`, topic: null, artifactType: 'doc', contentHints: i % 3 ? 'prose' : 'code' }, embedding: new Uint8Array(v.buffer) })),
    vecs.length,
  );

function recallAt(ivf: IvfIndex, exact: VectorIndex, queries: Float32Array[], k: number, probes?: number): number {
  let found = 0;
  let total = 0;
  for (const q of queries) {
    const truth = new Set(exact.search(q, k).map((m) => m.row));
    const got = ivf.search(q, k, undefined, probes);
    expect(got).toHaveLength(Math.min(k, exact.size));
    for (const m of got) if (truth.has(m.row)) found++;
    total += truth.size;
  }
  return found / total;
}

describe('IVF index', () => {
  // Recall is a quality figure, not an invariant: some random set will always be unlucky, so a
  // fast-check property with a fresh seed each run is a flaky test (seed 153407935 gave 0.93 on
  // uniform data). A fixed grid of sets is deterministic and still spans sizes, dimensions and
  // both shapes; the exactness invariant (every list probed = exact search) is the property below.
  it.each([
    [300, 8],
    [800, 24],
    [1500, 48],
  ])('recall@10 ≥ 0.95 against exact search on fixed clustered and uniform sets (%i rows × %i dims)', (rows, dims) => {
    for (const seed of [1, 2, 3]) {
      for (const clustered of [true, false]) {
        const vecs = vectors(rows, dims, seed, clustered ? 12 : 0);
        const exact = indexOf(vecs, dims);
        const model = train(exact, { seed });
        const ivf = new IvfIndex(model, exact, assign(model, exact).lists);
        const queries = vectors(50, dims, seed ^ 0x5555, clustered ? 12 : 0);
        // Uniform random data has no clusters to exploit: it needs most lists probed.
        const probes = clustered ? undefined : Math.ceil(ivf.model.lists * 0.75);
        const recall = recallAt(ivf, exact, queries, 10, probes);
        expect(recall, `seed ${seed}, ${clustered ? 'clustered' : 'uniform'}`).toBeGreaterThanOrEqual(0.95);
      }
    }
    // Not a speed limit: k-means on these sets takes seconds when the 2 cores are shared.
  }, 120_000);

  it('scores are exact cosines, and probing every list returns exactly the exact top k', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 15 }), fc.integer(), (rows, dims, k, seed) => {
        const vecs = vectors(rows, dims, seed, 5);
        const exact = indexOf(vecs, dims);
        const model = train(exact, { seed });
        const ivf = new IvfIndex(model, exact, assign(model, exact).lists);
        const [q] = vectors(1, dims, seed + 1);
        const filter = (u: { contentHints: string }) => u.contentHints === 'code';
        for (const accept of [undefined, filter]) {
          const want = exact.search(q!, k, accept);
          const got = ivf.search(q!, k, accept, model.lists);
          expect(got.map((m) => m.row)).toEqual(want.map((m) => m.row));
          got.forEach((m, i) => expect(m.score).toBeCloseTo(want[i]!.score, 6));
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it('a narrow filter that the probed lists cannot satisfy falls back to exact search', () => {
    const vecs = vectors(2000, 16, 7, 20);
    const exact = indexOf(vecs, 16);
    const model = train(exact, { seed: 3 });
    const ivf = new IvfIndex(model, exact, assign(model, exact).lists);
    const only = (u: { unitId: string }) => u.unitId === 'u1234';
    expect(ivf.search(vectors(1, 16, 99)[0]!, 5, only, 1).map((m) => m.row)).toEqual([1234]);
  });

  it('assign reuses known lists by unit key and places only the unknown units', () => {
    const vecs = vectors(500, 16, 11, 8);
    const exact = indexOf(vecs, 16);
    const model = train(exact, { seed: 1 });
    const first = assign(model, exact);
    expect(first).toMatchObject({ reused: 0, assigned: 500 });
    const known = new Map(exact.units.slice(0, 400).map((u, r) => [unitKey(u.unitId), first.lists[r]!]));
    const again = assign(model, exact, known);
    expect(again).toMatchObject({ reused: 400, assigned: 100 });
    expect([...again.lists]).toEqual([...first.lists]);
    expect(listsFor(1_000_000)).toBe(1000);
    expect(unitKey('a::chunk::001')).not.toBe(unitKey('a::chunk::002'));
  });
});
