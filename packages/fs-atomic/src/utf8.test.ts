import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstInvalidUtf8, invalidUtf8Message } from './utf8.js';

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
