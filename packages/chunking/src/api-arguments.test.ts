/**
 * Session 59's probe of the public API with hostile arguments: each wrong argument is refused
 * with an error naming it and showing what was given, never an internal TypeError, a hang or a
 * silent wrong result.
 */
import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkDocumentStream } from './index.js';
import { ChunkOptionsError } from './options.js';

/** The error `fn` throws, or null. */
function errorOf(fn: () => unknown): Error | null {
  try {
    fn();
    return null;
  } catch (err) {
    return err as Error;
  }
}

/** A document the stream cuts into windows (three top-level sections, repeated). */
const SECTIONED = '# A\n\nx x x.\n\n# B\n\ny y y.\n\n# C\n\nz z z.\n'.repeat(50);

describe('extras are checked (chunkDocument, chunkDocumentStream)', () => {
  it('refuse a windowChars that is not an integer >= 1, naming it: a string was taken, -5 and 0.5 were read as 1', () => {
    for (const [bad, shown] of [
      ['10', '"10"'],
      [-5, '-5'],
      [0.5, '0.5'],
      [0, '0'],
      [-0, '-0'],
      [100.5, '100.5'],
      [null, 'null'],
      [{}, 'an object'],
    ] as const) {
      const err = errorOf(() => chunkDocumentStream(SECTIONED, {}, { windowChars: bad as never }));
      expect(err, shown).toBeInstanceOf(ChunkOptionsError);
      expect(err?.message).toBe(`extras.windowChars must be an integer >= 1 (or Infinity), got ${shown}`);
    }
  });

  it('refuse a windowChars of NaN or "abc" (the planning loop never advanced: the call hung)', () => {
    for (const [bad, shown] of [
      [Number.NaN, 'NaN'],
      ['abc', '"abc"'],
    ] as const) {
      expect(errorOf(() => chunkDocumentStream(SECTIONED, {}, { windowChars: bad as never }))?.message).toBe(
        `extras.windowChars must be an integer >= 1 (or Infinity), got ${shown}`,
      );
    }
  });

  it('still take windowChars 1, an integer and Infinity, with chunkDocument\'s records', () => {
    const whole = chunkDocument(SECTIONED).chunks;
    for (const windowChars of [1, 64, Number.POSITIVE_INFINITY]) {
      expect([...chunkDocumentStream(SECTIONED, {}, { windowChars }).chunks]).toEqual(whole);
    }
  });

  it('refuse extras that are not an object (null threw "Cannot read properties of null (reading \'recount\')")', () => {
    for (const [bad, shown] of [
      [null, 'null'],
      [5, '5'],
      ['recount', '"recount"'],
      [[true], 'an array'],
    ] as const) {
      for (const run of [() => chunkDocument('# T\n\nText.\n', {}, bad as never), () => chunkDocumentStream('# T\n\nText.\n', {}, bad as never)]) {
        const err = errorOf(run);
        expect(err, shown).toBeInstanceOf(ChunkOptionsError);
        expect(err?.message).toBe(`extras must be an object (or left out), got ${shown}`);
      }
    }
    expect(chunkDocument('# T\n\nText.\n', {}, undefined).chunks).toHaveLength(1);
  });
});
