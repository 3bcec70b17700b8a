// Where a built file stops being UTF-8: the offset fs-atomic's firstInvalidUtf8 names, found
// without a decoder per ASCII byte, so a large file is refused in time linear at native speed.
import { firstInvalidUtf8 } from '@chunkyard/fs-atomic';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstBadUtf8Byte } from './utf8.js';

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

describe('firstBadUtf8Byte', () => {
  it('is firstInvalidUtf8 on every input (property)', () => {
    fc.assert(
      fc.property(mostlyUtf8, (bytes) => {
        expect(firstBadUtf8Byte(bytes)).toBe(firstInvalidUtf8(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('finds a bad byte at the end of 400 MiB of ASCII at native speed (firstInvalidUtf8 took over a minute)', () => {
    // What a 400 MiB chunk file with one bad byte at its end hands the folder or URL source.
    const bytes = Buffer.alloc(400 * 1024 * 1024); // NUL bytes: ASCII
    bytes[bytes.length - 1] = 0xff;
    expect(firstBadUtf8Byte(bytes)).toBe(bytes.length - 1);
  });
});
