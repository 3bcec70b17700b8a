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
import { isJsBlank, isJsTrimmed, lineTable, type LineTable } from './lines.js';
import { SpareColumns } from './spare.js';
import type { Block, RemovedSpan, SourceRange } from './types.js';

/**
 * Each run of whitespace has one place to go. The old pattern could split a run between
 * `page\s+` and `\s*`, or between the `\s*` on either side of an optional dash, and tried every
 * split before failing: a line of `page`, 4,000 tabs, `0`, 4,000 tabs and `/` took three minutes
 * (cubic; issue 15 probe).
 */
const PAGE_NUMBER = /^(?:page\s)?\s*(?:[-–—]\s*)?[0-9]{1,4}\s*(?:[-–—]\s*)?(?:(?:of|\/)\s*[0-9]{1,4})?$/i;
/** A title, then dot leaders (or a wide gap), then a page number: `Chapter 3 ..... 47`. */
const TOC_LEADERS = /^\S.{0,100}?\s*(?:\.{3,}|…{2,}|(?:\. ){3,})\s*(?:[0-9]{1,4}|[ivxlc]{1,6})$/i;
const TOC_GAP = /^\S.{0,100}?\S(?:\s{3,}|\t+)(?:[0-9]{1,4}|[ivxlc]{1,6})$/i;
const INDEX_WITH_PAGES = /^\p{L}[\p{L}\p{N}'’\-–(). ]{0,60}(?:,\s*[0-9]{1,4}(?:\s*[-–]\s*[0-9]{1,4})?)+$/u;
const INDEX_WORD = /^\p{L}[\p{L}\p{N}'’\-]{0,30}$/u;
const MIN_REPEATS = 4;
const MIN_INDEX_ENTRIES = 8;
const NEAR_BREAK = 2;

/** Codes of `RemovedSpan['reason']` per line (0: kept). */
const PAGE = 1;
const HEADER_FOOTER = 2;
const TOC = 3;
const REASONS = [undefined, 'page-number', 'header-footer', 'toc'] as const;
/** How a line reads as a contents line: with dot leaders (always one), or with a gap (one when three are). */
const LEADERS = 1;
const GAP = 2;

/**
 * findBoilerplate's columns, a line's entry each, kept for the next call (it runs to its end, and
 * nothing reads them after): made fresh, 10 MB of tiny paragraphs faulted in 40 MB of them in
 * every pass (issue 15).
 */
const COLUMNS = new SpareColumns(4);
const CANDIDATE = 0;
const TRIM_START = 1;
const TRIM_END = 2;
const REMOVED = 3;

/**
 * Columnar: a line is its index into the line table, and a candidate's trimmed text is the
 * offsets `trimStart`/`trimEnd`, sliced only where a rule's cheap condition holds. An object
 * and a slice per line were a fifth of a document of tiny paragraphs (issue 15).
 * boilerplate.test.ts holds this to a line-object reference that slices every line.
 */
export function findBoilerplate(source: string, blocks: Block[], bodyStart: number, table: LineTable = lineTable(source)): RemovedSpan[] {
  const { starts, ends } = table;
  const count = starts.length;
  const candidate = COLUMNS.zeroed(CANDIDATE, Uint8Array, count);
  let candidates = 0;
  // Indexed: run once a document, this loop is seldom optimized, and for-of then made an
  // iterator result per block (4.2 MB a pass over 1 MB of lazy quotes, issue 15).
  for (let k = 0; k < blocks.length; k++) {
    const b = blocks[k]!;
    if (b.type !== 'paragraph') continue;
    for (let l = b.startLine; l <= b.endLine && l < count; l++) {
      if (starts[l]! >= bodyStart && candidate[l] === 0) {
        candidate[l] = 1;
        candidates++;
      }
    }
  }
  // Every rule below removes candidate lines only (a trailing index starts with one), so a
  // document without a top-level paragraph (a long list, issue 15) has nothing to remove.
  if (candidates === 0) return [];
  // A blank candidate has trimStart === trimEnd. Other lines' are not set (they hold what the
  // last call left there): of them, only whether they are blank is read (`blankAt`). The same
  // pass finds page numbers and counts gap-style contents lines, which need nothing but the line
  // itself (three passes over 400,000 lines of one-line paragraphs before session 56).
  const trimStart = COLUMNS.column(TRIM_START, Int32Array, count);
  const trimEnd = COLUMNS.column(TRIM_END, Int32Array, count);
  const removed = COLUMNS.zeroed(REMOVED, Uint8Array, count);
  let pageNumbers = 0;
  let gapLines = 0;
  // Lines that read as contents lines (TOC_LEADERS, or TOC_GAP: a gap line counts only when
  // three do), found in this pass and marked once the page furniture is known: a pass over
  // every line for them read each line again where no line has a page reference (issue 15).
  const contentsLines: number[] = [];
  const contentsKinds: number[] = [];
  for (let i = 0; i < count; i++) {
    if (candidate[i] === 0) continue;
    let a = starts[i]!;
    let z = ends[i]!;
    while (a < z && isJsTrimmed(source.charCodeAt(a))) a++;
    while (z > a && isJsTrimmed(source.charCodeAt(z - 1))) z--;
    trimStart[i] = a;
    trimEnd[i] = z;
    if (a === z) continue;
    if (mayBePageNumberAt(source, a) && PAGE_NUMBER.test(source.slice(a, z))) {
      removed[i] = PAGE;
      pageNumbers++;
    }
    const mayGap = mayBeGapTocAt(source, a, z);
    const mayLeaders = mayBeLeaderTocAt(source, a, z);
    if (mayGap || mayLeaders) {
      const line = source.slice(a, z);
      const gap = mayGap && TOC_GAP.test(line);
      if (gap) gapLines++;
      const leaders = mayLeaders && TOC_LEADERS.test(line);
      if (gap || leaders) {
        contentsLines.push(i);
        contentsKinds.push(leaders ? LEADERS : GAP);
      }
    }
  }
  let removedLines = pageNumbers;
  const text = (i: number): string => source.slice(trimStart[i], trimEnd[i]);
  const blankAt = (i: number): boolean => (candidate[i] === 1 ? trimStart[i] === trimEnd[i] : isJsBlank(source, starts[i]!, ends[i]!));
  const next = (i: number): number => (i + 1 < count ? starts[i + 1]! : source.length);

  // Page breaks: form feeds (PDF extraction) and page-number lines.
  const breaks: number[] = [];
  if (pageNumbers > 0 || source.includes('\f')) {
    // A line holds a form feed when one lies in its span with its break (`\f` breaks no line).
    let ff = source.indexOf('\f');
    for (let i = 0; i < count; i++) {
      const n = next(i);
      while (ff !== -1 && ff < starts[i]!) ff = source.indexOf('\f', ff + 1);
      if ((ff !== -1 && ff < n) || removed[i] === PAGE) breaks.push(i);
    }
  }
  if (breaks.length) {
    // The start and the end of the document bound the first and last pages too.
    breaks.push(-1, count);
    breaks.sort((a, b) => a - b);
    const counts = new Map<string, number[]>();
    for (let i = 0; i < count; i++) {
      if (candidate[i] === 0 || removed[i] !== 0) continue;
      const length = trimEnd[i]! - trimStart[i]!;
      if (length < 3 || length > 100) continue;
      const t = text(i);
      if (!/\p{L}/u.test(t)) continue;
      const key = t.replace(/[0-9]+/g, '#').replace(/\s+/g, ' ');
      const at = counts.get(key);
      if (at) at.push(i);
      else counts.set(key, [i]);
    }
    // Non-blank lines before each line, so the distance to a break is a subtraction, and only
    // the nearest break on either side is looked at (the distance grows with the gap). Before,
    // every repeat was measured against every break line by line: quadratic in tiny lines.
    const nonBlankBefore = new Int32Array(count + 1);
    for (let k = 0; k < count; k++) nonBlankBefore[k + 1] = nonBlankBefore[k]! + (blankAt(k) ? 0 : 1);
    const between = (lo: number, hi: number): number => nonBlankBefore[Math.min(hi + 1, count)]! - nonBlankBefore[Math.max(0, Math.min(lo + 1, count))]!;
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
      if (near.length >= MIN_REPEATS) {
        for (const i of near) removed[i] = HEADER_FOOTER;
        removedLines += near.length;
      }
    }
  }
  const gapToc = gapLines >= 3;
  for (let k = 0; k < contentsLines.length; k++) {
    const i = contentsLines[k]!;
    if (removed[i] === 0 && (contentsKinds[k] === LEADERS || gapToc)) {
      removed[i] = TOC;
      removedLines++;
    }
  }
  let index = trailingIndex(source, candidate, trimStart, trimEnd, blankAt);
  // An index ends a document with something else in it: a document of nothing but short word
  // lines (a glossary, `x1` paragraphs) is its own text, not a book's index (it lost every line).
  if (index !== null && !keptBefore(index, starts, bodyStart, removed, blankAt)) index = null;
  const spans: RemovedSpan[] = [];
  const last = removedLines === 0 ? 0 : (index ?? count);
  for (let i = 0; i < last; i++) {
    const reason = REASONS[removed[i]!];
    if (reason) spans.push({ start: starts[i]!, end: next(i), reason });
  }
  if (index !== null) spans.push({ start: starts[index]!, end: source.length, reason: 'index' });
  return mergeAdjacent(spans);
}

/** Whether a non-blank line of the body before `line` is kept. */
function keptBefore(line: number, starts: Int32Array, bodyStart: number, removed: Uint8Array, blankAt: (i: number) => boolean): boolean {
  for (let k = line - 1; k >= 0 && starts[k]! >= bodyStart; k--) if (removed[k] === 0 && !blankAt(k)) return true;
  return false;
}

const isIndexTitle = (source: string, a: number, z: number): boolean => z - a === 5 && /^index$/i.test(source.slice(a, z));

/** First line of an alphabetically sorted run of index entries that ends the document, or null. */
function trailingIndex(source: string, candidate: Uint8Array, trimStart: Int32Array, trimEnd: Int32Array, blankAt: (i: number) => boolean): number | null {
  // Walked from the end with no array of the entries (a document of tiny lines is one run of
  // hundreds of thousands): each entry is compared with the one after it as it is reached, and
  // an unsorted pair ends the walk, the answer being null however long the run.
  let entries = 0;
  let first = -1;
  let withPages = false;
  let allWords = true;
  for (let i = candidate.length - 1; i >= 0; i--) {
    if (blankAt(i)) continue;
    if (candidate[i] === 0) break;
    const a = trimStart[i]!;
    const z = trimEnd[i]!;
    if (isIndexTitle(source, a, z)) break;
    // A word line holds no comma, so it cannot be an entry with pages: looked for only when not one.
    const word = isIndexWordAt(source, a, z);
    const paged = !word && mayBeIndexWithPagesAt(source, a, z) && INDEX_WITH_PAGES.test(source.slice(a, z));
    if (!paged && !word) break;
    if (paged) {
      const t = source.slice(a, z);
      if (/[0-9]/.test(t)) withPages = true;
      if (!INDEX_WORD.test(t)) allWords = false;
    }
    // Equal letters compare equal: lower-cased and given to ICU only where the first letter
    // changes. Compared as code units (a one-character string each was most of the walk over
    // a document of `pNN` lines, every one an index word, issue 15).
    if (first !== -1) {
      const x = source.charCodeAt(a);
      const y = source.charCodeAt(trimStart[first]!);
      if (x !== y) {
        const lx = String.fromCharCode(x).toLowerCase();
        const ly = String.fromCharCode(y).toLowerCase();
        if (lx !== ly && ly.localeCompare(lx, 'en') < 0) return null;
      }
    }
    first = i;
    entries++;
  }
  if (entries < MIN_INDEX_ENTRIES) return null;
  if (!withPages && !allWords) return null;
  // An "Index" title right above the entries goes with them.
  let start = first;
  for (let k = start - 1; k >= 0; k--) {
    if (blankAt(k)) continue;
    if (candidate[k] === 1 && isIndexTitle(source, trimStart[k]!, trimEnd[k]!)) start = k;
    break;
  }
  return start;
}

/**
 * INDEX_WORD on `source.slice(a, z)` (trimmed, non-empty): ASCII decided here, anything else
 * by the pattern.
 */
function isIndexWordAt(source: string, a: number, z: number): boolean {
  if (z - a > 62) return false;
  const first = source.charCodeAt(a);
  const c = first | 0x20;
  if (first < 0x80 && !(c >= 0x61 && c <= 0x7a)) return false;
  if (first < 0x80) {
    let ascii = true;
    for (let k = a + 1; k < z; k++) {
      const d = source.charCodeAt(k);
      if (d >= 0x80) {
        ascii = false;
        break;
      }
      const l = d | 0x20;
      if (!((l >= 0x61 && l <= 0x7a) || (d >= 0x30 && d <= 0x39) || d === 0x27 || d === 0x2d)) return false;
    }
    if (ascii) return z - a <= 31;
  }
  return INDEX_WORD.test(source.slice(a, z));
}

/**
 * PAGE_NUMBER starts with a dash, a digit or `page` and whitespace (case-insensitive without `u`:
 * only ASCII letters fold). Until session 56 any line starting with p or P ran the pattern and a
 * slice (one-line paragraphs such as `p12`).
 */
function mayBePageNumberAt(source: string, a: number): boolean {
  const c = source.charCodeAt(a);
  if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2013 || c === 0x2014) return true;
  return (
    (c | 0x20) === 0x70 &&
    (source.charCodeAt(a + 1) | 0x20) === 0x61 &&
    (source.charCodeAt(a + 2) | 0x20) === 0x67 &&
    (source.charCodeAt(a + 3) | 0x20) === 0x65 &&
    isJsTrimmed(source.charCodeAt(a + 4))
  );
}

/** TOC_LEADERS and TOC_GAP end with a digit or a roman numeral letter (i v x l c, either case). */
function endsLikePageRefAt(source: string, a: number, z: number): boolean {
  return z > a && isPageRefChar(source.charCodeAt(z - 1));
}

function holdsAt(source: string, a: number, z: number, has: (c: number) => boolean): boolean {
  for (let k = a; k < z; k++) if (has(source.charCodeAt(k))) return true;
  return false;
}
const isLeader = (c: number): boolean => c === 0x2e || c === 0x2026;

/**
 * TOC_LEADERS's leaders (`...`, `……`, `. . . `) end with a `.` or a `…` right before its page
 * reference, but for whitespace: the reference's digits or roman letters are walked back over,
 * then whitespace, rather than the whole line searched for a leader (a line of words ending in a
 * number, issue 15).
 */
function mayBeLeaderTocAt(source: string, a: number, z: number): boolean {
  if (!endsLikePageRefAt(source, a, z)) return false;
  let k = z - 1;
  while (k > a && isPageRefChar(source.charCodeAt(k))) k--;
  while (k > a && isJsTrimmed(source.charCodeAt(k))) k--;
  return k > a && isLeader(source.charCodeAt(k));
}

/** A character of TOC_LEADERS's and TOC_GAP's page reference: a digit or a roman numeral letter (either case). */
function isPageRefChar(c: number): boolean {
  if (c >= 0x30 && c <= 0x39) return true;
  const l = c | 0x20;
  return l === 0x69 || l === 0x76 || l === 0x78 || l === 0x6c || l === 0x63;
}

/**
 * TOC_GAP's gap ends where its page reference starts, after the line's last whitespace
 * character: that one is a tab, or the last of three whitespace characters (JS's `\s` is the set
 * String.prototype.trim removes, isJsTrimmed). A line of words with a number (`lazy 12`) had
 * the pattern run and a slice made for it (issue 15).
 */
function mayBeGapTocAt(source: string, a: number, z: number): boolean {
  if (!endsLikePageRefAt(source, a, z)) return false;
  // The page reference is at most six characters, so that whitespace is among the last seven:
  // looked for no further (a megabyte-long line of letters ending in `i` was read back whole).
  const floor = Math.max(a, z - 8);
  let w = z - 1;
  while (w > floor && !isJsTrimmed(source.charCodeAt(w))) w--;
  if (w <= floor) return false;
  return source.charCodeAt(w) === 0x09 || (w - 2 > a && isJsTrimmed(source.charCodeAt(w - 1)) && isJsTrimmed(source.charCodeAt(w - 2)));
}

/** INDEX_WITH_PAGES holds a comma and ends with a digit. */
function mayBeIndexWithPagesAt(source: string, a: number, z: number): boolean {
  const c = source.charCodeAt(z - 1);
  return c >= 0x30 && c <= 0x39 && holdsAt(source, a, z, (d) => d === 0x2c);
}

// Cheap conditions each pattern above needs of a trimmed line (`source.slice(a, z)`), checked
// before the regex runs: most lines of prose fail them at their first or last character. Each
// is implied by its pattern (boilerplate.test.ts checks that on hostile strings); none decides
// alone. The string forms are for that test.

export const mayBePageNumber = (text: string): boolean => mayBePageNumberAt(text, 0);
export const mayBeLeaderToc = (text: string): boolean => mayBeLeaderTocAt(text, 0, text.length);
export const mayBeGapToc = (text: string): boolean => mayBeGapTocAt(text, 0, text.length);
export const mayBeIndexWithPages = (text: string): boolean => mayBeIndexWithPagesAt(text, 0, text.length);
/** Decides (not only a condition): equal to INDEX_WORD's test. */
export const isIndexWord = (text: string): boolean => text.length > 0 && isIndexWordAt(text, 0, text.length);

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
