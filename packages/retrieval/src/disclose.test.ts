// Progressive disclosure over real fixture indexes and over generated chunk groups (fast-check):
// the prefix property, the baseline rule and the technical fallback.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChunkGroup } from './contract.js';
import { disclose } from './disclose.js';
import { stripeOrder } from './test-fixture-docs.js';

/** A chunk group with `count` chunks and random similarities, orders by SPEC.md's rule. */
const groupArb = fc
  .record({
    sims: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 3, maxLength: 40 }),
    technical: fc.boolean(),
  })
  .map(({ sims, technical }): ChunkGroup => {
    const count = sims.length;
    const conceptual = new Map(sims.map((s, i) => [i, s] as const).filter(([i]) => i !== 0));
    const tech = new Map(sims.map((s, i) => [i, -s] as const).filter(([i]) => i > 1));
    return {
      source: 'golden-reference.md',
      manifest: '_chunks/golden-reference.json',
      count,
      baseline_conceptual: 0,
      ...(technical ? { baseline_technical: 1, stripe_order_technical: stripeOrder(tech) } : {}),
      stripe_order: stripeOrder(conceptual),
      items: [],
    };
  });

describe('disclose', () => {
  it('the SPEC example: 12 chunks after the baseline, factor 4', () => {
    // similarity falls with the index, so rank r is chunk r+1
    const sims = new Map(Array.from({ length: 12 }, (_, i) => [i + 1, 1 - i / 100] as const));
    const group = { stripe_order: stripeOrder(sims), baseline_conceptual: 0, count: 13 } as ChunkGroup;
    expect(disclose(group, { n: 3 }).indices).toEqual([1, 5, 9]);
    expect(disclose(group, { n: 6 }).indices).toEqual([1, 5, 9, 2, 6, 10]);
    expect(disclose(group, { n: 3, withBaseline: true }).indices).toEqual([0, 1, 5, 9]);
  });

  it('asking for more only appends (prefix property), and never repeats a chunk', () => {
    fc.assert(
      fc.property(groupArb, fc.nat(45), fc.boolean(), fc.boolean(), (group, n, technical, withBaseline) => {
        const a = disclose(group, { n, technical, withBaseline }).indices;
        const b = disclose(group, { n: n + 1, technical, withBaseline }).indices;
        expect(b.slice(0, a.length)).toEqual(a);
        expect(new Set(b).size).toBe(b.length);
        const orderLength = technical && group.stripe_order_technical ? group.count - 2 : group.count - 1;
        const baselines = withBaseline ? (technical && group.stripe_order_technical ? 2 : 1) : 0;
        expect(a.length).toBe(baselines + Math.min(n, orderLength));
        expect(a.every((i) => i >= 0 && i < group.count)).toBe(true);
      }),
    );
  });

  it('the technical order excludes both baselines, and falls back when there is none', () => {
    fc.assert(
      fc.property(groupArb, (group) => {
        const d = disclose(group, { n: group.count, technical: true });
        if (group.stripe_order_technical) {
          expect(d.order).toBe('technical');
          expect(d.indices).not.toContain(0);
          expect(d.indices).not.toContain(1);
          expect(disclose(group, { n: 1, technical: true, withBaseline: true }).indices.slice(0, 2)).toEqual([0, 1]);
        } else {
          expect(d).toMatchObject({ order: 'conceptual', technicalUnavailable: true });
          expect(d.indices).toEqual(group.stripe_order);
        }
      }),
    );
  });

  it('rejects a negative or fractional n', () => {
    const group = { stripe_order: [1], baseline_conceptual: 0, count: 2 } as ChunkGroup;
    expect(() => disclose(group, { n: -1 })).toThrow(new RangeError('n must be a non-negative integer (0..2^53 − 1), got -1'));
    expect(() => disclose(group, { n: 1.5 })).toThrow(new RangeError('n must be a non-negative integer (0..2^53 − 1), got 1.5'));
  });
});
