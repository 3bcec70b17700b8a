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
import { countJoined, countRange, type JoinedSlice, SliceCounter } from './cl100k-count.js';
import { sourceText } from './options.js';
import { anchorEmpty } from './shape-anchor.js';

/**
 * Exact cl100k_base token count of `text`. Special-token text such as
 * `<|endoftext|>` is counted as ordinary text.
 */
export function countTokens(text: string): number {
  // A number counted as 0 tokens and undefined threw from inside (helper-67's probe): named now.
  if (typeof text !== 'string') text = sourceText(text, 'countTokens', 'text');
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
  if (typeof text !== 'string') text = sourceText(text, 'estimateTokens', 'text');
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
    // Every unit from `!` up to U+009F is a word character (NEL, U+0085, is not JS whitespace):
    // most characters of a document are decided by two comparisons, not a table load.
    if ((c > 32 && c < 0xa0) || SEED_SPACE[c] !== 1) {
      len++;
    } else if (len !== 0) {
      words++;
      tokens += len <= 4 ? 1 : len <= 8 ? 1.3 : Math.ceil(len / 4);
      len = 0;
    }
  }
  if (len !== 0) {
    words++;
    tokens += len <= 4 ? 1 : len <= 8 ? 1.3 : Math.ceil(len / 4);
  }
  return words === 0 ? 0 : Math.max(1, Math.round(tokens));
}

/**
 * One part of a text given to `TokenIndex.countJoined`, at offset `at` of it:
 * `source.slice(start, end)` when `text` is null, else `text`.
 */
export interface JoinedPart {
  at: number;
  start: number;
  end: number;
  text: string | null;
}

/**
 * Exact token counts of arbitrary slices of one source, counting each
 * character about once.
 */
export class TokenIndex {
  private readonly counter: SliceCounter;
  /**
   * SliceCounters of the strings countJoined was given, by their text; or, for
   * a string noted to hold a source range whole (noteWrapped), where it holds it.
   */
  private rebuilt: Map<string, SliceCounter | { at: number; start: number; end: number }> | null = null;

  constructor(readonly source: string) {
    this.counter = new SliceCounter(source);
    // An index holds its document's source and counts: the one kept for its hidden class (and its
    // counter's) is an empty one (shape-anchor.ts).
    anchorEmpty('token index', () => new TokenIndex(''));
  }

  /** Exact token count of `source.slice(start, end)`. */
  count(start: number, end: number): number {
    return this.counter.count(start, end);
  }

  /**
   * Hands the source's running counts on to the next index made (RunningCounts.release): only
   * for an index nothing reads any more. Counts asked of it after are wrong.
   */
  release(): void {
    this.counter.release();
  }

  /**
   * Exact token count of `source.slice(start, end)`, given `tail`, the count of
   * `source.slice(from, end)` for some `from` in [start, end) (SliceCounter.countWithTail).
   */
  countWithTail(start: number, from: number, end: number, tail: number): number {
    // A subclass that counts slices its own way (stream.ts) has no running counts of its source here.
    if (this.count !== TokenIndex.prototype.count) return this.count(start, end);
    return this.counter.countWithTail(start, from, end, tail);
  }

  /**
   * Exact token count of `joined`, a text built from slices of the source and
   * other strings (`parts`, in order: each says where in `joined` it sits and
   * what it is), with anything between them. Counts again only the pre-tokens
   * at the joints, not the slices' insides: the packer counts runs of split
   * pieces, whose text is not one slice of the source, many times over.
   * Each string part is scanned once per TokenIndex.
   */
  countJoined(joined: string, parts: readonly JoinedPart[]): number {
    // A subclass that counts slices its own way (stream.ts's windows of groups) does not
    // hold its source in this counter: the joined text is counted whole.
    if (this.count !== TokenIndex.prototype.count) return countRange(joined, 0, joined.length);
    const slices: JoinedSlice[] = [];
    for (const part of parts) {
      if (part.text === null) {
        if (part.end > part.start) slices.push({ at: part.at, counter: this.counter, a: part.start, b: part.end });
        continue;
      }
      if (part.text.length === 0) continue;
      // A piece rebuilt around its source range (a code piece reopened and closed with fences:
      // "```js\n" + slice + "\n```"), as split-oversized notes it (noteWrapped), is that slice of
      // the source between two short strings: counted from this index, only the joints are
      // scanned, where a counter of its own scanned all of it (minified code on one line
      // scanned every character three times). Either is remembered by the text (the packer
      // counts one piece many times): what the text holds where does not depend on the part.
      const rebuilt = (this.rebuilt ??= new Map());
      let known = rebuilt.get(part.text);
      if (known === undefined) {
        known = new SliceCounter(part.text);
        rebuilt.set(part.text, known);
      }
      if (known instanceof SliceCounter) slices.push({ at: part.at, counter: known, a: 0, b: part.text.length });
      else slices.push({ at: part.at + known.at, counter: this.counter, a: known.start, b: known.end });
    }
    return countJoined(joined, slices);
  }

  /**
   * Notes that `text`, a piece's rebuilt text, holds `source.slice(start, end)` whole at offset
   * `at` (split-oversized builds it so: a fence, the code's source range, a fence), so that
   * countJoined counts that range from this index and scans only the joints, without looking
   * for the range in the text. Ranges under WRAPPED_MIN units are left to a counter of the
   * text's own, as is a note whose text does not hold the range (checked once, in place).
   */
  noteWrapped(text: string, at: number, start: number, end: number): void {
    const len = end - start;
    if (len < WRAPPED_MIN || start < 0 || end > this.source.length || at < 0 || at + len > text.length) return;
    const rebuilt = (this.rebuilt ??= new Map());
    if (rebuilt.has(text)) return;
    const { source } = this;
    for (let k = 0; k < len; k++) if (text.charCodeAt(at + k) !== source.charCodeAt(start + k)) return;
    rebuilt.set(text, { at, start, end });
  }

  /**
   * Inside one long unspaced run, where `start` is one of its tokens' ends: the
   * last token end `b <= end` with at most `limit` tokens between, or -1 (not in
   * such a run, or the rest of the run up to `end` fits). See SliceCounter.lastTokenEnd.
   */
  lastTokenEnd(start: number, end: number, limit: number): number {
    return this.counter.lastTokenEnd(start, end, limit);
  }
}

/**
 * Source ranges shorter than this in a rebuilt piece are counted by a counter of the piece's
 * own: the npm docs' rebuilt code pieces (about 300 units) cost 1.5% more instructions
 * counted from the source's index than from counters of their own.
 */
const WRAPPED_MIN = 512;

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
    // Same notion of whitespace as the pre-tokenizer's `\s`: Unicode White_Space (NBSP, NEL…).
    if (c > 32 && c < 128) return true;
    if (c >= 128 ? !PRE_TOKEN_SPACE.test(source[i]!) : c !== 32 && c !== 9 && c !== 12 && c !== 11) return true;
  }
  return false;
}

/**
 * Seed 003's whitespace (its estimator splits on JS's `/\s+/`), one entry per UTF-16 code unit:
 * a table lookup per character instead of a branch on ASCII and a regex test (and a string)
 * per non-ASCII character. JS's `\s` is WhiteSpace and LineTerminator of ECMA-262: every
 * such character is in the BMP, and a lone surrogate is none. tokens.test.ts checks the table
 * against `/\s/` for all 65,536 code units.
 */
const SEED_SPACE = new Uint8Array(0x10000);
for (const c of [9, 10, 11, 12, 13, 32, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff]) SEED_SPACE[c] = 1;
SEED_SPACE.fill(1, 0x2000, 0x200b);
/** cl100k's whitespace: tiktoken's Rust `\s`, Unicode White_Space (U+0085 yes, U+FEFF no). */
const PRE_TOKEN_SPACE = /^\p{White_Space}$/u;
