/**
 * Bad input is refused before anything is planned, with a message that says what is wrong,
 * so a binary file never reaches the chunker or the database.
 */
import { foreignEncoding, invalidUtf8Message, notUtf8Reason } from '@chunkyard/fs-atomic';
import { InputError } from './errors.js';

export interface InputLimits {
  /**
   * Longest line accepted, in UTF-16 code units; none by default. A base64 image or a long
   * URL is one line of real documentation, chunking-tool chunks it in time linear in its
   * length (issue 15), and a topic it built was refused here (a probe's 65,000-character
   * line): a caller that wants generated data kept out sets a limit.
   */
  maxLineChars: number;
  /** Largest document accepted, in UTF-8 bytes. */
  maxBytes: number;
}

export const DEFAULT_LIMITS: InputLimits = { maxLineChars: Infinity, maxBytes: 32 * 1024 * 1024 };

/** Decodes file bytes as UTF-8 text (BOM dropped), or throws an InputError naming the problem. */
export function decodeDocument(bytes: Uint8Array, source: string, limits: InputLimits = DEFAULT_LIMITS): string {
  if (bytes.length === 0) throw new InputError(source, 'empty file');
  if (bytes.length > limits.maxBytes) throw new InputError(source, `too large: ${bytes.length} bytes (limit ${limits.maxBytes})`);
  // UTF-16 and UTF-32 text holds NUL bytes too: "binary file" sent the author looking for the
  // wrong fix. The words are topic-io's, so docs-store ingest says what chunking-tool says.
  if (foreignEncoding(bytes) !== null) throw new InputError(source, `${notUtf8Reason(bytes)}; save it as UTF-8`);
  if (bytes.includes(0)) throw new InputError(source, 'binary file (contains NUL bytes), not text');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // With what to do, as for UTF-16 above (it said what was wrong and where, and stopped there).
    throw new InputError(source, `${invalidUtf8Message(bytes)}; save it as UTF-8`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // A file's words, as topic-io gives them to chunking-tool; checkText's 'empty document' is for text that came as a string.
  if (!text.trim()) throw new InputError(source, 'empty file (only whitespace)');
  checkText(text, source, limits);
  return text;
}

/** Checks text that arrives as a string (MCP, API callers) by the same rules. */
export function checkText(text: string, source: string, limits: InputLimits = DEFAULT_LIMITS): void {
  if (typeof text !== 'string') throw new InputError(source, `content must be a string, got ${typeof text}`);
  if (!text.trim()) throw new InputError(source, text.length === 0 ? 'empty document' : 'empty document (only whitespace)');
  if (Buffer.byteLength(text, 'utf8') > limits.maxBytes) throw new InputError(source, `too large (limit ${limits.maxBytes} bytes)`);
  if (text.includes('\u0000')) throw new InputError(source, 'binary content (contains NUL characters), not text');
  // A lone surrogate cannot be written as UTF-8: it would be stored as U+FFFD and the
  // offsets and hashes would no longer describe the caller's text.
  if (LONE_SURROGATE.test(text)) throw new InputError(source, 'not valid Unicode (contains a lone surrogate)');
  // Other control characters are text (a terminal capture with ANSI colours, a form feed):
  // chunking-tool chunks such a document, so the store takes it too (one rule, issue 15
  // probe: a page whose escapes were over 1% of its characters was refused here as binary
  // content). NUL alone marks binary, and every CLI escapes controls before a terminal.
  if (limits.maxLineChars === Infinity) return;
  let lineStart = 0;
  let line = 1;
  for (;;) {
    const nl = text.indexOf('\n', lineStart);
    const end = nl < 0 ? text.length : nl;
    if (end - lineStart > limits.maxLineChars) {
      throw new InputError(
        source,
        `line ${line} is ${end - lineStart} characters long (limit ${limits.maxLineChars}): minified or generated data, not documentation`,
      );
    }
    if (nl < 0) break;
    lineStart = nl + 1;
    line++;
  }
}

/**
 * The names and labels of a document (title, ids, topic …) by the rule the text has: a lone
 * surrogate (an MCP client's JSON may carry "\ud800") is refused, naming `field`. SQLite and
 * the artifact id's hash both write it as U+FFFD, so source ids "doc\ud800" and "doc\udbff"
 * took one artifact id, and the second was refused as a clash with "mcp:doc\ufffd", an id the
 * caller never sent; a title or topic came back as another string than the one stored.
 */
export function checkLabel(value: string | null | undefined, field: string, source: string): void {
  if (typeof value === 'string' && LONE_SURROGATE.test(value)) throw new InputError(source, `${field} is not valid Unicode (contains a lone surrogate)`);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

