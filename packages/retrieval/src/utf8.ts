/** Internal (not exported by index.ts): where a built file stops being UTF-8. */
import { firstInvalidUtf8 } from '@chunkyard/fs-atomic';

/**
 * fs-atomic's firstInvalidUtf8 (the offset every chunkyard reader names), with runs of ASCII
 * skipped here: it decodes each character with a decoder of its own, about 170 ns a byte, so a
 * 500 MiB chunk file with one bad byte at its end took over a minute to be refused. Each
 * non-ASCII character is still checked by it, so the two agree on every input (a property test).
 */
export function firstBadUtf8Byte(input: Uint8Array): number {
  // A plain view: indexing a Buffer in this loop ran about six times slower than a Uint8Array.
  const bytes = new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  const end = bytes.length;
  let i = 0;
  for (;;) {
    while (i < end && bytes[i]! < 0x80) i++;
    if (i >= end) return i;
    const b = bytes[i]!;
    const length = b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (length === 0 || firstInvalidUtf8(bytes.subarray(i, i + length)) !== length) return i;
    i += length;
  }
}
