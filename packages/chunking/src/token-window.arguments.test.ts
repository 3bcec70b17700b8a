/**
 * tokenWindows called directly (it is exported) with sizes resolveOptions would refuse:
 * session 59's probe found windowTokens 0, NaN, -5 or 100.5 (or no sizes at all) looping
 * until the heap was gone, and a negative overlap leaving text out of every window.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { thrown } from './test-helpers.js';
import { artifactIdOf, tokenWindows } from './token-window.js';

const TEXT = 'word '.repeat(400);

describe('tokenWindows refuses sizes it cannot window with', () => {
  it('a negative overlap (windows left 50 tokens between them out), naming it', () => {
    const err = thrown(() => tokenWindows(TEXT, { windowTokens: 100, windowOverlapTokens: -50, singlePieceMaxTokens: 0 }));
    expect(err).toBeInstanceOf(RangeError);
    expect(err?.message).toBe('tokenWindows: windowOverlapTokens must be an integer from 0 to windowTokens - 1 (99), got -50');
  });

  it('strings where numbers go (pos + "100" concatenated), a text that is not a string, no sizes', () => {
    expect(thrown(() => tokenWindows(TEXT, { windowTokens: '100', windowOverlapTokens: 10, singlePieceMaxTokens: 0 } as never))?.message).toBe(
      'tokenWindows: windowTokens must be an integer >= 1, got "100"',
    );
    const notText = thrown(() => tokenWindows(5 as never, { windowTokens: 100, windowOverlapTokens: 10, singlePieceMaxTokens: 0 }));
    expect(notText).toBeInstanceOf(TypeError);
    expect(notText?.message).toBe('tokenWindows: text must be a string, got 5');
    expect(thrown(() => tokenWindows(TEXT, undefined as never))?.message).toBe('tokenWindows: sizes must be an object, got undefined');
    expect(thrown(() => tokenWindows(TEXT, { windowTokens: 100, windowOverlapTokens: 10, singlePieceMaxTokens: -1 }))?.message).toBe(
      'tokenWindows: singlePieceMaxTokens must be an integer >= 0 (or Infinity), got -1',
    );
  });

  it('any sizes: either a RangeError/TypeError naming the size, or windows that cover the text in order, each within windowTokens', () => {
    const hostile = fc.oneof(
      fc.integer({ min: -5, max: 120 }),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0.5, 100.5, 1e309, 2 ** 53, '100', '', null, undefined, {}, [50], true),
    );
    fc.assert(
      fc.property(hostile, hostile, hostile, (windowTokens, windowOverlapTokens, singlePieceMaxTokens) => {
        const sizes = { windowTokens, windowOverlapTokens, singlePieceMaxTokens } as never;
        let spans;
        try {
          spans = tokenWindows(TEXT, sizes);
        } catch (err) {
          expect(err instanceof RangeError || err instanceof TypeError).toBe(true);
          expect((err as Error).message).toMatch(/^tokenWindows: (windowTokens|windowOverlapTokens|singlePieceMaxTokens) must be /);
          return;
        }
        expect(spans.length).toBeGreaterThan(0);
        expect(spans[0]!.start).toBe(0);
        for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeLessThanOrEqual(spans[i - 1]!.end);
        for (const s of spans) expect(s.endToken - s.startToken).toBeLessThanOrEqual(Math.max(windowTokens as number, 800));
        expect(spans.at(-1)!.end).toBeGreaterThanOrEqual(TEXT.trimEnd().length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('artifactIdOf names an argument that is not a string', () => {
  it('refuses a content of 5 (Node\'s "data" argument error) and a sourceId of null (hashed as the id "null")', () => {
    expect(() => artifactIdOf(5 as never)).toThrow(new TypeError('artifactIdOf: content must be a string, got 5'));
    expect(() => artifactIdOf('x', null as never)).toThrow(new TypeError('artifactIdOf: sourceId must be a string (or left out), got null'));
    expect(() => artifactIdOf('x', 'id', 7 as never)).toThrow(new TypeError('artifactIdOf: sourceSystem must be a string (or left out), got 7'));
    expect(artifactIdOf('x', 'id')).toBe(artifactIdOf('y', 'id', undefined));
    expect(artifactIdOf('x')).toMatch(/^art_[0-9a-f]{8}$/);
  });
});
