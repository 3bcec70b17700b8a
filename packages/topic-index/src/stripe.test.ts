import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripeFactor, stripeOrder } from './stripe.js';

describe('stripeFactor', () => {
  it("gives seed 001's examples (SPEC: ceil, not round)", () => {
    expect([7, 8, 12, 16, 25].map(stripeFactor)).toEqual([1, 3, 4, 4, 5]);
  });
  it('is 1 below 8, and between 2 and N/2 from 8 on', () => {
    for (let n = 0; n < 8; n++) expect(stripeFactor(n)).toBe(1);
    for (let n = 8; n < 500; n++) {
      const f = stripeFactor(n);
      expect(f).toBeGreaterThanOrEqual(2);
      expect(f).toBeLessThanOrEqual(Math.floor(n / 2));
      expect(f).toBe(Math.ceil(Math.sqrt(n)));
    }
  });
});

describe('stripeOrder', () => {
  it("reproduces seed 001's 12-chunk pattern when similarity falls with the index", () => {
    // Chunks 1..12 ranked in index order (similarity decreasing), baseline 0 excluded.
    const sims = [1, ...Array.from({ length: 12 }, (_, i) => 0.9 - i * 0.01)];
    expect(stripeOrder(sims, [0])).toEqual([1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12]);
  });

  it('sorts by similarity below 8 chunks, ties by index', () => {
    expect(stripeOrder([1, 0.2, 0.5, 0.5, 0.9], [0])).toEqual([4, 2, 3, 1]);
  });

  it('excludes both baselines for the technical order', () => {
    const sims = [0.1, 1, 0.3, 0.8, 0.5];
    expect(stripeOrder(sims, [0, 1])).toEqual([3, 4, 2]);
  });

  it('is a permutation of the non-baseline chunks whose stripes read the ranking every f-th', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: 120 }), fc.boolean(), (sims, technical) => {
        const exclude = technical ? [0, 1] : [0];
        const order = stripeOrder(sims, exclude);
        const expected = sims.map((_, i) => i).filter((i) => !exclude.includes(i));
        expect([...order].sort((a, b) => a - b)).toEqual(expected);
        const ranked = [...expected].sort((a, b) => sims[b]! - sims[a]! || a - b);
        const f = stripeFactor(ranked.length);
        // The first stripe holds ranks 0, f, 2f, …: the best chunk first, then evenly spaced ones.
        expect(order.slice(0, Math.ceil(ranked.length / f))).toEqual(ranked.filter((_, r) => r % f === 0));
        if (ranked.length) expect(order[0]).toBe(ranked[0]);
      }),
    );
  });
});

describe('stripeOrder on a similarity that is not a number (s46 probe)', () => {
  // The sort placed a NaN wherever its merge left it: the order came back without a word, and
  // depended on the chunks around it.
  it.each([NaN, Infinity, -Infinity])('%s is refused, naming its chunk', (bad) => {
    const similarity = [1, 0.9, 0.8, bad, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1];
    expect(() => stripeOrder(similarity, [0])).toThrow(new RangeError(`stripeOrder: chunk 3's similarity is ${String(bad)}, not a finite number`));
  });
  it('an excluded baseline is not checked', () => {
    expect(stripeOrder([NaN, 0.2, 0.5], [0])).toEqual([2, 1]);
  });
});
