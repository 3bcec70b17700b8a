// The topic filter's trailing slashes and the full-text query's words (issue 15: linear time
// on any input; search_docs takes both from an MCP client).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FTS_MAX_WORDS, ftsQuery, topicMatches, withoutTrailingSlashes } from './search.js';
import { DocStore } from './store.js';
import { DOCS, localProvider, makeTempDir, readDoc } from './test-helpers.js';

describe('withoutTrailingSlashes', () => {
  it("is value.replace(/\\/+$/, '')", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('/', 'a', '\n', '\u2028', ' '), maxLength: 40 }), (s) => {
        expect(withoutTrailingSlashes(s)).toBe(s.replace(/\/+$/, ''));
      }),
      { numRuns: 5_000 },
    );
  });

  it('a topic filter of 400,000 slashes followed by more is matched in linear time (the old pattern backtracked quadratically, once per stored topic)', () => {
    const wanted = `${'/'.repeat(400_000)}x/`;
    expect(topicMatches('guides/x', wanted)).toBe(false);
    expect(topicMatches(`a/${'/'.repeat(400_000)}x`, wanted)).toBe(true);
  });
});

describe('ftsQuery', () => {
  /** The old query: every distinct word, in order. */
  const allWords = (text: string) => [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])];

  it('of 300 distinct words takes the first 256', () => {
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`);
    expect(ftsQuery(words.join(' '))).toBe(words.slice(0, 256).map((w) => `"${w}"`).join(' OR '));
  });

  it(`is the first ${FTS_MAX_WORDS} distinct words of the query, quoted and OR-ed`, () => {
    // Words drawn from 600, often repeated, in any case: from none to well past the cap.
    const word = fc.oneof(fc.nat(599).map((i) => `w${i.toString(36)}`), fc.stringMatching(/^[a-zA-Zé0-9_]{1,3}$/));
    const sep = fc.constantFrom(' ', ', ', '-', ' AND ', '"', '\n', '*');
    fc.assert(
      fc.property(fc.array(fc.tuple(word, sep), { maxLength: 1500, size: 'max' }), (parts) => {
        const text = parts.map(([w, s]) => w + s).join('');
        const expected = allWords(text).slice(0, FTS_MAX_WORDS);
        expect(ftsQuery(text)).toBe(expected.length ? expected.map((w) => `"${w}"`).join(' OR ') : null);
      }),
      { numRuns: 300 },
    );
  });

  it('a query of 100,000 distinct words searches its first ones: the same hits as those alone (FTS5 took minutes over all of them)', async () => {
    const tmp = makeTempDir();
    const store = DocStore.open(`${tmp.dir}/store.db`);
    try {
      await store.ingest([{ content: readDoc(DOCS.polymorphism), sourceSystem: 'file', sourceId: DOCS.polymorphism }], localProvider());
      const words = ['polymorphic', 'discriminator', ...Array.from({ length: 100_000 }, (_, i) => `w${i.toString(36)}`)];
      const head = words.slice(0, FTS_MAX_WORDS).join(' ');
      const expected = await store.search(head, { mode: 'fts', limit: 20 });
      expect(expected.length).toBeGreaterThan(0);
      expect(await store.search(words.join(' '), { mode: 'fts', limit: 20 })).toEqual(expected);
    } finally {
      store.close();
      tmp.cleanup();
    }
  });
});
