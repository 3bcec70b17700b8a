import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { bpeTokenCount, bpeTokenEndsInto, setSegmentingForTests, tokenStartsForTests } from './bpe.js';
import { seededText } from './test-helpers.js';

// Fixed seeds: a property that fails must fail on every run, not one run in fifty.
fc.configureGlobal({ seed: 20261124 });

const tiktoken = get_encoding('cl100k_base');
afterAll(() => tiktoken.free());

// Pieces of a few to a few dozen characters, so that most of their segments (between never
// pairs) are the 3 to 32 bytes the short merge loop takes, with the ties it must break
// leftmost (one character repeated, two alternating), next to non-ASCII bytes.
const alphabets = [
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
  'abcdefghijklmnopqrstuvwxyz',
  '0123456789abcdef',
  'a',
  '=',
  ' ',
  'ab',
  'aAbB',
  'aaaaaaab',
  'xX=-',
  'abcXYZé日\u{1F600}',
  'qzxj\u00e9\u00df\u0101',
  'Zq\u0085\ufeff\u200b',
];

const short = fc
  .tuple(fc.constantFrom(...alphabets), fc.integer({ min: 1, max: 80 }), fc.integer())
  .map(([alphabet, length, seed]) => seededText(alphabet, length, seed));

/** What the count path writes for `t` (1 + tokens so far at each token end), cut at never pairs or not. */
function countsLayout(t: string, segmented: boolean): number[] {
  const old = setSegmentingForTests(segmented);
  try {
    const out = new Int32Array(t.length + 1);
    bpeTokenEndsInto(t, 0, t.length, out);
    return Array.from(out);
  } finally {
    setSegmentingForTests(old);
  }
}

describe('the merge loop of short segments', () => {
  it("gives tiktoken's merge loop's tokens on short hostile pieces", () => {
    fc.assert(
      fc.property(short, (t) => {
        expect(tokenStartsForTests(t, false)).toEqual(tokenStartsForTests(t, true));
        expect(countsLayout(t, true)).toEqual(countsLayout(t, false));
      }),
      { numRuns: 2000 },
    );
  });

  it('counts as tiktoken does on short hostile pieces', () => {
    // Letters only: each piece is one pre-token, which is what bpeTokenCount counts.
    const letters = fc
      .tuple(fc.constantFrom(...alphabets.filter((a) => /^\p{L}+$/u.test(a))), fc.integer({ min: 1, max: 40 }), fc.integer())
      .map(([alphabet, length, seed]) => seededText(alphabet, length, seed));
    fc.assert(
      fc.property(letters, (t) => {
        expect(bpeTokenCount(t)).toBe(tiktoken.encode(t, [], []).length);
      }),
      { numRuns: 1000 },
    );
  });

  it('breaks ties between equal pairs leftmost, in runs of every length up to past the loop', () => {
    for (const c of ['a', '=', '-', ' ', '0', 'Q', 'é']) {
      for (let n = 1; n <= 72; n++) {
        for (const t of [c.repeat(n), `x${c.repeat(n)}`, `${c.repeat(n)}y`, `ab`.repeat(n)]) {
          expect(tokenStartsForTests(t, false), JSON.stringify(t)).toEqual(tokenStartsForTests(t, true));
        }
      }
    }
  });
});
