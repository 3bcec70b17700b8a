/**
 * Exact cl100k_base token counts (`cl100k-count.ts`: gpt-tokenizer's BPE,
 * memoised per pre-token, counting slices in place) and the seed 003 estimator.
 *
 * The packer needs the exact count of many overlapping slices of one document.
 * Counting each slice from scratch would tokenize the document several times, so
 * `TokenIndex` relies on a property of cl100k's pre-tokenizer: a text split at
 * the start of a line that holds a non-whitespace character, right after a
 * `\n`, tokenizes as the concatenation of its two halves (no pre-token can
 * straddle that point: the `\n` run ends one pre-token, and the next line's
 * first pre-token cannot reach back past it). `tokens.test.ts` checks the
 * property against direct counts on real documents and random text.
 */
import { countRange } from './cl100k-count.js';

/**
 * Exact cl100k_base token count of `text`. Special-token text such as
 * `<|endoftext|>` is counted as ordinary text.
 */
export function countTokens(text: string): number {
  return countRange(text, 0, text.length);
}

/** Exact cl100k_base token count of `text.slice(start, end)`, without the slice. */
export function countSlice(text: string, start: number, end: number): number {
  return end <= start ? 0 : countRange(text, start, end);
}

/**
 * Seed 003's character/word heuristic, kept as `tokenStats.estimatedTokens` so
 * readers can see how far the cheap estimate is from the exact count.
 */
export function estimateTokens(text: string): number {
  // Same as splitting on /\s+/ and scoring each word, without the arrays.
  let tokens = 0;
  let words = 0;
  let len = 0;
  const score = (): void => {
    if (len === 0) return;
    words++;
    tokens += len <= 4 ? 1 : len <= 8 ? 1.3 : Math.ceil(len / 4);
    len = 0;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13) || (c >= 128 && WHITESPACE.test(text[i]!))) score();
    else len++;
  }
  score();
  return words === 0 ? 0 : Math.max(1, Math.round(tokens));
}

/**
 * Exact token counts of arbitrary slices of one source, counting each
 * character about once. Safe points are the starts of non-blank lines; the
 * index stores the cumulative count at each, so a slice costs two partial-line
 * counts plus a subtraction.
 */
export class TokenIndex {
  /** Safe points (starts of non-blank lines), ascending; starts with 0. */
  private readonly points: number[] = [];
  /** `prefix[i]` = tokens of `source.slice(0, points[i])`. */
  private readonly prefix: number[] = [];
  /**
   * Registered line-content ends → tokens of `source.slice(0, end)`. Exact as
   * the end of a slice, but no split point: the punctuation before a line break
   * tokenizes together with it.
   */
  private readonly endPrefix = new Map<number, number>();

  /**
   * @param cuts offsets where the caller would like exact counts to start or
   *   end: block line starts (safe points) and block ends (the end of a line's
   *   content, before its line break).
   */
  constructor(
    readonly source: string,
    cuts: Iterable<number>,
  ) {
    const safe: number[] = [];
    const ends = new Set<number>();
    for (const c of cuts) {
      if (c > 0 && c < source.length) {
        if (isSafePoint(source, c)) safe.push(c);
        else if (isContentEnd(source, c)) ends.add(c);
      }
    }
    const sorted = [...new Set(safe)].sort((a, b) => a - b);
    sorted.push(source.length);
    const endsSorted = [...ends].sort((a, b) => a - b);
    this.points.push(0);
    this.prefix.push(0);
    let total = 0;
    let last = 0;
    let e = 0;
    for (const next of sorted) {
      // A segment runs from one safe point to the next. When a registered
      // content end lies in it with only whitespace after it, count the text up
      // to that end and derive the gap's share, so a block's end gets an exact
      // count without counting its last line twice.
      while (e < endsSorted.length && endsSorted[e]! <= last) e++;
      let contentEnd = -1;
      while (e < endsSorted.length && endsSorted[e]! < next) contentEnd = endsSorted[e++]!;
      if (contentEnd > last && isBlank(source, contentEnd, next)) {
        const content = countSlice(source, last, contentEnd);
        this.endPrefix.set(contentEnd, total + content);
        total += content + gapTokens(source, lineStartBefore(source, contentEnd, last), contentEnd, next);
      } else {
        total += countSlice(source, last, next);
      }
      if (next < source.length) {
        this.points.push(next);
        this.prefix.push(total);
      }
      last = next;
    }
  }

  /** Exact token count of `source.slice(start, end)`. */
  count(start: number, end: number): number {
    if (end <= start) return 0;
    const first = this.firstPointAtOrAfter(start);
    if (first === -1) return this.partial(start, end);
    const a = this.points[first]!;
    const atEnd = this.endPrefix.get(end);
    if (atEnd !== undefined && a <= end) return this.partial(start, a) + (atEnd - this.prefix[first]!);
    const lastIdx = this.lastPointAtOrBefore(end);
    if (lastIdx < first) return this.partial(start, end);
    const b = this.points[lastIdx]!;
    return this.partial(start, a) + (this.prefix[lastIdx]! - this.prefix[first]!) + this.partial(b, end);
  }

  /**
   * Memoized count of a slice that lies within one segment (a line and the
   * blank lines after it): the packer asks for the same block ends many times.
   */
  private partial(start: number, end: number): number {
    if (end <= start) return 0;
    const key = start * (this.source.length + 1) + end;
    let n = this.partials.get(key);
    if (n === undefined) {
      n = countSlice(this.source, start, end);
      this.partials.set(key, n);
    }
    return n;
  }

  private readonly partials = new Map<number, number>();

  private firstPointAtOrAfter(offset: number): number {
    let lo = 0;
    let hi = this.points.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.points[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.points.length ? lo : -1;
  }

  private lastPointAtOrBefore(offset: number): number {
    let lo = 0;
    let hi = this.points.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.points[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }
}

/**
 * True when `source` may be split at `offset` without changing the
 * tokenization: right after a `\n`, at a line that has a non-whitespace
 * character before its end.
 */
export function isSafePoint(source: string, offset: number): boolean {
  if (offset <= 0 || offset >= source.length) return offset === 0 || offset === source.length;
  if (source.charCodeAt(offset - 1) !== 10) return false;
  for (let i = offset; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 10 || c === 13) return false;
    // Same notion of whitespace as the pre-tokenizer's `\s` (which includes NBSP etc.).
    if (c > 32 && c < 128) return true;
    if (c >= 128 ? !WHITESPACE.test(source[i]!) : c !== 32 && c !== 9 && c !== 12 && c !== 11) return true;
  }
  return false;
}

const WHITESPACE = /^\s$/u;

/** Start of the line holding `offset`, not before `floor`. */
function lineStartBefore(source: string, offset: number, floor: number): number {
  let i = offset;
  while (i > floor && source.charCodeAt(i - 1) !== 10 && source.charCodeAt(i - 1) !== 13) i--;
  return i;
}

function isBlank(source: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!WHITESPACE.test(source[i]!)) return false;
  return true;
}

/** True when `offset` ends a line's content: a line break follows, a non-whitespace character precedes. */
function isContentEnd(source: string, offset: number): boolean {
  const next = source.charCodeAt(offset);
  return (next === 10 || next === 13) && !WHITESPACE.test(source[offset - 1] ?? ' ');
}

// cl100k's pre-token for a run of punctuation, ` ?[^\s\p{L}\p{N}]+[\r\n]*`: an
// optional space, the run, and every line break right after it. It is the one
// pre-token that reaches from a line's content into the line break after it.
const LEADING_BREAKS = /^[\r\n]+/;

/**
 * Tokens that the gap `source.slice(contentEnd, next)` (a line break and blank
 * lines) adds to the line `source.slice(lineStart, contentEnd)` in context:
 * count(line + gap) − count(line). Only the line's last pre-token can change,
 * and only when it is punctuation that swallows the gap's line breaks.
 */
function gapTokens(source: string, lineStart: number, contentEnd: number, next: number): number {
  const gap = source.slice(contentEnd, next);
  const breaks = LEADING_BREAKS.exec(gap)?.[0] ?? '';
  const tailStart = breaks ? punctuationTailStart(source, lineStart, contentEnd) : contentEnd;
  if (tailStart === contentEnd) return memoCount(gap);
  const tail = source.slice(tailStart, contentEnd);
  return memoCount(tail + breaks) - memoCount(tail) + memoCount(gap.slice(breaks.length));
}

/**
 * Start of the line's trailing punctuation pre-token (` ?[^\s\p{L}\p{N}]+` at the
 * end of `source.slice(lineStart, contentEnd)`), or `contentEnd` when the line
 * ends in a letter, digit or whitespace. A backward scan: the same as matching
 * TRAILING_PUNCTUATION, without a regex attempt at every position.
 */
function punctuationTailStart(source: string, lineStart: number, contentEnd: number): number {
  let i = contentEnd;
  while (i > lineStart) {
    const c = source.charCodeAt(i - 1);
    let width = 1;
    let punct: boolean;
    if (c < 128) {
      punct = !((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 32 || (c >= 9 && c <= 13));
    } else {
      // Judge whole code points: a surrogate pair may be a letter (𝐀) or not (😀).
      if (c >= 0xdc00 && c <= 0xdfff && i - 2 >= lineStart) {
        const h = source.charCodeAt(i - 2);
        if (h >= 0xd800 && h <= 0xdbff) width = 2;
      }
      punct = !LETTER_NUMBER_SPACE.test(source.slice(i - width, i));
    }
    if (!punct) break;
    i -= width;
  }
  if (i < contentEnd && i > lineStart && source.charCodeAt(i - 1) === 32) i--;
  return i;
}

const LETTER_NUMBER_SPACE = /^[\s\p{L}\p{N}]$/u;

// Gaps and punctuation tails repeat endlessly ("\n\n", ".", "```"): count each once.
const memo = new Map<string, number>();
function memoCount(text: string): number {
  let n = memo.get(text);
  if (n === undefined) {
    n = countTokens(text);
    if (memo.size > 50_000) memo.clear();
    memo.set(text, n);
  }
  return n;
}
