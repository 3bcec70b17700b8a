import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invalidJsonMessage, jsonProblem } from './json.js';

const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('invalidJsonMessage', () => {
  it('names the place and kind of the error, never the text (a link to a secret leaked it through JSON.parse)', () => {
    const text = 'password=hunter2-secret';
    let err: unknown;
    try {
      JSON.parse(text);
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).toContain('password=h'); // why this exists: the parser's own words quote the file
    const message = invalidJsonMessage(text, err);
    expect(message).toBe('not valid JSON (unexpected character at line 1, column 1)');
    expect(message).not.toContain('hunter2');
  });

  it.each([
    ['{"a": 1,\n  password}', 'expected a property name at line 2, column 3'],
    ['{"a":1}x', 'more text after the JSON value at line 1, column 8'],
    ['{"a": "x\u0001"}', 'control character in a string at line 1, column 9'],
    ['{"a":', 'unexpected end at line 1, column 6'],
    ['', 'unexpected end at line 1, column 1'],
    ['[1,2', 'unexpected end at line 1, column 5'],
    ['"abc', 'unexpected end at line 1, column 5'],
    ['{"a" 1}', "expected ':' after a property name at line 1, column 6"],
    ['[1,]', 'unexpected character at line 1, column 4'],
    ['[1 2]', "expected ',' or ']' at line 1, column 4"],
    ['{"a":1 "b":2}', "expected ',' or '}' at line 1, column 8"],
    ['\ufeff{}', 'byte order mark at line 1, column 1'],
    ['{"a":1,"b":tru}', 'unexpected character at line 1, column 15'],
    ['{"a": 01}', 'bad number at line 1, column 8'],
    ['{"a": -}', 'bad number at line 1, column 8'],
    ['{"a": 1.}', 'bad number at line 1, column 9'],
    ['{"a": "\\q"}', 'bad escape in a string at line 1, column 9'],
    ['["\\u12x4"]', 'bad escape in a string at line 1, column 7'],
    ['{\r\n"a":\r\n x}', 'unexpected character at line 3, column 2'],
    ['{"😀": 1,\n"😀": x}', 'unexpected character at line 2, column 6'],
    ['['.repeat(56) + ']'.repeat(6), 'unexpected end at line 1, column 63'],
  ])('%j: %s', (text, where) => {
    expect(parses(text)).toBe(false);
    expect(invalidJsonMessage(text)).toBe(`not valid JSON (${where})`);
  });

  it('falls back to the parser position when the scan finds nothing, and to no position without one', () => {
    expect(invalidJsonMessage('{}\n{}', new SyntaxError('Unexpected x in JSON at position 4'))).toBe('not valid JSON (more text after the JSON value at line 2, column 1)');
    expect(invalidJsonMessage('{"a": 1}', new SyntaxError('Something in JSON at position 3'))).toBe('not valid JSON (at line 1, column 4)');
    expect(invalidJsonMessage('{"a": 1}', new SyntaxError('Unexpected token \'s\', "secret" is not valid JSON'))).toBe('not valid JSON');
  });

  it('does not overflow the stack on deep nesting', () => {
    expect(jsonProblem('['.repeat(1e6) + ']'.repeat(1e6))).toBeNull();
    expect(jsonProblem('['.repeat(1e6))).toEqual({ offset: 1e6, kind: 'unexpected end' });
  });
});

describe('jsonProblem', () => {
  // JSON text broken in the ways a truncated, hand-edited or foreign file is.
  const broken = fc
    .tuple(fc.json(), fc.nat(), fc.constantFrom('', ',', ':', '"', '\\', '{', '}', '[', ']', '-', '.', 'e', '0', 'x', 't', '\u0001', '\ufeff', ' ', '\\u', '\\u00'), fc.constantFrom('insert', 'replace', 'truncate'))
    .map(([json, at, piece, how]) => {
      const i = at % (json.length + 1);
      return how === 'insert' ? json.slice(0, i) + piece + json.slice(i) : how === 'replace' ? json.slice(0, i) + piece + json.slice(i + 1) : json.slice(0, i);
    });

  it('agrees with JSON.parse on what is valid, and on the position where V8 gives one', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), broken, fc.string()), (text) => {
        const problem = jsonProblem(text);
        expect(problem === null).toBe(parses(text));
        if (problem === null) return;
        try {
          JSON.parse(text);
        } catch (err) {
          const message = (err as Error).message;
          if (/Unexpected end of JSON input/.test(message)) expect(problem.kind).toBe('unexpected end');
          const at = /at position (\d+)/.exec(message);
          if (at) expect(problem.offset).toBe(Number(at[1]));
        }
      }),
      { numRuns: 20000 },
    );
  });
});
