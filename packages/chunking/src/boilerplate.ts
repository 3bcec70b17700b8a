/**
 * Seed 003's boilerplate removal for plain and extracted text: page numbers,
 * lines repeated as page headers or footers (more than 3 times, each next to
 * a page break), table-of-contents lines with page references, and a
 * trailing index. Only lines of top-level paragraphs are candidates, so code,
 * tables, lists and quotes are never touched.
 *
 * Removed spans are whole lines (with their line break). The strategy then
 * runs on the text without them (`cutSpans`) and `OffsetMap` maps its offsets
 * back, so every offset stays exact for what is kept.
 */
import { isJsBlank, lineTable, type LineTable } from './lines.js';
import type { Block, RemovedSpan, SourceRange } from './types.js';

const PAGE_NUMBER = /^(?:page\s+)?[-–—]?\s*[0-9]{1,4}\s*[-–—]?(?:\s*(?:of|\/)\s*[0-9]{1,4})?$/i;
/** A title, then dot leaders (or a wide gap), then a page number: `Chapter 3 ..... 47`. */
const TOC_LEADERS = /^\S.{0,100}?\s*(?:\.{3,}|…{2,}|(?:\. ){3,})\s*(?:[0-9]{1,4}|[ivxlc]{1,6})$/i;
const TOC_GAP = /^\S.{0,100}?\S(?:\s{3,}|\t+)(?:[0-9]{1,4}|[ivxlc]{1,6})$/i;
const INDEX_WITH_PAGES = /^\p{L}[\p{L}\p{N}'’\-–(). ]{0,60}(?:,\s*[0-9]{1,4}(?:\s*[-–]\s*[0-9]{1,4})?)+$/u;
const INDEX_WORD = /^\p{L}[\p{L}\p{N}'’\-]{0,30}$/u;
const MIN_REPEATS = 4;
const MIN_INDEX_ENTRIES = 8;
const NEAR_BREAK = 2;

/** The `text` of a non-blank line that is no candidate: no rule matches it or reads it but to see that it is not blank. */
const NOT_A_CANDIDATE = '\u0000';

/** Off only in the test that compares the spans found with and without them. */
let shortcuts = true;

/** For tests: every line's text sliced and every document scanned (`on` false), or not. */
export function setBoilerplateShortcutsForTests(on: boolean): void {
  shortcuts = on;
}

interface Line {
  /** Line start, content end, and the start of the next line (the removable span). */
  start: number;
  end: number;
  next: number;
  /** The line trimmed (a candidate's); '' for a blank line, NOT_A_CANDIDATE for any other. */
  text: string;
  /** Inside a top-level paragraph, after the front matter. */
  candidate: boolean;
}

export function findBoilerplate(source: string, blocks: Block[], bodyStart: number, table: LineTable = lineTable(source)): RemovedSpan[] {
  const count = table.starts.length;
  // Candidates are known before the objects are made, so that each is made with its final
  // `candidate` (writing it afterwards changed the field's representation on a hot path).
  const candidate = new Uint8Array(count);
  let candidates = 0;
  for (const b of blocks) {
    if (b.type !== 'paragraph') continue;
    for (let l = b.startLine; l <= b.endLine && l < count; l++) {
      if (table.starts[l]! >= bodyStart && candidate[l] === 0) {
        candidate[l] = 1;
        candidates++;
      }
    }
  }
  // Every rule below removes candidate lines only (a trailing index starts with one), so a
  // document without a top-level paragraph (a long list, issue 15) has nothing to remove.
  if (candidates === 0 && shortcuts) return [];
  const lines: Line[] = new Array<Line>(count);
  for (let i = 0; i < count; i++) {
    const start = table.starts[i]!;
    const end = table.ends[i]!;
    // Only a candidate's text is read; of any other line, only whether it is blank.
    const text = candidate[i] === 1 || !shortcuts ? source.slice(start, end).trim() : isJsBlank(source, start, end) ? '' : NOT_A_CANDIDATE;
    lines[i] = { start, end, next: i + 1 < count ? table.starts[i + 1]! : source.length, text, candidate: candidate[i] === 1 };
  }

  const removed = new Map<number, RemovedSpan['reason']>();
  for (let i = 0; i < count; i++) {
    const l = lines[i]!;
    if (l.candidate && mayBePageNumber(l.text) && PAGE_NUMBER.test(l.text)) removed.set(i, 'page-number');
  }
  // Page breaks: form feeds (PDF extraction) and page-number lines.
  // Without a form feed anywhere, only page-number lines are breaks (no slice per line to look).
  const formFeeds = source.includes('\f');
  const breaks: number[] = [];
  for (let i = 0; i < count; i++) {
    const l = lines[i]!;
    // (The line with its break holds its trimmed text: a form feed in either is in the slice.)
    if ((formFeeds && source.slice(l.start, l.next).includes('\f')) || removed.get(i) === 'page-number') breaks.push(i);
  }
  if (breaks.length) {
    // The start and the end of the document bound the first and last pages too.
    breaks.push(-1, lines.length);
    breaks.sort((a, b) => a - b);
    const counts = new Map<string, number[]>();
    lines.forEach((l, i) => {
      if (!l.candidate || removed.has(i) || l.text.length < 3 || l.text.length > 100 || !/\p{L}/u.test(l.text)) return;
      const key = l.text.replace(/[0-9]+/g, '#').replace(/\s+/g, ' ');
      const at = counts.get(key);
      if (at) at.push(i);
      else counts.set(key, [i]);
    });
    // Non-blank lines before each line, so the distance to a break is a subtraction, and only
    // the nearest break on either side is looked at (the distance grows with the gap). Before,
    // every repeat was measured against every break line by line: quadratic in tiny lines.
    const nonBlankBefore = new Int32Array(lines.length + 1);
    for (let k = 0; k < lines.length; k++) nonBlankBefore[k + 1] = nonBlankBefore[k]! + (lines[k]!.text ? 1 : 0);
    const between = (lo: number, hi: number): number =>
      nonBlankBefore[Math.min(hi + 1, lines.length)]! - nonBlankBefore[Math.max(0, Math.min(lo + 1, lines.length))]!;
    const nearBreak = (i: number): boolean => {
      let lo = 0;
      let hi = breaks.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (breaks[mid]! < i) lo = mid + 1;
        else hi = mid;
      }
      const after = breaks[lo]!;
      const before = lo > 0 ? breaks[lo - 1]! : undefined;
      const dAfter = after >= i ? between(i, after) : between(after, i);
      return dAfter <= NEAR_BREAK || (before !== undefined && between(before, i) <= NEAR_BREAK);
    };
    for (const at of counts.values()) {
      if (at.length < MIN_REPEATS) continue;
      const near = at.filter(nearBreak);
      if (near.length >= MIN_REPEATS) for (const i of near) removed.set(i, 'header-footer');
    }
  }
  let gapLines = 0;
  for (const l of lines) if (l.candidate && mayBeGapToc(l.text) && TOC_GAP.test(l.text)) gapLines++;
  const gapToc = gapLines >= 3;
  for (let i = 0; i < count; i++) {
    const l = lines[i]!;
    if (!l.candidate || removed.has(i)) continue;
    if ((mayBeLeaderToc(l.text) && TOC_LEADERS.test(l.text)) || (gapToc && mayBeGapToc(l.text) && TOC_GAP.test(l.text))) removed.set(i, 'toc');
  }
  const index = trailingIndex(lines);
  const spans: RemovedSpan[] = [];
  lines.forEach((l, i) => {
    const reason = removed.get(i);
    if (reason && (index === null || i < index)) spans.push({ start: l.start, end: l.next, reason });
  });
  if (index !== null) spans.push({ start: lines[index]!.start, end: source.length, reason: 'index' });
  return mergeAdjacent(spans);
}

/** First line of an alphabetically sorted run of index entries that ends the document, or null. */
function trailingIndex(lines: Line[]): number | null {
  let i = lines.length - 1;
  const entries: number[] = [];
  // Whether each entry (in the order collected) matched INDEX_WITH_PAGES, so that it is not tested twice.
  const paged: boolean[] = [];
  for (; i >= 0; i--) {
    const l = lines[i]!;
    if (!l.text) continue;
    if (!l.candidate || /^index$/i.test(l.text)) break;
    const withPages = mayBeIndexWithPages(l.text) && INDEX_WITH_PAGES.test(l.text);
    if (withPages || (mayBeIndexWord(l.text) && INDEX_WORD.test(l.text))) {
      entries.push(i);
      paged.push(withPages);
    } else break;
  }
  // Collected from the end (unshift made a run of thousands of short lines quadratic).
  entries.reverse();
  paged.reverse();
  if (entries.length < MIN_INDEX_ENTRIES) return null;
  // Equal letters compare equal: lower-cased and given to ICU only where the first letter changes.
  for (let k = 1; k < entries.length; k++) {
    const a = lines[entries[k - 1]!]!.text[0]!;
    const b = lines[entries[k]!]!.text[0]!;
    if (a === b) continue;
    const la = a.toLowerCase();
    const lb = b.toLowerCase();
    if (la !== lb && lb.localeCompare(la, 'en') < 0) return null;
  }
  const withPages = entries.some((e, k) => paged[k] === true && /[0-9]/.test(lines[e]!.text));
  const allWords = entries.every((e, k) => (paged[k] === true ? INDEX_WORD.test(lines[e]!.text) : true));
  if (!withPages && !allWords) return null;
  // An "Index" title right above the entries goes with them.
  let start = entries[0]!;
  for (let k = start - 1; k >= 0; k--) {
    const t = lines[k]!.text;
    if (!t) continue;
    if (/^index$/i.test(t) && lines[k]!.candidate) start = k;
    break;
  }
  return start;
}

// Cheap conditions each pattern above needs of a trimmed line, checked before the regex
// runs: most lines of prose fail them at their first or last character. Each is implied by
// its pattern (boilerplate.test.ts checks that on hostile strings); none decides alone.

/** PAGE_NUMBER (case-insensitive without `u`: only p/P fold to P) starts with p, a dash or a digit. */
export function mayBePageNumber(text: string): boolean {
  const c = text.charCodeAt(0);
  return (c >= 0x30 && c <= 0x39) || c === 0x70 || c === 0x50 || c === 0x2d || c === 0x2013 || c === 0x2014;
}

/** TOC_LEADERS and TOC_GAP end with a digit or a roman numeral letter (i v x l c, either case). */
function endsLikePageRef(text: string): boolean {
  if (text.length === 0) return false;
  const c = text.charCodeAt(text.length - 1);
  return (c >= 0x30 && c <= 0x39) || ROMAN.includes(text[text.length - 1]!);
}
const ROMAN = 'ivxlcIVXLC';

/** TOC_LEADERS also holds a `.` or a `…` (its leaders). */
export function mayBeLeaderToc(text: string): boolean {
  return endsLikePageRef(text) && (text.includes('.') || text.includes('…'));
}

/** TOC_GAP also holds whitespace (its gap), `\s` being JS's: any of it fails the test below. */
export function mayBeGapToc(text: string): boolean {
  return endsLikePageRef(text) && SPACE.test(text);
}
const SPACE = /\s/;

/** INDEX_WITH_PAGES holds a comma and ends with a digit. */
export function mayBeIndexWithPages(text: string): boolean {
  const c = text.charCodeAt(text.length - 1);
  return c >= 0x30 && c <= 0x39 && text.includes(',');
}

/** INDEX_WORD is at most 31 code points (62 code units) with no space. */
export function mayBeIndexWord(text: string): boolean {
  return text.length <= 62 && !text.includes(' ');
}

/** The patterns, for the test of the conditions above. */
export const PATTERNS = { PAGE_NUMBER, TOC_LEADERS, TOC_GAP, INDEX_WITH_PAGES, INDEX_WORD } as const;

function mergeAdjacent(spans: RemovedSpan[]): RemovedSpan[] {
  const out: RemovedSpan[] = [];
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    const last = out[out.length - 1];
    if (last && s.start <= last.end && last.reason === s.reason) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

/** The source without the spans. */
export function cutSpans(source: string, spans: readonly SourceRange[]): string {
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += source.slice(at, s.start);
    at = s.end;
  }
  return out + source.slice(at);
}

/** Maps offsets in the cut text back to the source. */
export class OffsetMap {
  /** Where each span sits in the cut text, and the characters removed up to and including it. */
  private readonly at: number[] = [];
  private readonly removedThrough: number[] = [];

  constructor(private readonly spans: readonly SourceRange[]) {
    let removed = 0;
    for (const s of spans) {
      this.at.push(s.start - removed);
      removed += s.end - s.start;
      this.removedThrough.push(removed);
    }
  }

  /** A chunk starting at `p` starts after any span removed at `p`. */
  start(p: number): number {
    return p + this.removedUpTo(p, true);
  }

  /** A chunk ending at `p` ends before any span removed at `p`. */
  end(p: number): number {
    return p + this.removedUpTo(p, false);
  }

  /** The spans inside `[start, end)` of the source (spans are sorted and disjoint). */
  within(start: number, end: number): SourceRange[] {
    const out: SourceRange[] = [];
    for (let i = firstAtOrAfter(this.spans.length, (k) => this.spans[k]!.start >= start); i < this.spans.length; i++) {
      const s = this.spans[i]!;
      if (s.start > end) break;
      if (s.end <= end) out.push({ start: s.start, end: s.end });
    }
    return out;
  }

  // Binary searches: one call per chunk boundary, so a linear scan of the spans made a
  // document with thousands of removed lines quadratic.
  private removedUpTo(p: number, inclusive: boolean): number {
    const k = firstAtOrAfter(this.at.length, (i) => (inclusive ? this.at[i]! > p : this.at[i]! >= p));
    return k === 0 ? 0 : this.removedThrough[k - 1]!;
  }
}

/** The first index in [0, n) where the monotone `ok` holds, or n. */
function firstAtOrAfter(n: number, ok: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ok(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
