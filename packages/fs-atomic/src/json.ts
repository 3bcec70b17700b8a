/**
 * The one wording of a file that is not JSON, for every tool that reads a built JSON file.
 *
 * JSON.parse's own message quotes the text it choked on (Node 20: `Unexpected token 'p',
 * "password=h"... is not valid JSON`). The file read may be a symlink a docs tree planted (a
 * child index.json leading to ~/.npmrc), so that message printed part of a secret into CI logs.
 * This one says where the problem is and what kind it is, and never any of the file's text.
 */

/** Where a JSON text first goes wrong and how, in words that hold none of the text. */
export interface JsonProblem {
  /** UTF-16 offset of the first character that cannot be there (`text.length` when the text ends early). */
  offset: number;
  kind: string;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const HEX = /^[0-9a-fA-F]$/;

/**
 * The first place `text` breaks RFC 8259 (the grammar JSON.parse implements), or null when it
 * is valid. Its own scan rather than the parser's message: V8 gives no position for an
 * unexpected token, and its wording differs between Node versions. Iterative, so nesting
 * depth cannot overflow the stack.
 */
export function jsonProblem(text: string): JsonProblem | null {
  const n = text.length;
  let i = 0;
  const open: number[] = []; // 0x7b '{' or 0x5b '[' for each container not yet closed
  const skipWs = () => {
    while (i < n && WS.has(text.charCodeAt(i))) i++;
  };
  const fail = (kind: string, at = i): JsonProblem => (at >= n ? { offset: n, kind: 'unexpected end' } : { offset: at, kind });
  const string = (): JsonProblem | null => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return null;
      }
      if (c < 0x20) return fail('control character in a string');
      if (c === 0x5c) {
        const e = i + 1 < n ? text[i + 1]! : '';
        if (e === 'u') {
          for (let k = i + 2; k < i + 6; k++) {
            if (k >= n) return fail('', n);
            if (!HEX.test(text[k]!)) return fail('bad escape in a string', k);
          }
          i += 6;
        } else if (e !== '' && '"\\/bfnrt'.includes(e)) i += 2;
        else return fail('bad escape in a string', i + 1);
      } else i++;
    }
    return fail('');
  };
  const isDigit = (at: number) => {
    const c = text.charCodeAt(at);
    return c >= 0x30 && c <= 0x39;
  };
  // Each part that needs a digit is refused at the character standing where the digit should be.
  const digits = (): JsonProblem | null => {
    if (!isDigit(i)) return fail('bad number');
    while (isDigit(i)) i++;
    return null;
  };
  const number = (): JsonProblem | null => {
    if (text[i] === '-') i++;
    if (text[i] === '0') {
      i++;
      if (isDigit(i)) return fail('bad number'); // a leading zero
    } else {
      const p = digits();
      if (p) return p;
    }
    if (text[i] === '.') {
      i++;
      const p = digits();
      if (p) return p;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      const p = digits();
      if (p) return p;
    }
    return null;
  };
  const key = (): JsonProblem | null => {
    skipWs();
    if (text.charCodeAt(i) !== 0x22) return fail('expected a property name');
    const p = string();
    if (p) return p;
    skipWs();
    if (text.charCodeAt(i) !== 0x3a) return fail("expected ':' after a property name");
    i++;
    return null;
  };
  for (;;) {
    // A value is expected here.
    skipWs();
    if (i >= n) return fail('');
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      i++;
      skipWs();
      if (text.charCodeAt(i) === c + 2) i++; // `{}` or `[]`
      else {
        open.push(c);
        if (c === 0x7b) {
          const p = key();
          if (p) return p;
        }
        continue;
      }
    } else if (c === 0x22) {
      const p = string();
      if (p) return p;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const p = number();
      if (p) return p;
    } else {
      const word = c === 0x74 ? 'true' : c === 0x66 ? 'false' : c === 0x6e ? 'null' : '';
      if (word === '') return fail(i === 0 && c === 0xfeff ? 'byte order mark' : 'unexpected character');
      let k = 0;
      while (k < word.length && text.charCodeAt(i + k) === word.charCodeAt(k)) k++;
      i += k;
      if (k < word.length) return fail('unexpected character');
    }
    // After a value: close containers, or find the comma before the next value.
    for (;;) {
      skipWs();
      const top = open[open.length - 1];
      if (top === undefined) return i < n ? fail('more text after the JSON value') : null;
      const d = text.charCodeAt(i);
      if (d === top + 2) {
        i++;
        open.pop();
        continue;
      }
      if (d !== 0x2c) return fail(top === 0x7b ? "expected ',' or '}'" : "expected ',' or ']'");
      i++;
      if (top === 0x7b) {
        const p = key();
        if (p) return p;
      }
      break;
    }
  }
}

/** 1-based line and column (in characters, a surrogate pair counting once) of a UTF-16 offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset; i++) {
    const c = text.charCodeAt(i);
    // \r\n is one line end; a lone \r is one too, as editors count it.
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line++;
      start = i + 1;
    }
  }
  let column = 1;
  for (let i = start; i < offset; i++) {
    const c = text.charCodeAt(i);
    if (!(c >= 0xdc00 && c <= 0xdfff && i > start && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff)) column++;
  }
  return { line, column };
}

/**
 * `not valid JSON (unexpected character at line L, column C)`, for text JSON.parse refused:
 * the kind and place of the first error, never the file's text. Should the scan find no
 * error where the parser did (a limit of the parser's own), the parser's position is used
 * when its message gives one, and otherwise none is claimed.
 */
export function invalidJsonMessage(text: string, err?: unknown): string {
  const problem = jsonProblem(text);
  if (problem) {
    const { line, column } = lineColumn(text, problem.offset);
    return `not valid JSON (${problem.kind} at line ${line}, column ${column})`;
  }
  const at = err instanceof Error ? /\bat position (\d+)/.exec(err.message) : null;
  if (at) {
    const { line, column } = lineColumn(text, Math.min(Number(at[1]), text.length));
    return `not valid JSON (at line ${line}, column ${column})`;
  }
  return 'not valid JSON';
}
