// The topic filter's trailing slashes and the full-text query's words (issue 15: linear time
// on any input; search_docs takes both from an MCP client).
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { STOP_WORDS } from '@chunkyard/embeddings';
import { FTS5_SPLITS, FTS_MAX_WORDS, ftsQuery, queryWithoutWords, topicMatches, withoutTrailingSlashes } from './search.js';
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
  /** The old query: every distinct word, in order, but the stop words. */
  const allWords = (text: string) => [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])].filter((w) => !STOP_WORDS.has(w));

  it('leaves the stop words out, so a query of them alone (any case, any separators) searches nothing and says why', () => {
    const stop = [...STOP_WORDS];
    const sep = fc.constantFrom(' ', ', ', '?', ' "', '*', '(', '\n', "'");
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...stop), fc.boolean(), sep), { minLength: 1, maxLength: 40 }), (parts) => {
        const text = parts.map(([w, upper, s]) => (upper ? w.toUpperCase() : w) + s).join('');
        expect(ftsQuery(text)).toBeNull();
        expect(queryWithoutWords(text)).toMatch(/^every word of the query is a stop word \("/);
        // One word that is not a stop word, anywhere, is searched alone.
        const at = parts.length >> 1;
        const mixed = parts.map(([w, , s], i) => (i === at ? `${w} trimming${s}` : w + s)).join('');
        expect(ftsQuery(mixed)).toBe('"trimming"');
        expect(queryWithoutWords(mixed)).toBeNull();
      }),
      { numRuns: 500 },
    );
    expect(ftsQuery("how do I configure the trimmer, and don't warn?")).toBe('"configure" OR "trimmer" OR "warn"');
    for (const text of ['?!.', '🚀', '\u0000', '\ud800', '"(*^{}+', '-- --', '_ __']) {
      if (!text.includes('_')) expect(ftsQuery(text)).toBeNull();
      expect(queryWithoutWords(text)).toMatch(/no letter or digit/);
    }
  });

  it('of 300 distinct words takes the first 256', () => {
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`);
    expect(ftsQuery(words.join(' '))).toBe(words.slice(0, 256).map((w) => `"${w}"`).join(' OR '));
  });

  it(`is the first ${FTS_MAX_WORDS} distinct words of the query, quoted and OR-ed, when no word is a phrase`, () => {
    // Words drawn from 600, often repeated, in any case: from none to well past the cap.
    const word = fc.oneof(fc.nat(599).map((i) => `w${i.toString(36)}`), fc.stringMatching(/^[a-zA-Zé0-9]{1,3}$/));
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

describe('ftsQuery counts words as FTS5 reads them', () => {
  // The store's own tokenizer (schema.ts), asked how many words a text is.
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5 (body, tokenize = 'porter unicode61 remove_diacritics 2'); CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`);
  afterAll(() => db.close());
  const insert = db.prepare('INSERT INTO t (rowid, body) VALUES (?, ?)');
  /** How many words FTS5 reads in each of `texts`. */
  const fts5Counts = (texts: string[]): number[] => {
    db.exec('DELETE FROM t');
    db.transaction(() => texts.forEach((text, i) => insert.run(i + 1, text)))();
    const counts = new Map((db.prepare('SELECT doc, count(*) AS n FROM v GROUP BY doc').all() as { doc: number; n: number }[]).map((r) => [r.doc, r.n]));
    return texts.map((_, i) => counts.get(i + 1) ?? 0);
  };
  /** The quoted words of a query, unquoted (none holds a quote). */
  const wordsOf = (query: string | null): string[] => (query === null ? [] : query.split(' OR ').map((w) => w.slice(1, -1)));

  it('splits a query word where SQLite does, for every letter and digit', () => {
    const chars: string[] = [];
    for (let cp = 0; cp < 0x110000; cp++) {
      if (cp >= 0xd800 && cp < 0xe000) continue;
      const c = String.fromCodePoint(cp);
      if (/[\p{L}\p{N}_]/u.test(c)) chars.push(c);
    }
    const counts = fts5Counts(chars.map((c) => `q${c}q`));
    const splits = chars.filter((_, i) => counts[i] === 2);
    expect(splits.length).toBeGreaterThan(0);
    expect(chars.filter((c) => FTS5_SPLITS.test(c))).toEqual(splits);
  });

  it('a query of one word `a_a_…_a` (200,000 a) is a phrase of at most 256 FTS5 words (it was all of them: FTS5 walked the store\'s `a`s once per word, 17 s and 630 MB for 40,000)', () => {
    const query = ftsQuery(Array(200_000).fill('a').join('_'));
    expect(fts5Counts(wordsOf(query))[0]).toBe(FTS_MAX_WORDS);
    expect(ftsQuery(`x ${'a_'.repeat(300)}`)).toBe(`"x" OR "${'a_'.repeat(255)}"`);
  });

  it('is the old query while it holds at most 256 FTS5 words; past that, its first 256 with the last phrase cut', () => {
    const old = (text: string) => [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])].filter((w) => !STOP_WORDS.has(w));
    const piece = fc.oneof(fc.nat(299).map((i) => `w${i.toString(36)}`), fc.stringMatching(/^[a-zA-Zé0-9]{1,3}$/), fc.constantFrom('a', 'b'));
    // Phrases of up to 300 pieces joined by `_` (runs too) or a letter SQLite splits at.
    const word = fc.tuple(fc.array(piece, { minLength: 1, maxLength: 300, size: 'max' }), fc.constantFrom('_', '__', '\u19b0', '\u1cf3')).map(([ps, j]) => ps.join(j));
    const sep = fc.constantFrom(' ', ', ', '-', '"', '\n');
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.oneof(piece, piece, word, fc.constantFrom('_', '___')), sep), { maxLength: 12 }), (parts) => {
        const text = parts.map(([w, s]) => w + s).join('');
        const before = old(text);
        const after = wordsOf(ftsQuery(text));
        const counts = fts5Counts(before);
        const total = counts.reduce((a, n) => a + Math.max(n, 1), 0);
        if (total <= FTS_MAX_WORDS) {
          expect(after).toEqual(before);
          return;
        }
        // The old words up to the last, which starts the old one's word and is what FTS5 reads as the words left.
        const last = after.length - 1;
        expect(after.slice(0, last)).toEqual(before.slice(0, last));
        expect(before[last]!.startsWith(after[last]!)).toBe(true);
        const kept = fts5Counts(after);
        expect(kept.reduce((a, n) => a + Math.max(n, 1), 0)).toBe(FTS_MAX_WORDS);
      }),
      { numRuns: 200 },
    );
  });
});
