// markdownProblems reads CRLF, LF and a lone CR alike as line ends (CommonMark; chunking-tool
// keeps a source's own line ends in its chunk files, so a chunk of an old Mac file holds CRs).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markdownProblems } from './markdown-checks.js';

/** Lines aimed at what the checks look at: table rows, delimiters, fences, comments, pipes. */
const line = fc.oneof(
  fc.constantFrom('| a | b |', '|---|---|', '| :-: | --- |', '```', '```js', '````', '~~~', '~~~ x', '<!--', '<!-- x -->', '-->', '', '   ', 'text', '| lone', 'end |', '|', '  ```', '    ```'),
  fc.stringMatching(/^[|`~ a<!>:-]{0,8}$/),
);
const breaks = fc.constantFrom('\n', '\r\n', '\r');

describe('markdownProblems: line ends', () => {
  it('gives the same problems, on the same lines, whatever mix of CRLF, LF and lone CR ends the lines', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(line, breaks), { maxLength: 30 }), fc.boolean(), (rows, lastBreak) => {
        const lf = rows.map(([l]) => l).join('\n') + (lastBreak ? '\n' : '');
        // An empty line after a lone CR cannot end with LF: the two would be one CRLF. Decided
        // on the end the line before was given, not the one drawn for it: two empty lines after
        // a lone CR made the second end LF after a CR the first was turned into (CI's seed,
        // session 56).
        const ends: string[] = [];
        rows.forEach(([l, b], i) => ends.push(l === '' && i > 0 && ends[i - 1] === '\r' && b !== '\r' ? '\r' : b));
        const mixed = rows.map(([l], i) => (i < rows.length - 1 || lastBreak ? l + ends[i]! : l)).join('');
        expect(markdownProblems(mixed)).toEqual(markdownProblems(lf));
      }),
      { numRuns: 1000 },
    );
  });

  it('reads a lone CR, then two empty lines ended by LF, as four lines (the case the CI seed found)', () => {
    const rows = '| a | b |\r\r\r| a | b |\n';
    expect(markdownProblems(rows)).toEqual(markdownProblems('| a | b |\n\n\n| a | b |\n'));
  });

  it('passes a whole table of a CR-only chunk, and finds a fence such a chunk leaves open', () => {
    expect(markdownProblems('### Table\r\r| Platform | Notes |\r|---|---|\r| Linux | x64 |\r')).toEqual([]);
    expect(markdownProblems('text\r```ts\rconst a = 1;\r')).toEqual([{ line: 2, message: 'code fence opened on line 2 is never closed' }]);
  });
});
