/**
 * Sentence boundaries through ICU's sentence segmenter (Intl.Segmenter, built
 * into Node), used for the sentence overlap and for splitting oversized prose.
 *
 * V8's segment iterator costs time in the length of the whole text for every
 * segment, so one call on a long text is quadratic (1 MB of prose: 50 s; 100 KB
 * of short lines: 8 s). The text is therefore segmented a line at a time, which
 * gives exactly the same boundaries: UAX #29 always breaks after a line feed
 * (SB4), and no rule looks across one (SB8's look-ahead stops at ParaSep). A line
 * longer than WINDOW is segmented in overlapping windows: a window's boundaries
 * are kept only where MARGIN characters of context lie on both sides, which
 * matches the whole-line answer unless a rule needs more context than that.
 * A slice of text whose characters sentence-rules.ts has a class for (ASCII, Latin, Greek,
 * Cyrillic, CJK, kana, Hangul, common punctuation) is decided there instead, with ICU's answer for that
 * slice: the lines, groups and windows stay the same, so do the boundaries.
 */
import { sourceText } from './options.js';
import { isTabledRange, sentenceBreaks } from './sentence-rules.js';
import { SPARE_MOST, STRONG_MOST, Spare } from './spare.js';

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

const WINDOW = 8192;
const MARGIN = 512;
const GROUP = 256;

/**
 * The starts found so far, in a typed array kept from call to call: a `number[]` grown a push at
 * a time was a third of all the memory a pass allocated on a paragraph of a million tiny lines
 * (issue 15); the result is copied once into an array of its exact length.
 */
let found = new Int32Array(1024);
let count = 0;
/**
 * A `found` grown past STRONG_MOST starts (1 MiB), held only weakly between calls (spare.ts):
 * held strongly it grew to the largest text's count and stayed, 64 MiB after 30 MB of tiny
 * lines (`node bench/memory.mjs --shape tiny-lines --mb 30 --path whole`); dropped, it was
 * grown again from 1,024 by every large text.
 */
const largeFound = new Spare<Int32Array<ArrayBuffer>>(STRONG_MOST, SPARE_MOST);

/** Once `found`'s starts are copied out: a `found` grown past STRONG_MOST is kept only weakly. */
function release(): void {
  if (found.length > STRONG_MOST) {
    largeFound.keep(found, found.length);
    found = new Int32Array(1024);
  }
}

function add(at: number): void {
  if (count === found.length) {
    const kept = largeFound.take();
    const grown = kept !== null && kept.length > count ? kept : new Int32Array(found.length * 2);
    grown.set(found.subarray(0, count));
    found = grown;
  }
  found[count++] = at;
}

/** Start offsets (relative to `text`) of each sentence, first one 0. */
export function sentenceStarts(text: string): number[] {
  // A number gave [0] without a word (helper-67's probe): named now.
  if (typeof text !== 'string') text = sourceText(text, 'sentenceStarts', 'text');
  findStarts(text);
  const starts = new Array<number>(count);
  for (let k = 0; k < count; k++) starts[k] = found[k]!;
  release();
  return starts;
}

/**
 * sentenceStarts(text) as a typed array (one copy of the scratch array). For the splitter, which
 * copies the offsets into typed arrays anyway: on a paragraph of a million tiny lines the
 * `number[]` of 330,000 starts, made and dropped in every pass, cost a fifth of the splitter's
 * time per MB (issue 15).
 */
export function sentenceStartOffsets(text: string): Int32Array {
  findStarts(text);
  const starts = found.slice(0, count);
  release();
  return starts;
}

/**
 * sentenceStartOffsets(text) without the copy: a view of the scratch array, valid only until the
 * next call of any function here (the splitter copies it into packAt's columns at once: on 10 MB
 * of tiny lines the copy was 13 MB of fresh memory a pass, issue 15).
 */
export function sentenceStartsInScratch(text: string): Int32Array {
  findStarts(text);
  const starts = found.subarray(0, count);
  release();
  return starts;
}

/** Leaves text's sentence starts in found[0, count). */
function findStarts(text: string): void {
  count = 0;
  add(0);
  const len = text.length;
  let line = 0;
  while (line < len) {
    // Short lines go to ICU together (each call has a fixed cost, and the iterator's cost per
    // segment grows with the text, so a group of a few hundred characters is the sweet spot).
    // The group is first read a character at a time (plainGroup): most groups of short lines
    // hold no terminator, and that one read finds their lines and boundaries.
    let end = plainGroup(text, line);
    if (end < 0) {
      end = lineEnd(text, line);
      while (end - line < GROUP && end < len) {
        const next = lineEnd(text, end);
        if (next - line > WINDOW) break;
        end = next;
      }
      if (end - line <= WINDOW) segmentInto(text, line, end, line, end);
      else longLine(text, line, end);
    }
    // A line feed always ends a sentence: the next line (group) starts one.
    if (end < len && found[count - 1] !== end) add(end);
    line = end;
  }
}

/**
 * The end of the group of lines that starts at `line` (as sentenceStarts groups them: the first
 * line, then more while the group is shorter than GROUP and stays within WINDOW) when all of it
 * is plain (see slicePlainness), having added the boundary after each of its line feeds but the
 * last (ICU's answer there); or -1, having added nothing, when it is not plain.
 */
function plainGroup(text: string, line: number): number {
  const len = text.length;
  const mark = count;
  let end = -1;
  for (let i = line; i < len; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      if (end >= 0 && i + 1 - line > WINDOW) return end;
      if (end >= 0) add(end);
      end = i + 1;
      if (end - line >= GROUP) return end;
    } else if (c >= 0x80 || c === 0x2e || c === 0x21 || c === 0x3f || c === 0x0d) {
      count = mark;
      return -1;
    }
  }
  // The text ends with the line feed (no boundary at its end), or with a line without one.
  if (end === len) return len;
  if (end >= 0 && len - line > WINDOW) return end;
  if (end >= 0) add(end);
  return len;
}

/** One past the line feed that ends the line at `from`, or the text's end. */
function lineEnd(text: string, from: number): number {
  const nl = text.indexOf('\n', from);
  return nl < 0 ? text.length : nl + 1;
}

/** What `text.slice(from, to)` holds, for segmentInto (see slicePlainness). */
const PLAIN = 0;
const TABLED = 1;
const OTHER = 2;

/**
 * PLAIN when `text.slice(from, to)` can hold no sentence boundary but those after its line
 * breaks: it is ASCII without `.`, `!` or `?`. A UAX #29 boundary other than after a separator
 * (SB4: CR, LF, NEL, LS, PS) needs a terminator before it (SB11: ATerm or STerm, then Close,
 * Sp, ParaSep), and the ASCII ones are `.` (ATerm), `!` and `?` (STerm); any other character
 * that could be one is outside ASCII. Short lines without punctuation (lists of names, tiny
 * lines, headings) then skip ICU, whose fixed cost per segment is most of their time.
 * TABLED when sentence-rules.ts has a class for each of its characters (and decides it), OTHER
 * otherwise.
 */
function slicePlainness(text: string, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80 || c === 0x2e || c === 0x21 || c === 0x3f) return isTabledRange(text, i, to) ? TABLED : OTHER;
  }
  return PLAIN;
}

/** Adds `at`, a boundary of a slice segmented for (lo, hi), when it lies there and after the last one added. */
function addWithin(at: number, lo: number, hi: number): void {
  if (at > lo && at < hi && at > found[count - 1]!) add(at);
}

/** Adds the boundaries ICU finds in `text.slice(from, to)` that lie in (lo, hi). */
function segmentInto(text: string, from: number, to: number, lo: number, hi: number): void {
  const kind = slicePlainness(text, from, to);
  if (kind === PLAIN) {
    // ICU's answer here: a boundary after each line feed, and after each CR but one the slice
    // continues with a line feed (SB3 keeps CR LF together; SB4 breaks after either), nowhere
    // else. Text whose lines end in a lone CR is one line to findStarts (it splits at line
    // feeds), and went to ICU a segment per line: 1 MB of tiny CR lines took 4 s (issue 15).
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && (c !== 13 || (i + 1 < to && text.charCodeAt(i + 1) === 10))) continue;
      addWithin(i + 1, lo, hi);
    }
    return;
  }
  if (kind === TABLED) {
    // The same answer without ICU's cost per segment, a microsecond and more (sentence-rules.ts).
    sentenceBreaks(text, from, to, (at) => addWithin(at, lo, hi));
    return;
  }
  const slice = from === 0 && to === text.length ? text : text.slice(from, to);
  for (const s of segmenter.segment(slice)) addWithin(from + s.index, lo, hi);
}

function longLine(text: string, line: number, end: number): void {
  // Boundaries are final in [lo, hi): each window reaches MARGIN before lo and after hi.
  for (let lo = line; lo < end; ) {
    const from = Math.max(line, lo - MARGIN);
    const to = Math.min(end, from + WINDOW);
    const hi = to === end ? end : to - MARGIN;
    segmentInto(text, from, to, lo === line ? line : lo - 1, hi);
    lo = hi;
  }
}
