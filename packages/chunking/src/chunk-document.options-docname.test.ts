/**
 * Session 59's probe of docName: it is in every id (`{contentType}:{docName}::ch{n}`, seed 002),
 * so a line break in it broke every line an id was printed on, and half of a surrogate pair
 * made ids that UTF-8 output cannot hold. Names real users have must still pass.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkDocumentStream } from './index.js';
import { ChunkOptionsError } from './options.js';
import { thrown } from './test-helpers.js';

const SOURCE = '# T\n\nText one. Text two.\n';

/** Whether `s` holds half of a surrogate pair (String#isWellFormed is not in the project's lib). */
const halfPair = (s: string): boolean => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

describe('docName', () => {
  it('refuses a line break, naming docName and showing it escaped, in both functions (`a\\nb::c` gave the id doc:a\\nb::c::ch0)', () => {
    for (const [bad, shown] of [
      ['a\nb::c', '"a\\nb::c"'],
      ['guide\r', '"guide\\r"'],
      ['a\u000bb', '"a\\u000bb"'],
      ['a\u000cb', '"a\\fb"'],
      ['a\u0085b', '"a\\u0085b"'],
      ['a\u2028b', '"a\u2028b"'],
      ['a\u2029b', '"a\u2029b"'],
    ] as const) {
      for (const run of [() => chunkDocument(SOURCE, { docName: bad }), () => chunkDocumentStream(SOURCE, { docName: bad })]) {
        const err = thrown(run);
        expect(err, shown).toBeInstanceOf(ChunkOptionsError);
        expect(err?.message).toBe(`docName must not hold a line break (it is in every chunk id, {contentType}:{docName}::ch{n}), got ${shown}`);
      }
    }
  });

  it('refuses half of a surrogate pair (the id written as UTF-8 was not the id made)', () => {
    for (const bad of ['a\ud800b', 'a\udc00', '\ud83d']) {
      expect(thrown(() => chunkDocument(SOURCE, { docName: bad }))?.message).toMatch(/^docName must be valid Unicode, without half of a surrogate pair \(it is in every chunk id/);
    }
  });

  it('keeps the names of topic folders and files: spaces, dots, dashes, slashes, a drive colon, any script, emoji, joiners', () => {
    for (const name of [
      'golden-reference',
      'System.Text.Json source-generation',
      'docs/libraries/json/guide',
      'C:/docs/guide',
      'Übersicht — Grundlagen',
      'نیم\u200cفاصله',
      '日本語のガイド',
      '👩\u200d💻 notes',
      'a\tb',
      'x'.repeat(300),
    ]) {
      const { chunks } = chunkDocument(SOURCE, { docName: name });
      expect(chunks[0]!.id).toBe(`doc:${name}::ch0`);
    }
  });

  it('makes ids that are one line and valid Unicode whenever it is taken (property)', () => {
    const piece = fc.oneof(fc.constantFrom('\n', '\r', '\u000b', '\u0085', '\u2028', '\ud800', '\udc00', '\ud83d\ude00', ':', ' ', 'a', '-'), fc.string({ unit: 'binary', maxLength: 3 }));
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }).map((parts) => parts.join('') || 'x'), (name) => {
        let chunks;
        try {
          chunks = chunkDocument(SOURCE, { docName: name }).chunks;
        } catch (err) {
          expect(err).toBeInstanceOf(ChunkOptionsError);
          expect(/[\n\r\u000b\u000c\u0085\u2028\u2029]/.test(name) || halfPair(name)).toBe(true);
          return;
        }
        for (const c of chunks) {
          expect(c.id.split(/\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/)).toHaveLength(1);
          expect(halfPair(c.id)).toBe(false);
          expect(Buffer.from(c.id, 'utf8').toString('utf8')).toBe(c.id);
        }
      }),
      { numRuns: 300 },
    );
  });
});
