import fc from 'fast-check';
import { countTokens as gptCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bpeTokenCount,
  bpeTokenEnds,
  bpeTokenEndsInto,
  bpeTokenIdsInto,
  runPushesForTests,
  runTokenLengthForTests,
  setRunMarginForTests,
  tokenStartsForTests,
  validPairForTests,
} from './bpe.js';
import { mergeTable, TOKENS } from './cl100k-merges.js';
import { seededText, unspacedRun } from './test-helpers.js';

// Fixed seeds: a property that fails must fail on every run, not one run in fifty.
fc.configureGlobal({ seed: 20261123 });

const tiktoken = get_encoding('cl100k_base');
afterAll(() => tiktoken.free());
const reference = (text: string): number => tiktoken.encode(text, [], []).length;

// Single pre-tokens of every kind: words with and without a leading space,
// punctuation runs, digits, whitespace runs, non-Latin words, the BOM.
const pieces = fc.constantFrom(
  'hello', ' world', ' internationalization', 'Ünïcödé', ' 日本語', '```', ');\n', '123', '   ', '\n\n', '😀', ' \ufeff', '\ufeff', '\ufeffabc',
  ' pneumonoultramicroscopicsilicovolcanoconiosis', "'ll", ' ((((', 'ℵ₀', '\u0085',
);

describe('bpeTokenCount', () => {
  it('counts single pre-tokens as tiktoken does, the BOM included', () => {
    expect(bpeTokenCount('\ufeff')).toBe(1); // rank 3305, which gpt-tokenizer misses
    expect(reference('\ufeff')).toBe(1);
    fc.assert(
      fc.property(pieces, (p) => {
        expect(bpeTokenCount(p)).toBe(reference(p));
      }),
      { numRuns: 200 },
    );
  });

  it('agrees with gpt-tokenizer on every pre-token of a real text without U+FEFF', () => {
    const text = 'The `fs.readFile()` method asynchronously reads the entire contents of a file. 日本語のテキスト, naïve café 😀 1234567.';
    for (const m of text.matchAll(/'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu)) {
      expect(bpeTokenCount(m[0])).toBe(gptCount(m[0]));
    }
  });

  // Pre-tokens longer than 256 bytes take the heap merge: letters (unbounded in
  // cl100k's pattern), punctuation runs and whitespace runs, as in minified
  // code, base64 and long hashes.
  it('counts long pre-tokens as tiktoken does', () => {
    const unit = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 'é', '日本', 'ß', 'Ω', 'aa', 'the', 'ing', 'tion');
    const letters = fc.array(unit, { minLength: 260, maxLength: 3000, size: 'max' }).map((u) => u.join(''));
    const other = fc.array(fc.constantFrom('+', '/', '=', '(', ')', ';', '{', '}', '=>', '---'), { minLength: 200, maxLength: 1500, size: 'max' }).map((u) => u.join(''));
    fc.assert(
      fc.property(fc.oneof(letters, other), (p) => {
        expect(bpeTokenCount(p)).toBe(reference(p));
      }),
      { numRuns: 150 },
    );
    for (const p of ['a'.repeat(5000), 'ab'.repeat(3000), ' '.repeat(1000), `${'\u00e9'.repeat(700)}x`]) expect(bpeTokenCount(p)).toBe(reference(p));
  });

  // Short pre-tokens take the heap merge too (pairs looked up by token ids in
  // scratch arrays reused between calls): every length from 2 bytes up, words
  // that are whole tokens, and calls that alternate short and long ones.
  it('counts short pre-tokens as tiktoken does, between long ones', () => {
    // Every generated string must be ONE cl100k pre-token: a unit with a space inside (' the')
    // made "  thes", which cl100k splits into " " and " thes" (seed -546292532), so the
    // comparison was of a pre-token count against a whole-text count.
    const unit = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 'é', '日本', 'ß', 'ing', 'tion', 'the', 'ness');
    const letters = fc
      .tuple(fc.constantFrom('', ' ', '_', '"', '('), fc.array(unit, { minLength: 1, maxLength: 90 }))
      .map(([lead, u]) => lead + u.join(''));
    const other = fc.array(fc.constantFrom('+', '/', '=', '(', ')', ';', '{', '}', '=>', '---', '`'), { minLength: 1, maxLength: 60 }).map((u) => u.join(''));
    const long = fc.array(unit, { minLength: 100, maxLength: 400 }).map((u) => u.join(''));
    fc.assert(
      fc.property(fc.array(fc.oneof(letters, other, long), { minLength: 1, maxLength: 6 }), (ps) => {
        for (const p of ps) expect(bpeTokenCount(p)).toBe(reference(p));
      }),
      { numRuns: 300 },
    );
    for (const p of ['ab', ' internationalization', 'CONTRIBUTING', ' pneumonoultramicroscopicsilicovolcanoconiosis', '))))))', 'x'.repeat(256), 'x'.repeat(257)]) {
      expect(bpeTokenCount(p)).toBe(reference(p));
    }
  });

  it('counts every pre-token of random base64 as tiktoken does', () => {
    const a = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    fc.assert(
      fc.property(fc.array(fc.nat(63), { minLength: 1, maxLength: 400 }), (idx) => {
        const text = idx.map((i) => a[i]).join('');
        let total = 0;
        for (const m of text.matchAll(/[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*/gu)) total += bpeTokenCount(m[0]);
        expect(total).toBe(reference(text));
      }),
      { numRuns: 200 },
    );
  });

  // splitChars cuts a long unspaced run where one of its tokens ends, trusting
  // that the prefix up to there has exactly the tokens before it.
  it('gives token ends whose prefixes have exactly that many tokens', () => {
    const unit = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 'é', '日本', 'ing', '😀');
    fc.assert(
      fc.property(fc.array(unit, { minLength: 300, maxLength: 1200, size: 'max' }), fc.nat(), (u, pick) => {
        const piece = u.join('');
        const { ends, tokens } = bpeTokenEnds(piece);
        expect(tokens[tokens.length - 1]).toBe(reference(piece));
        const k = pick % ends.length;
        expect(reference(piece.slice(0, ends[k]))).toBe(tokens[k]);
      }),
      { numRuns: 100 },
    );
  });

  // The backtracking encoder (pre-tokens over 24 bytes) against tiktoken's own
  // loop, on byte strings of any kind: BPE is defined on any bytes, so these
  // need not be single pre-tokens. Hostile shapes: random letters, base64,
  // repeated characters and pairs, runs of one marker, mixed scripts, emoji.
  it('backtracks to exactly the merge loop\'s tokens on hostile strings', () => {
    const alphabet = fc.constantFrom(
      'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
      'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=',
      'aab',
      'a',
      '>',
      '> ',
      ' -*',
      '日本語の文字列漢字',
      'éèßāΩ',
      'ab\u{1F600}\u{1F9D1}',
      '\t\n \r',
      '(){};=>',
      'x\u0085\ufeff',
    );
    const text = fc.tuple(alphabet, fc.integer({ min: 1, max: 1500 }), fc.integer()).map(([a, length, seed]) => seededText(a, length, seed));
    fc.assert(
      fc.property(fc.oneof(text, fc.string({ unit: 'binary', minLength: 1, maxLength: 400 })), (t) => {
        expect(tokenStartsForTests(t, false)).toEqual(tokenStartsForTests(t, true));
      }),
      { numRuns: 400 },
    );
    for (const t of ['a'.repeat(3000), 'ab'.repeat(1500), '>'.repeat(4500), '='.repeat(999), ' '.repeat(700), '\u{1F600}'.repeat(300)]) {
      expect(tokenStartsForTests(t, false)).toEqual(tokenStartsForTests(t, true));
    }
  });

  it('counts long unspaced runs as tiktoken does, pre-token by pre-token', () => {
    const split = /'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;
    fc.assert(
      fc.property(unspacedRun(6000), (t) => {
        let total = 0;
        for (const m of t.matchAll(split)) total += bpeTokenCount(m[0]);
        expect(total).toBe(reference(t));
      }),
      { numRuns: 60 },
    );
  });

  // The token index writes a run's token ends in place, reading the run inside
  // the whole text: a run that ends between the two halves of a surrogate pair
  // must read its last half as the lone surrogate the slice holds.
  it('writes the token ends of a range in place exactly as of its slice, cut surrogate pairs included', () => {
    const unit = fc.constantFrom('a', 'b', 'ab', 'é', '日', '\u{1F600}', '\u{1F9D1}', '\ud83d', '\ude00', 'Z');
    fc.assert(
      fc.property(fc.array(unit, { minLength: 1, maxLength: 400 }), fc.nat(), fc.nat(), (u, x, y) => {
        const s = u.join('');
        const a = x % s.length;
        const b = a + 1 + (y % (s.length - a));
        const out = new Int32Array(s.length + 1);
        const total = bpeTokenEndsInto(s, a, b, out);
        const { ends, tokens } = bpeTokenEnds(s.slice(a, b));
        const expected = new Int32Array(s.length + 1);
        for (let k = 0; k < ends.length; k++) expected[a + ends[k]!] = tokens[k]! + 1;
        expect(Array.from(out)).toEqual(Array.from(expected));
        expect(total).toBe(bpeTokenCount(s.slice(a, b)));
      }),
      { numRuns: 400 },
    );
    // "x😀" cut after the high surrogate: 'x' and U+FFFD, never the whole emoji.
    const s = 'x\u{1F600}y';
    const out = new Int32Array(s.length + 1);
    expect(bpeTokenEndsInto(s, 0, 2, out)).toBe(bpeTokenCount('x\ud83d'));
    expect(out[2]).toBe(bpeTokenCount('x\ud83d') + 1);
  });

  // Pairs of long tokens are checked once and remembered (a run of one
  // character pairs the same long tokens again and again): the answer for one
  // pair must never be taken for another that shares a token.
  it('remembers the check of long token pairs per pair, not per token', () => {
    const long = fc.constantFrom(
      ' '.repeat(16), ' '.repeat(23), '='.repeat(16), '-'.repeat(16), '_'.repeat(16), '/'.repeat(16), '*'.repeat(8),
      'internationalization', ' configuration', 'ABCDEFGHIJKLMNOP', '>'.repeat(12), '.'.repeat(12), '\t'.repeat(12), 'x',
    );
    fc.assert(
      fc.property(fc.array(long, { minLength: 2, maxLength: 40 }), (u) => {
        const t = u.join('');
        expect(tokenStartsForTests(t, false)).toEqual(tokenStartsForTests(t, true));
      }),
      { numRuns: 1500 },
    );
  });

  it('answers each long pair from memory as the full check does', () => {
    const { start } = mergeTable();
    const longIds: number[] = [];
    for (let t = 0; t < TOKENS; t++) if (start[t + 1]! - start[t]! >= 6) longIds.push(t);
    const id = fc.nat(longIds.length - 1).map((k) => longIds[k]!);
    let valid = 0;
    let invalid = 0;
    // A few left tokens with many right ones each: the memo's slots see the same left token
    // with other right tokens, and every pair is asked twice.
    fc.assert(
      fc.property(fc.array(id, { minLength: 1, maxLength: 4 }), fc.array(id, { minLength: 50, maxLength: 200 }), (lefts, rights) => {
        for (const a of lefts) {
          for (const b of [...rights, ...rights]) {
            const full = validPairForTests(a, b, false);
            if (full) valid++;
            else invalid++;
            expect(validPairForTests(a, b, true)).toBe(full);
          }
        }
      }),
      { numRuns: 200 },
    );
    expect(invalid).toBeGreaterThan(0);
    expect(valid).toBeGreaterThan(0);
  });
});


// A run of one byte starts with copies of the byte's run token pushed at once (pushRun), a
// guess the walk checks like any token it chose: right, it saves the walk down the run (a
// 1 MB line of dashes took half a second); wrong, it is taken back and costs time only.
describe('runs of one byte', () => {
  const RUN_BYTES = '-=*#. a0_~';
  const same = (t: string): void => {
    expect(tokenStartsForTests(t, false)).toEqual(tokenStartsForTests(t, true));
  };
  const withMargin = (margin: number, f: () => void): void => {
    const old = setRunMarginForTests(margin);
    try {
      f();
    } finally {
      setRunMarginForTests(old);
    }
  };

  it('encodes every run length as the merge loop does', () => {
    for (const c of RUN_BYTES) {
      const L = runTokenLengthForTests(c.charCodeAt(0));
      // Every length up to five run tokens past the shortcut's threshold (each remainder
      // modulo the token twice), then a sample up to 1500 (the loop is quadratic).
      const every = Math.max(600, 5 * L + 200);
      for (let n = 1; n <= every; n++) same(c.repeat(n));
      for (let n = every + 1; n <= 1500; n += 23) same(c.repeat(n));
    }
    // The benchmark's byte: every length up to 1500.
    for (let n = 601; n <= 1500; n++) same('-'.repeat(n));
  });

  it('guesses right on whole runs: BPE of c^n starts with all but two of its run tokens', () => {
    // Not needed for exactness (the other tests), but a wrong guess is undone token by token:
    // the shortcut would cost time instead of saving it.
    for (const c of RUN_BYTES) {
      const L = runTokenLengthForTests(c.charCodeAt(0));
      expect(L).toBeGreaterThan(1);
      for (let n = 3 * L; n <= 3000; n += n < 6 * L ? 1 : 7) {
        const starts = tokenStartsForTests(c.repeat(n), false);
        const k = Math.floor(n / L) - 2;
        let j = 0;
        while (j <= k && starts[j] === j * L) j++;
        expect([c, n, j]).toEqual([c, n, k + 1]);
      }
    }
  });

  it('stays exact when the guess is wrong (run tokens pushed up to the run end and past it)', () => {
    for (const margin of [0, -1, -3]) {
      withMargin(margin, () => {
        for (const c of RUN_BYTES) for (let n = 150 + margin; n <= 1300; n += 29) same(c.repeat(n));
        for (const t of ['x' + '-'.repeat(700) + 'y', ' ' + '='.repeat(500), '*'.repeat(400) + '/'.repeat(400), '>'.repeat(300) + ' '.repeat(900) + '\n']) same(t);
      });
    }
  });

  it('stays exact on runs inside other bytes, with and without wrong guesses', () => {
    const run = fc.tuple(fc.constantFrom(...RUN_BYTES, '/', '\t', '\n', '>', '\u00e9'), fc.integer({ min: 40, max: 900 })).map(([c, n]) => c.repeat(n));
    const other = fc.oneof(
      fc.constantFrom('', ' ', 'x', '--', '+', '\n', ' -', '=>', '\u00e9'),
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.tuple(fc.constantFrom('abcXYZ', ' -=*', '日本'), fc.integer({ min: 1, max: 60 }), fc.integer()).map(([a, n, seed]) => seededText(a, n, seed)),
    );
    const text = fc.array(fc.oneof(run, other), { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, fc.constantFrom(2, 2, 0, -2), (t, margin) => {
        withMargin(margin, () => same(t));
      }),
      { numRuns: 300 },
    );
  });

  it('takes the shortcut on a run the walk enters with another token (" ====…"), exactly', () => {
    // The token that enters the run (a space and 65 '=') cannot sit beside the run token; the
    // next one can. The shortcut was tried once, at the run's first byte, and the whole run
    // was walked byte by byte: "x ==== y" lines cost five times prose per MB.
    for (const t of [` ${'='.repeat(3000)}`, ` ${'-'.repeat(3000)}`, `x${'='.repeat(2999)}`, `ab${'*'.repeat(2000)}cd`, ` ${'='.repeat(1000)} ${'='.repeat(1000)}`]) {
      runPushesForTests();
      same(t);
      expect(runPushesForTests(), JSON.stringify(t.slice(0, 4))).toBeGreaterThan(0);
    }
  });

  it('counts, lists and places the tokens of long runs as tiktoken does, through every entry point', () => {
    for (const t of ['-'.repeat(5000), '='.repeat(4099), ' '.repeat(3001), 'a'.repeat(4097), '_'.repeat(2500) + 'x', ' ' + '#'.repeat(3000), '~'.repeat(1000) + '\n\n']) {
      const ids = tiktoken.encode(t, [], []);
      expect(bpeTokenCount(t)).toBe(ids.length);
      const mine: number[] = [];
      expect(bpeTokenIdsInto(t, 0, t.length, mine)).toBe(ids.length);
      expect(mine).toEqual(Array.from(ids));
      // In place at an offset inside a longer text, as the token index writes them.
      const s = `ab${t}cd`;
      const out = new Int32Array(s.length + 1);
      expect(bpeTokenEndsInto(s, 2, 2 + t.length, out)).toBe(ids.length);
      const { ends, tokens } = bpeTokenEnds(t);
      const expected = new Int32Array(s.length + 1);
      for (let k = 0; k < ends.length; k++) expected[2 + ends[k]!] = tokens[k]! + 1;
      expect(Array.from(out)).toEqual(Array.from(expected));
    }
  });
});
