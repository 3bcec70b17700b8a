import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstInvalidUtf8, invalidUtf8Message, utf8TextProblem } from './utf8.js';

describe('firstInvalidUtf8', () => {
  it.each([
    ['a truncated two-byte sequence', [0x61, 0xc3], 1],
    ['a continuation byte alone', [0x61, 0x62, 0x80], 2],
    ['an overlong encoding', [0xc0, 0xaf], 0],
    ['a surrogate encoded in UTF-8', [0x61, 0xed, 0xa0, 0x80], 1],
    ['a byte above F4', [0xf5, 0x80, 0x80, 0x80], 0],
    ['Latin-1 inside text', [0x6e, 0x61, 0xef, 0x76, 0x65], 2],
  ])('finds %s', (_what, bytes, offset) => {
    expect(firstInvalidUtf8(Uint8Array.from(bytes))).toBe(offset);
    expect(invalidUtf8Message(Uint8Array.from(bytes))).toBe(`not valid UTF-8 (first bad byte at offset ${offset})`);
  });

  it('is the length of valid UTF-8, and the offset where a bad byte is spliced into it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), fc.constantFrom(0x80, 0xbf, 0xc0, 0xc1, 0xf5, 0xff), (a, b, bad) => {
        const head = new TextEncoder().encode(a.replace(/[\uD800-\uDFFF]/g, ''));
        const tail = new TextEncoder().encode(b.replace(/[\uD800-\uDFFF]/g, ''));
        expect(firstInvalidUtf8(head)).toBe(head.length);
        expect(firstInvalidUtf8(Uint8Array.from([...head, bad, ...tail]))).toBe(head.length);
      }),
    );
  });
});

describe('utf8TextProblem', () => {
  const utf16le = (s: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);
  it.each([
    ['UTF-16 little-endian', utf16le('chunking:\n'), 'UTF-16 (little-endian) text (it starts with that byte order mark), not UTF-8; save it as UTF-8'],
    ['UTF-16 big-endian', Buffer.from([0xfe, 0xff, 0x00, 0x61]), 'UTF-16 (big-endian) text (it starts with that byte order mark), not UTF-8; save it as UTF-8'],
    ['UTF-32 little-endian', Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x61, 0, 0, 0]), 'UTF-32 (little-endian) text (it starts with that byte order mark), not UTF-8; save it as UTF-8'],
    ['UTF-32 big-endian', Buffer.from([0x00, 0x00, 0xfe, 0xff]), 'UTF-32 (big-endian) text (it starts with that byte order mark), not UTF-8; save it as UTF-8'],
    ['Latin-1', Buffer.from('sem\xe9antic', 'latin1'), 'not valid UTF-8 (first bad byte at offset 3); save it as UTF-8'],
  ])('names %s text and says to save it as UTF-8', (_what, bytes, message) => {
    expect(utf8TextProblem(bytes)).toBe(message);
  });

  it('takes a byte order mark for UTF-16 or UTF-32 only when the length is whole code units of it', () => {
    expect(utf8TextProblem(Buffer.from([0xff, 0xfe, 0x41]))).toBe('not valid UTF-8 (first bad byte at offset 0); save it as UTF-8');
    expect(utf8TextProblem(Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x41, 0x00]))).toMatch(/^UTF-16 \(little-endian\)/);
  });

  it('is null for UTF-8, with or without its byte order mark, and for nothing at all', () => {
    expect(utf8TextProblem(Buffer.from('\uFEFFchunking: {} # é\n'))).toBeNull();
    expect(utf8TextProblem(Buffer.from('a: 1\n'))).toBeNull();
    expect(utf8TextProblem(new Uint8Array())).toBeNull();
  });
});

/** The walk firstInvalidUtf8 did before it skipped ASCII runs: a fresh fatal decoder per character. */
function firstInvalidUtf8ByDecoder(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const need = b < 0x80 ? 0 : b >= 0xc2 && b < 0xe0 ? 1 : b >= 0xe0 && b < 0xf0 ? 2 : b >= 0xf0 && b < 0xf5 ? 3 : -1;
    if (need < 0) return i;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(i, i + need + 1));
    } catch {
      return i;
    }
    i += need + 1;
  }
  return i;
}

/** Bytes that are mostly UTF-8: ASCII, whole characters of every length, and stray bytes. */
const mostlyUtf8 = fc
  .array(
    fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 4 }).map((b) => b.map((x) => x & 0x7f)),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }).map((s) => new Uint8Array(Buffer.from(s))),
      fc.uint8Array({ minLength: 1, maxLength: 2 }),
      fc.constantFrom(...[[0xe0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf], [0xf0, 0x9f], [0xe2, 0x82]].map((b) => Uint8Array.from(b))),
    ),
    { maxLength: 30 },
  )
  .map((parts) => new Uint8Array(Buffer.concat(parts)));

describe('firstInvalidUtf8, ASCII runs skipped', () => {
  it('names the offset the per-character decoder walk names, on every input, as a Uint8Array or a Buffer (property)', () => {
    fc.assert(
      fc.property(mostlyUtf8, (bytes) => {
        expect(firstInvalidUtf8(bytes)).toBe(firstInvalidUtf8ByDecoder(bytes));
        expect(firstInvalidUtf8(Buffer.from(bytes))).toBe(firstInvalidUtf8ByDecoder(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('finds a bad byte at the end of 400 MiB of ASCII at native speed (the decoder walk took over a minute)', () => {
    // What a 400 MiB chunk file with one bad byte at its end hands a reader.
    const bytes = Buffer.alloc(400 * 1024 * 1024); // NUL bytes: ASCII
    bytes[bytes.length - 1] = 0xff;
    expect(firstInvalidUtf8(bytes)).toBe(bytes.length - 1);
  });
});
