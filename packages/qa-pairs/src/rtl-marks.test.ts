// Hebrew and Arabic typed in a left-to-right editor (GitHub's, most IDEs') put a right-to-left
// mark after a question's final "?" so that it shows at the sentence's end, on the left: "איך
// מגדירים את השרת?\u200f". The heading was refused, "must end with "?"", though its last
// visible character is one, and the file's every question with it (helper-85 probe).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQaPairs } from './index.js';

describe('a bidirectional mark after the question mark', () => {
  it.each([
    ['RLM after ?', '## איך מגדירים את השרת?\u200f\n\nעם קובץ התצורה.\n', 'איך מגדירים את השרת?\u200f'],
    ['RLM after ؟', '## كيف أقوم بتكوين الخادم؟\u200f\n\nبملف التكوين.\n', 'كيف أقوم بتكوين الخادم؟\u200f'],
    ['ALM after ؟', '## كيف أقوم بتكوين الخادم؟\u061c\n\nبملف التكوين.\n', 'كيف أقوم بتكوين الخادم؟\u061c'],
    ['LRM after ?', '## How do I set up השרת?\u200e\n\nWith a file.\n', 'How do I set up השרת?\u200e'],
  ])('%s: a question, kept as written', (_, text, question) => {
    expect(parseQaPairs(text, 'qa.md').map((p) => p.question)).toEqual([question]);
  });

  it('still refuses a heading whose last visible character is no question mark', () => {
    expect(() => parseQaPairs('## איך מגדירים את השרת\u200f\n\nא.\n', 'qa.md')).toThrow('must end with "?"');
  });

  it('compares questions without them: the same question with and without a mark is asked twice', () => {
    expect(() => parseQaPairs('## מה זה?\n\nא.\n\n## מה זה?\u200f\n\nב.\n', 'qa.md')).toThrow('asked twice');
  });

  it('accepts any run of marks after any question mark (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom('?', '؟', '？'), fc.array(fc.constantFrom('\u200e', '\u200f', '\u061c'), { minLength: 1, maxLength: 3 }), (mark, tail) => {
        const q = `שאלה אחת${mark}${tail.join('')}`;
        expect(parseQaPairs(`## ${q}\n\nתשובה.\n`, 'qa.md').map((p) => p.question)).toEqual([q]);
      }),
    );
  });
});
