/**
 * UAX #29's sentence boundary rules on ASCII text, with the answer ICU's segmenter gives
 * (sentence-rules.test.ts holds the two equal on hostile ASCII strings).
 *
 * Why not ICU here: V8's segment iterator makes an object and a string per segment and reads
 * further per segment the longer its input is, so text of short sentences cost more than a
 * microsecond a character: 1 MB of `A. B. C.` took 1.5 s, `e.g. i.e. Dr.` 0.6 s, where 1 MB
 * of prose takes 30 ms (a session 58 probe). Only ASCII is decided here; any other character
 * leaves its text to ICU, whose property tables this module does not repeat.
 *
 * The ASCII classes (SentenceBreakProperty.txt): Sp is TAB, VT, FF and space; Close is `"`,
 * `'` and brackets; SContinue `,` `-` `:` `;`; ATerm `.`; STerm `!` `?`; Numeric the digits;
 * Upper and Lower the letters. ASCII has no Sep, Format, Extend or OLetter, so SB5 never applies.
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

const CLASS = new Uint8Array(128);
CLASS[0x0d] = CR;
CLASS[0x0a] = LF;
for (const c of [0x09, 0x0b, 0x0c, 0x20]) CLASS[c] = SP;
for (let c = 0x61; c <= 0x7a; c++) CLASS[c] = LOWER;
for (let c = 0x41; c <= 0x5a; c++) CLASS[c] = UPPER;
for (let c = 0x30; c <= 0x39; c++) CLASS[c] = NUMERIC;
CLASS[0x2e] = ATERM;
CLASS[0x21] = STERM;
CLASS[0x3f] = STERM;
for (const ch of `"'()[]{}`) CLASS[ch.charCodeAt(0)] = CLOSE;
for (const ch of ',-:;') CLASS[ch.charCodeAt(0)] = SCONTINUE;

/** Whether `text.slice(from, to)` is ASCII, so that asciiSentenceBreaks may decide it. */
export function isAsciiRange(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
}

/**
 * Calls `add` with each sentence boundary strictly inside `text.slice(from, to)`, in order, as
 * ICU finds them in that slice alone (its start and end are the text's: no rule looks past
 * them). The slice must be ASCII (isAsciiRange). Linear: each character is read a bounded number
 * of times (SB8's look-ahead stops at the next terminator, where the next look-ahead starts).
 */
export function asciiSentenceBreaks(text: string, from: number, to: number, add: (at: number) => void): void {
  const cls = (i: number): number => CLASS[text.charCodeAt(i)]!;
  let i = from;
  while (i < to) {
    const c = cls(i);
    if (c === CR || c === LF) {
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
    if (next === CR || next === LF || next === SCONTINUE || next === ATERM || next === STERM) {
      i = k;
      continue;
    }
    if (c === ATERM) {
      // SB8: ATerm Close* Sp* × (¬(OLetter | Upper | Lower | ParaSep | SATerm))* Lower.
      let m = k;
      for (; m < to; m++) {
        const d = cls(m);
        if (d === UPPER || d === LOWER || d === CR || d === LF || d === ATERM || d === STERM) break;
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
