// The counts disclose, expand, expandRange, mergeHits and trimSegments take, over hostile
// values (fast-check): each either gives a result clamped to the items, or refuses with a
// RangeError naming the option (checkCount's), never another error. They checked inline with
// Number.isInteger: 1e300 and 2^53 were taken, and a string "3" was refused as `got 3`.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChunkGroup, ManifestChunk } from './contract.js';
import { disclose } from './disclose.js';
import { expand, expandRange } from './expand.js';
import { mergeHits, trimSegments, type RankedHit } from './routes.js';

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(Number.NaN, Infinity, -Infinity, 1e300, -1e300, -0, 0, 1, 3, 2 ** 53, 2 ** 53 - 1, -(2 ** 53), -1, 0.5, 1.5, Number.EPSILON, '3', '', ' 3', '0x3', null, undefined, true, {}, [], [3], 3n, Symbol('n'), new Number(3), { toString: [] }, Object.create(null)),
  fc.double(),
  fc.integer(),
  fc.nat({ max: 50 }),
  fc.string({ maxLength: 5 }),
  fc.object({ maxDepth: 1 }),
);

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** `f()` if `v` is a count; otherwise asserts the RangeError checkCount gives for `name`. */
function countOrRefused<T>(name: string, v: unknown, f: () => T): T | undefined {
  if (isCount(v)) return f();
  let thrown: unknown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  // fc.stringify, not String: fc.object makes `{ toString: [...] }`, which String cannot
  // convert (a TypeError in this line, not in the code under test, failed a random run).
  expect(thrown, `${name} ${fc.stringify(v)}`).toBeInstanceOf(RangeError);
  expect((thrown as RangeError).message).toMatch(new RegExp(`^${name} must be a non-negative integer \\(0\\.\\.2\\^53 − 1\\), got `));
  return undefined;
}

const group: ChunkGroup = { source: 'd.md', manifest: '_chunks/d.json', count: 6, baseline_conceptual: 0, stripe_order: [3, 1, 5, 2, 4], items: [] };
const chunks: ManifestChunk[] = Array.from({ length: 6 }, (_, i) => ({
  id: `c${i}`,
  chunkNumber: i + 1,
  originalText: `chunk ${i}.`,
  embedText: `chunk ${i}.`,
  sourcePosition: { charStart: i * 9, charEnd: i * 9 + 8 },
  overlapChars: 0,
}));
const ranked: RankedHit[] = [0, 1, 4, 2, 5, 3].map((index, rank) => ({ group: 'd', index, score: 1 - rank / 10 }));
const segments = [
  { index: 0, text: 'Trimming removes code. Dogs bark.' },
  { index: 1, text: 'Cats sleep. Trimming again.' },
];
const terms = (t: string) => t.toLowerCase().match(/[a-z]+/g) ?? [];

describe('counts', () => {
  it('a count is either used (clamped to the items) or refused with a RangeError naming the option', () => {
    fc.assert(
      fc.property(hostile, (v) => {
        const n = v as number;
        const d = countOrRefused('n', v, () => disclose(group, { n }));
        if (d) expect(d.indices).toEqual(group.stripe_order.slice(0, Math.min(n, 5)));
        const e = countOrRefused('k', v, () => expand(chunks, 2, n));
        if (e) expect([e.from, e.to]).toEqual([Math.max(0, 2 - n), Math.min(5, 2 + n)]);
        const r = countOrRefused('k', v, () => expandRange(chunks, 1, 3, n));
        if (r) expect(r.segments).toHaveLength(Math.min(5, 3 + n) - Math.max(0, 1 - n) + 1);
        const m = countOrRefused('n', v, () => mergeHits(ranked, n, { gate: 0 }));
        if (m) expect(m).toEqual(mergeHits(ranked, Math.min(n, ranked.length), { gate: 0 }));
        const depth = countOrRefused('merge depth', v, () => mergeHits(ranked, 1, { depth: n, gate: 0 }));
        if (depth) expect(depth).toEqual(mergeHits(ranked, 1, { depth: Math.min(n, ranked.length), gate: 0 }));
        const t = countOrRefused('trim', v, () => trimSegments(segments, 'trimming', n, terms));
        if (t) expect(t.length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });

  it('names the value as given: a string "3" is not shown as 3', () => {
    const three = '3' as unknown as number;
    const msg = (name: string) => new RangeError(`${name} must be a non-negative integer (0..2^53 − 1), got the string "3"`);
    expect(() => disclose(group, { n: three })).toThrow(msg('n'));
    expect(() => expand(chunks, 0, three)).toThrow(msg('k'));
    expect(() => expandRange(chunks, 0, 0, three)).toThrow(msg('k'));
    expect(() => mergeHits(ranked, three)).toThrow(msg('n'));
    expect(() => mergeHits(ranked, 1, { depth: three })).toThrow(msg('merge depth'));
    expect(() => trimSegments(segments, 'x', three, terms)).toThrow(msg('trim'));
    expect(() => mergeHits(ranked, 1, { gate: '0.5' as unknown as number })).toThrow(new RangeError('merge gate must be in [0, 1], got the string "0.5"'));
    expect(() => expand(chunks, three, 0)).toThrow(new RangeError('no chunk the string "3" (the document has 6)'));
  });

  it('the largest count does work of the items, not of n (200,000 hits, n = 2^53 − 1)', () => {
    const many: RankedHit[] = Array.from({ length: 200_000 }, (_, i) => ({ group: `g${i % 1000}`, index: Math.floor(i / 1000) * 3, score: 1 - i / 1e6 }));
    const big = Number.MAX_SAFE_INTEGER;
    expect(mergeHits(many, big, { depth: big })).toHaveLength(many.length);
    expect(disclose(group, { n: big }).indices).toEqual(group.stripe_order);
    expect(expand(chunks, 0, big).segments).toHaveLength(6);
  });
});
