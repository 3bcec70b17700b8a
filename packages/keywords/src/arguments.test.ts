/**
 * The keyword functions' answers to a JavaScript caller's arguments of the wrong type (issue 15's
 * library probe, from the packed package): a TypeError naming the argument, where each failed
 * deep inside ("source.charCodeAt is not a function", "Cannot read properties of null").
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractKeywords, formatWordsMd, KeywordMatcher, matchKeywords, parseWordsMd } from './index.js';

const TEXT = '# Source generation\n\nUse `JsonSerializerContext` for source generation.\n';
const TABLE = [{ name: 'source generation', score: 10 }];

describe('keyword arguments (issue 15 library probe)', () => {
  it('extractKeywords names the source or option that is wrong', () => {
    const cases: [() => unknown, string][] = [
      [() => extractKeywords(null as never), 'extractKeywords: sources must be an array of { name, text }, got null'],
      [() => extractKeywords([5 as never]), 'extractKeywords: sources[0] must be an object { name, text }, got 5'],
      [() => extractKeywords([{ name: 'a.md', text: TEXT }, { name: 'b.md', text: null as never }]), 'extractKeywords: sources[1].text must be a string, got null'],
      [() => extractKeywords([{ name: 'a.md', text: TEXT }], 'max' as never), 'extractKeywords: options must be an object, got "max"'],
      [() => extractKeywords([{ name: 'a.md', text: TEXT }], { handWritten: 'x' as never }), 'extractKeywords: options.handWritten must be an array of { name, score }, got "x"'],
      [() => extractKeywords([{ name: 'a.md', text: TEXT }], { handWritten: [null as never] }), 'extractKeywords: options.handWritten[0] must be an object { name, score } with a string name, got null'],
    ];
    for (const [call, message] of cases) expect(call, message).toThrow(new TypeError(message));
    // A string max is shown as one (it read "got 3", as if 3 were refused).
    expect(() => extractKeywords([{ name: 'a.md', text: TEXT }], { max: '3' as never })).toThrow(new RangeError('max must be a non-negative integer, got "3"'));
    expect(extractKeywords([{ name: 'a.md', text: TEXT }], null).map((e) => e.name)).toContain('source generation');
  });

  it('the matchers, formatWordsMd and parseWordsMd name the argument that is wrong', () => {
    const cases: [() => unknown, string][] = [
      [() => matchKeywords(null as never, TEXT), 'matchKeywords: table must be an array of { name, score }, got null'],
      [() => matchKeywords([null as never], TEXT), 'matchKeywords: table[0] must be an object { name, score } with a string name, got null'],
      [() => matchKeywords(TABLE, 5 as never), 'matchKeywords: markdown must be a string, got 5'],
      [() => new KeywordMatcher(null as never), 'KeywordMatcher: table must be an array of { name, score }, got null'],
      [() => new KeywordMatcher(TABLE).match(null as never), 'KeywordMatcher.match: markdown must be a string, got null'],
      [() => formatWordsMd(TABLE, null as never), 'formatWordsMd: options must be an object { source, handWritten? }, got null'],
      [() => formatWordsMd(TABLE, { source: 5 as never }), 'formatWordsMd: options.source must be a file name or an array of them, got 5'],
      [() => formatWordsMd([null as never], { source: 'a.md' }), 'keyword entry 0 must be an object { name, score }, got null'],
      [() => parseWordsMd(null as never, 'w.md'), 'parseWordsMd: the text of w.md must be a string, got null'],
      [() => parseWordsMd('| keyword | score |\n| --- | --- |\n| a | 11 |', undefined as never), 'parseWordsMd: file must be the file name messages are to name, got undefined'],
    ];
    for (const [call, message] of cases) expect(call, message).toThrow(new TypeError(message));
    expect(() => formatWordsMd([{ name: 'a', score: 'x' as never }], { source: 'a.md' })).toThrow(new RangeError('keyword "a": score "x" is not a whole number from 1 to 10'));
  });

  it('any call with arguments of any type gives a table or a TypeError/RangeError, never another error', () => {
    const anything = fc.oneof(fc.constant(null), fc.constant(undefined), fc.string(), fc.integer(), fc.array(fc.anything(), { maxLength: 2 }), fc.object({ maxDepth: 1 }));
    fc.assert(
      fc.property(anything, anything, anything, (a, b, c) => {
        for (const call of [
          () => extractKeywords(a as never, b as never),
          () => extractKeywords([{ name: 'x', text: TEXT }], { max: a as never, handWritten: b as never }),
          () => matchKeywords(a as never, b as never),
          () => new KeywordMatcher(a as never).match(b as never),
          () => formatWordsMd(a as never, { source: b as never, handWritten: c as never }),
          () => parseWordsMd(a as never, b as never),
        ]) {
          try {
            call();
          } catch (err) {
            expect(err instanceof TypeError || err instanceof RangeError || (err as Error).name === 'KeywordTableError', String(err)).toBe(true);
            expect(String((err as Error).message)).not.toMatch(/is not a function|Cannot read properties|Cannot destructure/);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
