import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cosine, isTechnicalBaselineTitle, roundSimilarity } from './similarity.js';

const vec = (n: number) => fc.array(fc.float({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true }), { minLength: n, maxLength: n }).map((a) => Float32Array.from(a));

describe('cosine', () => {
  it('is symmetric, within [-1, 1], 1 for a non-zero vector with itself and 0 with a zero vector', () => {
    fc.assert(
      fc.property(vec(8), vec(8), (a, b) => {
        const c = cosine(a, b);
        expect(c).toBe(cosine(b, a));
        expect(c).toBeGreaterThanOrEqual(-1);
        expect(c).toBeLessThanOrEqual(1);
        expect(cosine(a, new Float32Array(8))).toBe(0);
        if (a.some((x) => x !== 0)) expect(cosine(a, a)).toBeCloseTo(1, 6);
      }),
    );
  });

  it('computes known values and refuses vectors of different lengths', () => {
    expect(cosine(Float32Array.of(1, 0), Float32Array.of(0, 1))).toBe(0);
    expect(cosine(Float32Array.of(1, 1), Float32Array.of(1, 0))).toBeCloseTo(Math.SQRT1_2, 7);
    expect(cosine(Float32Array.of(1, 2), Float32Array.of(-2, -4))).toBeCloseTo(-1, 7);
    expect(() => cosine(Float32Array.of(1), Float32Array.of(1, 2))).toThrow(RangeError);
  });

  it('rounds to 4 decimals without a negative zero', () => {
    expect(roundSimilarity(0.123456)).toBe(0.1235);
    expect(Object.is(roundSimilarity(-0.00001), 0)).toBe(true);
  });
});

describe('technical baseline titles (seed 001 §7)', () => {
  it.each(['Quick Reference', 'API reference', 'Cheat Sheet', 'Cheat-sheet', 'cheatsheet', 'Reference', 'JSON API Reference (v2)'])('accepts %j', (t) => {
    expect(isTechnicalBaselineTitle(t)).toBe(true);
  });
  it.each(['Overview', 'References to other types', 'Referencing assemblies', 'Preferences', 'Use source-generation defaults'])('rejects %j', (t) => {
    expect(isTechnicalBaselineTitle(t)).toBe(false);
  });
});
