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
