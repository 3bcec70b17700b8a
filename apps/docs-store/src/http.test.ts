// The HTTP transport's header checks on their own (issue 15: linear time on any input). The
// server's answers to them are in mcp-http.test.ts; these hold the helpers to the patterns
// they replace, on strings built from those patterns' own characters.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bearerCredentials, hostOf, tokenMatches, withoutTrailingSlashes } from './http.js';

describe('withoutTrailingSlashes', () => {
  it("is value.replace(/\\/+$/, '')", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('/', 'a', ':', '\n', '\u2028', ' '), maxLength: 40 }), (s) => {
        expect(withoutTrailingSlashes(s)).toBe(s.replace(/\/+$/, ''));
      }),
      { numRuns: 5_000 },
    );
  });

  it('an Origin of 400,000 slashes followed by more is refused in linear time (the old pattern: 0.36 s per 16 KB header, quadratic)', () => {
    const origin = `http://127.0.0.1:8080${'/'.repeat(400_000)}x/`;
    expect(hostOf(origin, true)).toBeNull();
    expect(hostOf('http://127.0.0.1:8080///', true)).toBe('127.0.0.1:8080');
  });
});

describe('bearerCredentials', () => {
  const old = (header: string) => /^Bearer[ ]+(.+)$/i.exec(header)?.[1]!.trim() ?? null;

  it('is /^Bearer[ ]+(.+)$/i.exec(header)?.[1].trim()', () => {
    const scheme = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Bear', 'Basic', '', ' Bearer');
    const body = fc.string({ unit: fc.constantFrom(' ', ' ', ' ', 'x', 'B', '\t', '\n', '\r', '\u2028', '\u2029', '\u00a0', '\u0085'), maxLength: 40 });
    fc.assert(
      fc.property(scheme, body, (a, b) => {
        expect(bearerCredentials(a + b)).toBe(old(a + b));
      }),
      { numRuns: 10_000 },
    );
  });

  it('400,000 spaces followed by a line break take linear time (the old pattern backtracked quadratically)', () => {
    expect(tokenMatches(`Bearer ${' '.repeat(400_000)}\n`, 'tok')).toBe(false);
    expect(tokenMatches(`Bearer ${' '.repeat(400_000)}tok`, 'tok')).toBe(true);
  });
});
