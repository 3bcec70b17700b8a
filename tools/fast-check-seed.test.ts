import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CI_SEED, seedFrom } from './fast-check-seed.js';

describe('the fast-check seed of a test run', () => {
  it('is fixed in CI, FC_SEED when given, and fast-check\'s random one otherwise', () => {
    expect(seedFrom({ CI: 'true' })).toBe(CI_SEED);
    expect(seedFrom({ CI: '1' })).toBe(CI_SEED);
    expect(seedFrom({ CI: 'false' })).toBeUndefined();
    expect(seedFrom({})).toBeUndefined();
    expect(seedFrom({ FC_SEED: '1945950611', CI: 'true' })).toBe(1945950611);
    expect(seedFrom({ FC_SEED: '-7' })).toBe(-7);
    expect(() => seedFrom({ FC_SEED: 'abc' })).toThrow(/FC_SEED must be an integer.*"abc"/);
    expect(() => seedFrom({ FC_SEED: '1.5' })).toThrow(/FC_SEED/);
  });

  it('is the one this run configured (the setup file ran before this test file)', () => {
    expect(fc.readConfigureGlobal().seed).toBe(seedFrom(process.env));
  });
});
