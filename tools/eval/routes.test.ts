import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens } from '@chunkyard/chunking';
import { expandByScore, fuseScores, mergeAdjacent, topIndexes, trimUnit, windowTexts, withNeighbours } from './routes.mjs';

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
