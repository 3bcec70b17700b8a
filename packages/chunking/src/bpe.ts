/**
 * cl100k_base byte-pair encoding of one pre-token: tiktoken's tokens over the
 * pre-token's UTF-8 bytes, with the ranks gpt-tokenizer ships, pairs looked up
 * by token ids in the merge table of `cl100k-merges.ts` (no string per pair,
 * and a pair missing from the table is known to have no rank).
 *
 * It counts every pre-token the memo in cl100k-count.ts has not seen. That
 * includes those holding U+FEFF or U+0085, where gpt-tokenizer's own count
 * departs from tiktoken's: its rank table keeps the bytes EF BB BF (the BOM,
 * rank 3305) as raw bytes rather than a string, and its encoder does not find
 * them, so it counts "\ufeff" as two tokens where tiktoken has one; and its
 * split, on JS's `\s`, can cut a pre-token holding either character that
 * tiktoken keeps whole.
 *
 * Two ways to the same tokens: tiktoken's merge loop (the lowest rank, the
 * leftmost on a tie), a scan over the parts, for short pre-tokens; and for
 * longer ones GitHub's backtracking encoder (rust-gems `bpe`), which walks
 * the bytes left to right in about linear time, where the merge loop is
 * quadratic and a heap of pairs was bound by cache misses (a 1 MB run of
 * random letters: 1.5 s, then 0.7 s with a heap, 0.1 s backtracking).
 */
import { longestToken, mergeLowest, mergeOf, mergeTable, type MergeTable } from './cl100k-merges.js';
import { Spare, SpareColumns, STRONG_MOST } from './spare.js';

const encoder = new TextEncoder();

/** Pre-tokens up to this many bytes take the merge loop; longer ones the backtracking encoder. */
const SHORT_BYTES = 24;

/**
 * Pre-tokens up to this many bytes are encoded and merged in scratch arrays
 * kept between calls (most pre-tokens are short, and arrays per call were a
 * cost of their own); longer ones get arrays of their own, so one huge run
 * does not pin its arrays for the rest of the process.
 */
const SCRATCH_BYTES = 4096;
const scratchBytes = new Uint8Array(SCRATCH_BYTES * 3);
const scratchNext = new Int32Array(SCRATCH_BYTES + 1);
const scratchPrev = new Int32Array(SCRATCH_BYTES + 1);
const scratchOwn = new Int32Array(SCRATCH_BYTES);
const scratchPair = new Int32Array(SCRATCH_BYTES);

/** Whole-token lookups for tokens BPE cannot build from their own bytes (none in cl100k). */
let unbuildable: Map<string, number> | null = null;

function tables(): MergeTable {
  const t = mergeTable();
  if (unbuildable === null) {
    unbuildable = new Map();
    for (const id of t.unbuildable) unbuildable.set(latin1(t.bytes, t.start[id]!, t.start[id + 1]!), id);
  }
  return t;
}

function latin1(bytes: ArrayLike<number>, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]!);
  return s;
}

/**
 * Past SCRATCH_BYTES, each scratch array's role has one kept for the next piece as long
 * (spare.ts; weakly up to 2^24 entries, a 16 MB pre-token), zeroed as a new one would be: a
 * heading of 10 MB of `[` is one pre-token, and its walk's arrays (156 MB) were made fresh in
 * every pass, each page faulted in (issue 15). The roles are the scratch arrays', shared as they
 * are: no two uses of one role are ever open at once.
 */
const LARGE = new SpareColumns(7, STRONG_MOST, 1 << 24);
const LARGE_BYTES = 0;
const LARGE_NEXT = 1;
const LARGE_OWN = 2;
const LARGE_PAIR = 3;
const LARGE_PREV = 4;
const LARGE_OPEN = 5;
const LARGE_ENDS = 6;

/** Where utf8() put the bytes: the scratch array for short pieces, the kept large one for long ASCII ones (each until the next call), else an array of their own. */
let utf8Bytes = scratchBytes;

/**
 * Writes the UTF-8 bytes of `s.slice(a, b)` to the start of `utf8Bytes` and returns how
 * many; an ASCII piece is copied without a slice. No view of the scratch array per call:
 * making one cost more than copying a short piece (base64's pre-tokens, each new to the memo).
 */
function utf8(s: string, a: number, b: number): number {
  if (b - a <= SCRATCH_BYTES) {
    utf8Bytes = scratchBytes;
    for (let i = a; i < b; i++) {
      const c = s.charCodeAt(i);
      if (c >= 128) return encoder.encodeInto(s.slice(a, b), scratchBytes).written;
      scratchBytes[i - a] = c;
    }
    return b - a;
  }
  // ASCII straight into the kept array (no slice and no new array of the piece's length).
  const bytes = LARGE.column(LARGE_BYTES, Uint8Array, b - a);
  let i = a;
  for (let c = 0; i < b && (c = s.charCodeAt(i)) < 128; i++) bytes[i - a] = c;
  utf8Bytes = i === b ? bytes : encoder.encode(s.slice(a, b));
  return utf8Bytes.length;
}

/**
 * Number of cl100k tokens in `piece`, one pre-token, as tiktoken counts it
 * (`_byte_pair_merge` in tiktoken/src/lib.rs, after its whole-piece lookup).
 */
export function bpeTokenCount(piece: string): number {
  return bpeTokenCountRange(piece, 0, piece.length);
}

/** `bpeTokenCount(s.slice(a, b))`, without the slice when it is ASCII. */
export function bpeTokenCountRange(s: string, a: number, b: number): number {
  const n = utf8(s, a, b);
  const bytes = utf8Bytes;
  if (n <= 1) return n;
  const t = tables();
  // tiktoken looks the whole pre-token up first: a token need not be buildable
  // by merges (none in cl100k is, the table says, but the lookup is kept).
  if (unbuildable!.size > 0 && n <= 256 && unbuildable!.has(latin1(bytes, 0, n))) return 1;
  if (n <= SHORT_BYTES || t.unbuildable.length > 0) return scanMerge(bytes, n, t, null);
  // Only the number: the walk's own stack, with no pass to where each token starts.
  const small = n <= SCRATCH_BYTES;
  const k = backtrack(bytes, n, t, small ? scratchNext : LARGE.zeroed(LARGE_NEXT, Int32Array, n + 1), null, 0, 0);
  return k >= 0 ? k : scanMerge(bytes, n, t, null);
}

/**
 * The cl100k token ids (ranks) of `s.slice(a, b)`, one pre-token, appended to `ids`, as
 * tiktoken encodes it: the merge loop for short pieces, the backtracking encoder for longer
 * ones, so that a huge unspaced run costs about its length (gpt-tokenizer's `encode` merges
 * it in quadratic time). Returns how many were appended.
 */
export function bpeTokenIdsInto(s: string, a: number, b: number, ids: number[]): number {
  const n = utf8(s, a, b);
  const bytes = utf8Bytes;
  if (n === 0) return 0;
  const t = tables();
  if (unbuildable!.size > 0 && n <= 256) {
    const whole = unbuildable!.get(latin1(bytes, 0, n));
    if (whole !== undefined) {
      ids.push(whole);
      return 1;
    }
  }
  if (n > SHORT_BYTES && t.unbuildable.length === 0) {
    const ends = n <= SCRATCH_BYTES ? scratchNext : LARGE.zeroed(LARGE_NEXT, Int32Array, n + 1);
    const top = backtrack(bytes, n, t, ends, null, 0, 0);
    if (top >= 0) {
      const { info } = t;
      tokensToStarts(ends, n, info);
      for (let i = 0; i < n; i += info[ends[i]! << 2]!) ids.push(ends[i]!);
      return top;
    }
  }
  return scanMerge(bytes, n, t, null, ids);
}

/**
 * Where the tokens of `piece` (one pre-token) end, as UTF-16 offsets into it,
 * in order; a token that ends inside a character (its UTF-8 bytes split
 * between two tokens) contributes no offset. The BPE of a prefix of a
 * pre-token that ends where one of its tokens ends merges exactly as the
 * whole did up to there (a merge across that end never happened, so it never
 * had the lowest rank), so `text.slice(0, ends[k])`, when it is still a
 * single pre-token, has exactly as many tokens as end at or before ends[k].
 * `tokens[k]` is that number.
 */
export function bpeTokenEnds(piece: string): { ends: number[]; tokens: number[] } {
  const ends: number[] = [];
  const tokens: number[] = [];
  const n = utf8(piece, 0, piece.length);
  walkTokenEnds(piece, 0, piece.length, utf8Bytes, n, (unit, count) => {
    ends.push(unit);
    tokens.push(count);
  });
  return { ends, tokens };
}

/**
 * `bpeTokenEnds(s.slice(a, b))` written into `out`, an array indexed by
 * offsets into `s`: `out[a + ends[k]] = tokens[k] + 1`, with no array per
 * token (a 10 MB run has six million). `out` must hold zeros in (a, b] (the
 * walk tells token ends from the rest by them). Returns the number of tokens.
 */
export function bpeTokenEndsInto(s: string, a: number, b: number, out: Int32Array): number {
  const n = utf8(s, a, b);
  const bytes = utf8Bytes;
  const t = tables();
  // An ASCII piece (as many bytes as units) has its token ends at the same offsets in bytes
  // and in units: the encoder's tokens are written there, then turned into counts in order.
  if (n === b - a && n > 0 && t.unbuildable.length === 0) {
    const top = backtrack(bytes, n, t, out, null, a, 0);
    if (top >= 0) {
      let k = 1;
      for (let p = a + 1; p <= b; p++) if (out[p] !== 0) out[p] = ++k;
      return top;
    }
    out.fill(0, a + 1, b + 1); // what the walk left, before the merge loop writes the ends
  }
  return walkTokenEnds(s, a, b, bytes, n, (unit, count) => {
    out[a + unit] = count + 1;
  });
}

/**
 * `bpeTokenEndsInto` for the token index (SliceCounter): `before + tokens[k] + 1` marked at
 * `a + ends[k]` in `out`, a byte an offset. Nothing in `out` may be marked past `a`, nor with
 * more than `before + 1`. Returns the number of tokens.
 */
export function bpeTokenCountsInto(s: string, a: number, b: number, out: RunningCounts, before: number): number {
  const n = utf8(s, a, b);
  const bytes = utf8Bytes;
  const t = tables();
  // An ASCII piece (as many bytes as units) has its token ends at the same offsets in bytes
  // and in units: they are written straight from the encoder's tokens, without the
  // character walk, a `next` array over the piece and a call per token (a tenth of a
  // document of deep `>>>>` quotes, and a 1 MB unspaced run allocated 4 MB more).
  if (n === b - a && n > 0 && t.unbuildable.length === 0) {
    const top = backtrack(bytes, n, t, null, out, a, before);
    if (top >= 0) return top;
    out.clearAfter(a, b); // what the walk left, before the merge loop writes the ends
  }
  return walkTokenEnds(s, a, b, bytes, n, (unit, count) => out.set(a + unit, before + count + 1));
}

/**
 * Calls `onEnd(UTF-16 offset in the piece, tokens so far)` at each token end that is a
 * character end; returns the token count. `bytes[0, n)` is utf8(s, a, b)'s.
 */
function walkTokenEnds(s: string, a: number, b: number, bytes: Uint8Array, n: number, onEnd: (unit: number, count: number) => void): number {
  const t = tables();
  const next = n <= SCRATCH_BYTES ? scratchNext : LARGE.zeroed(LARGE_NEXT, Int32Array, n + 1);
  if (unbuildable!.size > 0 && n <= 256 && unbuildable!.has(latin1(bytes, 0, n))) {
    next[0] = n;
  } else if (n > 0 && (t.unbuildable.length > 0 || backtrackMerge(bytes, n, t, next) < 0)) {
    scanMerge(bytes, n, t, next);
  }
  // Walk the characters and the tokens side by side.
  let unit = a; // offset in `s` of the character that starts at byte `at`
  let at = 0;
  let count = 0;
  for (let i = 0; i < n; i = next[i]!) {
    const end = next[i]!;
    count++;
    while (at < end) {
      const c = s.charCodeAt(unit);
      if (c < 0x80) {
        at++;
        unit++;
        continue;
      }
      if (c < 0x800) {
        at += 2;
        unit++;
      } else if (c >= 0xd800 && c <= 0xdbff && unit + 1 < b && (s.charCodeAt(unit + 1) & 0xfc00) === 0xdc00) {
        at += 4; // a surrogate pair inside the piece
        unit += 2;
      } else {
        at += 3; // the rest of the BMP, and a lone surrogate (U+FFFD)
        unit++;
      }
    }
    if (at === end) onEnd(unit - a, count);
  }
  return count;
}

/**
 * tiktoken's loop as it is (cl100k-merges.ts's mergeLowest, which also
 * derives the merge table): parts in an array, each with the token it makes
 * with the next one; the lowest (the leftmost on a tie) merges until none is
 * left. Quadratic, for short pre-tokens (and as the reference the tests hold
 * the backtracking encoder to). Fills `next` when given, appends the tokens to
 * `ids` when given; returns the number of parts.
 */
function scanMerge(bytes: Uint8Array, n: number, t: MergeTable, next: Int32Array | null, ids: number[] | null = null): number {
  const small = n <= SCRATCH_BYTES;
  const parts = small ? scratchOwn : LARGE.zeroed(LARGE_OWN, Int32Array, n);
  const pair = small ? scratchPair : LARGE.zeroed(LARGE_PAIR, Int32Array, n);
  const at0 = small ? scratchPrev : LARGE.zeroed(LARGE_PREV, Int32Array, n); // byte offset where each part starts
  const { byteToken, bytePair } = t;
  for (let i = 0; i < n; i++) {
    parts[i] = byteToken[bytes[i]!]!;
    at0[i] = i;
  }
  for (let i = 0; i + 1 < n; i++) pair[i] = bytePair[(bytes[i]! << 8) | bytes[i + 1]!]!;
  pair[n - 1] = -1;
  const m = mergeLowest(parts, pair, at0, n, 1);
  if (next !== null) {
    for (let i = 0; i < m; i++) next[at0[i]!] = i + 1 < m ? at0[i + 1]! : n;
    next[n] = n + 1;
  }
  if (ids !== null) for (let i = 0; i < m; i++) ids.push(parts[i]!);
  return m;
}

const scratchOpen = new Uint8Array(SCRATCH_BYTES + 1);

/**
 * The same tokens by GitHub's backtracking encoder (rust-gems, crates/bpe,
 * `BacktrackEncoder`), which walks the bytes left to right instead of
 * merging: take the longest token that starts at the current position; keep
 * it if it ends at a position not yet ruled out and BPE would leave it next to
 * the previous token (`validPair`), else try the next shorter token that is
 * a prefix of it; when none is left, rule out the current position and take
 * back the previous token. The tokens that survive are exactly BPE's. Fills
 * `next` (next[n] = n + 1) and returns the number of tokens, or -1 if it ever
 * had to take back a token that is not there (cannot happen, see the crate).
 */
function backtrackMerge(bytes: Uint8Array, n: number, t: MergeTable, next: Int32Array): number {
  const top = backtrack(bytes, n, t, next, null, 0, 0);
  if (top < 0) return -1;
  const { info } = t;
  tokensToStarts(next, n, info);
  for (let i = 0; i < n; ) {
    const end = i + info[next[i]! << 2]!;
    next[i] = end;
    i = end;
  }
  next[n] = n + 1;
  return top;
}

/**
 * Moves backtrack's tokens, `ends[e] = 1 + the token that ends at e` for each token end e in
 * (0, n], to where each starts: `ends[s] = the token` that starts at s. Walked from the last
 * token back, each entry read before it is overwritten.
 */
function tokensToStarts(ends: Int32Array, n: number, info: Int32Array): void {
  let p = n;
  let token = ends[n]! - 1;
  while (p > 0) {
    const start = p - info[token << 2]!;
    const before = start > 0 ? ends[start]! - 1 : -1;
    ends[start] = token;
    p = start;
    token = before;
  }
}

/**
 * backtrackMerge's walk over `bytes[0, n)`. The tokens kept so far are a stack, held in
 * `ends` itself: `ends[base + e] = 1 + the token` that ends at byte e, for each of them
 * (cleared when one is taken back), so the caller reads the tokens back from the last end
 * and no array of tokens is allocated (4 MB for a 1 MB run).
 * With `out` instead of `ends`, each token end e is marked there at base + e with
 * `before` + 1 + the number of tokens up to it (the token index's layout), a segment at a
 * time (the walk of a long segment keeps its stack in scratch, rangeCounts).
 * Returns the number of tokens, or -1 (leaving leftovers in (base, base + n]).
 *
 * The bytes are cut at their never pairs (neverPairTable) first: a segment of one or two
 * bytes is its tokens at once, up to SEGMENT_MERGE_BYTES merged by the loop, longer ones
 * walked (backtrackRange), each alone. 1 MB of random letters took 19% less time, base64
 * 38%; lowercase letters alone (a never pair every 30 bytes) about the same.
 */
function backtrack(bytes: Uint8Array, n: number, t: MergeTable, ends: Int32Array | null, out: RunningCounts | null, base: number, before: number): number {
  if (!segmenting) return out === null ? backtrackRange(bytes, 0, n, t, ends!, base) : rangeCounts(bytes, 0, n, t, out, base, before);
  const never = neverPairTable(t);
  const { byteToken, bytePair } = t;
  let top = 0;
  let from = 0; // where the segment being read starts
  let prev = bytes[0]!;
  for (let i = 1; i <= n; i++) {
    const c = i < n ? bytes[i]! : 0;
    if (i < n && never[(prev << 8) | c] === 0) {
      prev = c;
      continue;
    }
    // bytes[from, i) is a segment: its ends are BPE's token ends (see neverPairTable).
    const len = i - from;
    if (len === 1) {
      top++;
      if (out === null) ends![base + i] = byteToken[prev]! + 1;
      else out.set(base + i, before + top + 1);
    } else if (len === 2) {
      const pair = bytePair[(bytes[from]! << 8) | prev]!;
      if (pair >= 0) {
        top++;
        if (out === null) ends![base + i] = pair + 1;
        else out.set(base + i, before + top + 1);
      } else {
        if (out === null) {
          ends![base + from + 1] = byteToken[bytes[from]!]! + 1;
          ends![base + i] = byteToken[prev]! + 1;
        } else {
          out.set(base + from + 1, before + top + 2);
          out.set(base + i, before + top + 3);
        }
        top += 2;
      }
    } else if (len <= SEGMENT_MERGE_BYTES) {
      top += mergeSegment(bytes, from, i, t, ends, out, base, before + top);
    } else {
      const k = out === null ? backtrackRange(bytes, from, i, t, ends!, base) : rangeCounts(bytes, from, i, t, out, base, before + top);
      if (k < 0) return -1;
      top += k;
    }
    from = i;
    prev = c;
  }
  return top;
}

/** The walk's stack for a segment of up to SCRATCH_BYTES bytes (rangeCounts); zeros between calls. */
const scratchEnds = new Int32Array(SCRATCH_BYTES + 1);

/**
 * backtrackRange over `bytes[from, to)`, its tokens' ends marked in `out` at base + e with
 * `before` + 1 + the tokens up to each: the walk keeps its stack in an array over the segment
 * alone, read back in order while it is still in cache, with no look-up of each token's
 * length (a random read per token of a long run).
 */
function rangeCounts(bytes: Uint8Array, from: number, to: number, t: MergeTable, out: RunningCounts, base: number, before: number): number {
  const len = to - from;
  const ends = len <= SCRATCH_BYTES ? scratchEnds : LARGE.zeroed(LARGE_ENDS, Int32Array, len + 1);
  const k = backtrackRange(bytes, from, to, t, ends, -from);
  if (k < 0) {
    ends.fill(0, 0, len + 1);
    return -1;
  }
  let c = before + 1;
  for (let p = 1; p <= len; p++) {
    if (ends[p] === 0) continue;
    ends[p] = 0;
    out.set(base + from + p, ++c);
  }
  return k;
}

/**
 * Whether BPE encodes the segments of a pre-token between its never pairs (neverPairTable)
 * one at a time (true when the pipeline runs; a test turns it off to hold it to the walk over
 * the whole pre-token).
 */
let segmenting = true;

/**
 * `never[x * 256 + y]` is 1 when no cl100k token holds the bytes x, y side by side. BPE never
 * merges across such a pair (the merge would make a token holding it), so the pair stays
 * unmerged and the merges on either side of it never meet: the pre-token's tokens are those
 * of the segments between its never pairs, each encoded alone. Random letters have one every
 * 5 bytes (21% of their pairs), base64 and hex nearly every other byte, so a long unspaced
 * run becomes many short walks, most of one or two bytes, which need no walk at all.
 */
let neverPairs: Uint8Array | null = null;

function neverPairTable(t: MergeTable): Uint8Array {
  if (neverPairs !== null) return neverPairs;
  const never = new Uint8Array(65536).fill(1);
  const { start, bytes } = t;
  for (let id = 0; id + 1 < start.length; id++) {
    for (let i = start[id]!, last = start[id + 1]! - 1; i < last; i++) never[(bytes[i]! << 8) | bytes[i + 1]!] = 0;
  }
  neverPairs = never;
  return never;
}

/**
 * Segments up to this many bytes are merged by tiktoken's loop (mergeSegment), longer ones
 * walked: on random letters the loop cost half as much per byte as the walk at up to 8 bytes.
 * With the branch-free scan (segmentKeyOf) 1 MB of random letters took least time at 32
 * (24: 6% more, 48 no better; 16: 15% more); its cost is quadratic, so bounded per byte by this.
 */
const SEGMENT_MERGE_BYTES = 32;
const segmentToken = new Int32Array(SEGMENT_MERGE_BYTES);
const segmentKey = new Int32Array(SEGMENT_MERGE_BYTES);
const segmentNext = new Int32Array(SEGMENT_MERGE_BYTES);
const segmentPrev = new Int32Array(SEGMENT_MERGE_BYTES);

/** Bits of a part's index in a segment key (SEGMENT_MERGE_BYTES parts at most). */
const KEY_INDEX_BITS = 5;
if (SEGMENT_MERGE_BYTES > 1 << KEY_INDEX_BITS) throw new Error('segment keys too narrow for SEGMENT_MERGE_BYTES');
/** Above every key of a pair with a token (ranks are below 2^17): no merge. Small enough that two keys' difference fits an int32. */
const NO_KEY = 0x3fffffff;

/**
 * The key of part i whose pair with the next part makes token `r` (-1: none): the rank, then
 * the index, so the least key is the lowest rank and the leftmost on a tie. Branch-free:
 * whether a pair of random letters has a token is a coin toss to the branch predictor.
 */
function segmentKeyOf(r: number, i: number): number {
  const x = (r << KEY_INDEX_BITS) | i;
  return x + ((x >> 31) & (NO_KEY - x)); // r = -1 makes x negative, and the key NO_KEY
}

/**
 * tiktoken's merge loop over `bytes[from, to)`, a short segment, its tokens written as the
 * walk writes them (`ends[base + e] = 1 + the token` ending at e, or to `out` as backtrack's
 * counts, `before` tokens before the segment); returns how many. The
 * first pairs come from the byte-pair table, which stays in cache, and the few merges of a
 * few bytes cost less than the walk's trie steps and pair checks per token.
 *
 * mergeLowest's loop, with the parts in a list over the segment's bytes instead of an array
 * shifted at each merge: part i starts at byte from + i and ends where the next live part
 * starts, so no offsets are carried along, and a merged-away part keeps its slot with no
 * pair (NO_KEY). Each pair is held as one key, rank and index together (segmentKeyOf), so
 * the scan for the lowest rank, the leftmost on a tie, is a minimum taken without a branch
 * per part (a quarter of this loop's time, most of it mispredicted branches, on 1 MB of
 * random letters).
 */
function mergeSegment(bytes: Uint8Array, from: number, to: number, t: MergeTable, ends: Int32Array | null, out: RunningCounts | null, base: number, before: number): number {
  const n = to - from;
  const { byteToken, bytePair } = t;
  const token = segmentToken;
  const key = segmentKey;
  const next = segmentNext;
  const prev = segmentPrev;
  let b = bytes[from]!;
  for (let i = 0; i + 1 < n; i++) {
    const c = bytes[from + i + 1]!;
    token[i] = byteToken[b]!;
    key[i] = segmentKeyOf(bytePair[(b << 8) | c]!, i);
    next[i] = i + 1;
    prev[i] = i - 1;
    b = c;
  }
  token[n - 1] = byteToken[b]!;
  key[n - 1] = NO_KEY;
  next[n - 1] = n;
  prev[n - 1] = n - 2;
  let m = n;
  for (;;) {
    let least = NO_KEY;
    for (let i = 0; i < n; i++) {
      const d = key[i]! - least;
      least += d & (d >> 31);
    }
    if (least === NO_KEY) break;
    // Part k takes in the part after it, j.
    const best = least >> KEY_INDEX_BITS;
    const k = least & ((1 << KEY_INDEX_BITS) - 1);
    const j = next[k]!;
    const after = next[j]!;
    token[k] = best;
    key[j] = NO_KEY;
    next[k] = after;
    if (after < n) {
      prev[after] = k;
      key[k] = segmentKeyOf(mergeOf(best, token[after]!), k);
    } else {
      key[k] = NO_KEY;
    }
    const p = prev[k]!;
    if (p >= 0) key[p] = segmentKeyOf(mergeOf(token[p]!, best), p);
    m--;
  }
  if (out === null) for (let i = 0; i < n; i = next[i]!) ends![base + from + next[i]!] = token[i]! + 1;
  else for (let i = 0, k = before + 2; i < n; i = next[i]!, k++) out.set(base + from + next[i]!, k);
  return m;
}

/**
 * The walk over `bytes[from, n)` alone, as over a pre-token of those bytes: token ends at
 * `ends[base + e]` for e in (from, n]. Which positions are still open is kept for this range
 * alone (`open[e - from]`), so a long run cut into segments needs no array over all of it
 * (1 MB allocated and filled per pass of 1 MB of letters, of which 2% is walked).
 */
function backtrackRange(bytes: Uint8Array, from: number, n: number, t: MergeTable, ends: Int32Array, base: number): number {
  const open = n - from <= SCRATCH_BYTES ? scratchOpen : LARGE.column(LARGE_OPEN, Uint8Array, n - from + 1);
  open.fill(1, 0, n - from + 1);
  const { info } = t;
  let top = 0;
  let pos = from;
  let last = -1; // the token on top, -1 when none
  let runEnd = from; // a run of one byte is scanned once, where the walk first reaches it
  // Until a push succeeds, each token end the walk keeps inside the run may push: the token
  // that enters the run (" ====…": a space and 65 '=') need not sit beside the run token,
  // while the next one does. After one push, none for that run: a wrong guess is taken back
  // token by token, and guessing again could cost that again and again.
  let runByte = -1;
  let runStart = from; // the run found: bytes[runStart, runEnd) are all runByte
  let runPushed = false;
  for (;;) {
    // At a position the walk has just reached: 0, or the end of the token it just kept.
    if (pos + 1 < n && bytes[pos] === bytes[pos + 1] && pos >= runEnd) {
      runByte = bytes[pos]!;
      runPushed = false;
      runStart = pos;
      runEnd = pos + 2;
      while (runEnd < n && bytes[runEnd] === runByte) runEnd++;
    }
    if (!runPushed && pos >= runStart && runEnd - pos >= MIN_RUN) {
      const k = pushRun(t, runByte, pos, runEnd - pos, last, ends, base, open, from);
      if (k > 0) {
        runPushed = true;
        runPushes++;
        top += k;
        last = runToken[runByte]!;
        pos += k * info[last << 2]!;
        if (pos === n) return top;
      }
    }
    let token = longestToken(t, bytes, pos, n);
    for (;;) {
      const end = pos + info[token << 2]!;
      if (open[end - from] === 1 && (last < 0 || validPair(last, token, info))) {
        ends[base + end] = token + 1;
        top++;
        pos = end;
        last = token;
        break;
      }
      const shorter = info[(token << 2) + 1]!; // prefixOf(token)
      if (shorter >= 0) {
        token = shorter;
        continue;
      }
      if (last < 0) return -1;
      open[pos - from] = 0;
      ends[base + pos] = 0;
      top--;
      pos -= info[last << 2]!;
      // A run token may have been pushed by pushRun, without the longer tokens from its start
      // tried first: they all are now (it fails again at once, its end just ruled out).
      token = last === runToken[bytes[pos]!] ? longestToken(t, bytes, pos, n) : last;
      last = top > 0 ? ends[base + pos]! - 1 : -1;
    }
    if (pos === n) return top;
  }
}

/**
 * A run of one byte at least this long may be started with copies of its run token
 * (pushRun); shorter ones are walked as any other bytes.
 */
const MIN_RUN = 48;

/**
 * For each byte c, the longest token c^L that BPE leaves beside itself (`validPair(T, T)`),
 * -1 if none, -2 not yet known. Its copies are how BPE encodes a long run of c away from the
 * run's ends (64 dashes, 128 spaces, 8 letters a).
 */
const runToken = new Int32Array(256).fill(-2);

function runTokenOf(t: MergeTable, c: number): number {
  let known = runToken[c]!;
  if (known !== -2) return known;
  const { info } = t;
  const run = new Uint8Array(256).fill(c);
  // The tokens c, cc, ccc... are prefixes of each other: the longest and its prefixOf chain.
  let tk = longestToken(t, run, 0, run.length);
  while (tk >= 0 && !validPair(tk, tk, info)) tk = info[(tk << 2) + 1]!;
  known = tk >= 0 && info[tk << 2]! > 1 ? tk : -1;
  runToken[c] = known;
  return known;
}

/**
 * A shortcut for a run of `r` bytes c starting at `pos`, where the walk stands with `last` on
 * top (-1: none) and `open[p - openAt]` says whether p is still open: pushes copies of c's run token T up to about two of them short of the run's
 * end, as if the walk had kept them, and returns how many (0: none). The guess is right when
 * BPE's tokens of the run start with T's (c^n encodes as T, T, ... and a tail shorter than two
 * T's, for every byte tried), and the walk stays exact when it is not:
 *
 * - The tokens kept are always a valid sequence (every pair is checked, T beside T included),
 *   and by rust-gems' corollaries (crates/bpe/README.md) a valid sequence is the one BPE
 *   gives its bytes; so a walk that gets to the end has BPE's tokens, and a stack that ends at
 *   one of BPE's token ends is BPE's encoding up to there.
 * - A position is ruled out when every token from it failed. At one of BPE's token ends, BPE's
 *   next token is among them and fits the stack below (BPE's own prefix), so it is never ruled
 *   out, provided every token from it is tried: when the walk takes back a T that pushRun put
 *   there (the longer tokens from its start never tried), it tries them all from the longest.
 *
 * So a wrong guess is taken back token by token like any other, and costs what it pushed.
 */
function pushRun(t: MergeTable, c: number, pos: number, r: number, last: number, ends: Int32Array, base: number, open: Uint8Array, openAt: number): number {
  const T = runTokenOf(t, c);
  if (T < 0) return 0;
  const { info } = t;
  const L = info[T << 2]!;
  const k = Math.floor(r / L) - runMargin;
  if (k < 1 || (last >= 0 && !validPair(last, T, info))) return 0;
  let pushed = 0;
  for (let p = pos + L; pushed < k && p <= pos + r && open[p - openAt] === 1; p += L) {
    ends[base + p] = T + 1;
    pushed++;
  }
  return pushed;
}

/** Runs that took the shortcut since the last runPushesForTests call. */
let runPushes = 0;

/** How many run tokens pushRun leaves to the walk before a run's end (a test changes it to force wrong guesses). */
let runMargin = 2;

/**
 * Whether BPE can leave tokens `a` then `b` side by side: undo the merges
 * that built each (the later one first) and check that no pair across the
 * seam would have merged before them (rust-gems' `is_valid_token_pair`).
 */
function validPair(a: number, b: number, info: Int32Array): boolean {
  // Undoing the merges costs about one probe per merge: little for the short
  // tokens of random text, whose pairs rarely repeat, but a run of one
  // character (spaces before a deep list item, `>>>>`, `====`) pairs its long
  // tokens again and again, each undone dozens of merges deep.
  if (info[a << 2]! + info[b << 2]! < LONG_PAIR_BYTES) return checkPair(a, b, info);
  const slot = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b)) >>> (32 - PAIR_CACHE_BITS);
  if (pairCacheA[slot] === a && pairCacheB[slot] === b) return pairCacheV[slot] === 1;
  const v = checkPair(a, b, info);
  pairCacheA[slot] = a;
  pairCacheB[slot] = b;
  pairCacheV[slot] = v ? 1 : 0;
  return v;
}

/** validPair's answers for pairs of at least LONG_PAIR_BYTES bytes, direct-mapped. */
const LONG_PAIR_BYTES = 12;
const PAIR_CACHE_BITS = 12;
const pairCacheA = new Int32Array(1 << PAIR_CACHE_BITS).fill(-1);
const pairCacheB = new Int32Array(1 << PAIR_CACHE_BITS);
const pairCacheV = new Uint8Array(1 << PAIR_CACHE_BITS);

/** `info[4t + 2]` and `info[4t + 3]` are the pair token t is built from (MergeTable.info). */
function checkPair(a: number, b: number, info: Int32Array): boolean {
  let limit = 0x7fffffff;
  for (;;) {
    const c = mergeOf(a, b);
    if (c >= 0 && c < limit) return false;
    if (a > b) {
      limit = a;
      a = info[(a << 2) + 3]!; // splitRight
      if (a === limit) {
        limit = b + 1;
        b = info[(b << 2) + 2]!; // splitLeft
        if (b + 1 === limit) return true;
      }
    } else {
      limit = b + 1;
      b = info[(b << 2) + 2]!;
      if (b + 1 === limit) {
        limit = a;
        a = info[(a << 2) + 3]!;
        if (a === limit) return true;
      }
    }
  }
}

/**
 * Byte offsets where the tokens of `piece` start, by tiktoken's merge loop
 * (`loop`) or by the backtracking encoder: for tests, which hold the
 * encoder to the loop on inputs of any length.
 */
export function tokenStartsForTests(piece: string, loop: boolean): number[] {
  const bytes = encoder.encode(piece);
  const n = bytes.length;
  if (n === 0) return [];
  const t = tables();
  const next = new Int32Array(n + 1);
  if (loop) scanMerge(bytes, n, t, next);
  else if (backtrackMerge(bytes, n, t, next) < 0) throw new Error('backtracking ran out of tokens');
  const starts: number[] = [];
  for (let i = 0; i < n; i = next[i]!) starts.push(i);
  return starts;
}

/**
 * Sets how many run tokens pushRun leaves before a run's end (2 when the pipeline runs; fewer,
 * even negative, makes it guess wrong, which must cost time only); returns the old value.
 */
export function setRunMarginForTests(margin: number): number {
  const old = runMargin;
  runMargin = margin;
  return old;
}

/** How many runs took the shortcut since the last call (counted from zero again): for tests. */
export function runPushesForTests(): number {
  const n = runPushes;
  runPushes = 0;
  return n;
}

/** Length in bytes of byte `c`'s run token (pushRun), -1 when it has none: for tests. */
export function runTokenLengthForTests(c: number): number {
  const t = tables();
  const T = runTokenOf(t, c);
  return T < 0 ? -1 : t.info[T << 2]!;
}

/** Whether BPE can leave tokens `a` then `b` side by side, through the memo of long pairs or not: for tests. */
export function validPairForTests(a: number, b: number, remembered: boolean): boolean {
  const t = tables();
  return remembered ? validPair(a, b, t.info) : checkPair(a, b, t.info);
}

/**
 * Turns the cut at never pairs (neverPairTable) on or off for every entry point, so that tests
 * hold the segmented walk to the walk over whole pre-tokens; returns the old setting.
 */
export function setSegmentingForTests(on: boolean): boolean {
  const old = segmenting;
  segmenting = on;
  return old;
}

/** Where BPE may cut a pre-token before it merges anything (no token holds bytes `x`, `y` side by side): for tests. */
export function neverPairForTests(x: number, y: number): boolean {
  return neverPairTable(tables())[(x << 8) | y] === 1;
}

/** A RunningCounts' arrays. */
interface RunningStore {
  rel: Uint8Array<ArrayBuffer>;
  bases: Int32Array<ArrayBuffer>;
}
const NO_STORE: RunningStore = { rel: new Uint8Array(0), bases: new Int32Array(0) };
/**
 * Arrays of released RunningCounts, two at most (a text's counts and its long runs' tokens):
 * strongly up to 2 MB of text, weakly up to 32 MB (spare.ts). A text shorter than
 * RELEASED_FROM makes its own (small typed arrays are cheap).
 */
const RELEASED = [new Spare<RunningStore>(1 << 21, 1 << 25), new Spare<RunningStore>(1 << 21, 1 << 25)];
const RELEASED_FROM = 1 << 16;

/** Released arrays for offsets 0 to `offsets - 1`, `rel` zeroed (then no longer released), or null. */
function releasedStore(offsets: number): RunningStore | null {
  if (offsets < RELEASED_FROM) return null;
  for (let k = 0; k < RELEASED.length; k++) {
    const store = RELEASED[k]!.peek();
    if (store === null || store.rel.length < offsets || store.rel.length > 4 * offsets) continue;
    RELEASED[k]!.clear();
    store.rel.fill(0, 0, offsets);
    return store;
  }
  return null;
}

/** log2 of the offsets per block of RunningCounts. */
export const BLOCK_BITS = 6;

/**
 * A running token count marked at some offsets of a text (0 = unmarked, counts are >= 1),
 * written at increasing offsets with counts that never decrease: a byte per offset, the count
 * less its block's base, and an int per block of 64 offsets, instead of an int per offset.
 * These arrays are fresh memory for every document, and a page's first touch is dear on some
 * machines (the bench's VM: about 10 µs a 4 KB page, so 4 bytes an offset made 11 ms of faults
 * a MB, 84% of SliceCounter's time on 1 MB of tiny lines). A block's base is its first count
 * less 1, and two counts of one block differ by at most 3 × 63: the tokens between two offsets
 * are at most the UTF-8 bytes between them, at most 3 a code unit; so every byte is 1 to 190.
 */
export class RunningCounts {
  readonly rel: Uint8Array;
  readonly bases: Int32Array;
  /** The block written last, and its base. */
  private block = -1;
  private base = 0;
  /** The whole arrays `rel` and `bases` are views of (released ones may be longer). */
  private store: RunningStore;

  /** For offsets 0 to `length`. */
  constructor(length: number) {
    const store = releasedStore(length + 1) ?? { rel: new Uint8Array(length + 1), bases: new Int32Array((length >> BLOCK_BITS) + 1) };
    this.store = store;
    this.rel = store.rel.length === length + 1 ? store.rel : store.rel.subarray(0, length + 1);
    this.bases = store.bases;
  }

  /**
   * Hands the arrays on to the next RunningCounts made: only for one nothing reads any more (a
   * TokenIndex released). Made fresh, they were 11 MB for 10 MB of text, faulted in again by
   * every call (issue 15).
   */
  release(): void {
    const { store } = this;
    if (store.rel.length < RELEASED_FROM) return;
    this.store = NO_STORE;
    const kept = RELEASED.find((spare) => spare.peek() === null) ?? RELEASED[0]!;
    kept.keep(store, store.rel.length);
  }

  /** Marks offset `p` with count `v`: `p` past every offset marked before, `v` at least their counts. */
  set(p: number, v: number): void {
    const b = p >> BLOCK_BITS;
    if (b !== this.block) {
      this.block = b;
      this.base = v - 1;
      this.bases[b] = v - 1;
    }
    this.rel[p] = v - this.base;
  }

  /** The count at `p`, 0 when unmarked. */
  get(p: number): number {
    const r = this.rel[p]!;
    return r === 0 ? 0 : this.bases[p >> BLOCK_BITS]! + r;
  }

  /** Unmarks (from, to], nothing being marked past `to`, so that it can be written again after `from`. */
  clearAfter(from: number, to: number): void {
    this.rel.fill(0, from + 1, to + 1);
    const b = from >> BLOCK_BITS;
    let marked = false;
    for (let p = b << BLOCK_BITS; p <= from && !marked; p++) marked = this.rel[p] !== 0;
    this.block = marked ? b : -1;
    this.base = marked ? this.bases[b]! : 0;
  }
}
