/**
 * Session 59's probe of the public API with hostile arguments: each wrong argument is refused
 * with an error naming it and showing what was given, never an internal TypeError, a hang or a
 * silent wrong result.
 */
import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkDocumentStream } from './index.js';
import { ChunkOptionsError } from './options.js';
import { thrown } from './test-helpers.js';

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
      const err = thrown(() => chunkDocumentStream(SECTIONED, {}, { windowChars: bad as never }));
      expect(err, shown).toBeInstanceOf(ChunkOptionsError);
      expect(err?.message).toBe(`extras.windowChars must be an integer >= 1 (or Infinity), got ${shown}`);
    }
  });

  it('refuse a windowChars of NaN or "abc" (the planning loop never advanced: the call hung)', () => {
    for (const [bad, shown] of [
      [Number.NaN, 'NaN'],
      ['abc', '"abc"'],
    ] as const) {
      expect(thrown(() => chunkDocumentStream(SECTIONED, {}, { windowChars: bad as never }))?.message).toBe(
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
        const err = thrown(run);
        expect(err, shown).toBeInstanceOf(ChunkOptionsError);
        expect(err?.message).toBe(`extras must be an object (or left out), got ${shown}`);
      }
    }
    expect(chunkDocument('# T\n\nText.\n', {}, undefined).chunks).toHaveLength(1);
  });
});

describe('a source that is not a string is named (it threw "source.charCodeAt is not a function")', () => {
  it('refuses a number, null, undefined, an array or an object, in both functions, showing the value', () => {
    for (const [bad, shown] of [
      [5, '5'],
      [null, 'null'],
      [undefined, 'undefined'],
      [['# T'], 'an array'],
      [{ text: '# T' }, 'an object'],
      [Symbol('x'), 'symbol'],
    ] as const) {
      for (const fn of ['chunkDocument', 'chunkDocumentStream'] as const) {
        const err = thrown(() => (fn === 'chunkDocument' ? chunkDocument : chunkDocumentStream)(bad as never));
        expect(err, `${fn}: ${shown}`).toBeInstanceOf(TypeError);
        expect(err?.message).toBe(`${fn}: source must be a string, got ${shown}`);
      }
    }
  });

  it('tells a caller who passed bytes (readFileSync without an encoding) to decode them', () => {
    const bytes = Buffer.from('# T\n\nText.\n', 'utf8');
    expect(thrown(() => chunkDocument(bytes as never))?.message).toBe(
      "chunkDocument: source must be a string, got a Buffer of 11 bytes (decode it first, e.g. readFileSync(path, 'utf8'))",
    );
    expect(thrown(() => chunkDocumentStream(new Uint8Array(3) as never))?.message).toBe(
      "chunkDocumentStream: source must be a string, got a Uint8Array of 3 bytes (decode it first, e.g. readFileSync(path, 'utf8'))",
    );
  });

  it('takes a String object as its string, with the same records', () => {
    const text = '\ufeff# T\n\nText.\n';
    const boxed = new String(text) as never;
    expect(chunkDocument(boxed)).toEqual(chunkDocument(text));
    expect([...chunkDocumentStream(boxed).chunks]).toEqual(chunkDocument(text).chunks);
  });
});
