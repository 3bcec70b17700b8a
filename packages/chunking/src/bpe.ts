/**
 * cl100k_base byte-pair encoding of one pre-token, counted: tiktoken's merge
 * loop over the pre-token's UTF-8 bytes, with the ranks gpt-tokenizer ships.
 *
 * Used for long pre-tokens (see `bpeTokenCountLong`), and for pre-tokens that
 * hold U+FEFF or U+0085, where gpt-tokenizer's
 * own count departs from tiktoken's: its rank table keeps the bytes EF BB BF
 * (the BOM, rank 3305) as raw bytes rather than a string, and its encoder does
 * not find them, so it counts "\ufeff" as two tokens where tiktoken has one;
 * and its split, on JS's `\s`, can cut a pre-token holding either character
 * that tiktoken keeps whole. The rank map is built on first use, so documents
 * without these characters never pay for it.
 */
import bpeRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';

let ranks: Map<string, number> | null = null;

/** Rank of every token, keyed by its bytes as a latin-1 string. */
function rankMap(): Map<string, number> {
  if (ranks) return ranks;
  const map = new Map<string, number>();
  const table = bpeRanks as readonly (string | readonly number[])[];
  table.forEach((value, rank) => {
    // A rank is a string when its bytes are valid UTF-8, else the raw bytes.
    // Most are ASCII, whose latin1 key is the string itself: encoding and
    // rebuilding all 100,000 was a visible part of a document's first count.
    if (typeof value === 'string' && ASCII_ONLY.test(value)) {
      map.set(value, rank);
      return;
    }
    const bytes = typeof value === 'string' ? encoder.encode(value) : value;
    map.set(latin1(bytes, 0, bytes.length), rank);
  });
  ranks = map;
  return map;
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;

function latin1(bytes: ArrayLike<number>, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]!);
  return s;
}

/**
 * Number of cl100k tokens in `piece`, one pre-token: tiktoken's
 * `_byte_pair_merge` (tiktoken/src/lib.rs), ported as it is. Parts start as
 * single bytes; each carries the rank of itself merged with the next part;
 * the lowest rank (the leftmost on a tie) merges until no pair has a rank.
 */
export function bpeTokenCount(piece: string): number {
  const bytes = encoder.encode(piece);
  if (bytes.length <= 1) return bytes.length;
  const map = rankMap();
  // tiktoken looks the whole pre-token up first: a token need not be reachable
  // by merges. No token is longer than MAX_TOKEN_BYTES.
  if (bytes.length <= MAX_TOKEN_BYTES && map.has(latin1(bytes, 0, bytes.length))) return 1;
  // The heap merge looks pairs up by their two token ids (no string per pair)
  // and is O(n log n); the loop below finds each merge by a scan over all parts
  // and a string per pair, quadratic, kept only for pre-tokens of 16 MB and
  // more, beyond what the heap's keys can hold. Short pre-tokens take the heap
  // too: once gpt-tokenizer's cache is spent (base64, hashes) every distinct
  // pre-token comes here, and the scan's strings were most of their cost.
  if (bytes.length < POS_SPAN) return heapMergeCount(bytes);
  const rankOfBytes = (a: number, b: number): number => map.get(latin1(bytes, a, b)) ?? Infinity;
  // parts[i] = [start, rank of parts i and i+1 merged]; two sentinels at the end.
  const parts: [number, number][] = [];
  for (let i = 0; i < bytes.length - 1; i++) parts.push([i, rankOfBytes(i, i + 2)]);
  parts.push([bytes.length - 1, Infinity], [bytes.length, Infinity]);
  const rankAt = (i: number): number => (i + 3 < parts.length ? rankOfBytes(parts[i]![0], parts[i + 3]![0]) : Infinity);
  for (;;) {
    let min = Infinity;
    let at = -1;
    for (let i = 0; i < parts.length - 1; i++) {
      if (parts[i]![1] < min) {
        min = parts[i]![1];
        at = i;
      }
    }
    if (at < 0) break;
    if (at > 0) parts[at - 1]![1] = rankAt(at - 1);
    parts[at]![1] = rankAt(at);
    parts.splice(at + 1, 1);
  }
  return parts.length - 1;
}

/**
 * Rank of the token two tokens make (-1: none), keyed by the pair of ranks:
 * open addressing over Int32Arrays, since a Map keyed by a number as large
 * as two ranks combined hashes a heap number on every probe.
 */
const PAIR_BITS = 18;
const PAIR_MASK = (1 << PAIR_BITS) - 1;
const pairLeft = new Int32Array(1 << PAIR_BITS).fill(-1);
const pairRight = new Int32Array(1 << PAIR_BITS);
const pairValue = new Int32Array(1 << PAIR_BITS);
let pairsUsed = 0;

const encoder = new TextEncoder();

/**
 * Pre-tokens up to this many bytes merge in scratch arrays kept between calls
 * (most pre-tokens are short, and five typed arrays per call were a cost of
 * their own); longer ones get arrays of their own, so one huge run does not
 * pin its arrays for the rest of the process.
 */
const SCRATCH_BYTES = 4096;
const scratchNext = new Int32Array(SCRATCH_BYTES + 1);
const scratchPrev = new Int32Array(SCRATCH_BYTES + 1);
const scratchRank = new Int32Array(SCRATCH_BYTES);
const scratchOwn = new Int32Array(SCRATCH_BYTES);
const scratchHeap = new Float64Array(SCRATCH_BYTES * 3);

/**
 * No cl100k token is longer than this many bytes (the longest is 128), so a
 * pair spanning more has no rank and its bytes need not become a string.
 */
const MAX_TOKEN_BYTES = 256;

/**
 * The same merges as `bpeTokenCount`'s loop, found with a binary heap instead
 * of a scan: parts form a doubly linked list, and the heap holds
 * (rank of a part merged with its successor, part start). Popping the least
 * (rank, start) pair is the loop's choice, the lowest rank and on a tie the
 * leftmost, because parts never change order. An entry is stale once its part
 * is gone or its pair's rank was recomputed; it is then skipped. Each merge
 * pushes at most two entries, so the whole run is O(n log n).
 */
function heapMergeCount(bytes: Uint8Array): number {
  return heapMerge(bytes).parts;
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
  const bytes = encoder.encode(piece);
  // `next` may be the scratch array: read it before any other merge.
  const { next } = heapMerge(bytes);
  const ends: number[] = [];
  const tokens: number[] = [];
  // Walk the characters and the tokens side by side.
  let unit = 0; // UTF-16 offset of the character that starts at byte `at`
  let at = 0;
  let count = 0;
  for (let i = 0; i < bytes.length; i = next[i]!) {
    const end = next[i]!;
    count++;
    while (at < end) {
      const c = piece.charCodeAt(unit);
      const cp = piece.codePointAt(unit)!;
      at += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      unit += c >= 0xd800 && c <= 0xdbff && cp > 0xffff ? 2 : 1;
    }
    if (at === end) {
      ends.push(unit);
      tokens.push(count);
    }
  }
  return { ends, tokens };
}

function heapMerge(bytes: Uint8Array): { parts: number; next: Int32Array } {
  const n = bytes.length;
  const map = rankMap();
  const small = n <= SCRATCH_BYTES;
  const next = small ? scratchNext : new Int32Array(n + 1);
  const prev = small ? scratchPrev : new Int32Array(n + 1);
  const rank = small ? scratchRank : new Int32Array(n); // rank of part i merged with its successor, NONE if none
  const own = small ? scratchOwn : new Int32Array(n); // rank of part i itself
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
    own[i] = byteRank(map, bytes[i]!);
  }
  next[n] = n + 1;
  // Every part is a token, so its rank names its bytes, and a pair's rank is a
  // function of the two parts' ranks: looked up by number (merged), the bytes
  // become a string only the first time a pair of tokens meets.
  // Part i spans [i, next[i]); the pair (i, next[i]) spans [i, next[next[i]]).
  const pairRank = (i: number): number => {
    const j = next[i]!;
    if (j >= n) return NONE;
    const end = next[j]!;
    if (end - i > MAX_TOKEN_BYTES) return NONE;
    const l = own[i]!;
    const rr = own[j]!;
    let slot = (Math.imul(l, 0x9e3779b1) ^ Math.imul(rr, 0x85ebca6b)) >>> (32 - PAIR_BITS);
    for (;;) {
      const k = pairLeft[slot]!;
      if (k === l && pairRight[slot] === rr) return pairValue[slot]!;
      if (k === -1) break;
      slot = (slot + 1) & PAIR_MASK;
    }
    const r = map.get(latin1(bytes, i, end)) ?? NONE;
    if (pairsUsed * 2 >= PAIR_MASK) {
      // Full: start again rather than grow (the pairs of one text repeat).
      pairLeft.fill(-1);
      pairsUsed = 0;
      slot = (Math.imul(l, 0x9e3779b1) ^ Math.imul(rr, 0x85ebca6b)) >>> (32 - PAIR_BITS);
    }
    pairLeft[slot] = l;
    pairRight[slot] = rr;
    pairValue[slot] = r;
    pairsUsed++;
    return r;
  };
  // A binary min-heap of keys rank × 2^24 + start (exact in a double: ranks
  // < 2^18, starts < 2^24 checked by the caller's length), so the least key is
  // the lowest rank and on a tie the leftmost pair.
  // At most n entries at first and two pushes per merge (n - 1 merges): 3n
  // always suffices, so the scratch heap never grows.
  let heap = small ? scratchHeap : new Float64Array(Math.max(16, n));
  let size = 0;
  const siftDown = (k: number): void => {
    const x = heap[k]!;
    for (;;) {
      let c = 2 * k + 1;
      if (c >= size) break;
      if (c + 1 < size && heap[c + 1]! < heap[c]!) c++;
      if (heap[c]! >= x) break;
      heap[k] = heap[c]!;
      k = c;
    }
    heap[k] = x;
  };
  const push = (key: number): void => {
    if (size === heap.length) {
      const bigger = new Float64Array(size * 2);
      bigger.set(heap);
      heap = bigger;
    }
    let k = size++;
    while (k > 0) {
      const parent = (k - 1) >> 1;
      if (heap[parent]! <= key) break;
      heap[k] = heap[parent]!;
      k = parent;
    }
    heap[k] = key;
  };
  for (let i = 0; i < n; i++) {
    const r = pairRank(i);
    rank[i] = r;
    if (r !== NONE) heap[size++] = r * POS_SPAN + i;
  }
  for (let k = (size >> 1) - 1; k >= 0; k--) siftDown(k); // heapify: O(n)
  let parts = n;
  while (size > 0) {
    const key = heap[0]!;
    heap[0] = heap[--size]!;
    if (size > 0) siftDown(0);
    const r = Math.floor(key / POS_SPAN);
    const i = key - r * POS_SPAN;
    if (own[i]! < 0 || rank[i] !== r) continue; // stale: the part is gone or its pair changed
    // Merge part i with its successor j.
    const j = next[i]!;
    own[j] = -1;
    own[i] = r;
    next[i] = next[j]!;
    if (next[j]! <= n) prev[next[j]!] = i;
    parts--;
    const ri = pairRank(i);
    rank[i] = ri;
    if (ri !== NONE) push(ri * POS_SPAN + i);
    const p = prev[i]!;
    if (p >= 0) {
      const rp = pairRank(p);
      rank[p] = rp;
      if (rp !== NONE) push(rp * POS_SPAN + p);
    }
  }
  return { parts, next };
}

const NONE = -1;
const POS_SPAN = 2 ** 24;
const byteRanks = new Int32Array(256).fill(-1);

function byteRank(map: Map<string, number>, b: number): number {
  let r = byteRanks[b]!;
  if (r < 0) {
    r = map.get(String.fromCharCode(b))!;
    byteRanks[b] = r;
  }
  return r;
}
