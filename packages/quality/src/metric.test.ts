import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { precisionOmega, scoreRetrieval, stat, summarizeByCorpus, type ChunkSpan, type Question } from './metric.js';
import { difference, intersect, sum, union } from './ranges.js';

const q = (refs: [number, number][], corpusId = 'a'): Question => ({
  id: 'q',
  text: 'q?',
  corpusId,
  references: refs.map(([start, end]) => ({ start, end })),
});
const c = (start: number, end: number, corpusId = 'a'): ChunkSpan => ({ corpusId, start, end });

describe('ranges (Chroma edge behaviour)', () => {
  it('intersects touching ranges as an empty range, disjoint ones as null', () => {
    expect(intersect([0, 5], [5, 9])).toEqual([5, 5]);
    expect(intersect([0, 5], [6, 9])).toBeNull();
    expect(intersect([0, 10], [3, 4])).toEqual([3, 4]);
  });
  it('merges touching and overlapping ranges, sums without merging', () => {
    expect(union([[5, 8], [0, 5], [7, 12], [20, 21]])).toEqual([[0, 12], [20, 21]]);
    expect(sum([[0, 10], [5, 15]])).toBe(20);
  });
  it('subtracts a range, splitting when it is inside', () => {
    expect(difference([[0, 10]], [3, 5])).toEqual([[0, 3], [5, 10]]);
    expect(difference([[0, 10]], [0, 10])).toEqual([]);
    expect(difference([[0, 10], [20, 30]], [5, 25])).toEqual([[0, 5], [25, 30]]);
  });
});

describe('scoreRetrieval (hand-computed)', () => {
  it('counts other-corpus chunks in precision but never in the overlap', () => {
    // O = [10,15) ∪ [15,20) = 10 chars; retrieved total 15 + 15 + 100 = 130.
    const s = scoreRetrieval(q([[10, 20]]), [c(0, 15), c(15, 30), c(0, 100, 'b')]);
    expect(s.recall).toBe(1);
    expect(s.precision).toBeCloseTo(10 / 130, 12);
    expect(s.iou).toBeCloseTo(10 / 130, 12);
  });
  it('adds reference characters no chunk covers to the IoU denominator', () => {
    // refs [0,10) and [50,60); chunk [5,25): O = 5, unused = 5 + 10.
    const s = scoreRetrieval(q([[0, 10], [50, 60]]), [c(5, 25)]);
    expect(s.recall).toBe(0.25);
    expect(s.precision).toBe(0.25);
    expect(s.iou).toBeCloseTo(5 / 35, 12);
  });
  it('penalises overlapping chunks in precision: shared characters count once per chunk', () => {
    const s = scoreRetrieval(q([[0, 10]]), [c(0, 10), c(0, 10)]);
    expect(s).toEqual({ recall: 1, precision: 0.5, iou: 0.5 });
  });
  it('scores a question whose excerpt was not retrieved as zero', () => {
    expect(scoreRetrieval(q([[100, 120]]), [c(0, 50), c(0, 50, 'b')])).toEqual({ recall: 0, precision: 0, iou: 0 });
  });
});

describe('precisionOmega (hand-computed)', () => {
  it('divides by the union of reference-touching chunks, including chunks that only touch a reference', () => {
    // [25,50) touches ref [50,60) (empty intersection): Chroma still counts it.
    const all = [c(0, 25), c(25, 50), c(50, 75), c(75, 100), c(0, 60, 'b')];
    expect(precisionOmega(q([[0, 10], [50, 60]]), all)).toBeCloseTo(20 / 75, 12);
  });
  it('is 1 when the references are chunks and no other chunk touches them', () => {
    expect(precisionOmega(q([[10, 20]]), [c(0, 9), c(10, 20), c(21, 40)])).toBe(1);
  });
});

describe('aggregation', () => {
  it('gives mean and population standard deviation', () => {
    const s = stat([0, 1, 1, 0]);
    expect(s).toEqual({ mean: 0.5, std: 0.5, n: 4 });
    expect(stat([]).n).toBe(0);
  });
  it('pools all questions and splits them by corpus', () => {
    const row = (corpusId: string, v: number) => ({ id: corpusId, corpusId, recall: v, precision: v, iou: v, precisionOmega: v });
    const out = summarizeByCorpus([row('a', 1), row('a', 0), row('b', 1)]);
    expect(out.all.recall.mean).toBeCloseTo(2 / 3, 12);
    expect(out.corpora.a!.recall.mean).toBe(0.5);
    expect(out.corpora.b!.iou.std).toBe(0);
  });
});

/** A random partition of [0, n) into chunks, plus disjoint references. */
const scenario = fc
  .record({
    n: fc.integer({ min: 20, max: 400 }),
    cuts: fc.array(fc.integer({ min: 1, max: 399 }), { maxLength: 30 }),
    refSeeds: fc.array(fc.tuple(fc.integer({ min: 0, max: 399 }), fc.integer({ min: 1, max: 60 })), { minLength: 1, maxLength: 4 }),
    pick: fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
  })
  .map(({ n, cuts, refSeeds, pick }) => {
    const bounds = [...new Set([0, ...cuts.filter((x) => x < n), n])].sort((a, b) => a - b);
    const chunks = bounds.slice(1).map((e, i) => c(bounds[i]!, e));
    // Disjoint references: sort starts, clip each to the next start.
    const starts = [...new Set(refSeeds.map(([s]) => s % (n - 1)))].sort((a, b) => a - b);
    const refs: [number, number][] = starts.map((s, i) => {
      const len = refSeeds[i % refSeeds.length]![1];
      const limit = i + 1 < starts.length ? starts[i + 1]! : n;
      return [s, Math.max(s + 1, Math.min(s + len, limit))];
    });
    const retrieved = pick.map((p) => chunks[p % chunks.length]!);
    return { n, chunks, refs, retrieved };
  });

describe('metric properties', () => {
  it('keeps recall, precision and IoU in [0, 1] with IoU ≤ min(recall, precision)', () => {
    fc.assert(
      fc.property(scenario, ({ refs, retrieved }) => {
        const s = scoreRetrieval(q(refs), retrieved);
        for (const v of [s.recall, s.precision, s.iou]) expect(v >= 0 && v <= 1).toBe(true);
        expect(s.iou).toBeLessThanOrEqual(s.precision + 1e-12);
        expect(s.iou).toBeLessThanOrEqual(s.recall + 1e-12);
      }),
    );
  });
  it('gives recall 1 when every chunk is retrieved, and precision_Ω ≥ that retrieval’s precision', () => {
    fc.assert(
      fc.property(scenario, ({ chunks, refs }) => {
        const s = scoreRetrieval(q(refs), chunks);
        expect(s.recall).toBe(1);
        expect(precisionOmega(q(refs), chunks)).toBeGreaterThanOrEqual(s.precision - 1e-12);
      }),
    );
  });
  it('gives recall = precision = IoU = 1 when the retrieved chunks are exactly the references', () => {
    fc.assert(
      fc.property(scenario, ({ refs }) => {
        const s = scoreRetrieval(q(refs), refs.map(([a, b]) => c(a, b)));
        expect(s).toEqual({ recall: 1, precision: 1, iou: 1 });
      }),
    );
  });
  it('never rewards chunks of another corpus', () => {
    fc.assert(
      fc.property(scenario, ({ refs, retrieved }) => {
        const s = scoreRetrieval(q(refs), retrieved.map((x) => ({ ...x, corpusId: 'other' })));
        expect(s).toEqual({ recall: 0, precision: 0, iou: 0 });
      }),
    );
  });
});
