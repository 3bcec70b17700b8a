// Hybrid ranking: BM25 against hand-computed values and invariants, max-normalised fusion,
// and the ranking over real local-embedder vectors.
import fc from 'fast-check';
import { createProvider } from '@chunkyard/embeddings';
import { describe, expect, it } from 'vitest';
import { Bm25Index, bm25Terms, fuseMaxNormalised, rankHybrid } from './hybrid.js';

describe('bm25Terms', () => {
  it("reads a text as the local embedder does: stems without stop words, identifier parts and the whole identifier", () => {
    expect(bm25Terms('The runners are running JsonSerializer.Deserialize')).toEqual(['runner', 'run', 'json', 'serial', 'deseri', 'id:jsonserializer.deserialize']);
  });
});

describe('Bm25Index', () => {
  it('scores as Okapi BM25 with k1 = 1.2, b = 0.75 (hand-computed)', () => {
    // Terms after stemming: [cat cat dog] (3), [dog fish] (2), [bird] (1); mean length 2.
    const index = new Bm25Index(['cat cat dog', 'dog fish', 'bird']);
    const s = index.scores('cats');
    const idf = Math.log(1 + 2.5 / 1.5); // cat: in 1 document of 3
    expect(s[0]).toBeCloseTo((idf * 2 * 2.2) / (2 + 1.2 * (0.25 + 0.75 * 1.5)), 12);
    expect([s[1], s[2]]).toEqual([0, 0]);
    // A repeated query term counts once; unknown words add nothing.
    expect([...index.scores('cat cat zebra')]).toEqual([...s]);
  });

  it('ranks a shorter document with the same count higher, and a rarer term above a common one', () => {
    const s = new Bm25Index(['apple pear plum', 'apple', 'kiwi']).scores('apple');
    expect(s[1]).toBeGreaterThan(s[0]!);
    const t = new Bm25Index(['common rare', 'common', 'common', 'other']).scores('common rare');
    expect(t[0]).toBeGreaterThan(t[1]! * 2);
  });

  it('never scores below 0, and 0 exactly for a document sharing no term with the query', () => {
    const word = fc.constantFrom('alpha', 'beta', 'gamma', 'the', 'runs', 'running', 'JsonReader');
    fc.assert(
      fc.property(fc.array(fc.array(word, { maxLength: 8 }).map((w) => w.join(' ')), { minLength: 1, maxLength: 12 }), fc.array(word, { minLength: 1, maxLength: 4 }), (docs, q) => {
        const s = new Bm25Index(docs).scores(q.join(' '));
        const qt = new Set(bm25Terms(q.join(' ')));
        docs.forEach((d, i) => {
          expect(s[i]).toBeGreaterThanOrEqual(0);
          if (!bm25Terms(d).some((t) => qt.has(t))) expect(s[i]).toBe(0);
        });
      }),
    );
  });

  it('refuses parameters outside their range', () => {
    expect(() => new Bm25Index(['a'], { b: 1.5 })).toThrow(/0 ≤ b ≤ 1/);
    expect(() => new Bm25Index(['a'], { k1: -1 })).toThrow(/k1 ≥ 0/);
  });

  it('refuses a k1 or b given as a string, and says so (k1 "3" was shown as `k1 3`; b "0.5" was taken)', () => {
    const str = (v: string) => v as unknown as number;
    expect(() => new Bm25Index(['a b'], { k1: str('3') })).toThrow(new RangeError('BM25 needs a finite k1 ≥ 0 and 0 ≤ b ≤ 1, got k1 the string "3", b 0.75'));
    expect(() => new Bm25Index(['a b'], { b: str('0.5') })).toThrow(new RangeError('BM25 needs a finite k1 ≥ 0 and 0 ≤ b ≤ 1, got k1 1.2, b the string "0.5"'));
    expect(() => rankHybrid('a', new Float32Array([1]), [{ ref: 0, vector: new Float32Array([1]), text: 'a b' }], 1, { b: str('0.5') })).toThrow(/b the string "0.5"/);
  });

  it('refuses a k1 of Infinity or NaN, for the index and for rankHybrid (Infinity made every score NaN)', () => {
    for (const k1 of [Infinity, NaN]) {
      expect(() => new Bm25Index(['a b', 'b'], { k1 }), String(k1)).toThrow(new RangeError(`BM25 needs a finite k1 ≥ 0 and 0 ≤ b ≤ 1, got k1 ${k1}, b 0.75`));
      expect(() => rankHybrid('a', new Float32Array([1]), [{ ref: 0, vector: new Float32Array([1]), text: 'a b' }], 1, { k1 }), String(k1)).toThrow(RangeError);
    }
  });
});

describe('fuseMaxNormalised', () => {
  it('divides each list by its maximum, then sums with the weights', () => {
    expect([...fuseMaxNormalised([{ scores: [2, 4, 0], weight: 1 }, { scores: [30, 0, 10], weight: 2 }])]).toEqual([2.5, 1, 2 / 3]);
  });
  it('a list without a positive score adds nothing; negative scores count as 0; lengths must agree', () => {
    expect([...fuseMaxNormalised([{ scores: [0, -1], weight: 1 }, { scores: [1, -2], weight: 1 }])]).toEqual([1, 0]);
    expect(() => fuseMaxNormalised([{ scores: [1], weight: 1 }, { scores: [1, 2], weight: 1 }])).toThrow(/differ in length/);
  });
  it('one list keeps its order (never reversed, even near a subnormal maximum)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { minLength: 1, maxLength: 30 }), (s) => {
        const f = fuseMaxNormalised([{ scores: s, weight: 3 }]);
        for (let i = 0; i < s.length; i++) for (let j = 0; j < s.length; j++) if (s[i]! > s[j]!) expect(f[i]).toBeGreaterThanOrEqual(f[j]!);
      }),
    );
    expect([...fuseMaxNormalised([{ scores: [0, 5e-324], weight: 3 }])]).toEqual([0, 3]);
  });
});

describe('rankHybrid', () => {
  const provider = createProvider({ provider: 'local' });
  const texts = [
    'Trimming removes unused code from the published app.',
    'The garbage collector has workstation and server modes.',
    'Native AOT publishes a self-contained executable.',
    'Server garbage collection uses one heap per core.',
  ];

  it('ranks every item once, best first, each score the sum of its max-normalised parts; n cuts the same order', async () => {
    const vectors = await provider.embed(texts);
    const items = texts.map((text, i) => ({ ref: i, vector: vectors[i]!, text }));
    const query = 'server heaps per core';
    const [qv] = await provider.embed([query]);
    const ranked = rankHybrid(query, qv!, items, 4);
    expect(ranked.map((r) => r.ref).sort()).toEqual([0, 1, 2, 3]);
    expect(ranked[0]!.ref).toBe(3);
    const maxSim = Math.max(...ranked.map((r) => r.similarity), 0);
    const maxBm = Math.max(...ranked.map((r) => r.bm25));
    for (const r of ranked) expect(r.score).toBeCloseTo(Math.max(0, r.similarity) / maxSim + r.bm25 / maxBm, 9);
    for (let i = 1; i < ranked.length; i++) expect(ranked[i - 1]!.score).toBeGreaterThanOrEqual(ranked[i]!.score);
    expect(rankHybrid(query, qv!, items, 2)).toEqual(ranked.slice(0, 2));
    expect(rankHybrid(query, qv!, items, 0)).toEqual([]);
  });

  it('refuses an n outside 0..2^53 − 1 or not a number before any work, naming n; any whole n up to 2^53 − 1 ranks the items', () => {
    const items = texts.map((text, i) => ({ ref: i, vector: Float32Array.of(i, 1), text }));
    const qv = Float32Array.of(1, 1);
    // NaN and "abc" ranked nothing, 1.5 one item, -1 none and Infinity all, each silently.
    for (const [n, shown] of [
      [NaN, 'NaN'],
      [Infinity, 'Infinity'],
      [-1, '-1'],
      [1.5, '1.5'],
      [1e300, '1e+300'],
      ['2', 'the string "2"'],
      ['abc', 'the string "abc"'],
    ] as const) {
      // @ts-expect-error: a caller outside TypeScript (JSON, a CLI) may pass anything
      expect(() => rankHybrid('server', qv, items, n), shown).toThrow(new RangeError(`n must be a non-negative integer (0..2^53 − 1), got ${shown}`));
    }
    const all = rankHybrid('server', qv, items, 4);
    fc.assert(
      fc.property(fc.oneof(fc.nat(6), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.constant(Number.MAX_SAFE_INTEGER)), (n) => {
        expect(rankHybrid('server', qv, items, n)).toEqual(all.slice(0, n));
      }),
    );
  });
});
