/**
 * Plain text of inline markdown whose only live syntax is emphasis: the text less the `*` and `_`
 * characters that markdown-it's emphasis rule pairs, found by that rule's own algorithm (its
 * scanDelims and processDelimiters, markdown-it 15) over typed columns instead of a token and a
 * delimiter object per character. A heading of a megabyte of `*word*` made some 330,000 tokens
 * and as many delimiter objects, and their collection was most of its time (issue 15's scaling
 * table: 22 times prose per MB). Exactness is checked against markdown-it's own parse by
 * emphasis-text.test.ts.
 */
import type { MarkdownIt } from 'markdown-it';
import { SpareColumns } from './spare.js';

/** The three character classes scanDelims asks about, as markdown-it's utils give them. */
export type FlankingClasses = Pick<MarkdownIt['utils'], 'isPunctCharCode' | 'isMdAsciiPunct' | 'isWhiteSpace'>;

const STAR = 0x2a;

/** Characters that start an inline rule other than emphasis whatever follows them. */
const OTHER_RULES = /[\n\r\0\\`~[]/;

/**
 * `src`'s plain text (as fast-blocks' parsedPlainText gives it) when every inline rule other than
 * emphasis is dead in it, else null. Dead: no line break, NUL, backslash, backtick, `~` or `[`
 * (escapes, code spans, strikethrough, links and images), and `<` only without a `>`, `&` only
 * without a `;` (autolinks, inline HTML and entities each need their closer; linkify and the
 * typographer are off).
 */
export function emphasisOnlyText(src: string, classes: FlankingClasses): string | null {
  // Native scans (a regex, indexOf): a loop of charCodeAt over every character was most of this
  // function's time on a heading of a megabyte.
  if (OTHER_RULES.test(src)) return null;
  if ((src.includes('<') && src.includes('>')) || (src.includes('&') && src.includes(';'))) return null;
  let delimiters = 0;
  for (let i = src.indexOf('*'); i >= 0; i = src.indexOf('*', i + 1)) delimiters++;
  for (let i = src.indexOf('_'); i >= 0; i = src.indexOf('_', i + 1)) delimiters++;
  if (delimiters === 0) return src;

  // One entry per delimiter character, as markdown-it pushes them (a run of three `*` is three),
  // every entry written below.
  const at = COLUMNS.column(AT, Int32Array, delimiters);
  const marker = COLUMNS.column(MARKER, Uint8Array, delimiters); // 0: `*`, 1: `_`
  const runLength = COLUMNS.column(RUN_LENGTH, Int32Array, delimiters);
  const open = COLUMNS.column(OPEN, Uint8Array, delimiters);
  const close = COLUMNS.column(CLOSE, Uint8Array, delimiters);
  let d = 0;
  const n = src.length;
  let star = src.indexOf('*');
  let underscore = src.indexOf('_');
  while (star >= 0 || underscore >= 0) {
    const i = underscore < 0 || (star >= 0 && star < underscore) ? star : underscore;
    const c = src.charCodeAt(i);
    let j = i + 1;
    while (j < n && src.charCodeAt(j) === c) j++;
    const flags = flanking(src, i, j, c === STAR, classes);
    for (let k = i; k < j; k++, d++) {
      at[d] = k;
      marker[d] = c === STAR ? 0 : 1;
      runLength[d] = j - i;
      open[d] = flags & CAN_OPEN;
      close[d] = flags & CAN_CLOSE;
    }
    if (c === STAR) star = src.indexOf('*', j);
    else underscore = src.indexOf('_', j);
  }

  const end = COLUMNS.column(END, Int32Array, delimiters).fill(-1);
  const matched = COLUMNS.zeroed(MATCHED, Uint8Array, delimiters);
  pairDelimiters(at, marker, runLength, open, close, end);
  for (let k = 0; k < delimiters; k++) {
    if (end[k]! >= 0) {
      matched[k] = 1;
      matched[end[k]!] = 1;
    }
  }
  return withoutMatched(src, at, matched);
}

/**
 * emphasisOnlyText's columns, kept for the next call (it runs to its end, and nothing reads them
 * after): a heading of 10 MB of `*word*` made 60 MB of them fresh every pass (issue 15).
 */
const COLUMNS = new SpareColumns(8);
const AT = 0;
const MARKER = 1;
const RUN_LENGTH = 2;
const OPEN = 3;
const CLOSE = 4;
const END = 5;
const MATCHED = 6;
const UNITS = 7;

/**
 * `src` less the characters at the matched delimiters' positions. Copied through code units
 * into one string: a slice and a concatenation per kept stretch made two strings for each pair
 * of `*` (a megabyte heading of `*word*`: 330,000 of each), and String.fromCharCode a block at a
 * time a string per 8,192 units, joined and flattened (55 MB of strings a pass over 10 MB).
 */
function withoutMatched(src: string, at: Int32Array, matched: Uint8Array): string {
  let dropped = 0;
  for (let k = 0; k < matched.length; k++) dropped += matched[k]!;
  if (dropped === 0) return src;
  const units = COLUMNS.column(UNITS, Uint16Array, src.length - dropped);
  let w = 0;
  let from = 0;
  let any = 0;
  for (let k = 0; k < matched.length; k++) {
    if (matched[k] === 0) continue;
    for (let i = from, to = at[k]!; i < to; i++) any |= units[w++] = src.charCodeAt(i);
    from = at[k]! + 1;
  }
  for (let i = from; i < src.length; i++) any |= units[w++] = src.charCodeAt(i);
  // Latin-1 text as a one-byte string: UTF-16LE always makes a two-byte one, twice the memory,
  // and every slice, count and copy of a heading's text after read two bytes a character.
  if (any < 0x100) return Buffer.from(units).toString('latin1');
  // The code units as they are, lone surrogates included (no decoding: UTF-16LE is the units).
  return Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString('utf16le');
}

const CAN_OPEN = 1;
const CAN_CLOSE = 2;

/** markdown-it's scanDelims for the run [start, end): CAN_OPEN and CAN_CLOSE flags. */
function flanking(src: string, start: number, end: number, canSplitWord: boolean, classes: FlankingClasses): number {
  // The code points around the run, a lone surrogate read as U+FFFD, the text's ends as spaces.
  let last: number;
  if (start === 0) last = 0x20;
  else if (start === 1) {
    last = src.charCodeAt(0);
    if ((last & 0xf800) === 0xd800) last = 0xfffd;
  } else {
    last = src.charCodeAt(start - 1);
    if ((last & 0xfc00) === 0xdc00) {
      const high = src.charCodeAt(start - 2);
      last = (high & 0xfc00) === 0xd800 ? 0x10000 + ((high - 0xd800) << 10) + (last - 0xdc00) : 0xfffd;
    } else if ((last & 0xfc00) === 0xd800) last = 0xfffd;
  }
  let next = end < src.length ? src.charCodeAt(end) : 0x20;
  if ((next & 0xfc00) === 0xd800) {
    const low = src.charCodeAt(end + 1);
    next = (low & 0xfc00) === 0xdc00 ? 0x10000 + ((next - 0xd800) << 10) + (low - 0xdc00) : 0xfffd;
  } else if ((next & 0xfc00) === 0xdc00) next = 0xfffd;
  const ascii = asciiClassesOf(classes);
  const lastClass = last < 0x80 ? ascii[last]! : otherClass(last, classes);
  const nextClass = next < 0x80 ? ascii[next]! : otherClass(next, classes);
  const lastPunct = lastClass === PUNCTUATION;
  const nextPunct = nextClass === PUNCTUATION;
  const lastSpace = lastClass === SPACE;
  const nextSpace = nextClass === SPACE;
  const leftFlanking = !nextSpace && (!nextPunct || lastSpace || lastPunct);
  const rightFlanking = !lastSpace && (!lastPunct || nextSpace || nextPunct);
  let flags = 0;
  if (leftFlanking && (canSplitWord || !rightFlanking || lastPunct)) flags |= CAN_OPEN;
  if (rightFlanking && (canSplitWord || !leftFlanking || nextPunct)) flags |= CAN_CLOSE;
  return flags;
}

const OTHER = 0;
const SPACE = 1;
const PUNCTUATION = 2;

/** A code point's class as scanDelims reads it (no character is both space and punctuation). */
function otherClass(c: number, classes: FlankingClasses): number {
  if (classes.isWhiteSpace(c)) return SPACE;
  return classes.isMdAsciiPunct(c) || classes.isPunctCharCode(c) ? PUNCTUATION : OTHER;
}

/**
 * The classes of the ASCII characters, from markdown-it's own functions: the Unicode
 * punctuation test (a regex on a string made of the code point) was half of this module's time on
 * a heading of emphasis, and around a delimiter run nearly every character is ASCII.
 */
let asciiClasses: Uint8Array | null = null;
function asciiClassesOf(classes: FlankingClasses): Uint8Array {
  if (asciiClasses === null) {
    asciiClasses = new Uint8Array(0x80);
    for (let c = 0; c < 0x80; c++) asciiClasses[c] = otherClass(c, classes);
  }
  return asciiClasses;
}

/**
 * markdown-it's processDelimiters (balance_pairs): each closer, left to right, takes the nearest
 * opener of its marker that the rule of three allows, skipping the spans already paired (jumps)
 * and the openers a failed search already ruled out (the lowest opener per marker, length modulo
 * three and closer-can-open). Sets end[opener] to its closer. Delimiters of one run are told by
 * adjacent positions, as markdown-it tells them by adjacent tokens.
 */
function pairDelimiters(at: Int32Array, marker: Uint8Array, runLength: Int32Array, open: Uint8Array, close: Uint8Array, end: Int32Array): void {
  const max = at.length;
  const openersBottom = new Int32Array(12).fill(-1);
  const jumps = new Int32Array(max);
  let header = 0;
  let lastAt = -2;
  for (let closer = 0; closer < max; closer++) {
    if (marker[header] !== marker[closer] || lastAt !== at[closer]! - 1) header = closer;
    lastAt = at[closer]!;
    if (close[closer] === 0) continue;
    const bottomSlot = marker[closer]! * 6 + (open[closer] !== 0 ? 3 : 0) + (runLength[closer]! % 3);
    const minOpener = openersBottom[bottomSlot]!;
    let opener = header - jumps[header]! - 1;
    let newMinOpener = opener;
    for (; opener > minOpener; opener -= jumps[opener]! + 1) {
      if (marker[opener] !== marker[closer]) continue;
      if (open[opener] !== 0 && end[opener]! < 0) {
        let oddMatch = false;
        if (close[opener] !== 0 || open[closer] !== 0) {
          const lengths = runLength[opener]! + runLength[closer]!;
          if (lengths % 3 === 0 && (runLength[opener]! % 3 !== 0 || runLength[closer]! % 3 !== 0)) oddMatch = true;
        }
        if (!oddMatch) {
          const lastJump = opener > 0 && open[opener - 1] === 0 ? jumps[opener - 1]! + 1 : 0;
          jumps[closer] = closer - opener + lastJump;
          jumps[opener] = lastJump;
          open[closer] = 0;
          end[opener] = closer;
          close[opener] = 0;
          newMinOpener = -1;
          lastAt = -2;
          break;
        }
      }
    }
    // No match, so open[closer] is as it was: markdown-it's recomputed slot is bottomSlot.
    if (newMinOpener !== -1) openersBottom[bottomSlot] = newMinOpener;
  }
}
