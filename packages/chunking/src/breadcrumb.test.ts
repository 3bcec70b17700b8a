import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BreadcrumbMemo, shrinkBreadcrumb } from './metadata.js';
import { countTokens } from './tokens.js';

// The implementation before the memo (it split every name on every call, quadratic under a
// huge heading); the memoised one must give exactly the same prefixes.
function truncateWordsRef(name: string, words: number): string {
  const parts = name.split(/\s+/).filter((w) => w.length > 0);
  let kept = parts.slice(0, words).map((w) => (w.length > 24 ? `${w.slice(0, 24)}…` : w));
  if (kept.length === 0) kept = [name.slice(0, 24)];
  return parts.length > words || kept.join(' ') !== parts.join(' ') ? `${kept.join(' ')}…` : kept.join(' ');
}
function shrinkRef(prefix: string, room: number, prefixTokens: (p: string) => number): string {
  if (room <= 0) return '';
  if (prefixTokens(prefix) <= room) return prefix;
  const names = prefix.split(' > ');
  for (const keep of [names, names.slice(0, 1)]) {
    for (let words = 32; words >= 1; words = Math.floor(words / 2)) {
      const shortened = keep.map((n) => truncateWordsRef(n, words)).join(' > ');
      if (prefixTokens(shortened) <= room) return shortened;
    }
  }
  return '';
}

const tokensOf = (p: string): number => countTokens(`${p}\n\n`);

describe('shrinkBreadcrumb', () => {
  it('gives the same prefix as the unmemoised version, memo shared across calls', () => {
    const word = fc.oneof(fc.constantFrom('a', 'heading', 'x'.repeat(30), 'é', 'y'.repeat(24), 'z'.repeat(25)), fc.string({ maxLength: 30 }));
    const name = fc.array(word, { maxLength: 40 }).chain((ws) => fc.constantFrom(' ', '  ', '\t', '\u00a0').map((sep) => ws.join(sep)));
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 4 }), fc.array(fc.integer({ min: -2, max: 60 }), { minLength: 1, maxLength: 4 }), (names, rooms) => {
        const prefix = names.join(' > ');
        const memo = new BreadcrumbMemo();
        for (const room of rooms) expect(shrinkBreadcrumb(prefix, room, tokensOf, memo)).toBe(shrinkRef(prefix, room, tokensOf));
      }),
      { numRuns: 400 },
    );
  });

  it('shortens a heading of thousands of words to fit', () => {
    const huge = Array.from({ length: 5000 }, (_, i) => `word${i}`).join(' ');
    const memo = new BreadcrumbMemo();
    const out = shrinkBreadcrumb(`Title > ${huge}`, 20, tokensOf, memo);
    expect(tokensOf(out)).toBeLessThanOrEqual(20);
    expect(out.startsWith('Title > word0')).toBe(true);
    expect(shrinkBreadcrumb(`Title > ${huge}`, 20, tokensOf, memo)).toBe(out);
  });
});
