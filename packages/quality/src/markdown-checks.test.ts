import { describe, expect, it } from 'vitest';
import { markdownProblems } from './markdown-checks.js';

describe('markdownProblems', () => {
  it('accepts closed fences (longer closers, tildes) and whole tables', () => {
    expect(markdownProblems('a\n\n```js\nx\n````\n\n~~~\n| not | a table |\n~~~\n\n| h | i |\n|---|:-:|\n| 1 | 2 |\n')).toEqual([]);
  });
  it('reports a fence left open, with its line', () => {
    expect(markdownProblems('text\n```ts\nconst a = 1;\n')).toEqual([{ line: 2, message: 'code fence opened on line 2 is never closed' }]);
    // A shorter closer or the other fence character does not close it.
    expect(markdownProblems('````\nx\n```\n~~~~\n')).toHaveLength(1);
  });
  it('reports table rows without their header, and a table starting at its delimiter row', () => {
    expect(markdownProblems('| 1 | 2 |\n| 3 | 4 |\n')[0]!.message).toMatch(/without a header/);
    expect(markdownProblems('|---|---|\n| 3 | 4 |\n')[0]!.message).toMatch(/delimiter row/);
  });
  it('ignores pipes inside code and HTML comments', () => {
    expect(markdownProblems('```\n| a |\n| b |\n```\n<!--\n| c |\n-->\n')).toEqual([]);
  });
});
