/**
 * cl100k_base as a merge table: for every token that byte-pair encoding can
 * build, the one pair of tokens it is built from, looked up by the two token
 * ids; and a trie of the token bytes for longest-token lookups. With them a
 * merge never turns bytes into a string, and a pair that is not in the table
 * is known to have no rank, without a lookup by bytes.
 *
 * Why one pair per token is enough (the argument of GitHub's rust-gems `bpe`
 * crate, which reverse-engineers the same split table): when BPE of a longer
 * text produces token T over some span, no merge ever crossed that span's
 * ends (merges only grow parts), so the parts inside the span went through
 * exactly the merges BPE of T's bytes alone goes through, in the same order.
 * The last of them joins the same two tokens (l, r) each time. So a pair
 * (l', r') whose bytes spell T but that is not (l, r) is never the lowest
 * ranked pair anywhere (merging it would build T another way), and a token
 * whose own bytes do not merge into it is never built by a merge at all
 * (cl100k has none). Dropping both changes no merge.
 *
 * `deriveSplits` finds the pairs by running that BPE on every token in rank
 * order: the merges of T's bytes below rank T use only tokens already in the
 * table, and T is buildable exactly when they leave two parts. Every pair's
 * tokens rank below the token they build, so the merge ranks of any BPE run
 * only increase. Deriving costs about 100 ms, so the result ships in
 * `cl100k-splits.ts` with a hash of the ranks it was made from; with other
 * ranks (a gpt-tokenizer update) it is derived again on load, and
 * `cl100k-merges.test.ts` checks that it equals the derivation.
 *
 * Everything is built on first use, from the ranks gpt-tokenizer ships; the
 * trie one first byte at a time, as pre-tokens starting with it turn up.
 */
import bpeRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';
import { CL100K_RANKS_HASH, CL100K_SPLITS } from './cl100k-splits.js';

/** Number of cl100k ranks (0 .. TOKENS - 1). */
export const TOKENS = (bpeRanks as readonly unknown[]).length;

export interface MergeTable {
  /** Bytes of token t: `bytes.subarray(start[t], start[t + 1])`. */
  readonly start: Int32Array;
  readonly bytes: Uint8Array;
  /** Token of each single byte. */
  readonly byteToken: Int32Array;
  /** Token the two single bytes `b1 * 256 + b2` merge into, or -1. */
  readonly bytePair: Int32Array;
  /** The two tokens BPE builds token t from (t itself, twice, for a single byte or an unbuildable token). */
  readonly splitLeft: Int32Array;
  readonly splitRight: Int32Array;
  /** Tokens of more than one byte that BPE does not build from their own bytes (none in cl100k). */
  readonly unbuildable: readonly number[];
  /**
   * What the backtracking encoder reads of token t, side by side at 4t:
   * its length in bytes, `prefixOf(t)` (-1 until its first byte's tokens
   * are in the trie), `splitLeft[t]`, `splitRight[t]`. One cache line per
   * token instead of one in each of four 400 KB arrays: on a long unspaced
   * run each token is a fresh, random one.
   */
  readonly info: Int32Array;
}

const PAIR_BITS = 18; // 2^18 slots for about 100,000 pairs: probes stay short
const PAIR_MASK = (1 << PAIR_BITS) - 1;
/** Slot k holds [left + 1, right, token] at 3k; 0 marks an empty slot. */
const pairSlots = new Int32Array((1 << PAIR_BITS) * 3);
/**
 * A Bloom filter of every pair in the table (128 KB, so it stays in cache):
 * most pairs a merge asks about are not in the table, and a clear bit says so
 * without a probe of the 3 MB table. Three bits per pair, in one 32-bit word
 * picked by the hash (filterBits): one bit let 9% of the absent pairs through
 * to a cache miss in the table, three let 2.5% (1 MB of random letters: 49,000
 * probes of absent pairs a pass, then 13,000).
 */
const pairFilter = new Int32Array(1 << 15);

/** The filter bits of hash `h` (a pair's or a trie edge's), in the word its top bits pick. */
function filterBits(h: number): number {
  const g = Math.imul(h, 0x27d4eb2d);
  return (1 << ((h >>> 12) & 31)) | (1 << (g >>> 27)) | (1 << ((g >>> 22) & 31));
}
/**
 * The pairs of two token ids below 256 (cl100k's single bytes), indexed by
 * `l * 256 + r` (-1: no merge): a quarter of a long unspaced run's pair
 * lookups, and most of those that find a merge, which in the hashed table
 * are a cache miss each.
 */
const lowPairs = new Int32Array(65536).fill(-1);
let table: MergeTable | null = null;

/** Token that BPE builds from tokens `l` then `r`, or -1. */
export function mergeOf(l: number, r: number): number {
  if ((l | r) < 256) return lowPairs[(l << 8) | r]!;
  const h = Math.imul(l, 0x9e3779b1) ^ Math.imul(r, 0x85ebca6b);
  const bits = filterBits(h);
  if ((pairFilter[h >>> 17]! & bits) !== bits) return -1;
  let slot = h >>> (32 - PAIR_BITS);
  for (;;) {
    const k = slot * 3;
    const left = pairSlots[k]!;
    if (left === l + 1 && pairSlots[k + 1] === r) return pairSlots[k + 2]!;
    if (left === 0) return -1;
    slot = (slot + 1) & PAIR_MASK;
  }
}

function clearPairs(): void {
  pairFilter.fill(0);
  pairSlots.fill(0);
  lowPairs.fill(-1);
}

function insertPair(l: number, r: number, t: number): void {
  if ((l | r) < 256) {
    lowPairs[(l << 8) | r] = t;
    return;
  }
  const h = Math.imul(l, 0x9e3779b1) ^ Math.imul(r, 0x85ebca6b);
  pairFilter[h >>> 17] = pairFilter[h >>> 17]! | filterBits(h);
  let slot = h >>> (32 - PAIR_BITS);
  while (pairSlots[slot * 3] !== 0) slot = (slot + 1) & PAIR_MASK;
  pairSlots[slot * 3] = l + 1;
  pairSlots[slot * 3 + 1] = r;
  pairSlots[slot * 3 + 2] = t;
}

/** Token bytes, concatenated, from gpt-tokenizer's ranks. */
export function tokenBytes(): { start: Int32Array; bytes: Uint8Array } {
  const ranks = bpeRanks as readonly (string | readonly number[])[];
  const encoder = new TextEncoder();
  // A rank is a string when its bytes are valid UTF-8, else the raw bytes;
  // most are ASCII, copied without the encoder.
  const start = new Int32Array(TOKENS + 1);
  let bytes = new Uint8Array(1 << 20);
  let used = 0;
  for (let t = 0; t < TOKENS; t++) {
    const value = ranks[t]!;
    if (used + 4 * value.length > bytes.length) {
      const bigger = new Uint8Array(bytes.length * 2);
      bigger.set(bytes.subarray(0, used));
      bytes = bigger;
    }
    start[t] = used;
    if (typeof value === 'string') {
      let ascii = true;
      for (let i = 0; i < value.length; i++) {
        const c = value.charCodeAt(i);
        if (c >= 128) {
          ascii = false;
          break;
        }
        bytes[used + i] = c;
      }
      used += ascii ? value.length : encoder.encodeInto(value, bytes.subarray(used)).written;
    } else {
      bytes.set(value, used);
      used += value.length;
    }
  }
  start[TOKENS] = used;
  return { start, bytes: bytes.subarray(0, used) };
}

/** The merge table, built on the first call. */
export function mergeTable(): MergeTable {
  if (table) return table;
  const { start, bytes } = tokenBytes();
  const byteToken = new Int32Array(256).fill(-1);
  for (let t = 0; t < TOKENS; t++) if (start[t + 1]! - start[t]! === 1) byteToken[bytes[start[t]!]!] = t;
  if (byteToken.includes(-1)) throw new Error('cl100k ranks lack a single byte');
  const splitLeft = new Int32Array(TOKENS);
  const splitRight = new Int32Array(TOKENS);
  if (ranksHash(start, bytes) !== CL100K_RANKS_HASH || !decodeSplits(CL100K_SPLITS, splitLeft, splitRight)) {
    const derived = deriveSplits(start, bytes, byteToken);
    splitLeft.set(derived.left);
    splitRight.set(derived.right);
  }
  clearPairs();
  const unbuildable: number[] = [];
  for (let t = 0; t < TOKENS; t++) {
    if (splitLeft[t] !== t) insertPair(splitLeft[t]!, splitRight[t]!, t);
    else if (start[t + 1]! - start[t]! > 1) unbuildable.push(t);
  }
  // Two single bytes merge into the two-byte token that spells them, if any.
  const bytePair = new Int32Array(65536).fill(-1);
  for (let t = 0; t < TOKENS; t++) {
    if (start[t + 1]! - start[t]! === 2 && splitLeft[t] !== t) bytePair[(bytes[start[t]!]! << 8) | bytes[start[t]! + 1]!] = t;
  }
  const info = new Int32Array(TOKENS * 4);
  for (let t = 0; t < TOKENS; t++) {
    info[t * 4] = start[t + 1]! - start[t]!;
    info[t * 4 + 1] = prefixes[t]!;
    info[t * 4 + 2] = splitLeft[t]!;
    info[t * 4 + 3] = splitRight[t]!;
  }
  table = { start, bytes, byteToken, bytePair, splitLeft, splitRight, unbuildable, info };
  return table;
}

/**
 * The pair each token is built from, by BPE of every token's bytes in rank
 * order with the pairs found so far (see the top of this file); a token that
 * does not merge into itself gets itself twice, as a single byte does.
 * Fills the pair table as it goes.
 */
export function deriveSplits(start: Int32Array, bytes: Uint8Array, byteToken: Int32Array): { left: Int32Array; right: Int32Array } {
  clearPairs();
  const left = new Int32Array(TOKENS);
  const right = new Int32Array(TOKENS);
  for (let t = 0; t < TOKENS; t++) {
    left[t] = t;
    right[t] = t;
    const a = start[t]!;
    const n = start[t + 1]! - a;
    if (n > 1 && lastMerge(bytes, a, n, byteToken)) {
      insertPair(lastLeft, lastRight, t);
      left[t] = lastLeft;
      right[t] = lastRight;
    }
  }
  return { left, right };
}

const parts = new Int32Array(256);
const pair = new Int32Array(256); // pair[i]: token parts i and i + 1 make, or -1
let lastLeft = 0;
let lastRight = 0;

/**
 * BPE of `bytes[a, a + n)` (a token's bytes, at most 128) with the pairs in
 * the table so far: true when it ends in two parts, then `lastLeft` and
 * `lastRight`.
 */
function lastMerge(bytes: Uint8Array, a: number, n: number, byteToken: Int32Array): boolean {
  for (let i = 0; i < n; i++) parts[i] = byteToken[bytes[a + i]!]!;
  for (let i = 0; i + 1 < n; i++) pair[i] = mergeOf(parts[i]!, parts[i + 1]!);
  if (mergeLowest(parts, pair, null, n, 2) !== 2) return false;
  lastLeft = parts[0]!;
  lastRight = parts[1]!;
  return true;
}

/**
 * tiktoken's merge loop (`_byte_pair_merge`) as it is, on the `m` parts in
 * `parts` (token ids), `pair[i]` being the token parts i and i + 1 make (-1:
 * none): the lowest pair, the leftmost on a tie, merges until none is left
 * or `stop` parts remain. `at`, when given, holds where each part starts and
 * moves with the parts. Quadratic: for short texts (bpe.ts's short
 * pre-tokens, and the derivation above, a token's bytes at a time). Returns
 * the number of parts left.
 */
export function mergeLowest(parts: Int32Array, pair: Int32Array, at: Int32Array | null, m: number, stop: number): number {
  while (m > stop) {
    let k = -1;
    let best = TOKENS;
    for (let i = 0; i + 1 < m; i++) {
      const r = pair[i]!;
      if (r >= 0 && r < best) {
        best = r;
        k = i;
      }
    }
    if (k < 0) break;
    parts[k] = best;
    m--;
    for (let i = k + 1; i < m; i++) {
      parts[i] = parts[i + 1]!;
      pair[i] = pair[i + 1]!;
    }
    if (at !== null) for (let i = k + 1; i < m; i++) at[i] = at[i + 1]!;
    if (k > 0) pair[k - 1] = mergeOf(parts[k - 1]!, best);
    pair[k] = k + 1 < m ? mergeOf(best, parts[k + 1]!) : -1;
  }
  return m;
}

/** 17 bits per token id (cl100k has 100,256). */
const ID_BITS = 17;
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The pairs as base64 of 17-bit ids, left then right per token (what `cl100k-splits.ts` holds). */
export function encodeSplits(left: Int32Array, right: Int32Array): string {
  const bitCount = TOKENS * 2 * ID_BITS;
  const out = new Uint8Array(Math.ceil(bitCount / 6));
  let bit = 0;
  const put = (v: number): void => {
    for (let k = ID_BITS - 1; k >= 0; k--, bit++) if ((v >>> k) & 1) out[(bit / 6) | 0] = out[(bit / 6) | 0]! | (1 << (5 - (bit % 6)));
  };
  for (let t = 0; t < TOKENS; t++) {
    put(left[t]!);
    put(right[t]!);
  }
  let s = '';
  for (let i = 0; i < out.length; i++) s += B64[out[i]!];
  return s;
}

/** Reads `encodeSplits`' text into the arrays; false if it is not for this many tokens. */
function decodeSplits(text: string, left: Int32Array, right: Int32Array): boolean {
  if (text.length !== Math.ceil((TOKENS * 2 * ID_BITS) / 6)) return false;
  const raw = Buffer.from(text, 'base64'); // whole bytes; the last partial sextet's bits are padding
  let acc = 0;
  let have = 0;
  let k = 0;
  for (let i = 0; i < raw.length && k < TOKENS * 2; i++) {
    acc = ((acc << 8) | raw[i]!) & 0xffffff; // at most 24 pending bits
    have += 8;
    if (have >= ID_BITS) {
      have -= ID_BITS;
      const id = (acc >>> have) & ((1 << ID_BITS) - 1);
      if (k & 1) right[k >> 1] = id;
      else left[k >> 1] = id;
      k++;
    }
  }
  return k === TOKENS * 2;
}

/** FNV-1a of every token's length and bytes: which ranks a shipped table was made for. */
export function ranksHash(start: Int32Array, bytes: Uint8Array): number {
  let h = 0x811c9dc5 | 0;
  for (let t = 0; t < TOKENS; t++) h = Math.imul(h ^ (start[t + 1]! - start[t]!), 0x01000193);
  // Four bytes at a time (in the platform's byte order, the same for every
  // build of one machine; a mismatch only costs a derivation).
  const words = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2);
  for (let i = 0; i < words.length; i++) h = Math.imul(h ^ words[i]!, 0x01000193);
  for (let i = words.length << 2; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

// ---- The trie, for the backtracking encoder's longest-token lookups ----

/**
 * Trie edges: slot k holds [node * 256 + byte, child] at 2k (key -1: empty).
 * Open addressing rather than a child array per node: 100,000 tokens make
 * about 217,000 nodes, most with one child. A node whose path spells a token
 * is numbered as that token, so the walk reads which token it has reached
 * from the node itself (a table of tokens by node was a cache miss per step
 * on a long unspaced run); the root is TOKENS, the other nodes follow it.
 */
const TRIE_BITS = 19;
const TRIE_MASK = (1 << TRIE_BITS) - 1;
const trieSlots = new Int32Array(2 << TRIE_BITS).fill(-1);
/** A Bloom filter of every edge, three bits each, as `pairFilter`. */
const trieFilter = new Int32Array(1 << 16);
const ROOT = TOKENS;
let trieNodes = TOKENS + 1;
let trieEdges = 0;
/** Node of each two-byte path, `b0 * 256 + b1` (-1: none or not built yet). */
const trie2 = new Int32Array(65536).fill(-1);
/** Longest token that is a proper prefix of token t (-1: none, or its first byte not built yet). */
const prefixes = new Int32Array(TOKENS).fill(-1);
/** Whether the tokens starting with each byte are in the trie. */
const firstBuilt = new Uint8Array(256);
/** Token ids by first byte, shortest first within each (`byFirst[firstAt[b]..firstAt[b + 1])`). */
let byFirst: Int32Array | null = null;
const firstAt = new Int32Array(257);

function trieChild(node: number, byte: number): number {
  const key = (node << 8) | byte;
  const h = Math.imul(key, 0x9e3779b1);
  const bits = filterBits(h);
  if ((trieFilter[h >>> 16]! & bits) !== bits) return -1;
  let slot = h >>> (32 - TRIE_BITS);
  for (;;) {
    const k = trieSlots[slot << 1]!;
    if (k === key) return trieSlots[(slot << 1) + 1]!;
    if (k === -1) return -1;
    slot = (slot + 1) & TRIE_MASK;
  }
}

/** Puts every token starting with byte `b0` in the trie, shortest first (so each one's prefixes are marked when it goes in). */
function buildFirst(t: MergeTable, b0: number): void {
  firstBuilt[b0] = 1;
  const { start, bytes } = t;
  if (byFirst === null) {
    // Counting sort by length, then (stably) by first byte.
    const byLength = new Int32Array(TOKENS);
    const at = new Int32Array(258);
    for (let k = 0; k < TOKENS; k++) {
      const len = start[k + 1]! - start[k]!;
      at[len + 1] = at[len + 1]! + 1;
    }
    for (let len = 1; len < 258; len++) at[len] = at[len]! + at[len - 1]!;
    for (let k = 0; k < TOKENS; k++) {
      const len = start[k + 1]! - start[k]!;
      byLength[at[len]!] = k;
      at[len] = at[len]! + 1;
    }
    const order = new Int32Array(TOKENS);
    for (let k = 0; k < TOKENS; k++) {
      const b = bytes[start[k]!]! + 1;
      firstAt[b] = firstAt[b]! + 1;
    }
    for (let b = 1; b <= 256; b++) firstAt[b] = firstAt[b]! + firstAt[b - 1]!;
    const fill = firstAt.slice(0, 256);
    for (let o = 0; o < TOKENS; o++) {
      const k = byLength[o]!;
      const b = bytes[start[k]!]!;
      order[fill[b]!] = k;
      fill[b] = fill[b]! + 1;
    }
    byFirst = order;
  }
  for (let o = firstAt[b0]!; o < firstAt[b0 + 1]!; o++) {
    const tk = byFirst[o]!;
    let node = ROOT;
    const last = start[tk + 1]! - 1;
    for (let i = start[tk]!; i <= last; i++) {
      const key = (node << 8) | bytes[i]!;
      const h = Math.imul(key, 0x9e3779b1);
      let slot = h >>> (32 - TRIE_BITS);
      let child = -1;
      for (;;) {
        const k = trieSlots[slot << 1]!;
        if (k === key) {
          child = trieSlots[(slot << 1) + 1]!;
          break;
        }
        if (k === -1) break;
        slot = (slot + 1) & TRIE_MASK;
      }
      if (child < 0) {
        trieFilter[h >>> 16] = trieFilter[h >>> 16]! | filterBits(h);
        // Shortest first, so a token's own node is always new here.
        child = i === last ? tk : trieNodes++;
        if (++trieEdges * 2 > TRIE_MASK) throw new Error('cl100k trie table too small');
        trieSlots[slot << 1] = key;
        trieSlots[(slot << 1) + 1] = child;
        if (i === start[tk]! + 1) trie2[(b0 << 8) | bytes[i]!] = child;
      } else if (i === last) {
        throw new Error(`cl100k token ${tk} spelled twice`);
      } else if (child < TOKENS) {
        prefixes[tk] = child;
        t.info[tk * 4 + 1] = child;
      }
      node = child;
    }
  }
}

/**
 * The longest token that is a prefix of `bytes[pos, n)` (pos < n; every
 * single byte is one).
 */
export function longestToken(t: MergeTable, bytes: Uint8Array, pos: number, n: number): number {
  const b0 = bytes[pos]!;
  let best = t.byteToken[b0]!;
  if (pos + 1 === n) return best;
  if (firstBuilt[b0] === 0) buildFirst(t, b0);
  let node = trie2[(b0 << 8) | bytes[pos + 1]!]!;
  if (node < 0) return best;
  for (let k = pos + 2; ; k++) {
    if (node < TOKENS) best = node; // a token's node is numbered as the token
    if (k === n) return best;
    node = trieChild(node, bytes[k]!);
    if (node < 0) return best;
  }
}

/**
 * The longest token that is a proper prefix of token `tk`, -1 for a single
 * byte. Only for a token `longestToken` returned or a prefix of one (its
 * first byte's tokens are in the trie).
 */
export function prefixOf(tk: number): number {
  return prefixes[tk]!;
}
