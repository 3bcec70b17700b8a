/**
 * UAX #29's sentence boundary rules, with the answer ICU's segmenter gives, for text whose every
 * character has a class in the table below: ASCII, Latin, Greek, Cyrillic, general punctuation,
 * CJK ideographs, kana, Hangul syllables, CJK punctuation and fullwidth forms.
 *
 * Why not ICU here: V8's segment iterator makes an object and a string per segment and reads
 * further per segment the longer its input is, so text of short sentences cost more than a
 * microsecond a character: 1 MB of `A. B. C.` took 1.5 s, `e.g. i.e. Dr.` 0.6 s, Japanese
 * prose 0.6 s, where 1 MB of English prose takes 30 ms (a session 58 probe).
 *
 * The classes come from the Unicode properties regular expressions know, by UAX #29's table 4
 * (classOf). Extend and Format are left to ICU (SB5 folds them into what precedes them, which
 * this module does not do), as are astral characters and untabled blocks: a slice holding one
 * is segmented by ICU whole. sentence-rules.test.ts holds every tabled code point to ICU's class
 * and the rules to ICU's answer on hostile mixed text.
 */

/** Any other character is 0 (XX: no rule names it). */
const CR = 1;
const LF = 2;
const SP = 3;
const LOWER = 4;
const UPPER = 5;
const NUMERIC = 6;
const ATERM = 7;
const STERM = 8;
const CLOSE = 9;
const SCONTINUE = 10;
const OLETTER = 11;
/** Sep: NEL, LS, PS (a paragraph separator like LF, SB4). */
const SEP = 12;
/** Not decided here (Extend and Format, which SB5 folds into what precedes them; astral code units; blocks not tabled): ICU decides the slice. */
const UNKNOWN = 255;

/** UAX #29's SContinue (SentenceBreakProperty.txt). */
const SCONTINUE_CHARS = [0x2c, 0x2d, 0x3a, 0x3b, 0x37e, 0x55d, 0x60c, 0x60d, 0x7f8, 0x1802, 0x1808, 0x2013, 0x2014, 0x3001, 0xfe10, 0xfe11, 0xfe13, 0xfe31, 0xfe32, 0xfe50, 0xfe51, 0xfe55, 0xfe58, 0xfe63, 0xff0c, 0xff0d, 0xff1a, 0xff1b, 0xff64];
const ATERM_CHARS = [0x2e, 0x2024, 0xfe52, 0xff0e];

/**
 * The Sentence_Break class of one BMP code point from the Unicode properties regular expressions
 * know, by UAX #29's table 4 in its order; UNKNOWN for Extend and Format. sentence-rules.test.ts
 * compares the answer with ICU's for every code point of the tabled blocks.
 */
function classOf(c: number): number {
  const ch = String.fromCharCode(c);
  if (c === 0x0d) return CR;
  if (c === 0x0a) return LF;
  if (c === 0x85 || c === 0x2028 || c === 0x2029) return SEP;
  if (/[\p{Grapheme_Extend}\p{Mc}\p{Emoji_Modifier}\p{Cf}]/u.test(ch)) return UNKNOWN;
  if (/\p{White_Space}/u.test(ch)) return SP;
  if (/\p{Lowercase}/u.test(ch)) return LOWER;
  if (/[\p{Uppercase}\p{Lt}]/u.test(ch)) return UPPER;
  if (/\p{Alphabetic}/u.test(ch)) return OLETTER;
  if (/\p{Nd}/u.test(ch)) return NUMERIC;
  if (ATERM_CHARS.includes(c)) return ATERM;
  if (/\p{Sentence_Terminal}/u.test(ch)) return STERM;
  if (/[\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Quotation_Mark}]/u.test(ch)) return CLOSE;
  if (SCONTINUE_CHARS.includes(c)) return SCONTINUE;
  return 0;
}

/**
 * The blocks tabled code point by code point (others are UNKNOWN): Latin, Greek and Cyrillic,
 * general punctuation, CJK symbols and punctuation, kana, and half- and fullwidth forms.
 */
export const TABLED_BLOCKS: readonly (readonly [number, number])[] = [
  [0x0000, 0x024f],
  [0x0370, 0x052f],
  [0x1e00, 0x1fff],
  [0x2000, 0x206f],
  [0x3000, 0x30ff],
  [0xff00, 0xffef],
];
/** Blocks of letters only, OLetter as a whole: CJK ideographs (and extension A) and Hangul syllables. */
export const LETTER_BLOCKS: readonly (readonly [number, number])[] = [
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xac00, 0xd7a3],
];

/**
 * Where classOf's answer is not UAX #29's: the fullwidth quotation mark and apostrophe are
 * Quotation_Mark but not Line_Break=Quotation, which Close takes and regular expressions do not
 * know (sentence-rules.test.ts found these two among every tabled code point).
 */
const OVERRIDES: readonly (readonly [number, number])[] = [
  [0xff02, 0],
  [0xff07, 0],
];

let table: Uint8Array | null = null;
/** Whether `table` has every tabled block, not only ASCII. */
let tabledAll = false;

/**
 * The class of every BMP code unit (UNKNOWN where not tabled, and beyond ASCII until
 * tableAll), made on first use: ASCII at once, the rest (38,000 code points through a dozen
 * regular expressions each, several milliseconds) when a slice first holds a character past it.
 */
function classTable(): Uint8Array {
  if (table) return table;
  const t = new Uint8Array(0x10000).fill(UNKNOWN);
  for (let c = 0; c < 0x80; c++) t[c] = classOf(c);
  table = t;
  return t;
}

function tableAll(): void {
  const t = classTable();
  for (const [from, to] of TABLED_BLOCKS) for (let c = from; c <= to; c++) t[c] = classOf(c);
  for (const [from, to] of LETTER_BLOCKS) t.fill(OLETTER, from, to + 1);
  for (const [c, cls] of OVERRIDES) t[c] = cls;
  tabledAll = true;
}

/** Whether every character of `text.slice(from, to)` has a class here, so that sentenceBreaks may decide it. */
export function isTabledRange(text: string, from: number, to: number): boolean {
  const t = classTable();
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80 && !tabledAll) tableAll();
    if (t[c] === UNKNOWN) return false;
  }
  return true;
}

/**
 * Calls `add` with each sentence boundary strictly inside `text.slice(from, to)`, in order, as
 * ICU finds them in that slice alone (its start and end are the text's: no rule looks past
 * them). Every character of the slice must have a class here (isTabledRange said so). Linear: each
 * character is read a bounded number of times (SB8's look-ahead stops at the next terminator,
 * where the next look-ahead starts).
 */
export function sentenceBreaks(text: string, from: number, to: number, add: (at: number) => void): void {
  const t = classTable();
  const cls = (i: number): number => t[text.charCodeAt(i)]!;
  let i = from;
  while (i < to) {
    const c = cls(i);
    if (c === CR || c === LF || c === SEP) {
      // SB3 keeps CR LF together; SB4 breaks after a paragraph separator.
      if (c === CR && i + 1 < to && cls(i + 1) === LF) i++;
      i++;
      if (i < to) add(i);
      continue;
    }
    if (c !== ATERM && c !== STERM) {
      i++;
      continue;
    }
    let k = i + 1;
    if (k >= to) break;
    if (c === ATERM) {
      const next = cls(k);
      // SB6: ATerm × Numeric. SB7: (Upper | Lower) ATerm × Upper.
      if (next === NUMERIC || (next === UPPER && i > from && (cls(i - 1) === UPPER || cls(i - 1) === LOWER))) {
        i = k;
        continue;
      }
    }
    // SB9 and SB10 hold SATerm Close* Sp* together (and a paragraph separator after it, which
    // the branch above then breaks after).
    while (k < to && cls(k) === CLOSE) k++;
    while (k < to && cls(k) === SP) k++;
    if (k >= to) break;
    const next = cls(k);
    // A separator is handled above; SB8a: SATerm Close* Sp* × (SContinue | SATerm), and a
    // following terminator starts its own look from here.
    if (next === CR || next === LF || next === SEP || next === SCONTINUE || next === ATERM || next === STERM) {
      i = k;
      continue;
    }
    if (c === ATERM) {
      // SB8: ATerm Close* Sp* × (¬(OLetter | Upper | Lower | ParaSep | SATerm))* Lower.
      let m = k;
      for (; m < to; m++) {
        const d = cls(m);
        if (d === UPPER || d === LOWER || d === OLETTER || d === CR || d === LF || d === SEP || d === ATERM || d === STERM) break;
      }
      if (m < to && cls(m) === LOWER) {
        i = k;
        continue;
      }
    }
    // SB11: SATerm Close* Sp* ParaSep? ÷
    add(k);
    i = k;
  }
}
