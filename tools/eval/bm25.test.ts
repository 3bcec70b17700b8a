import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bm25Terms, fitBm25 } from './bm25.mjs';

describe('bm25', () => {
  it('drops stop words and stems English words only when asked', () => {
    const stop = new Set(['the', 'and']);
    expect(bm25Terms('The runners and running x86', { stopWords: stop })).toEqual(['runners', 'running', 'x86']);
    expect(bm25Terms('The runners and running x86', { stopWords: stop, stem: true })).toEqual(['runner', 'run', 'x86']);
  });

  it('scores as Okapi BM25 with k1 = 1.2, b = 0.75 (hand-computed)', () => {
    // docs: [cat cat dog] (3 terms), [dog fish] (2), [bird] (1); mean length 2.
    const index = fitBm25(['cat cat dog', 'dog fish', 'bird']);
    const s = index.scores('cat');
    // cat: df 1 of 3, idf = ln(1 + 2.5 / 1.5); doc0 tf 2, |d| 3: 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 1.5)).
    const idf = Math.log(1 + 2.5 / 1.5);
    expect(s[0]).toBeCloseTo((idf * 2 * 2.2) / (2 + 1.2 * (0.25 + 0.75 * 1.5)), 12);
    expect(s[1]).toBe(0);
    expect(s[2]).toBe(0);
    // A repeated query term counts once; unknown words score nothing.
    expect([...index.scores('cat cat zebra')]).toEqual([...s]);
  });

  it('a shorter document with the same term count scores higher (length normalisation)', () => {
    const index = fitBm25(['apple pear plum', 'apple', 'kiwi']);
    const s = index.scores('apple');
    expect(s[1]).toBeGreaterThan(s[0] ?? 0);
  });

  it('scores are never negative and zero for documents without a query term', () => {
    const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'the', 'runs', 'running');
    fc.assert(
      fc.property(fc.array(fc.array(word, { maxLength: 8 }).map((w) => w.join(' ')), { minLength: 1, maxLength: 12 }), fc.array(word, { minLength: 1, maxLength: 4 }), (docs, q) => {
        const options = { stopWords: new Set(['the']), stem: true };
        const s = fitBm25(docs, options).scores(q.join(' '));
        const qt = new Set(bm25Terms(q.join(' '), options));
        docs.forEach((d, i) => {
          expect(s[i]).toBeGreaterThanOrEqual(0);
          if (!bm25Terms(d, options).some((t) => qt.has(t))) expect(s[i]).toBe(0);
        });
      }),
    );
  });
});
