/**
 * The blocks a top-level paragraph and a top-level heading of plain text make, straight from
 * their lines: what fast-blocks' toBlock would make of their markdown-it tokens. Shared by
 * fast-blocks' rules (which make them during markdown-it's parse, without a token) and
 * flat-blocks (which makes a whole flat document's blocks without markdown-it), so that both
 * give the same blocks by construction.
 */
import type { BlockPool } from './block-pool.js';
import { skipWhitespace, trimEndOffset, type LineTable } from './lines.js';
import { detached } from './shape-anchor.js';
import type { Block } from './types.js';

/** The pool this module's blocks come from while withBlockPool runs, else null (fresh objects). */
let pool: BlockPool | null = null;

/**
 * `make()`, with the blocks this module makes taken from `from` (block-pool.ts); chunkerBlocks'
 * parse, whose blocks no caller outside the package sees.
 */
export function withBlockPool<T>(from: BlockPool | null, make: () => T): T {
  pool = from;
  try {
    return make();
  } finally {
    pool = null;
  }
}

/** The pool withBlockPool runs with, or null (fast-lists makes its lists' blocks from it too). */
export function currentBlockPool(): BlockPool | null {
  return pool;
}

/** markdown-it's trim set: space, tab, CR, LF. */
export function isAsciiTrimmable(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** Characters where one of markdown-it's inline rules could start, as a table by char code. */
const INLINE_SYNTAX_TABLE = new Uint8Array(128);
for (const ch of '\n\r\0\\`~*_[!<&') INLINE_SYNTAX_TABLE[ch.charCodeAt(0)] = 1;

/**
 * Whether `src[pos, max)` holds a character where one of markdown-it's inline rules could start
 * (INLINE_SYNTAX_TABLE): a heading text without one is its own plain text.
 */
export function hasInlineSyntax(src: string, pos: number, max: number): boolean {
  for (let k = pos; k < max; k++) {
    const c = src.charCodeAt(k);
    if (c < 128 && INLINE_SYNTAX_TABLE[c] === 1) return true;
  }
  return false;
}

/**
 * Short heading texts seen lately, by a hash of their characters: documents repeat headings
 * ("Parameters", "Returns", "Example" in every section of API docs; `h0`…`h99` in the tiny
 * headings shape), and a heading's string, kept by its block until the records are made, was
 * most of the cost of making the block (the collector copies every new string that survives;
 * issue 15: 250M of 850M instructions of fastBlocks on 1 MB of tiny headings). Equal strings,
 * one copy.
 */
const TEXT_SLOTS = 1024;
const headingTexts: string[] = new Array<string>(TEXT_SLOTS).fill('');
/** The longest text looked up there (a longer one is sliced, as rarely repeated). */
const MAX_SHARED_TEXT = 64;

/**
 * The plain text of a heading's text `src[pos, max)` (trimmed, in markdown-it's text, so its
 * lines end with `\n` alone) whose only inline syntax is line endings, as parsedPlainText gives
 * it; null when it holds any other (INLINE_SYNTAX_TABLE). A setext heading of several lines is
 * such a text: it went through markdown-it's tokens and two inline parses (its core rule's and
 * parsedPlainText's), about 2.7 KB of garbage a heading, where the one-line form is a block at
 * once (issue 15: a probe of two-line setext headings ran at 18 times prose per MB).
 *
 * Each line break is the newline rule of useRemarkInlineRules: the spaces and tabs ending the
 * line are dropped, and the break is a hard one (no text, as parsedPlainText skips `hardbreak`)
 * when they were two or more spaces and no tab, else `\n`; the spaces and tabs starting the next
 * line are skipped.
 */
export function plainHeadingText(src: string, pos: number, max: number): string | null {
  let lineBreaks = 0;
  for (let k = pos; k < max; k++) {
    const c = src.charCodeAt(k);
    if (c < 128 && INLINE_SYNTAX_TABLE[c] === 1) {
      if (c !== 0x0a) return null;
      lineBreaks++;
    }
  }
  if (lineBreaks === 0) return headingText(src, pos, max);
  let out = '';
  let lineStart = pos;
  for (let k = src.indexOf('\n', pos); k !== -1 && k < max; k = src.indexOf('\n', lineStart)) {
    let cut = k;
    let tab = false;
    for (; cut > lineStart; cut--) {
      const c = src.charCodeAt(cut - 1);
      if (c === 0x09) tab = true;
      else if (c !== 0x20) break;
    }
    out += src.slice(lineStart, cut);
    if (tab || k - cut < 2) out += '\n';
    lineStart = k + 1;
    while (lineStart < max && (src.charCodeAt(lineStart) === 0x20 || src.charCodeAt(lineStart) === 0x09)) lineStart++;
  }
  return out + src.slice(lineStart, max);
}

/** `src.slice(pos, max)`, or an equal string sliced before. */
export function headingText(src: string, pos: number, max: number): string {
  const length = max - pos;
  if (length > MAX_SHARED_TEXT) return src.slice(pos, max);
  let hash = length;
  for (let k = pos; k < max; k++) hash = (Math.imul(hash, 31) + src.charCodeAt(k)) | 0;
  const slot = (hash ^ (hash >>> 16)) & (TEXT_SLOTS - 1);
  const seen = headingTexts[slot]!;
  if (seen.length === length && src.startsWith(seen, pos)) return seen;
  const text = detached(src.slice(pos, max));
  headingTexts[slot] = text;
  return text;
}

/** The last line at or before `hint` that starts before `end`. */
export function lastLineOf(lines: LineTable, end: number, hint: number): number {
  let line = hint;
  while (line > 0 && lines.starts[line]! >= end) line--;
  return line;
}

/**
 * The block toBlock would make of a top-level paragraph's token (lines `startLine` to
 * `lastLine` of `source`), or null where it would make none (no visible character).
 */
export function paragraphBlock(source: string, lines: LineTable, startLine: number, lastLine: number): Block | null {
  const start = skipWhitespace(source, lines.starts[startLine]!, lines.ends[lastLine]!);
  const end = trimEndOffset(source, start, lines.ends[lastLine]!);
  if (end <= start) return null;
  const endLine = lastLineOf(lines, end, lastLine);
  return pool !== null ? pool.leaf('paragraph', start, end, startLine, endLine) : { type: 'paragraph', start, end, startLine, endLine };
}

/**
 * The block toBlock would make of a top-level leaf block's token of no other field (a thematic
 * break, an HTML block) on lines `startLine` to `lastLine` of `source`, or null where it makes
 * none: five fields, as a paragraph's (one hidden class).
 */
export function leafBlock(type: 'thematicBreak' | 'html', source: string, lines: LineTable, startLine: number, lastLine: number): Block | null {
  const start = skipWhitespace(source, lines.starts[startLine]!, lines.ends[lastLine]!);
  const end = trimEndOffset(source, start, lines.ends[lastLine]!);
  if (end <= start) return null;
  const endLine = lastLineOf(lines, end, lastLine);
  return pool !== null ? pool.leaf(type, start, end, startLine, endLine) : { type, start, end, startLine, endLine };
}

/**
 * The plain text of a heading's text `src[pos, max)` with inline syntax, as toBlock gives it from
 * the heading's token, or null where it needs the token (fast-blocks' directInlineText: a text
 * with a `[`, whose references may be defined further down the document).
 */
export type InlineText = (src: string, pos: number, max: number) => string | null;

/**
 * The block toBlock would make of a top-level heading's token (`src[pos, max)` its text before
 * trimming, in markdown-it's text; lines `startLine` to `lastLine` of `source`, the last of which
 * is the underline of a setext heading), or null where the heading needs its token (its text
 * has inline syntax other than line breaks, plainHeadingText, that `inlineText` does not read)
 * or makes no block.
 */
export function headingBlock(source: string, lines: LineTable, src: string, startLine: number, lastLine: number, depth: number, pos: number, max: number, inlineText: InlineText | null = null): Block | null {
  while (pos < max && isAsciiTrimmable(src.charCodeAt(pos))) pos++;
  while (max > pos && isAsciiTrimmable(src.charCodeAt(max - 1))) max--;
  let text = plainHeadingText(src, pos, max);
  if (text === null && inlineText !== null) text = inlineText(src, pos, max);
  if (text === null) return null;
  const start = skipWhitespace(source, lines.starts[startLine]!, lines.ends[lastLine]!);
  const end = trimEndOffset(source, start, lines.ends[lastLine]!);
  if (end <= start) return null;
  // One literal of all seven fields, as toBlock and plain-text.ts make headings (one hidden
  // class), rather than five and then two added: those two went to a property array of their
  // own, one more object per heading.
  const endLine = lastLineOf(lines, end, lastLine);
  return pool !== null ? pool.heading(start, end, startLine, endLine, depth, text) : { type: 'heading', start, end, startLine, endLine, depth, text };
}

/**
 * markdown-it's ATX heading line logic (its heading rule) on the line `[first, max)` of `src`
 * (`first` past the indentation): the heading's level in the low bits and its text's range
 * through `into` ([pos, max) before trimming), or 0 when the line is no ATX heading.
 */
export function atxHeadingLine(src: string, first: number, max: number, into: { pos: number; max: number }): number {
  let pos = first;
  let ch = src.charCodeAt(pos);
  if (ch !== 0x23 || pos >= max) return 0;
  let level = 1;
  ch = src.charCodeAt(++pos);
  while (ch === 0x23 && pos < max && level <= 6) {
    level++;
    ch = src.charCodeAt(++pos);
  }
  if (level > 6 || (pos < max && ch !== 0x20 && ch !== 0x09)) return 0;
  max = skipSpacesBack(src, max, pos);
  const tmp = skipCharsBack(src, max, 0x23, pos);
  if (tmp > pos) {
    const before = src.charCodeAt(tmp - 1);
    if (before === 0x20 || before === 0x09) max = tmp;
  }
  into.pos = pos;
  into.max = max;
  return level;
}

/** markdown-it's StateBlock.skipSpacesBack (spaces and tabs). */
function skipSpacesBack(src: string, pos: number, min: number): number {
  if (pos <= min) return pos;
  while (pos > min) {
    const c = src.charCodeAt(--pos);
    if (c !== 0x20 && c !== 0x09) return pos + 1;
  }
  return pos;
}

/** markdown-it's StateBlock.skipCharsBack. */
function skipCharsBack(src: string, pos: number, code: number, min: number): number {
  if (pos <= min) return pos;
  while (pos > min) if (code !== src.charCodeAt(--pos)) return pos + 1;
  return pos;
}
