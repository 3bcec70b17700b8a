// Cosine similarity and ranking: properties over random vectors.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cosine, rankBySimilarity } from './similarity.js';

// Tenths in [-100, 100]: scaling such values cannot underflow to subnormals and turn the vector.
const vec = (d: number) => fc.array(fc.integer({ min: -1000, max: 1000 }).map((x) => x / 10), { minLength: d, maxLength: d }).map((a) => Float32Array.from(a));
const pair = fc.integer({ min: 1, max: 16 }).chain((d) => fc.tuple(vec(d), vec(d)));

describe('cosine', () => {
  it('is symmetric, within [-1, 1], and unchanged by positive scaling', () => {
    fc.assert(
      fc.property(pair, fc.double({ min: 0.01, max: 100, noNaN: true }), ([a, b], s) => {
        const c = cosine(a, b);
        expect(c).toBeGreaterThanOrEqual(-1);
        expect(c).toBeLessThanOrEqual(1);
        expect(cosine(b, a)).toBeCloseTo(c, 9);
        const scaled = a.map((x) => x * s);
        expect(cosine(scaled, b)).toBeCloseTo(c, 4);
      }),
    );
  });

  it('a zero vector has similarity 0 to anything, itself included', () => {
    fc.assert(
      fc.property(vec(8), (a) => {
        const zero = new Float32Array(8);
        expect(cosine(zero, a)).toBe(0);
        expect(cosine(a, zero)).toBe(0);
      }),
    );
  });

  it('a non-zero vector has similarity 1 to itself and -1 to its negation', () => {
    const a = Float32Array.from([3, -4, 0, 12]);
    expect(cosine(a, a)).toBeCloseTo(1, 12);
    expect(cosine(a, a.map((x) => -x))).toBeCloseTo(-1, 12);
  });

  it('refuses vectors of different lengths', () => {
    expect(() => cosine(new Float32Array(3), new Float32Array(4))).toThrow(/3 and 4 dimensions/);
  });
});

describe('rankBySimilarity', () => {
  it('returns the n best, best first, ties in input order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((d) => fc.tuple(vec(d), fc.array(vec(d), { maxLength: 20 }))),
        fc.nat(25),
        ([q, vs], n) => {
          const ranked = rankBySimilarity(q, vs.map((vector, ref) => ({ ref, vector })), n);
          expect(ranked.length).toBe(Math.min(n, vs.length));
          for (let i = 1; i < ranked.length; i++) {
            const [p, c] = [ranked[i - 1]!, ranked[i]!];
            expect(p.score > c.score || (p.score === c.score && p.ref < c.ref)).toBe(true);
          }
          const worstKept = ranked.at(-1)?.score ?? Infinity;
          const kept = new Set(ranked.map((r) => r.ref));
          vs.forEach((v, i) => {
            if (!kept.has(i)) expect(cosine(q, v)).toBeLessThanOrEqual(worstKept);
          });
        },
      ),
    );
  });
});

describe('rankBySimilarity n', () => {
  const items = [Float32Array.of(1, 0), Float32Array.of(0, 1), Float32Array.of(1, 1)].map((vector, ref) => ({ ref, vector }));
  const q = Float32Array.of(1, 0);

  it('refuses a count outside 0..2^53 − 1 or not a number, naming n and the value', () => {
    // NaN and "abc" ranked nothing, 1.5 one item, -1 none and Infinity all, each silently.
    const bad: [unknown, string][] = [
      [NaN, 'NaN'],
      [Infinity, 'Infinity'],
      [-Infinity, '-Infinity'],
      [-1, '-1'],
      [1.5, '1.5'],
      [2 ** 53, String(2 ** 53)],
      ['5', 'the string "5"'],
      ['abc', 'the string "abc"'],
      ['x'.repeat(1000), `the string "${'x'.repeat(40)}…"`],
      ['\x1b[2J', 'the string "\\u001b[2J"'],
      [null, 'null'],
      [undefined, 'undefined'],
      [true, 'true'],
      [{ valueOf: () => 5 }, 'an object'],
      [5n, 'a bigint'],
      [Symbol('n'), 'a symbol'],
    ];
    for (const [n, shown] of bad) {
      // @ts-expect-error: a caller outside TypeScript (JSON, a CLI) may pass anything
      expect(() => rankBySimilarity(q, items, n), shown).toThrow(new RangeError(`n must be a non-negative integer (0..2^53 − 1), got ${shown}`));
    }
  });

  it('takes any whole n from 0 to 2^53 − 1, returning min(n, items) without room for n', () => {
    expect(rankBySimilarity(q, items, 0)).toEqual([]);
    fc.assert(
      fc.property(fc.oneof(fc.nat(5), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.constant(Number.MAX_SAFE_INTEGER)), (n) => {
        const ranked = rankBySimilarity(q, items, n);
        expect(ranked.map((r) => r.ref)).toEqual([0, 2, 1].slice(0, n));
      }),
    );
  });
});
