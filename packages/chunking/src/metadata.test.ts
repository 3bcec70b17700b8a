import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCode } from './metadata.js';

/** Seed 001's rule written the obvious way: split into lines, match each against the fence pattern. */
function isCodeByLines(text: string): boolean {
  if (!text.includes('```') && !text.includes('~~~')) return false;
  const lines = text.split(/\r\n|\r|\n/);
  let inside = 0;
  let fence: string | null = null;
  for (const line of lines) {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === null) {
      if (m) {
        fence = m[1]!;
        inside++;
      }
    } else {
      inside++;
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) fence = null;
    }
  }
  return inside * 2 > lines.length;
}

describe('isCode', () => {
  it('is true when more than half the lines are inside fences, fences included', () => {
    expect(isCode('```js\nconst a = 1;\n```\ntext')).toBe(true); // 3 of 4
    expect(isCode('```\nx\n```\none\ntwo\nthree')).toBe(false); // 3 of 6
    expect(isCode('text\n\n~~~~\ncode\n~~~\nmore code\n~~~~')).toBe(true); // a shorter run does not close
    expect(isCode('    ```\ncode\n    ```')).toBe(false); // four spaces: not a fence
    expect(isCode('```\ncode\n```  \u00a0\r\n')).toBe(true); // closes with trailing whitespace; CRLF
    expect(isCode('```\ncode\n``` x\nstill code')).toBe(true); // a fence with text after it does not close
    expect(isCode('no fences here')).toBe(false);
  });

  it('agrees with the line-splitting definition on arbitrary text', () => {
    const piece = fc.constantFrom('```', '~~~', '````', '~~~~', '`', '~', ' ', '   ', '    ', '\t', '\n', '\r', '\r\n', 'a', 'js', '\u00a0', '\u2028', '\ufeff');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(isCode(text)).toBe(isCodeByLines(text));
      }),
      { numRuns: 3000 },
    );
  });
});
