/**
 * Exact cl100k_base token counts (`cl100k-count.ts`: gpt-tokenizer's BPE,
 * memoised per pre-token, counting slices in place) and the seed 003 estimator.
 *
 * The packer needs the exact count of many overlapping slices of one document.
 * Counting each slice from scratch would tokenize the document several times, so
 * `TokenIndex` scans the document once and keeps the running count at every
 * boundary between its pre-tokens; a slice then costs the few pre-tokens at its
 * two ends (`SliceCounter` says why that is exact for any slice).
 * `tokens.test.ts` checks it against direct counts on real documents and
 * random text.
 */
import { countRange, SliceCounter, type Words } from './cl100k-count.js';

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
  return estimateTokensRange(text, 0, text.length);
}

/**
 * `estimateTokens(text.slice(start, end))` without the slice. Reading the
 * document itself, a flat string, is also faster than reading a slice of it.
 */
export function estimateTokensRange(text: string, start: number, end: number): number {
  // Same as splitting on /\s+/ and scoring each word, without the arrays. The
  // scoring is inline rather than in a closure: captured counters would live in
  // a heap context, and the fractional sum would allocate on every word.
  let tokens = 0;
  let words = 0;
  let len = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 ? ASCII_SPACE[c] === 1 : WHITESPACE.test(text[i]!)) {
      if (len !== 0) {
        words++;
        tokens += len <= 4 ? 1 : len <= 8 ? 1.3 : Math.ceil(len / 4);
        len = 0;
      }
    } else {
      len++;
    }
  }
  if (len !== 0) {
    words++;
    tokens += len <= 4 ? 1 : len <= 8 ? 1.3 : Math.ceil(len / 4);
  }
  return words === 0 ? 0 : Math.max(1, Math.round(tokens));
}

/**
 * Exact token counts of arbitrary slices of one source, counting each
 * character about once, and seed 003's estimate of any slice from the words
 * the same scan found.
 */
export class TokenIndex {
  private readonly counter: SliceCounter;
  /** Per word boundary k: the estimate's sum over words 0..k-1, in tenths of a token. */
  private cumTenths: Int32Array | null = null;
  /** Per word boundary k: how many of words 0..k-1 weigh 1.3 (5 to 8 characters). */
  private cumMid: Int32Array | null = null;

  /**
   * @param _cuts offsets where the caller expects slices to start or end. No
   *   longer needed (any slice is exact and cheap); kept for callers' sake.
   */
  constructor(
    readonly source: string,
    _cuts?: Iterable<number>,
  ) {
    this.counter = new SliceCounter(source);
  }

  /** Exact token count of `source.slice(start, end)`. */
  count(start: number, end: number): number {
    return this.counter.count(start, end);
  }

  /**
   * `estimateTokensRange(source, start, end)`, in O(log words) after the first
   * call. The estimate is a sum of 1, 1.3 and whole numbers, added in text
   * order; summed in tenths it is exact, and rounds as the float sum does,
   * unless its fraction is exactly .5, where the float sum's rounding errors
   * decide: that happens when the count of 1.3-words ends in 5, and then the
   * words are added one by one as estimateTokensRange does.
   */
  estimate(start: number, end: number): number {
    const words = this.counter.words;
    if (words === null || end <= start) return estimateTokensRange(this.source, start, end);
    const { starts, ends } = words;
    const cumTenths = this.cumTenths ?? this.sumWords(words);
    const cumMid = this.cumMid!;
    const first = firstAbove(ends, words.count, start); // first word ending after start
    const stop = firstAbove(starts, words.count, end - 1); // first word starting at or after end
    if (first >= stop) return 0;
    let tenths = cumTenths[stop]! - cumTenths[first]!;
    let mid = cumMid[stop]! - cumMid[first]!;
    // Words cut by the slice's ends count as the part inside it.
    const last = stop - 1;
    const firstCut = starts[first]! < start;
    const lastCut = ends[last]! > end;
    if (firstCut || lastCut) {
      for (const k of first === last ? [first] : [first, last]) {
        const a = starts[k]!;
        const b = ends[k]!;
        if (a >= start && b <= end) continue;
        const whole = b - a;
        const inside = Math.min(b, end) - Math.max(a, start);
        tenths += wordTenths(inside) - wordTenths(whole);
        mid += isMidWord(inside) - isMidWord(whole);
      }
    }
    if (mid % 10 === 5) return estimateTokensRange(this.source, start, end);
    return Math.max(1, Math.round(tenths / 10));
  }

  private sumWords(words: Words): Int32Array {
    const { count, starts, ends } = words;
    const cumTenths = new Int32Array(count + 1);
    const cumMid = new Int32Array(count + 1);
    let tenths = 0;
    let mid = 0;
    for (let k = 0; k < count; k++) {
      const len = ends[k]! - starts[k]!;
      tenths += wordTenths(len);
      mid += isMidWord(len);
      cumTenths[k + 1] = tenths;
      cumMid[k + 1] = mid;
    }
    this.cumTenths = cumTenths;
    this.cumMid = cumMid;
    return cumTenths;
  }
}

/** Seed 003's weight of a word of `len` characters, in tenths of a token. */
function wordTenths(len: number): number {
  return len <= 4 ? 10 : len <= 8 ? 13 : 10 * ((len + 3) >> 2); // (len + 3) >> 2 = ceil(len / 4)
}

function isMidWord(len: number): number {
  return len > 4 && len <= 8 ? 1 : 0;
}

/** Index of the first of `sorted[0..count)` greater than `value` (count if none). */
function firstAbove(sorted: Int32Array, count: number, value: number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! > value) hi = mid;
    else lo = mid + 1;
  }
  return lo;
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
/** `\s` among ASCII: tab, line feed, vertical tab, form feed, carriage return, space. */
const ASCII_SPACE = new Uint8Array(128);
for (const c of [9, 10, 11, 12, 13, 32]) ASCII_SPACE[c] = 1;
