// The retrieval routes as pure stages: hand-made cases and invariants (fast-check), and the
// equivalence with the eval's own copies in tools/eval/routes.mjs, so the figures of
// eval/README.md describe what search() runs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bm25Terms, fuseMaxNormalised } from './hybrid.js';
import { bm25K1Problem, MAX_WINDOW_RADIUS, mergeHits, trimSegments, windowProblem, windowScores, windowTexts, windowVectors, type RankedHit } from './routes.js';
import { mergeRanked, trimUnit, windowTexts as evalWindowTexts } from '../../../tools/eval/routes.mjs';

describe('windowTexts / windowVectors', () => {
  const items = [
    { group: 'a', text: 'A0', embed: 'a0', vector: Float32Array.of(1, 0) },
    { group: 'a', text: 'A1', embed: 'a1', vector: Float32Array.of(0, 1) },
    { group: 'a', text: 'A2', embed: 'a2', vector: Float32Array.of(1, 1) },
    { group: 'b', text: 'B0', embed: 'b0', vector: Float32Array.of(2, 0) },
  ];

  it('joins the chunks within ±radius of the same document, the chunk by its embed text', () => {
    expect(windowTexts(items, 1)).toEqual(['a0\n\nA1', 'A0\n\na1\n\nA2', 'A1\n\na2', 'b0']);
    expect(windowTexts(items, 2)[0]).toBe('a0\n\nA1\n\nA2');
    expect([...windowVectors(items, 1)[1]!]).toEqual([2, 2]);
    expect([...windowVectors(items, 1)[3]!]).toEqual([2, 0]); // b never sees a's chunks
    expect(() => windowTexts(items, 0)).toThrow(/radius/);
  });

  it("is the eval's windowTexts for chunks in document order", () => {
    const chunk = fc.record({ group: fc.constantFrom('a', 'b', 'c'), text: fc.string({ maxLength: 6 }), embed: fc.string({ maxLength: 6 }) });
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 12 }), fc.integer({ min: 1, max: 3 }), (raw, r) => {
        const sorted = [...raw].sort((x, y) => x.group.localeCompare(y.group));
        expect(windowTexts(sorted, r)).toEqual(evalWindowTexts(sorted.map((c) => ({ corpusId: c.group, text: c.text, embed: c.embed })), r));
      }),
    );
  });
});

describe('windowScores', () => {
  // weight Infinity made every fused score Infinity or NaN, k1 Infinity every BM25 score 0, and
  // a radius of a million made each chunk's window the whole document (quadratic in its chunks).
  it('refuses a weight or k1 that is not a finite number ≥ 0, and a radius past MAX_WINDOW_RADIUS', () => {
    const q = Float32Array.of(1, 0);
    const items = [{ group: 'a', text: 'x', embed: 'x', vector: Float32Array.of(1, 0) }];
    for (const windows of [[{ weight: Infinity, radius: 1 }], [{ weight: Number.NaN, radius: 1 }], [{ weight: 1, radius: MAX_WINDOW_RADIUS + 1 }], [{ weight: 1, radius: 1e6 }]]) {
      expect(() => windowScores('x', q, items, { windows }), JSON.stringify(windows)).toThrow(/a window score needs a finite weight ≥ 0 and an integer radius from 1 to 32/);
    }
    for (const k1 of [Infinity, Number.NaN, -1]) expect(() => windowScores('x', q, items, { bm25: { k1 } })).toThrow(/BM25 needs a finite k1 ≥ 0/);
    expect(() => windowTexts(items, 1e6)).toThrow(/radius from 1 to 32/);
    expect(windowScores('x', q, items, { windows: [{ weight: 1, radius: MAX_WINDOW_RADIUS }], bm25: { k1: 0 } }).fused).toHaveLength(1);
  });

  it('refuses a radius, weight or k1 given as a string, and says it was a string (a "3" was shown as `radius 3`, as if 3 were refused)', () => {
    const q = Float32Array.of(1, 0);
    const items = [{ group: 'a', text: 'x', embed: 'x', vector: Float32Array.of(1, 0) }];
    const str = (v: string) => v as unknown as number;
    expect(windowProblem({ weight: 1, radius: str('3') })).toBe('a window score needs a finite weight ≥ 0 and an integer radius from 1 to 32, got weight 1, radius the string "3"');
    expect(windowProblem({ weight: str('1'), radius: 2 })).toBe('a window score needs a finite weight ≥ 0 and an integer radius from 1 to 32, got weight the string "1", radius 2');
    expect(bm25K1Problem(str('3'))).toBe('BM25 needs a finite k1 ≥ 0, got the string "3"');
    expect(bm25K1Problem(null as unknown as number)).toBe('BM25 needs a finite k1 ≥ 0, got null');
    expect(() => windowScores('x', q, items, { windows: [{ weight: 1, radius: str('3') }] })).toThrow(new RangeError('a window score needs a finite weight ≥ 0 and an integer radius from 1 to 32, got weight 1, radius the string "3"'));
    expect(() => windowScores('x', q, items, { bm25: { k1: str('3') } })).toThrow(new RangeError('BM25 needs a finite k1 ≥ 0, got the string "3"'));
    expect(() => windowTexts(items, str('3'))).toThrow(/radius the string "3"$/);
    expect(bm25K1Problem(0.6)).toBeNull();
    expect(windowProblem({ weight: 0, radius: 32 })).toBeNull();
  });

  it('with no windows and BM25 off is the max-normalised cosine alone; windows raise a chunk whose neighbours match', () => {
    const q = Float32Array.of(1, 0);
    const items = [
      { group: 'd', text: 'x', embed: 'alpha', vector: Float32Array.of(1, 0) },
      { group: 'd', text: 'x', embed: 'beta', vector: Float32Array.of(0.6, 0.8) },
      { group: 'd', text: 'x', embed: 'gamma', vector: Float32Array.of(0.6, 0.8) },
      { group: 'e', text: 'x', embed: 'delta', vector: Float32Array.of(0.6, 0.8) },
    ];
    const plain = windowScores('alpha', q, items, { windows: [], bm25: false });
    expect([...plain.fused]).toEqual([...fuseMaxNormalised([{ scores: plain.similarity, weight: 1 }])]);
    const w = windowScores('alpha', q, items, { windows: [{ weight: 1, radius: 1 }], bm25: false });
    // Chunks 1 and 3 have the same own score; 1 sits next to the best chunk, 3 alone.
    expect(w.own[1]).toBeCloseTo(w.own[3]!, 12);
    expect(w.fused[1]).toBeGreaterThan(w.fused[3]!);
    const h = windowScores('alpha', q, items);
    expect(h.bm25[0]).toBeGreaterThan(0);
    expect(h.bm25[1]).toBe(0);
  });
});

describe('mergeHits', () => {
  const hit = (group: string, index: number, score: number): RankedHit => ({ group, index, score });

  it('joins adjacent hits, bridges two units that a hit connects, and gates hits past rank n', () => {
    const ranked = [hit('a', 3, 1), hit('a', 5, 0.9), hit('b', 4, 0.8), hit('a', 4, 0.7), hit('a', 6, 0.5), hit('c', 0, 0.6), hit('d', 0, 0.66)];
    // n = 3: a3, a5, b4 open; a4 (rank 3, 0.7 ≥ 0.65) joins a3 and a5, freeing a slot; a6 (0.5)
    // and c0 (0.6) are gated; d0 (0.66) opens the slot.
    expect(mergeHits(ranked, 3)).toEqual([
      { group: 'a', first: 3, last: 5, opener: 0, hits: 3 },
      { group: 'b', first: 4, last: 4, opener: 2, hits: 1 },
      { group: 'd', first: 0, last: 0, opener: 6, hits: 1 },
    ]);
    // gateOpen off: c0 opens it instead.
    expect(mergeHits(ranked, 3, { gateOpen: false })[2]).toMatchObject({ group: 'c' });
    // No gate: a6 joins too.
    expect(mergeHits(ranked, 3, { gate: 0 })[0]).toMatchObject({ first: 3, last: 6, hits: 4 });
    // gateOpen off and a unit free: a hit below the gate opens it.
    expect(mergeHits([hit('a', 0, 1), hit('b', 0, 0.9), hit('c', 0, 0.1)], 2, { gateOpen: true })).toHaveLength(2);
    expect(mergeHits([hit('a', 0, 1), hit('a', 9, 0.9), hit('c', 0, 0.1)], 3, { gateOpen: true })).toHaveLength(3); // rank 2 < n: not gated
    expect(mergeHits([hit('a', 0, 1), hit('c', 0, 0.1), hit('d', 0, 0.1)], 1, { gateOpen: false, gate: 0.65 })).toHaveLength(1);
    // depth: hits past it are not looked at.
    expect(mergeHits([hit('a', 0, 1), hit('b', 0, 1), hit('a', 1, 1)], 2, { depth: 2 })[0]).toMatchObject({ first: 0, last: 0 });
    // fill off: the walk stops at the first hit that would open unit n + 1.
    expect(mergeHits([hit('a', 0, 1), hit('b', 0, 1), hit('a', 1, 1)], 1, { fill: false, gate: 0 })[0]).toMatchObject({ first: 0, last: 0 });
    expect(() => mergeHits([], 1.5)).toThrow(new RangeError('n must be a non-negative integer (0..2^53 − 1), got 1.5'));
    expect(() => mergeHits([], 1, { depth: -1 })).toThrow(new RangeError('merge depth must be a non-negative integer (0..2^53 − 1), got -1'));
    expect(() => mergeHits([], 1, { gate: 2 })).toThrow(new RangeError('merge gate must be in [0, 1], got 2'));
  });

  const rankedArb = fc
    .array(fc.record({ group: fc.constantFrom('a', 'b'), index: fc.integer({ min: 0, max: 15 }), score: fc.double({ min: 0, max: 1, noNaN: true }) }), { maxLength: 30 })
    .map((hs) => {
      // A ranking names each chunk once, best first.
      const seen = new Set<string>();
      return hs.filter((h) => !seen.has(`${h.group}${h.index}`) && seen.add(`${h.group}${h.index}`)).sort((x, y) => y.score - x.score);
    });
  const opts = fc.record({ depth: fc.integer({ min: 0, max: 30 }), gate: fc.double({ min: 0, max: 1, noNaN: true }), gateOpen: fc.boolean(), fill: fc.boolean() });

  it('units are contiguous runs inside the chunks ranked, never overlap or touch, at most n, and the best hit is in the first', () => {
    fc.assert(
      fc.property(rankedArb, fc.integer({ min: 0, max: 6 }), opts, (ranked, n, o) => {
        const units = mergeHits(ranked, n, o);
        expect(units.length).toBeLessThanOrEqual(n);
        if (n > 0 && ranked.length > 0) expect(units[0]).toMatchObject({ group: ranked[0]!.group, opener: 0 });
        const looked = ranked.slice(0, Math.max(o.depth, n));
        for (const u of units) {
          expect(u.first).toBeLessThanOrEqual(u.last);
          // Every chunk of a unit was a hit: units grow by touching hits only.
          for (let i = u.first; i <= u.last; i++) expect(looked.some((h) => h.group === u.group && h.index === i)).toBe(true);
          expect(u.hits).toBe(u.last - u.first + 1);
          for (const v of units) if (v !== u && v.group === u.group) expect(v.last < u.first - 1 || v.first > u.last + 1).toBe(true);
        }
        expect(units.map((u) => u.opener)).toEqual([...units.map((u) => u.opener)].sort((x, y) => x - y));
      }),
    );
  });

  it("is the eval's mergeRanked (bridge 0) on chunks of one width", () => {
    fc.assert(
      fc.property(rankedArb, fc.integer({ min: 1, max: 6 }), opts, (ranked, n, o) => {
        const depth = Math.max(o.depth, n);
        const ours = mergeHits(ranked, n, o).map((u) => ({ corpusId: u.group, start: u.first * 10, end: u.first * 10 + (u.last - u.first + 1) * 10 - 5 }));
        // The eval's spans: chunk i of a corpus covers [10i, 10i + 5), so only neighbours touch (gap 5 > 2).
        const theirs = mergeRanked(
          ranked.slice(0, depth).map((h) => ({ corpusId: h.group, start: h.index * 10, end: h.index * 10 + 5, index: h.index + (h.group === 'b' ? 100 : 0), score: h.score })),
          n,
          { fill: o.fill, gate: o.gate, gateOpen: o.gateOpen },
        );
        expect(new Set(ours.map((u) => JSON.stringify(u)))).toEqual(new Set(theirs.map((u: unknown) => JSON.stringify(u))));
      }),
    );
  });
});

describe('trimSegments', () => {
  const terms = bm25Terms;

  it('drops edge sentences that share no term with the question, across segments', () => {
    const segs = [
      { index: 4, text: 'Cats sleep a lot. The trimming option removes unused code. ' },
      { index: 5, text: 'It also strips resources. Dogs bark loudly.' },
    ];
    const out = trimSegments(segs, 'What does trimming remove from resources?', 1, terms);
    expect(out).toEqual([
      { index: 4, text: 'The trimming option removes unused code. ' },
      { index: 5, text: 'It also strips resources. ' },
    ]);
    // Nothing matches, or min 0: whole.
    expect(trimSegments(segs, 'quantum chromodynamics', 1, terms)).toEqual(segs);
    expect(trimSegments(segs, 'trimming', 0, terms)).toEqual(segs);
    // A whole segment outside the kept sentences is dropped.
    expect(trimSegments(segs, 'dogs barking', 1, terms)).toEqual([{ index: 5, text: 'Dogs bark loudly.' }]);
    expect(() => trimSegments(segs, 'x', -1, terms)).toThrow(new RangeError('trim must be a non-negative integer (0..2^53 − 1), got -1'));
  });

  it("keeps a non-empty contiguous run of its segments, each a slice of its input; one segment is the eval's trimUnit", () => {
    const word = fc.constantFrom('trim', 'cats', 'code', 'the', 'resource', 'Json', 'x');
    const sentence = fc.tuple(fc.array(word, { minLength: 1, maxLength: 5 }), fc.constantFrom('. ', '? ', '.\n\n', ' ', '')).map(([w, end]) => w.join(' ') + end);
    const segArb = fc.array(sentence, { maxLength: 4 }).map((s) => s.join(''));
    fc.assert(
      fc.property(fc.array(segArb, { minLength: 1, maxLength: 4 }), fc.array(word, { maxLength: 3 }), fc.integer({ min: 0, max: 2 }), (texts, q, min) => {
        const segs = texts.map((text, i) => ({ index: 10 + i, text }));
        const out = trimSegments(segs, q.join(' '), min, terms);
        const nonEmpty = segs.filter((s) => s.text.length > 0);
        if (nonEmpty.length > 0) expect(out.length).toBeGreaterThan(0);
        for (const s of out) {
          expect(s.text.length).toBeGreaterThan(0);
          const src = segs.find((x) => x.index === s.index)!;
          expect(src.text.includes(s.text)).toBe(true);
        }
        const pos = out.map((s) => nonEmpty.findIndex((x) => x.index === s.index));
        pos.forEach((p, i) => i > 0 && expect(p).toBe(pos[i - 1]! + 1));
        // Inner segments stay whole.
        out.slice(1, -1).forEach((s) => expect(s.text).toBe(segs.find((x) => x.index === s.index)!.text));
        if (segs.length === 1 && segs[0]!.text.length > 0) {
          const t = segs[0]!.text;
          const u = trimUnit({ corpusId: 'c', start: 0, end: t.length }, t, q.join(' '), min, terms);
          expect(out[0]!.text).toBe(t.slice(u.start, u.end));
        }
      }),
    );
  });
});
