// formatAnswers' gate table: each threshold reads back as the number given, one sign at most.
import fc from 'fast-check';
import { gate } from '@chunkyard/quality';
import { describe, expect, it } from 'vitest';
import { formatAnswers, type AnswerReport } from './answers.js';

function report(latency: number, value: number | null): AnswerReport {
  return {
    queries: 1,
    k: 5,
    hops: 1,
    metrics: ['latency'],
    llm: null,
    embedder: 'local/m',
    skipped: [],
    contextRecall: null,
    control: null,
    experimental: null,
    latencyDeltaPct: value,
    gates: [gate('latency', value, latency)],
    perQuery: [],
  };
}

describe('formatAnswers: the Latency Delta gate line', () => {
  it('shows any threshold of --max-latency-delta\'s range (-100..10000) with one sign, as given', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -100, max: 10_000 }), fc.double({ min: -100, max: 10_000, noNaN: true }), fc.constantFrom(-100, -0.5, 0, 15)), fc.option(fc.double({ min: -100, max: 1e6, noNaN: true })), (threshold, value) => {
        const line = formatAnswers(report(threshold, value)).split('\n').find((l) => l.startsWith('Latency Delta'))!;
        const shown = /<= ([+-]?)([^ %]+)%/.exec(line);
        expect(shown, line).not.toBeNull();
        expect(line).not.toMatch(/\+-|-\+|--|\+\+/);
        expect(Number(`${shown![1] === '-' ? '-' : ''}${shown![2]}`)).toBe(threshold === 0 ? 0 : threshold);
        expect(shown![1]).toBe(threshold < 0 ? '-' : '+');
      }),
      { numRuns: 300 },
    );
  });

  it('writes -10 as "<= -10%", not "<= +-10%"', () => {
    expect(formatAnswers(report(-10, null))).toMatch(/^Latency Delta +— +<= -10% +skipped$/m);
  });
});
