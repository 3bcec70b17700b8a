import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contextRecall, exactMatch, gate, latencyDeltaPct, normalizeAnswer, requiredTokens, restoreThroughGraph, tokenF1, type GraphChunk } from './answers.js';

describe('answer metrics', () => {
  it('normalises like SQuAD: case, punctuation and articles', () => {
    expect(normalizeAnswer('The  JsonSerializable attribute!')).toBe('jsonserializable attribute');
    expect(normalizeAnswer('Éa, an Über-Ding')).toBe('éa über ding');
    expect(exactMatch('the Source Generator.', 'source generator')).toBe(true);
    expect(exactMatch('source generators', 'source generator')).toBe(false);
  });

  it('token F1 counts repeated tokens once per occurrence', () => {
    expect(tokenF1('trim trim trim', 'trim warnings')).toBeCloseTo((2 * (1 / 3) * (1 / 2)) / (1 / 3 + 1 / 2));
    expect(tokenF1('PublishAot true', 'set PublishAot to true')).toBeCloseTo((2 * 1 * 0.5) / 1.5);
    expect(tokenF1('', '')).toBe(1);
    expect(tokenF1('x', '')).toBe(0);
    expect(tokenF1('nothing shared', 'other words')).toBe(0);
  });

  it('F1 is in [0, 1], symmetric, and 1 exactly when the token multisets match', () => {
    const words = fc.array(fc.constantFrom('trim', 'aot', 'json', 'The', 'a', 'Native', 'publish', '!'), { maxLength: 8 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(words, words, (a, b) => {
        const f = tokenF1(a, b);
        const sorted = (s: string) => normalizeAnswer(s).split(' ').filter(Boolean).sort().join(' ');
        return f >= 0 && f <= 1 && Math.abs(f - tokenF1(b, a)) < 1e-12 && (f === 1) === (sorted(a) === sorted(b));
      }),
    );
  });

  it('Context Recall: share of the distinct required tokens present', () => {
    const req = requiredTokens('set PublishAot to true', ['PublishAot', 'true', 'csproj']);
    expect(req).toEqual(['publishaot', 'true', 'csproj']);
    expect(contextRecall(req, 'Add <PublishAot>true</PublishAot> to the project')).toBeCloseTo(2 / 3);
    expect(requiredTokens('The trimmer, the trimmer')).toEqual(['trimmer']);
    expect(contextRecall([], 'anything')).toBe(1);
  });

  it('Latency Delta and the gates', () => {
    expect(latencyDeltaPct([100, 100], [110, 120])).toBeCloseTo(15);
    expect(latencyDeltaPct([200], [100])).toBeCloseTo(-50);
    expect(gate('latency', 15, 15).status).toBe('pass');
    expect(gate('latency', 15.01, 15).status).toBe('fail');
    expect(gate('f1', 0.92, 0.92).status).toBe('pass');
    expect(gate('recall', 0.96, 0.97)).toEqual({ metric: 'recall', value: 0.96, threshold: 0.97, op: '>=', status: 'fail' });
    expect(gate('f1', null, 0.92).status).toBe('skipped');
  });
});

describe('restoreThroughGraph', () => {
  const chain = (n: number): GraphChunk[] => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, prevId: i > 0 ? `c${i - 1}` : null, nextId: i < n - 1 ? `c${i + 1}` : null }));

  it('adds each hit’s neighbours along prev/next links, in document order', () => {
    expect(restoreThroughGraph(chain(10), [5, 2])).toEqual([1, 2, 3, 4, 5, 6]);
    expect(restoreThroughGraph(chain(10), [0], 2)).toEqual([0, 1, 2]);
    expect(restoreThroughGraph(chain(3), [1], 0)).toEqual([1]);
  });

  it('follows the links as written: a dangling link restores nothing, a cycle terminates', () => {
    const broken = chain(5);
    broken[2] = { ...broken[2]!, nextId: 'missing' };
    expect(restoreThroughGraph(broken, [2])).toEqual([1, 2]);
    const cycle: GraphChunk[] = [
      { id: 'a', prevId: 'b', nextId: 'b' },
      { id: 'b', prevId: 'a', nextId: 'a' },
    ];
    expect(restoreThroughGraph(cycle, [0], 5)).toEqual([0, 1]);
  });

  it('always contains every hit and stays within hops of one (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(fc.nat(), { maxLength: 5 }), fc.integer({ min: 0, max: 3 }), (n, raw, hops) => {
        const hits = raw.map((h) => h % n);
        const out = restoreThroughGraph(chain(n), hits, hops);
        return hits.every((h) => out.includes(h)) && out.every((i) => hits.some((h) => Math.abs(h - i) <= hops)) && out.every((v, i) => i === 0 || out[i - 1]! < v);
      }),
    );
  });
});
