/**
 * The one wording of a file that is not UTF-8, for every tool that reads documents
 * (chunking-tool and the topic tools through topic-io, docs-store through its input check):
 * the byte offset tells the user where to look in a file that is mostly text.
 */

/** Offset of the first byte that is not part of a valid UTF-8 sequence (`bytes.length` if none). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  // Decoding growing prefixes would be quadratic; walk the byte structure instead.
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

/** `not valid UTF-8 (first bad byte at offset N)`, for bytes the fatal decoder refused. */
export function invalidUtf8Message(bytes: Uint8Array): string {
  return `not valid UTF-8 (first bad byte at offset ${firstInvalidUtf8(bytes)})`;
}
