/**
 * The one wording of a file that is not UTF-8, for every tool that reads documents
 * (chunking-tool and the topic tools through topic-io, docs-store through its input check):
 * the byte offset tells the user where to look in a file that is mostly text.
 */

/** Offset of the first byte that is not part of a valid UTF-8 sequence (`bytes.length` if none). */
export function firstInvalidUtf8(input: Uint8Array): number {
  // A plain view: indexing a Buffer in this loop ran about six times slower than a Uint8Array.
  const bytes = new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  const end = bytes.length;
  // Decoding growing prefixes would be quadratic; walk the byte structure instead, skipping
  // ASCII runs and decoding each other character alone (a decoder per byte, ASCII included,
  // was about 170 ns a byte: a 400 MiB file with a bad byte at its end took over a minute).
  let i = 0;
  for (;;) {
    while (i < end && bytes[i]! < 0x80) i++;
    if (i >= end) return i;
    const b = bytes[i]!;
    const length = b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (length === 0) return i;
    try {
      FATAL_UTF8.decode(bytes.subarray(i, i + length));
    } catch {
      return i;
    }
    i += length;
  }
}
/** One decoder for every character: a call without `stream` starts afresh, after an error too. */
const FATAL_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * `not valid UTF-8 (first bad byte at offset N)`, for bytes the fatal decoder refused. Bytes
 * with no bad byte were refused for their length (valid UTF-8 of more characters than a string
 * holds): tooLargeTextMessage's words, not an offset one byte past the end.
 */
export function invalidUtf8Message(bytes: Uint8Array): string {
  const offset = firstInvalidUtf8(bytes);
  if (offset === bytes.length) return tooLargeTextMessage(bytes.length);
  return `not valid UTF-8 (first bad byte at offset ${offset})`;
}

/**
 * `too large to read as text (N MiB; a file is read whole, into at most 512 Mi characters)`:
 * a file of `size` bytes of valid UTF-8 that the decoder refused because V8's longest string
 * (2^29 - 24 UTF-16 units) cannot hold it.
 */
export function tooLargeTextMessage(size: number): string {
  return `too large to read as text (${(size / 2 ** 20).toFixed(1)} MiB; a file is read whole, into at most 512 Mi characters)`;
}

/** Byte order marks of encodings other than UTF-8, longest first (UTF-32LE's starts as UTF-16LE's). */
const FOREIGN_BOMS: [name: string, bom: number[]][] = [
  ['UTF-32 (little-endian)', [0xff, 0xfe, 0x00, 0x00]],
  ['UTF-32 (big-endian)', [0x00, 0x00, 0xfe, 0xff]],
  ['UTF-16 (little-endian)', [0xff, 0xfe]],
  ['UTF-16 (big-endian)', [0xfe, 0xff]],
];

/**
 * The encoding a leading byte order mark names, when it is UTF-16 or UTF-32 and the length is
 * whole code units of it (FF FE 41 is three bytes of something else, not UTF-16); null otherwise.
 */
export function foreignEncoding(bytes: Uint8Array): string | null {
  for (const [name, bom] of FOREIGN_BOMS) {
    const unit = name.startsWith('UTF-32') ? 4 : 2;
    if (bytes.length % unit === 0 && bom.length <= bytes.length && bom.every((b, i) => bytes[i] === b)) return name;
  }
  return null;
}

/**
 * Why `bytes` are not UTF-8 text, with what to do (`<encoding> text (byte order mark), not
 * UTF-8; save it as UTF-8`, or invalidUtf8Message's words and the same advice); null when they
 * are. For settings files, which were decoded with replacement characters: a UTF-16 config was
 * "expected a mapping of settings at the top level", a Latin-1 byte became U+FFFD in a value.
 * Valid UTF-8 too long for a string (a 600 MiB file) is tooLargeTextMessage's words: it was
 * "not valid UTF-8 (first bad byte at offset <its length>)", a byte past the file's end.
 */
export function utf8TextProblem(bytes: Uint8Array): string | null {
  if (foreignEncoding(bytes) === null) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      return null;
    } catch (err) {
      // ERR_STRING_TOO_LONG: the bytes may all be valid; a bad byte is said below.
      if ((err as { code?: unknown }).code !== 'ERR_ENCODING_INVALID_ENCODED_DATA') return tooLargeTextMessage(bytes.length);
    }
  }
  return `${notUtf8Reason(bytes)}; save it as UTF-8`;
}

/**
 * Why `bytes`, which a fatal UTF-8 decoder refused (or which start with a UTF-16 or UTF-32
 * byte order mark), are not UTF-8, without advice: the encoding the mark names, else
 * invalidUtf8Message's words. For a caller that gives its own advice (docs-export: rebuild).
 */
export function notUtf8Reason(bytes: Uint8Array): string {
  const foreign = foreignEncoding(bytes);
  return foreign === null ? invalidUtf8Message(bytes) : `${foreign} text (it starts with that byte order mark), not UTF-8`;
}
