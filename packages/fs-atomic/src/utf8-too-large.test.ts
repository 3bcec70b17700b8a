// Valid UTF-8 of more characters than a JavaScript string holds (V8: 2^29 - 24 UTF-16 units):
// the fatal decoder refuses it with ERR_STRING_TOO_LONG, which utf8TextProblem took for a bad
// byte and reported as "not valid UTF-8 (first bad byte at offset <its length>)", a byte past
// the file's end (helper-84 probe). Real sparse files, read as every caller reads them.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invalidUtf8Message, notUtf8Reason, tooLargeTextMessage, utf8TextProblem } from './utf8.js';

const MiB = 2 ** 20;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'utf8-too-large-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A sparse file of `size` bytes (NUL bytes: valid UTF-8), with `patch` written at `at`. */
function sparse(name: string, size: number, patch?: { at: number; bytes: number[] }): string {
  const file = join(dir, name);
  closeSync(openSync(file, 'w'));
  truncateSync(file, size);
  if (patch) {
    const fd = openSync(file, 'r+');
    writeSync(fd, Uint8Array.from(patch.bytes), 0, patch.bytes.length, patch.at);
    closeSync(fd);
  }
  return file;
}

describe('valid UTF-8 too long for a string', () => {
  it('a sparse 600 MiB file is "too large to read as text" with its size, not a bad byte past its end', () => {
    const bytes = readFileSync(sparse('big.yaml', 600 * MiB));
    const words = 'too large to read as text (600.0 MiB; a file is read whole, into at most 512 Mi characters)';
    expect(utf8TextProblem(bytes)).toBe(words);
    // notUtf8Reason and invalidUtf8Message are called by readers that decoded the bytes themselves
    // (index-tool's builtText after utf8TextProblem, the store's manifests): the same words.
    expect(notUtf8Reason(bytes)).toBe(words);
    expect(invalidUtf8Message(bytes)).toBe(words);
    expect(tooLargeTextMessage(bytes.length)).toBe(words);
  });

  it('a bad byte in a file that large is still named at its offset', () => {
    const bytes = readFileSync(sparse('bad.yaml', 600 * MiB, { at: 5 * MiB, bytes: [0xff] }));
    expect(utf8TextProblem(bytes)).toBe(`not valid UTF-8 (first bad byte at offset ${5 * MiB}); save it as UTF-8`);
    expect(invalidUtf8Message(bytes)).toBe(`not valid UTF-8 (first bad byte at offset ${5 * MiB})`);
  });
});

describe('utf8TextProblem on any bytes', () => {
  it('is null exactly when a fatal decoder takes them, and any offset it names is inside them (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        let decodes = true;
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(bytes);
        } catch {
          decodes = false;
        }
        const problem = utf8TextProblem(bytes);
        expect(problem === null).toBe(decodes);
        const m = /first bad byte at offset (\d+)/.exec(problem ?? '');
        if (m) expect(Number(m[1])).toBeLessThan(bytes.length);
      }),
    );
  });
});
