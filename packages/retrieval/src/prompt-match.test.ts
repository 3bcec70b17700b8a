// Prompt matching: properties of matchPrompts over random hashes, and the real SimHash of
// real questions against their paraphrases.
import fc from 'fast-check';
import { hammingDistance, simhash64, toHex } from '@chunkyard/simhash';
import { describe, expect, it } from 'vitest';
import { checkMaxDistance, DEFAULT_MAX_HAMMING_DISTANCE, matchPrompts, type PromptCandidate } from './prompt-match.js';
import { SAMPLE_QUESTIONS } from './test-fixture-docs.js';

const hash = fc.bigInt({ min: 1n, max: 0xffffffffffffffffn });
const candidates = fc.array(fc.array(hash, { minLength: 1, maxLength: 3 }), { maxLength: 30 }).map((hs) =>
  hs.map((hashes, i): PromptCandidate => ({ topicId: `t${i % 3}`, doc: 'golden-reference', index: i, hashes })),
);

describe('matchPrompts', () => {
  it('returns exactly the chunks with a hash within the distance, closest first', () => {
    fc.assert(
      fc.property(hash, candidates, fc.integer({ min: 0, max: 64 }), (q, cs, d) => {
        const ms = matchPrompts(q, cs, d);
        const expected = cs.filter((c) => c.hashes.some((h) => hammingDistance(q, h) <= d)).map((c) => c.index);
        expect(ms.map((m) => m.index).sort((a, b) => a - b)).toEqual(expected);
        for (const m of ms) {
          const c = cs[m.index]!;
          expect(m.distance).toBe(Math.min(...c.hashes.map((h) => hammingDistance(q, h))));
          expect(m.hash).toBe(toHex(c.hashes.find((h) => hammingDistance(q, h) === m.distance)!));
        }
        for (let i = 1; i < ms.length; i++) expect(ms[i]!.distance).toBeGreaterThanOrEqual(ms[i - 1]!.distance);
      }),
    );
  });

  it('is monotone: a larger distance keeps every match of a smaller one', () => {
    fc.assert(
      fc.property(hash, candidates, fc.integer({ min: 0, max: 63 }), (q, cs, d) => {
        const small = new Set(matchPrompts(q, cs, d).map((m) => m.index));
        const large = new Set(matchPrompts(q, cs, d + 1).map((m) => m.index));
        for (const i of small) expect(large.has(i)).toBe(true);
      }),
    );
  });

  it('a query without content words (hash 0) matches nothing, even at 64', () => {
    expect(simhash64('how do I do it?')).toBe(0n);
    expect(matchPrompts(0n, [{ topicId: 't', doc: 'd', index: 0, hashes: [1n] }], 64)).toEqual([]);
  });

  it('checks the distance', () => {
    expect(() => checkMaxDistance(-1)).toThrow(RangeError);
    expect(() => checkMaxDistance(2.5)).toThrow(RangeError);
    expect(checkMaxDistance(DEFAULT_MAX_HAMMING_DISTANCE)).toBe(DEFAULT_MAX_HAMMING_DISTANCE);
  });

  it('refuses a distance given as a string, and says it was a string (a "3" was shown as `got 3`, as if 3 were refused)', () => {
    expect(() => checkMaxDistance('3' as unknown as number)).toThrow(new RangeError('max Hamming distance must be an integer 0..64, got the string "3"'));
    expect(() => checkMaxDistance(null as unknown as number)).toThrow(new RangeError('max Hamming distance must be an integer 0..64, got null'));
    expect(() => checkMaxDistance({} as unknown as number)).toThrow(new RangeError('max Hamming distance must be an integer 0..64, got an object'));
    expect(() => checkMaxDistance(65)).toThrow(new RangeError('max Hamming distance must be an integer 0..64, got 65'));
  });

  it('on real questions, paraphrases sit closer to their own question than other questions do', () => {
    // Not a threshold test (that is measure-prompt-threshold.mjs): the ordering SimHash must give.
    const own: number[] = [];
    const other: number[] = [];
    for (const q of SAMPLE_QUESTIONS) {
      for (const p of q.paraphrases) {
        own.push(hammingDistance(simhash64(p), simhash64(q.question)));
        for (const o of SAMPLE_QUESTIONS) if (o.topic !== q.topic) other.push(hammingDistance(simhash64(p), simhash64(o.question)));
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(own)).toBeLessThan(mean(other));
  });
});
