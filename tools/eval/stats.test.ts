import { describe, expect, it } from 'vitest';
import { pairedBootstrap } from './stats.mjs';

describe('pairedBootstrap', () => {
  it('gives the mean paired difference, an interval around it, and the win counts', () => {
    const a = Array.from({ length: 200 }, (_, i) => (i % 4 === 0 ? 0.5 : 0.3));
    const b = Array.from({ length: 200 }, () => 0.3);
    const r = pairedBootstrap(a, b);
    expect(r.mean).toBeCloseTo(0.05, 12);
    expect(r.lo).toBeLessThan(r.mean);
    expect(r.hi).toBeGreaterThan(r.mean);
    expect(r.lo).toBeGreaterThan(0);
    expect([r.better, r.worse, r.equal]).toEqual([50, 0, 150]);
    expect(pairedBootstrap(a, b)).toEqual(r);
  });
  it('is zero with a zero-width interval for identical samples, and refuses unpaired ones', () => {
    const r = pairedBootstrap([0.1, 0.2], [0.1, 0.2]);
    expect([r.mean, r.lo, r.hi]).toEqual([0, 0, 0]);
    expect(() => pairedBootstrap([1], [1, 2])).toThrow(/differ in length/);
  });
});
