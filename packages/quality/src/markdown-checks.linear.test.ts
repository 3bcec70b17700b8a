// Issue 15: every stage runs in linear time. An opening fence was matched with
// /^ {0,3}(`{3,}|~{3,})(.*)$/, quadratic in a run of fence characters followed by a line
// terminator `.` does not match (a lone CR inside a line, U+2028); fenceOpen gives the same.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fenceOpen, markdownProblems } from './markdown-checks.js';

describe('fenceOpen', () => {
  it('is /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line) as [fence, info]', () => {
    const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
    const line = fc.string({ unit: fc.constantFrom(' ', ' ', '`', '`', '~', '~', 'a', '\t', '\r', '\n', '\u2028', '\u2029'), maxLength: 30 });
    fc.assert(
      fc.property(line, (s) => {
        const m = FENCE_OPEN.exec(s);
        expect(fenceOpen(s)).toEqual(m ? [m[1], m[2]] : null);
      }),
      { numRuns: 20_000 },
    );
  });

  it('a line of 400,000 tildes or backticks before a lone CR is read in linear time', () => {
    // The lone CR ends the line (as in CommonMark), so the tildes open a fence never closed.
    expect(markdownProblems(`text\n${'~'.repeat(400_000)}\rx\nmore`)).toEqual([{ line: 2, message: 'code fence opened on line 2 is never closed' }]);
    expect(markdownProblems(`${'`'.repeat(400_000)}\u2028\n| a |`)).toHaveLength(1);
  });
});
