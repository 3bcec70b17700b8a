import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkGraph, paginationIntegrityScore, parseCtComment, type GraphNode } from './continuity.js';

const chain = (n: number): GraphNode[] =>
  Array.from({ length: n }, (_, i) => ({ id: `c${i}`, prev: i > 0 ? `c${i - 1}` : null, next: i < n - 1 ? `c${i + 1}` : null }));

describe('checkGraph', () => {
  it('scores a well-linked chain 2 hits per node and no breaks', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), (n) => {
        const r = checkGraph(chain(n));
        expect(r).toEqual({ hits: 2 * n, misses: 0, mismatches: [], breaks: [] });
        expect(paginationIntegrityScore([r])).toBe(100);
      }),
    );
  });
  it('reports a pointer to a missing id as dangling (and a miss)', () => {
    const g = chain(3);
    g[1]!.next = 'c9';
    const r = checkGraph(g);
    expect(r.breaks).toEqual([{ kind: 'dangling', id: 'c1', message: 'c1: next points to c9, which does not exist' }]);
    expect(r.misses).toBe(1);
    expect(paginationIntegrityScore([r])).toBeCloseTo((100 * 5) / 6, 10);
  });
  it('reports a next cycle, a self-loop and duplicate ids', () => {
    const g = chain(4);
    g[3]!.next = 'c1';
    expect(checkGraph(g).breaks).toEqual([{ kind: 'circular', id: 'c1', message: 'next links form a cycle: c1 -> c2 -> c3 -> c1' }]);
    const self = chain(2);
    self[0]!.prev = 'c0';
    expect(checkGraph(self).breaks.map((b) => b.kind)).toEqual(['circular']);
    const dup = chain(3);
    dup[2]!.id = 'c1';
    expect(checkGraph(dup).breaks.map((b) => b.kind)).toContain('duplicate');
  });
  it('counts a swapped but resolvable pointer as a miss, not a break', () => {
    const g = chain(4);
    g[0]!.next = 'c2';
    const r = checkGraph(g);
    expect(r.breaks).toEqual([]);
    expect(r.misses).toBe(1);
    expect(r.mismatches).toEqual(['c0: next is "c2", reading order says "c1"']);
  });
  it('any single pointer rewired to another node lowers the PIS below 100', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 30 }), fc.nat(), fc.nat(), fc.boolean(), (n, a, b, prev) => {
        const g = chain(n);
        const node = g[a % n]!;
        const side = prev ? 'prev' : 'next';
        const target = `c${b % n}`;
        fc.pre(node[side] !== target);
        node[side] = target;
        expect(paginationIntegrityScore([checkGraph(g)])).toBeLessThan(100);
      }),
    );
  });
});

describe('parseCtComment', () => {
  it('reads the leading CT comment of a page', () => {
    expect(parseCtComment('<!--CT {"id":"chunk-002","prev":"chunk-001","next":null}-->\nbody')).toEqual({ id: 'chunk-002', prev: 'chunk-001', next: null });
    expect(parseCtComment('# no comment')).toBeNull();
    expect(parseCtComment('<!--CT {"id":2}-->')).toBe('invalid');
    expect(parseCtComment('<!--CT {oops}-->')).toBe('invalid');
  });
});
