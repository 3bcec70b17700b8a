// Issue 15: every stage runs in linear time (n log n at worst). mergeHits looked for the unit a
// hit touches among all units opened, so n scattered hits took n²/2 steps: about 20 s for
// docs-query -n 100000 over a large collection, hours for a larger n through the API (s47 probe).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MERGE, mergeHits, type MergeOptions, type RankedHit, type Unit } from './routes.js';

/** The quadratic implementation, kept as the reference the fast one must agree with. */
function referenceMerge(ranked: readonly RankedHit[], n: number, options: MergeOptions = {}): Unit[] {
  const { depth, gate, gateOpen, fill } = { ...DEFAULT_MERGE, ...options };
  const best = ranked[0]?.score ?? 0;
  const units: Unit[] = [];
  for (let rank = 0; rank < ranked.length && rank < Math.max(depth, n); rank++) {
    const s = ranked[rank]!;
    const weak = rank >= n && gate > 0 && !(s.score >= gate * best);
    const u = units.find((x) => x.group === s.group && s.index >= x.first - 1 && s.index <= x.last + 1);
    if (weak && (u || gateOpen)) continue;
    if (u) {
      u.first = Math.min(u.first, s.index);
      u.last = Math.max(u.last, s.index);
      u.hits++;
      for (let j = units.length - 1; j >= 0; j--) {
        const o = units[j]!;
        if (o === u || o.group !== u.group || o.first > u.last + 1 || o.last < u.first - 1) continue;
        u.first = Math.min(u.first, o.first);
        u.last = Math.max(u.last, o.last);
        u.hits += o.hits;
        u.opener = Math.min(u.opener, o.opener);
        units.splice(j, 1);
      }
    } else if (units.length < n) units.push({ group: s.group, first: s.index, last: s.index, opener: rank, hits: 1 });
    else if (!fill) break;
  }
  return units.sort((a, b) => a.opener - b.opener);
}

describe('mergeHits in linear time', () => {
  it('agrees with the quadratic reference, repeated chunks included', () => {
    const hit = fc.record({ group: fc.constantFrom('a', 'b'), index: fc.integer({ min: 0, max: 12 }), score: fc.double({ min: 0, max: 1, noNaN: true }) });
    const ranked = fc.array(hit, { maxLength: 40 }).map((hs) => hs.sort((x, y) => y.score - x.score));
    const opts = fc.record({ depth: fc.integer({ min: 0, max: 40 }), gate: fc.double({ min: 0, max: 1, noNaN: true }), gateOpen: fc.boolean(), fill: fc.boolean() });
    fc.assert(
      fc.property(ranked, fc.integer({ min: 0, max: 10 }), opts, (r, n, o) => {
        expect(mergeHits(r, n, o)).toEqual(referenceMerge(r, n, o));
      }),
      { numRuns: 3_000 },
    );
  });

  it('300,000 scattered hits, then 300,000 that bridge them all into one unit', () => {
    const n = 300_000;
    const scattered = Array.from({ length: n }, (_, i): RankedHit => ({ group: 'g', index: 2 * i, score: 1 }));
    const units = mergeHits(scattered, n);
    expect(units).toHaveLength(n);
    expect(units[n - 1]).toEqual({ group: 'g', first: 2 * (n - 1), last: 2 * (n - 1), opener: n - 1, hits: 1 });
    const bridged = mergeHits([...scattered, ...Array.from({ length: n - 1 }, (_, i): RankedHit => ({ group: 'g', index: 2 * i + 1, score: 1 }))], n, { depth: 2 * n });
    expect(bridged).toEqual([{ group: 'g', first: 0, last: 2 * (n - 1), opener: 0, hits: 2 * n - 1 }]);
  });
});
