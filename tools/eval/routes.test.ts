import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens } from '@chunkyard/chunking';
import { expandByScore, fuseScores, mergeAdjacent, mergeRanked, topIndexes, trimUnit, windowTexts, withNeighbours } from './routes.mjs';

describe('mergeAdjacent', () => {
  it('folds touching hits into one unit and stops at the first hit that would open unit k + 1', () => {
    const ranked = [
      { corpusId: 'a', start: 100, end: 200 },
      { corpusId: 'a', start: 201, end: 300 },
      { corpusId: 'b', start: 201, end: 300 },
      { corpusId: 'a', start: 500, end: 600 },
      { corpusId: 'a', start: 50, end: 99 },
    ];
    expect(mergeAdjacent(ranked, 2)).toEqual([
      { corpusId: 'a', start: 100, end: 300 },
      { corpusId: 'b', start: 201, end: 300 },
    ]);
    expect(mergeAdjacent(ranked, 5)).toEqual([
      { corpusId: 'a', start: 50, end: 300 },
      { corpusId: 'b', start: 201, end: 300 },
      { corpusId: 'a', start: 500, end: 600 },
    ]);
  });
  it('returns at most k units, the best hit inside one, each starting at a hit, without changing its input', () => {
    const span = fc.record({ corpusId: fc.constantFrom('a', 'b'), start: fc.nat(1000), len: fc.integer({ min: 1, max: 50 }) });
    fc.assert(
      fc.property(fc.array(span, { maxLength: 30 }), fc.integer({ min: 1, max: 6 }), (raw, k) => {
        const ranked = raw.map((s) => ({ corpusId: s.corpusId, start: s.start, end: s.start + s.len }));
        const copy = structuredClone(ranked);
        const units = mergeAdjacent(ranked, k);
        expect(ranked).toEqual(copy);
        expect(units.length).toBeLessThanOrEqual(k);
        // The best hit is always returned, inside some unit.
        const best = ranked[0];
        if (best) expect(units.some((u) => u.corpusId === best.corpusId && u.start <= best.start && u.end >= best.end)).toBe(true);
        for (const u of units) expect(ranked.some((s) => s.corpusId === u.corpusId && s.start === u.start)).toBe(true);
      }),
    );
  });
});

describe('withNeighbours', () => {
  const prev = 'alpha beta gamma delta epsilon zeta eta theta';
  const next = 'one two three four five six seven eight';
  it('appends the end of the previous chunk and the start of the next', () => {
    expect(withNeighbours('core text', prev, next, 100, countTokens)).toBe(`core text\n${prev}\n${next}`);
    const tight = withNeighbours('core text', prev, next, 12, countTokens);
    expect(countTokens(tight)).toBeLessThanOrEqual(12);
    expect(tight.startsWith('core text\n')).toBe(true);
    expect(tight).toMatch(/theta\none/);
  });
  it('never exceeds the cap, and leaves the text alone when there is no room or no neighbour', () => {
    expect(withNeighbours('core text', undefined, undefined, 100, countTokens)).toBe('core text');
    expect(withNeighbours('core text', prev, next, 3, countTokens)).toBe('core text');
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 60 }), (cap) => {
        const out = withNeighbours('core text', prev, next, cap, countTokens);
        expect(out === 'core text' || countTokens(out) <= cap).toBe(true);
      }),
    );
  });
});

describe('windowTexts', () => {
  it("joins each chunk's neighbours within ±w in the same corpus, its own embedded text in its place", () => {
    const chunks = [
      { corpusId: 'a', text: 'A0', embed: 'e0' },
      { corpusId: 'a', text: 'A1', embed: 'e1' },
      { corpusId: 'a', text: 'A2', embed: 'e2' },
      { corpusId: 'b', text: 'B0', embed: 'f0' },
    ];
    expect(windowTexts(chunks, 1)).toEqual(['e0\n\nA1', 'A0\n\ne1\n\nA2', 'A1\n\ne2', 'f0']);
    expect(windowTexts(chunks, 0)).toEqual(['e0', 'e1', 'e2', 'f0']);
  });
});

describe('fuseScores and topIndexes', () => {
  it('divides each list by its maximum before the weighted sum', () => {
    const fused = fuseScores([
      { scores: [2, 4, 0], weight: 1 },
      { scores: [30, 0, 10], weight: 2 },
    ]);
    expect([...fused]).toEqual([0.5 + 2, 1, 2 / 3]);
    expect(topIndexes(fused, 2)).toEqual([0, 1]);
  });
  it('a list without a positive score adds nothing; ties go to the lower index', () => {
    expect([...fuseScores([{ scores: [0, 0], weight: 1 }, { scores: [1, 1], weight: 1 }])]).toEqual([1, 1]);
    expect(topIndexes([1, 3, 3, 0], 3)).toEqual([1, 2, 0]);
    expect(() => fuseScores([{ scores: [1], weight: 1 }, { scores: [1, 2], weight: 1 }])).toThrow(/differ in length/);
    // A subnormal maximum: weight / max would overflow to Infinity and 0 · Infinity to NaN.
    expect([...fuseScores([{ scores: [0, 5e-324], weight: 1 }])]).toEqual([0, 1]);
  });
  it('with one list, the order is that list’s order (max-normalising keeps it)', () => {
    fc.assert(
      // Tenths in [0, 100]: no subnormal maximum, whose quotients could tie (that case: the test above).
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }).map((x) => x / 10), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 10 }), (s, k) => {
        expect(topIndexes(fuseScores([{ scores: s, weight: 3 }]), k)).toEqual(topIndexes(s, k));
      }),
    );
  });
});

describe('mergeAdjacent with fill', () => {
  it('walks past a hit that would open unit k + 1 and still takes the touching ones after it', () => {
    const ranked = [
      { corpusId: 'a', start: 100, end: 200 },
      { corpusId: 'a', start: 500, end: 600 },
      { corpusId: 'a', start: 201, end: 300 },
    ];
    expect(mergeAdjacent(ranked, 1)).toEqual([{ corpusId: 'a', start: 100, end: 200 }]);
    expect(mergeAdjacent(ranked, 1, true)).toEqual([{ corpusId: 'a', start: 100, end: 300 }]);
  });
  it('returns at most k units, each covering what the walk without fill returns', () => {
    const span = fc.record({ corpusId: fc.constantFrom('a', 'b'), start: fc.nat(500), len: fc.integer({ min: 1, max: 80 }) });
    fc.assert(
      fc.property(fc.array(span, { maxLength: 30 }), fc.integer({ min: 1, max: 6 }), (raw, k) => {
        const ranked = raw.map((s) => ({ corpusId: s.corpusId, start: s.start, end: s.start + s.len }));
        const filled = mergeAdjacent(ranked, k, true);
        expect(filled.length).toBeLessThanOrEqual(k);
        for (const u of mergeAdjacent(ranked, k)) expect(filled.some((f) => f.corpusId === u.corpusId && f.start <= u.start && f.end >= u.end)).toBe(true);
      }),
    );
  });
});

describe('expandByScore', () => {
  const spans = [0, 1, 2, 3, 4].map((i) => ({ corpusId: i < 4 ? 'a' : 'b', start: i * 100, end: i * 100 + 99 }));
  const startAt = new Map(spans.map((s, j) => [`${s.corpusId}\0${s.start}`, j]));
  const endAt = new Map(spans.map((s, j) => [`${s.corpusId}\0${s.end}`, j]));
  it('takes in a neighbour that scores at least gate × the best, never one of another corpus', () => {
    const scores = [0.9, 1, 0.2, 0.95, 1];
    expect(expandByScore([{ ...spans[1]! }], scores, spans, startAt, endAt, 0.8)).toEqual([{ corpusId: 'a', start: 0, end: 199 }]);
    expect(expandByScore([{ ...spans[1]! }], scores, spans, startAt, endAt, 0.95)).toEqual([spans[1]]);
    // Span 3's next (4) is in corpus b: not taken although it scores best.
    expect(expandByScore([{ ...spans[3]! }], scores, spans, startAt, endAt, 0.1)).toEqual([{ corpusId: 'a', start: 200, end: 399 }]);
  });
});

describe('trimUnit', () => {
  const terms = (t: string) => t.toLowerCase().match(/[a-z]{3,}/g) ?? [];
  const text = 'Cats sleep a lot. Dogs bark at night. Parrots can talk. Fish swim. ';
  const unit = { corpusId: 'a', start: 0, end: text.length };
  it('drops the sentences at either edge that share no term with the question', () => {
    const t = trimUnit(unit, text, 'Why do dogs bark and parrots talk?', 1, terms);
    expect(text.slice(t.start, t.end)).toBe('Dogs bark at night. Parrots can talk. ');
  });
  it('stays whole when no sentence matches, and always inside the unit', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.integer({ min: 1, max: 3 }), (q, min) => {
        const t = trimUnit(unit, text, q, min, terms);
        expect(t.start).toBeGreaterThanOrEqual(unit.start);
        expect(t.end).toBeLessThanOrEqual(unit.end);
        expect(t.end).toBeGreaterThan(t.start);
      }),
    );
    expect(trimUnit(unit, text, 'zebra', 1, terms)).toEqual(unit);
  });
});

describe('mergeRanked', () => {
  // Chunks of 100 characters, index i at [100 i, 100 i + 99], all in corpus a.
  const at = (i: number, score = 1) => ({ corpusId: 'a', start: i * 100, end: i * 100 + 99, index: i, score });
  it('with no bridge and no gate returns what mergeAdjacent returns', () => {
    const ranked = [at(3), at(4), at(9), at(2), at(20)];
    const plain = (units: { corpusId: string; start: number; end: number }[]) => units.map(({ corpusId, start, end }) => ({ corpusId, start, end }));
    expect(mergeRanked(ranked, 2)).toEqual(plain(mergeAdjacent(ranked, 2)));
    expect(mergeRanked(ranked, 2, { fill: true })).toEqual(plain(mergeAdjacent(ranked, 2, true)));
  });
  it('bridge: a hit within B chunks of a unit joins it with the chunks between', () => {
    const ranked = [at(3), at(5), at(9)];
    expect(mergeRanked(ranked, 3)).toHaveLength(3);
    expect(mergeRanked(ranked, 3, { bridge: 1 })).toEqual([
      { corpusId: 'a', start: 300, end: 599 },
      { corpusId: 'a', start: 900, end: 999 },
    ]);
    // Never across corpora.
    expect(mergeRanked([at(3), { ...at(4), corpusId: 'b' }], 2, { bridge: 1 })).toHaveLength(2);
  });
  it('joins two units that a later hit connects', () => {
    expect(mergeRanked([at(3), at(5), at(4)], 2)).toEqual([{ corpusId: 'a', start: 300, end: 599 }]);
  });
  it('gate: past rank k, a weak hit neither joins nor (gateOpen) opens a unit', () => {
    const ranked = [at(3, 1), at(10, 0.9), at(4, 0.5), at(11, 0.8), at(20, 0.2)];
    // k = 2: ranks 0-1 always; rank 2 (0.5) is below 0.7 × 1, rank 3 (0.8) joins unit 10.
    expect(mergeRanked(ranked, 2, { fill: true, gate: 0.7 })).toEqual([
      { corpusId: 'a', start: 300, end: 399 },
      { corpusId: 'a', start: 1000, end: 1199 },
    ]);
    // With k = 3 the weak hit 20 opens the third unit unless gateOpen.
    const units = mergeRanked([at(3, 1), at(4, 0.9), at(10, 0.8), at(20, 0.2)], 3, { fill: true, gate: 0.7 });
    expect(units).toHaveLength(3);
    expect(mergeRanked([at(3, 1), at(4, 0.9), at(10, 0.8), at(20, 0.2)], 3, { fill: true, gate: 0.7, gateOpen: true })).toHaveLength(2);
  });
  it('returns at most k disjoint units covering the best hit, each a union of whole ranked chunks', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat(40), { maxLength: 25 }),
        fc.integer({ min: 1, max: 6 }),
        fc.nat(2),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.boolean(),
        (idx, k, bridge, gate, gateOpen) => {
          const ranked = idx.map((i, r) => at(i, 1 - r / 50));
          const units = mergeRanked(ranked, k, { fill: true, bridge, gate, gateOpen });
          expect(units.length).toBeLessThanOrEqual(k);
          if (ranked[0]) expect(units.some((u) => u.start <= ranked[0]!.start && u.end >= ranked[0]!.end)).toBe(true);
          const sorted = [...units].sort((a, b) => a.start - b.start);
          for (let j = 1; j < sorted.length; j++) expect(sorted[j]!.start).toBeGreaterThan(sorted[j - 1]!.end + 2);
          for (const u of units) {
            expect(u.start % 100).toBe(0);
            expect(u.end % 100).toBe(99);
            expect(ranked.some((s) => s.start === u.start) && ranked.some((s) => s.end === u.end)).toBe(true);
          }
        },
      ),
      { seed: 17 },
    );
  });
});
