/**
 * A counting-only cl100k_base path: the exact token count of a slice of a
 * string, without building the slice, the token ids or a string per pre-token.
 *
 * cl100k tokenizes in two steps: a regex splits the text into pre-tokens, then
 * byte-pair encoding runs on each pre-token alone. The BPE of a pre-token does
 * not depend on its neighbours, and documentation repeats its words endlessly,
 * so the count of each distinct pre-token is computed once (by our BPE,
 * bpe.ts, on a cache miss) and remembered. What is left per pre-token is
 * finding its end and one hash-table probe. Special-token text such as
 * `<|endoftext|>` is ordinary text here.
 *
 * Why not the regex and a `Map<string, number>`: that is what gpt-tokenizer's
 * own `countTokens` does, and its profile is dominated by exactly those two
 * costs (a match array and a fresh string per pre-token, hashed again on every
 * lookup). The scanner below walks char codes, the table compares the key's
 * characters in place, and nothing is allocated on a hit. No library offers
 * counting over a slice, which is what `TokenIndex` needs.
 *
 * The scanner implements tiktoken's cl100k_base split pattern
 *
 *   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
 *    ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
 *
 * alternative by alternative, in order, on code points, `\s` meaning Unicode
 * White_Space as in tiktoken's Rust regex (JS's `\s`, which gpt-tokenizer's
 * split uses, differs on U+0085 and U+FEFF). `cl100k-count.test.ts` checks it
 * against that regex (property tests over unicode, CRLF, contractions and
 * special-token text) and the counts against tiktoken.
 */
import { BLOCK_BITS, bpeTokenCountRange, bpeTokenCountsInto, RunningCounts } from './bpe.js';
import { mergeTable } from './cl100k-merges.js';

// Character classes of the split pattern.
const LETTER = 1; // \p{L}
const NUMBER = 2; // \p{N}
const SPACE = 3; // \s as tiktoken's (Rust) regex means it: Unicode White_Space
const OTHER = 4; // everything else, lone surrogates included

const IS_LETTER = /^\p{L}$/u;
const IS_NUMBER = /^\p{N}$/u;
// Not JS's \s, which holds U+FEFF and not U+0085: tiktoken's pattern runs on
// Rust's regex, where \s is \p{White_Space} (U+0085 yes, U+FEFF no).
const IS_SPACE = /^\p{White_Space}$/u;

function classify(ch: string): number {
  if (IS_LETTER.test(ch)) return LETTER;
  if (IS_NUMBER.test(ch)) return NUMBER;
  if (IS_SPACE.test(ch)) return SPACE;
  return OTHER;
}

/** Class of every BMP code unit, filled on first use (0 = not yet known). */
const bmpClass = new Uint8Array(0x10000);
for (let c = 0; c < 128; c++) bmpClass[c] = classify(String.fromCharCode(c));
// Surrogates are classified as code points (pairs) or as OTHER (lone).
const astralClass = new Map<number, number>();

function classOfUnit(c: number): number {
  let k = bmpClass[c]!;
  if (k === 0) {
    k = c >= 0xd800 && c <= 0xdfff ? OTHER : classify(String.fromCharCode(c));
    bmpClass[c] = k;
  }
  return k;
}

function classOfAstral(cp: number): number {
  let k = astralClass.get(cp);
  if (k === undefined) {
    k = classify(String.fromCodePoint(cp));
    astralClass.set(cp, k);
  }
  return k;
}

/**
 * Scanner state for one code point at a time: `cls` and `width` of the code
 * point at `pos`, read with `read(s, pos, end)`. Module-level scalars rather
 * than an object, so the hot loop allocates nothing.
 */
let cls = 0;
let width = 1;

function read(s: string, pos: number, end: number): void {
  const c = s.charCodeAt(pos);
  if (c < 0xd800 || c > 0xdbff || pos + 1 >= end) {
    width = 1;
    cls = c < 128 ? bmpClass[c]! : classOfUnit(c);
    return;
  }
  const d = s.charCodeAt(pos + 1);
  if (d < 0xdc00 || d > 0xdfff) {
    width = 1;
    cls = OTHER;
    return;
  }
  width = 2;
  cls = classOfAstral(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000);
}

/** End of the pre-token that starts at `i` (< end) in `s.slice(0, end)`. */
export function preTokenEnd(s: string, i: number, end: number): number {
  const c = s.charCodeAt(i);
  // (?i:'s|'t|'re|'ve|'m|'ll|'d). Unicode case folding lets `s` match ſ (U+017F)
  // and `k`… only s among these letters has such a partner, in tiktoken too.
  if (c === 39 && i + 1 < end) {
    const a = s.charCodeAt(i + 1) | 0x20;
    if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64 || s.charCodeAt(i + 1) === 0x17f) return i + 2;
    if (i + 2 < end) {
      const b = s.charCodeAt(i + 2) | 0x20;
      if ((a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) || (a === 0x72 && b === 0x65)) return i + 3;
    }
  }
  read(s, i, end);
  const first = cls;
  const firstWidth = width;
  let j = i + firstWidth;
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (first === LETTER) return letterRun(s, j, end);
  if (first !== NUMBER && c !== 10 && c !== 13 && j < end) {
    read(s, j, end);
    if (cls === LETTER) return letterRun(s, j + width, end);
  }
  // \p{N}{1,3}
  if (first === NUMBER) {
    for (let n = 1; n < 3 && j < end; n++) {
      read(s, j, end);
      if (cls !== NUMBER) break;
      j += width;
    }
    return j;
  }
  //  ?[^\s\p{L}\p{N}]+[\r\n]*
  if (c === 32 && j < end) {
    read(s, j, end);
    if (cls === OTHER) return otherRun(s, j + width, end);
  }
  if (first === OTHER) return otherRun(s, j, end);
  // Whitespace: \s*[\r\n]+ ends after the run's last line break; else
  // \s+(?!\S) leaves the run's last character to the next pre-token (unless the
  // run ends the text); else \s+ is the single character.
  let lastBreak = c === 10 || c === 13 ? i : -1;
  while (j < end) {
    const d = s.charCodeAt(j);
    if (d === 10 || d === 13) lastBreak = j;
    else if ((d < 128 ? bmpClass[d]! : classOfUnit(d)) !== SPACE) break;
    j++; // every \s character is a single code unit
  }
  if (lastBreak >= 0) return lastBreak + 1;
  if (j === end || j - 1 === i) return j;
  return j - 1;
}

/**
 * `c < 128 && bmpClass[c] === LETTER`: the ASCII letters are A-Z and a-z (`c | 32` folds the
 * first onto the second and maps nothing else there), by two operations instead of a table
 * load, on the commonest characters of the scan.
 */
function isAsciiLetter(c: number): boolean {
  return ((c | 32) - 97) >>> 0 < 26;
}

/**
 * `preTokenEnd`, with a shortcut for the commonest pre-tokens: an ASCII word,
 * with or without one space before it, followed by an ASCII non-letter. When
 * the word runs into a non-ASCII character (which may be a letter) the full
 * scanner decides; other ASCII pre-tokens go through asciiPreTokenEnd first.
 */
export function nextPreTokenEnd(s: string, i: number, end: number): number {
  let j = i;
  let c = s.charCodeAt(j);
  if (c === 32 && j + 1 < end) c = s.charCodeAt(++j);
  if (isAsciiLetter(c)) {
    for (j++; j < end; j++) {
      c = s.charCodeAt(j);
      if (c >= 128) return preTokenEnd(s, i, end);
      if (!isAsciiLetter(c)) break;
    }
    return j;
  }
  const e = asciiPreTokenEnd(s, i, end);
  return e >= 0 ? e : preTokenEnd(s, i, end);
}

/**
 * `preTokenEnd` for a pre-token decided by ASCII characters alone, or -1 when
 * it would have to look at a non-ASCII one (which may be a letter, a number or
 * a space) or starts with `'` (a contraction, rare enough for the full
 * scanner). Punctuation, digits and whitespace are a third of the pre-tokens of
 * code-heavy docs and half of the Node.js API docs; the full scanner spends a
 * call and two module-variable writes per character on them (`read`), this
 * one a table lookup.
 */
export function asciiPreTokenEnd(s: string, i: number, end: number): number {
  const c = s.charCodeAt(i);
  if (c >= 128 || c === 39) return -1;
  const first = bmpClass[c]!;
  let j = i + 1;
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (first === LETTER) return asciiLetterRun(s, j, end);
  let next = 0; // class of s[j] when j < end
  if (j < end) {
    const d = s.charCodeAt(j);
    if (d >= 128) return -1;
    next = bmpClass[d]!;
    if (next === LETTER && first !== NUMBER && c !== 10 && c !== 13) return asciiLetterRun(s, j + 1, end);
  }
  // \p{N}{1,3}
  if (first === NUMBER) {
    for (let n = 1; n < 3 && j < end; n++) {
      const d = s.charCodeAt(j);
      if (d >= 128) return -1;
      if (bmpClass[d] !== NUMBER) break;
      j++;
    }
    return j;
  }
  //  ?[^\s\p{L}\p{N}]+[\r\n]*
  if (c === 32 && next === OTHER) return asciiOtherRun(s, j + 1, end);
  if (first === OTHER) return asciiOtherRun(s, j, end);
  // Whitespace, as in preTokenEnd.
  let lastBreak = c === 10 || c === 13 ? i : -1;
  while (j < end) {
    const d = s.charCodeAt(j);
    if (d === 10 || d === 13) lastBreak = j;
    else if (d >= 128) return -1;
    else if (bmpClass[d] !== SPACE) break;
    j++;
  }
  if (lastBreak >= 0) return lastBreak + 1;
  if (j === end || j - 1 === i) return j;
  return j - 1;
}

function asciiLetterRun(s: string, j: number, end: number): number {
  for (; j < end; j++) {
    const d = s.charCodeAt(j);
    if (d >= 128) return -1;
    if (bmpClass[d] !== LETTER) break;
  }
  return j;
}

function asciiOtherRun(s: string, j: number, end: number): number {
  for (; j < end; j++) {
    const d = s.charCodeAt(j);
    if (d >= 128) return -1;
    if (bmpClass[d] !== OTHER) break;
  }
  while (j < end) {
    const d = s.charCodeAt(j);
    if (d !== 10 && d !== 13) break;
    j++;
  }
  return j;
}

function letterRun(s: string, j: number, end: number): number {
  while (j < end) {
    read(s, j, end);
    if (cls !== LETTER) break;
    j += width;
  }
  return j;
}

function otherRun(s: string, j: number, end: number): number {
  while (j < end) {
    read(s, j, end);
    if (cls !== OTHER) break;
    j += width;
  }
  while (j < end) {
    const d = s.charCodeAt(j);
    if (d !== 10 && d !== 13) break;
    j++;
  }
  return j;
}

/**
 * Pre-token → token count. Open addressing over one Int32Array of
 * [hash, count, key offset, key length] per slot, the keys' characters in one
 * Uint16Array: a probe reads one slot and compares characters in place, so a
 * hit costs no allocation and no string object. Cleared when full rather than
 * grown without bound.
 */
let MAX_ENTRIES = 1 << 19;
const MAX_KEY = 256;
let MAX_ARENA = 1 << 22;
let capacity = 1 << 15;
let table = new Int32Array(capacity * 4); // count 0 = empty slot (every pre-token has ≥ 1 token)
let arena = new Uint16Array(1 << 16);
let arenaUsed = 0;
let size = 0;

/**
 * Empties the memo and sets its limits, so that tests can drive it through
 * growth and resets with little text. Not used by the pipeline.
 */
export function resetMemoForTests(maxEntries = 1 << 19, maxArenaUnits = 1 << 22): void {
  MAX_ENTRIES = maxEntries;
  MAX_ARENA = maxArenaUnits;
  capacity = 16;
  table = new Int32Array(capacity * 4);
  arena = new Uint16Array(64);
  arenaUsed = 0;
  size = 0;
  shortCapacity = 16;
  shortTable = new Int32Array(shortCapacity * 4);
  shortSize = 0;
  seen.fill(0);
  seenSet = 0;
  overflowed = false;
  windowLookups = 0;
  windowHits = 0;
  bypassLeft = 0;
}

/**
 * The memo's doorkeeper (TinyLFU's), once the memo has filled up and reset: from then on a
 * pre-token takes a slot the second time it misses, its first miss only sets a bit of its hash
 * here. A text that fills the memo is mostly pre-tokens seen once (10 MB of random base64 filled
 * it and reset it every 262,144 new ones), each costing a slot, a copy of its characters and
 * probes of a table far bigger than the cache, for nothing. Until then every miss takes a slot,
 * as before: a document's words come back, and the bench's 1 MB base64, which fits, is all
 * hits from its second pass. Cleared when an eighth of the bits are set, so that at most one
 * new pre-token in eight is let in by another's bit.
 */
const SEEN_BITS = 20;
const seen = new Int32Array(1 << (SEEN_BITS - 5));
let seenSet = 0;
/** Whether the memo has reset since it was made (resetMemoForTests), turning the doorkeeper on. */
let overflowed = false;

/** Whether a pre-token with hash `h` that missed the memo takes a slot. */
function admit(h: number): boolean {
  if (!overflowed) return true;
  const bit = h >>> (32 - SEEN_BITS);
  const word = bit >>> 5;
  const mask = 1 << (bit & 31);
  const w = seen[word]!;
  if ((w & mask) !== 0) return true;
  seen[word] = w | mask;
  if (++seenSet > 1 << (SEEN_BITS - 3)) {
    seen.fill(0);
    seenSet = 0;
  }
  return false;
}

/**
 * Once the memo has overflowed, how often it answers: when fewer than BYPASS_HIT_SHARE_NUM in
 * BYPASS_HIT_SHARE_DEN lookups of a window of MEMO_WINDOW hit, the next BYPASS_LOOKUPS pre-tokens
 * skip it and go straight to the BPE, then a window is measured again. Past its overflow the
 * tables are far bigger than the cache, and a probe costs about what the BPE of a short
 * pre-token does: 10 MB of random words (no hits) ran 23% faster without it, and random base64,
 * whose short pre-tokens hit 33–52% of the time, still 9% (session 60). Prose, whose words come
 * back, hits nearly always; a text that turns from random to repeated costs at most
 * BYPASS_LOOKUPS BPEs of pre-tokens the memo could have answered. Counts are the same either
 * way: the memo only remembers them.
 */
const MEMO_WINDOW = 4096;
const BYPASS_HIT_SHARE_NUM = 3;
const BYPASS_HIT_SHARE_DEN = 4;
const BYPASS_LOOKUPS = 16 * MEMO_WINDOW;
let windowLookups = 0;
let windowHits = 0;
let bypassLeft = 0;

/** Whether this lookup skips the memo (and counts it off the bypass). */
function bypassed(): boolean {
  if (bypassLeft === 0) return false;
  bypassLeft--;
  return true;
}

/** Counts a lookup of the memo, once it has overflowed; at a window's end, decides on a bypass. */
function noteLookup(hit: boolean): void {
  if (!overflowed) return;
  windowLookups++;
  if (hit) windowHits++;
  if (windowLookups < MEMO_WINDOW) return;
  if (windowHits * BYPASS_HIT_SHARE_DEN < MEMO_WINDOW * BYPASS_HIT_SHARE_NUM) bypassLeft = BYPASS_LOOKUPS;
  windowLookups = 0;
  windowHits = 0;
}

/** How many lookups the memo will skip from here, for tests. */
export function memoBypassLeftForTests(): number {
  return bypassLeft;
}

function resize(next: number): void {
  const old = table;
  const oldArena = arena;
  size = 0;
  if (next * 4 === old.length) {
    // A reset: drop everything, in the same array. A new one costs a page fault per 4 KB
    // touched again (8 MB at the largest), each reset of a text of new pre-tokens.
    old.fill(0);
    arenaUsed = 0;
    overflowed = true;
    return;
  }
  capacity = next;
  table = new Int32Array(capacity * 4);
  // Keys keep their places in the arena; only the slots move.
  arena = oldArena;
  for (let k = 0; k < old.length; k += 4) {
    if (old[k + 1] === 0) continue;
    let slot = old[k]! & (capacity - 1);
    while (table[slot * 4 + 1] !== 0) slot = (slot + 1) & (capacity - 1);
    copySlot(old, k, table, slot * 4);
    size++;
  }
}

/** `to.set(from.subarray(k, k + 4), at)`, without a view per slot (a table of 200,000 entries made as many). */
function copySlot(from: Int32Array, k: number, to: Int32Array, at: number): void {
  to[at] = from[k]!;
  to[at + 1] = from[k + 1]!;
  to[at + 2] = from[k + 2]!;
  to[at + 3] = from[k + 3]!;
}

// FNV-1a over the code units, then the length: the key of the longer pre-tokens
// (short ones are keyed by their packed units, see shortCount).
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

function finishHash(h: number, len: number): number {
  h = Math.imul(h ^ len, FNV_PRIME);
  return h ^ (h >>> 15);
}

function hashRange(s: string, a: number, b: number): number {
  let h = FNV_OFFSET;
  for (let k = a; k < b; k++) h = Math.imul(h ^ s.charCodeAt(k), FNV_PRIME);
  return finishHash(h, b - a);
}

/** `preTokenCount` of a pre-token of ASCII characters only (every unit fits a byte). */
function asciiCount(s: string, a: number, b: number): number {
  const len = b - a;
  if (len === 1) return 1; // every single byte is a token
  if (len > SHORT_KEY) return memoCount(s, a, b);
  let k0 = 0;
  let k1 = 0;
  for (let k = 0; k < len; k++) {
    const c = s.charCodeAt(a + k);
    if (k < 4) k0 |= c << (k << 3);
    else k1 |= c << ((k - 4) << 3);
  }
  return shortCount(s, a, b, k0, k1);
}

function preTokenCount(s: string, a: number, b: number): number {
  const len = b - a;
  if (len <= SHORT_KEY) {
    // Pack the code units into two words while checking that each fits a byte.
    let k0 = 0;
    let k1 = 0;
    let wide = 0;
    for (let k = 0; k < len; k++) {
      const c = s.charCodeAt(a + k);
      wide |= c;
      if (k < 4) k0 |= c << (k << 3);
      else k1 |= c << ((k - 4) << 3);
    }
    if (wide < 128 && len === 1) return 1; // every single byte is a token
    if (wide < 256) return shortCount(s, a, b, k0, k1);
  }
  return memoCount(s, a, b);
}

/**
 * The commonest pre-tokens, up to SHORT_KEY code units each below 256, are
 * their own key: the units packed a byte each into two 32-bit words, with the
 * length. A probe compares three integers in one slot of
 * [k0, k1, count << 4 | length, unused], with no hash over the characters and
 * no second array to read; that is most of what a document's scan costs.
 */
const SHORT_KEY = 8;
let shortCapacity = 1 << 13;
let shortTable = new Int32Array(shortCapacity * 4); // 0 in the third word = empty slot (every count is ≥ 1)
let shortSize = 0;

function shortSlot(k0: number, k1: number, len: number): number {
  const h = Math.imul(k0 ^ Math.imul(k1 ^ len, 0x9e3779b1), 0x85ebca6b);
  return (h ^ (h >>> 16)) & (shortCapacity - 1);
}

/** The count of `s.slice(a, b)`, a short pre-token whose packed key is `k0`, `k1`. */
function shortCount(s: string, a: number, b: number, k0: number, k1: number): number {
  if (overflowed && bypassed()) return bpeTokenCountRange(s, a, b);
  const len = b - a;
  const mask = shortCapacity - 1;
  let slot = shortSlot(k0, k1, len);
  for (;;) {
    const base = slot << 2;
    const v = shortTable[base + 2]!;
    if (v === 0) break;
    if ((v & 15) === len && shortTable[base] === k0 && shortTable[base + 1] === k1) {
      noteLookup(true);
      return v >>> 4;
    }
    slot = (slot + 1) & mask;
  }
  noteLookup(false);
  const n = bpeTokenCountRange(s, a, b);
  if (!admit(Math.imul(k0 ^ Math.imul(k1 ^ len, 0x85ebca6b), 0x9e3779b1))) return n;
  if (shortSize * 2 >= shortCapacity) {
    growShort(shortCapacity < MAX_ENTRIES ? shortCapacity * 2 : shortCapacity); // grow, else reset
    slot = shortSlot(k0, k1, len);
    while (shortTable[(slot << 2) + 2] !== 0) slot = (slot + 1) & (shortCapacity - 1);
  }
  const base = slot << 2;
  shortTable[base] = k0;
  shortTable[base + 1] = k1;
  shortTable[base + 2] = (n << 4) | len;
  shortSize++;
  return n;
}

function growShort(next: number): void {
  const old = shortTable;
  shortSize = 0;
  if (next === shortCapacity) {
    old.fill(0); // a reset, in the same array (see resize)
    overflowed = true;
    return;
  }
  shortCapacity = next;
  shortTable = new Int32Array(next * 4);
  for (let k = 0; k < old.length; k += 4) {
    const v = old[k + 2]!;
    if (v === 0) continue;
    let slot = shortSlot(old[k]!, old[k + 1]!, v & 15);
    while (shortTable[(slot << 2) + 2] !== 0) slot = (slot + 1) & (shortCapacity - 1);
    copySlot(old, k, shortTable, slot << 2);
    shortSize++;
  }
}

/** The count of pre-token `s.slice(a, b)`, from the memo or the BPE. */
function memoCount(s: string, a: number, b: number): number {
  if (overflowed && bypassed()) return bpeTokenCountRange(s, a, b);
  // Hashed only here: a pre-token the bypass sends to the BPE needs no hash (a pass over
  // each character of every pre-token of 10 MB of base64).
  const h = hashRange(s, a, b);
  const len = b - a;
  const mask = capacity - 1;
  let slot = h & mask;
  for (;;) {
    const base = slot * 4;
    const n = table[base + 1]!;
    if (n === 0) break;
    if (table[base] === h && table[base + 3] === len) {
      const off = table[base + 2]!;
      let k = 0;
      while (k < len && arena[off + k] === s.charCodeAt(a + k)) k++;
      if (k === len) {
        noteLookup(true);
        return n;
      }
    }
    slot = (slot + 1) & mask;
  }
  noteLookup(false);
  const n = bpeTokenCountRange(s, a, b);
  if (len > MAX_KEY || !admit(h)) return n; // rare long pre-tokens are not worth a slot
  const full = size * 2 >= capacity;
  if (full || arenaUsed + len > MAX_ARENA) {
    resize(full && capacity < MAX_ENTRIES ? capacity * 2 : capacity); // grow, else reset
    slot = h & (capacity - 1);
    while (table[slot * 4 + 1] !== 0) slot = (slot + 1) & (capacity - 1);
  }
  if (arenaUsed + len > arena.length) {
    const bigger = new Uint16Array(Math.max(arena.length * 2, arenaUsed + len));
    bigger.set(arena.subarray(0, arenaUsed));
    arena = bigger;
  }
  for (let k = 0; k < len; k++) arena[arenaUsed + k] = s.charCodeAt(a + k);
  const base = slot * 4;
  table[base] = h;
  table[base + 1] = n;
  table[base + 2] = arenaUsed;
  table[base + 3] = len;
  arenaUsed += len;
  size++;
  return n;
}

const LONG_PRE_TOKEN = 256;

/**
 * SliceCounter.beforeBreaks looks this far back for the start of the punctuation before a line
 * break, and this far ahead for the end of the breaks; a longer one (a rule of dashes, a block
 * before thousands of blank lines) goes to the general path. Below LONG_PRE_TOKEN.
 */
const BEFORE_BREAKS_MOST = 64;

/** Whether BPE builds every token from its own bytes (true of cl100k); read when first needed. */
let allTokensBuildable: boolean | undefined;

/** Tokens of `s.slice(start, end)` by scanning it. */
function scan(s: string, start: number, end: number): number {
  let total = 0;
  for (let i = start; i < end; ) {
    const j = nextPreTokenEnd(s, i, end);
    total += preTokenCount(s, i, j);
    i = j;
  }
  return total;
}

/** Exact cl100k_base token count of `s.slice(start, end)`, without slicing. */
export function countRange(s: string, start = 0, end = s.length): number {
  return end <= start ? 0 : scan(s, start, end);
}

/**
 * Exact counts of any slice of one text, from one scan of the whole text.
 *
 * `cum.get(i)` is 1 + the tokens of `text.slice(0, i)` when a pre-token of the
 * whole text starts at `i` (and at `text.length`), else 0 (a byte an offset, see RunningCounts). A slice
 * `[a, b)` is scanned on its own from `a` until its pre-tokens meet one of the
 * whole text's boundaries `p`; from there both scans agree (the pattern has
 * no look-behind), up to a boundary `q` at or before `r`, the start of the
 * whitespace run the slice ends with. Pre-tokens that end by then cannot see
 * the slice's end: every alternative decides on the characters up to the
 * pre-token's end, except `\s+(?!\S)` and `\s*[\r\n]+`, which look at the
 * whole whitespace run, and a run that reaches the slice's end lies after `r`.
 * A slice that ends inside a surrogate pair ends with a lone surrogate, a
 * different character class, so `q` stays before it and the pre-token that
 * looked at it. The count is scan(a, p) + cum(q) − cum(p) + scan(q, b). (Stopping at the
 * last boundary before `b` is not enough: in "a  1" the whole text splits
 * "a", " ", " ", "1", while "a  " alone splits "a", "  ".)
 */
export class SliceCounter {
  private readonly cum: RunningCounts | null;
  /**
   * Inside each pre-token longer than LONG_PRE_TOKEN (an unspaced run), 1 +
   * the tokens of the text (those before the pre-token, then those of its BPE)
   * that end at or before each offset where one of them ends, and at its start
   * (0 elsewhere, a byte an offset: RunningCounts); null when there is no such
   * pre-token. Counted from the text's start, not the run's, so that they never
   * decrease and a run that starts where another ends agrees with it there. The BPE of a
   * slice of that pre-token that starts and ends where its tokens end merges
   * exactly as the whole did between those ends (a merge across either end
   * never had the lowest rank in the whole, so its absence changes no choice
   * on either side), so such a slice's count is a subtraction, not a fresh
   * merge: packing and overlap count thousands of slices of one huge run.
   */
  private tokAt: RunningCounts | null = null;
  /** Start and end of each such pre-token, in order. */
  private readonly longRuns: number[] = [];
  /**
   * For each of them, a stretch `[oneFrom, oneTo)` of which any slice is one pre-token on its
   * own: the ASCII letters it ends with (`[^\r\n\p{L}\p{N}]?\p{L}+`), or the ASCII
   * punctuation of ` ?[^\s\p{L}\p{N}]+[\r\n]*` (a rule of dashes, a deep quote's `>>>>`).
   * Empty (0x7fffffff, 0) for any other run. See withinOne and uniformEnd.
   */
  private readonly oneFrom: number[] = [];
  private readonly oneTo: number[] = [];

  constructor(readonly text: string) {
    const end = text.length;
    const cum = new RunningCounts(end);
    const { rel, bases } = cum;
    let block = 0; // cum's, written at 0 below
    let base = 0;
    let total = 0;
    let i = 0;
    cum.set(0, 1);
    while (i < end) {
      // The commonest pre-token, an ASCII word with or without one space before
      // it, is found and packed into its short key in one pass (as in
      // nextPreTokenEnd, a word that runs into a non-ASCII character goes to the
      // full scanner).
      let j = i;
      let c = text.charCodeAt(j);
      // The first SHORT_KEY units packed as shortCount keys them.
      let k0 = 0;
      let k1 = 0;
      if (c === 32 && j + 1 < end) {
        k0 = 32;
        c = text.charCodeAt(++j);
      }
      let n: number;
      if (isAsciiLetter(c)) {
        do {
          const at = j - i;
          if (at < 4) k0 |= c << (at << 3);
          else if (at < SHORT_KEY) k1 |= c << ((at - 4) << 3);
          if (++j === end) break;
          c = text.charCodeAt(j);
        } while (isAsciiLetter(c));
        if (j === end || c < 128) {
          const len = j - i;
          n =
            len <= SHORT_KEY
              ? len === 1
                ? 1
                : shortCount(text, i, j, k0, k1)
              : len > LONG_PRE_TOKEN
                ? this.longCount(i, j, total, text.charCodeAt(i) === 32 ? i + 1 : i, j)
                : memoCount(text, i, j);
        } else {
          j = preTokenEnd(text, i, end);
          n = j - i > LONG_PRE_TOKEN ? this.longCount(i, j, total) : preTokenCount(text, i, j);
        }
      } else {
        j = asciiPreTokenEnd(text, i, end);
        if (j < 0) {
          j = preTokenEnd(text, i, end);
          n = j - i > LONG_PRE_TOKEN ? this.longCount(i, j, total) : preTokenCount(text, i, j);
        } else {
          n = j - i > LONG_PRE_TOKEN ? this.asciiLongCount(i, j, total) : asciiCount(text, i, j);
        }
      }
      total += n;
      // cum.set(j, total + 1), with its block and base in locals: the object's fields were
      // loaded and stored again at every pre-token (tiny lines have one every 1.5 units).
      if (j >> BLOCK_BITS !== block) {
        block = j >> BLOCK_BITS;
        base = total;
        bases[block] = total;
      }
      rel[j] = total + 1 - base;
      i = j;
    }
    this.cum = cum;
  }

  /** Hands its running counts on (RunningCounts.release): only for a counter nothing reads any more. */
  release(): void {
    this.cum?.release();
    this.tokAt?.release();
  }

  /** BPE of the long pre-token `[i, j)`, `before` tokens before it, keeping where its tokens end (tokAt); its count. */
  private longCount(i: number, j: number, before: number, oneFrom = 0x7fffffff, oneTo = 0): number {
    const tokAt = (this.tokAt ??= new RunningCounts(this.text.length));
    tokAt.set(i, before + 1);
    this.longRuns.push(i, j);
    this.oneFrom.push(oneFrom);
    this.oneTo.push(oneTo);
    return bpeTokenCountsInto(this.text, i, j, tokAt, before);
  }

  /**
   * longCount of `[i, j)`, a pre-token of ASCII characters as asciiPreTokenEnd found it, with
   * its stretch of one pre-token: letters after one other character, or the punctuation of
   * ` ?[^\s\p{L}\p{N}]+[\r\n]*` (whitespace runs have none).
   */
  private asciiLongCount(i: number, j: number, before: number): number {
    const { text } = this;
    const first = bmpClass[text.charCodeAt(i)]!;
    const second = bmpClass[text.charCodeAt(i + 1)]!;
    if (second === LETTER) return this.longCount(i, j, before, i + 1, j);
    const from = first === OTHER ? i : second === OTHER && text.charCodeAt(i) === 32 ? i + 1 : -1;
    if (from < 0) return this.longCount(i, j, before);
    let to = j;
    while (to > from && (text.charCodeAt(to - 1) === 10 || text.charCodeAt(to - 1) === 13)) to--;
    return this.longCount(i, j, before, from, to);
  }

  /** The long pre-token holding offset `p`: the index (in pairs of longRuns) of the last one starting at or before it. */
  private longRunAt(p: number): number {
    const { longRuns } = this;
    let lo = 0;
    let hi = longRuns.length / 2 - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (longRuns[mid * 2]! <= p) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * Count of `[p, e)`, one pre-token as the scanner sees it, from the BPE of
   * the long pre-token that holds it when both ends are ends of its tokens;
   * -1 otherwise. bpeTokenCountRange encodes such a slice the same way unless it
   * is a token BPE cannot build from its bytes (a whole-token lookup, and no token
   * is over LONG_PRE_TOKEN long). cl100k has none, so shorter slices qualify too:
   * with small chunks the packed parts of a huge run are 100-250 characters, and
   * each was merged again (15% of an unspaced run's instructions).
   */
  private fromLong(p: number, e: number): number {
    const { tokAt, longRuns } = this;
    if (tokAt === null || tokAt.rel[p] === 0 || tokAt.rel[e] === 0) return -1;
    if (e - p <= LONG_PRE_TOKEN && !(allTokensBuildable ??= mergeTable().unbuildable.length === 0)) return -1;
    const lo = this.longRunAt(p);
    const ps = longRuns[lo * 2]!;
    const pe = longRuns[lo * 2 + 1]!;
    if (p < ps || e > pe) return -1;
    return tokAt.get(e) - tokAt.get(p);
  }

  /**
   * Count of `[a, b)` (a < b) when both are ends of tokens of one long pre-token's BPE and the
   * slice lies in its stretch of one pre-token (oneFrom, oneTo): the BPE of that slice merges
   * as the whole did between those ends (see fromLong). -1 otherwise.
   */
  private withinOne(a: number, b: number): number {
    const { tokAt } = this;
    if (tokAt === null || tokAt.rel[a] === 0 || tokAt.rel[b] === 0) return -1;
    if (b - a <= LONG_PRE_TOKEN && !(allTokensBuildable ??= mergeTable().unbuildable.length === 0)) return -1;
    const lo = this.longRunAt(a);
    if (a < this.oneFrom[lo]! || b > this.oneTo[lo]!) return -1;
    const n = tokAt.get(b) - tokAt.get(a);
    return n > 0 ? n : -1;
  }

  /**
   * Where the pre-token that a scan starting at `p` finds ends, when `p` lies inside a long
   * pre-token's stretch of one pre-token and before its last character: that pre-token's end
   * (-1 otherwise). From a letter of the stretch `\p{L}+` runs to the letters' end, which is
   * the run's; from punctuation followed by punctuation neither a contraction nor a word can
   * start, and ` ?[^\s\p{L}\p{N}]+[\r\n]*` runs to the run's end. Found without reading
   * the run: count() was scanning from each cut to the end of a deep quote's `>>>>` line,
   * thousands of characters for each part packed from it.
   */
  private uniformEnd(p: number): number {
    if (this.tokAt === null) return -1;
    const lo = this.longRunAt(p);
    // oneTo is at most the run's end, so p lies inside the run.
    return p >= this.oneFrom[lo]! && p + 1 < this.oneTo[lo]! ? this.longRuns[lo * 2 + 1]! : -1;
  }

  /**
   * Whether `[q, b)` is the start of a long pre-token up to a point inside its stretch of one
   * pre-token, so that a scan of it alone ends at `b` (what `nextPreTokenEnd(text, q, b) === b`
   * finds by reading it).
   */
  private startsOne(q: number, b: number): boolean {
    if (this.tokAt === null) return false;
    const lo = this.longRunAt(q);
    return this.longRuns[lo * 2] === q && b > this.oneFrom[lo]! && b <= this.oneTo[lo]!;
  }

  /**
   * The count of `[q, b)` when it is a whole long pre-token, or one without the line breaks it
   * ends with (a fence of thousands of backticks, with or without its `\n`, whose break moved
   * count()'s `limit` back to its start); -1 otherwise. Either was merged again by the tail's
   * scan on every count that ended there: a 250,000-character fence seven times a pass.
   *
   * A pre-token of the text is one pre-token alone: an alternative that failed at `q` in the
   * text fails on the same characters alone (only `\s+(?!\S)` looks past its match, and it
   * comes after every other), and the one that matched matches them again. So the whole run's
   * count is the text's. Without its line breaks it is one pre-token too (its stretch of one,
   * oneTo), merged once and kept.
   */
  private wholeRunCount(q: number, b: number): number {
    if (this.tokAt === null) return -1;
    const lo = this.longRunAt(q);
    const { longRuns } = this;
    if (longRuns[lo * 2] !== q) return -1;
    const pe = longRuns[lo * 2 + 1]!;
    if (b === pe) return this.cum!.get(pe) - this.cum!.get(q);
    if (b !== this.oneTo[lo] || this.oneFrom[lo]! >= b) return -1;
    let n = this.withoutBreaks.get(lo);
    if (n === undefined) {
      n = preTokenCount(this.text, q, b);
      this.withoutBreaks.set(lo, n);
    }
    return n;
  }

  /** wholeRunCount's counts of long pre-tokens without their line breaks, by index in longRuns. */
  private readonly withoutBreaks = new Map<number, number>();

  /**
   * The last start of a pre-token of the whole text at or before `x` (`rel[x0] !== 0` for some
   * x0 <= x is the caller's promise). Inside a long pre-token that is its start, found in the
   * list of long runs: walking `rel` back read every character of the run, a miss each.
   */
  private boundaryAtOrBefore(x: number): number {
    const { rel } = this.cum!;
    if (rel[x] !== 0) return x;
    if (this.tokAt !== null) {
      const lo = this.longRunAt(x);
      const ps = this.longRuns[lo * 2]!;
      if (ps < x && x < this.longRuns[lo * 2 + 1]!) return ps;
    }
    let q = x;
    while (rel[q] === 0) q--;
    return q;
  }

  /**
   * When `a` is an end of a token of a long pre-token's BPE: the last such end
   * `b <= end` (and within the pre-token) with at most `limit` tokens in
   * `[a, b)`, so that a splitter cuts a huge run at the tokens it already has
   * instead of merging each part again; -1 when there is none past `a` or the
   * rest of the pre-token up to `end` fits. Costs the part's length.
   */
  lastTokenEnd(a: number, end: number, limit: number): number {
    const { tokAt, longRuns } = this;
    if (tokAt === null || tokAt.rel[a] === 0 || longRuns.length === 0) return -1;
    const lo = this.longRunAt(a);
    const ps = longRuns[lo * 2]!;
    const stop = Math.min(end, longRuns[lo * 2 + 1]!);
    if (a < ps || a >= stop) return -1;
    const most = tokAt.get(a) + limit;
    const { rel } = tokAt;
    let last = -1;
    for (let b = a + 1; b <= stop; b++) {
      if (rel[b] === 0) continue;
      const t = tokAt.get(b);
      if (t > most) return last;
      last = b;
    }
    return -1; // the rest fits
  }

  /**
   * For a text that holds `text.slice(a, b)` at some place followed by anything
   * else (countJoined's joined text), when `off` (a <= off < b) starts one of
   * this text's pre-tokens: the last such start `q <= b` whose pre-tokens in
   * `[off, q)` are that text's pre-tokens too; -1 when there is none past
   * `off`. Both scans stand at `off` with the same characters ahead, and agree
   * on every pre-token whose extent is decided by characters of the slice: one
   * that ends before the slice's last character (which a greedy run may look
   * past), or at the start of the whitespace run the slice ends with (a run
   * that reaches the slice's end may go on in the other text), and not at a
   * high surrogate that ends the slice (the other text may pair it). The
   * pattern has no look-behind, so what precedes `off` does not matter.
   */
  syncEnd(off: number, a: number, b: number): number {
    const { cum, text } = this;
    if (cum === null || off < a || off >= b || cum.rel[off] === 0) return -1;
    let limit = b;
    while (limit > off && isSpaceUnit(text.charCodeAt(limit - 1))) limit--;
    if (limit === b) limit = b - 1;
    if (isHighSurrogate(text.charCodeAt(b - 1))) limit = Math.min(limit, b - 2);
    if (limit <= off) return -1;
    const q = this.boundaryAtOrBefore(limit);
    return q > off ? q : -1;
  }

  /** Tokens of the pre-tokens from `p` to `q`, both starts of pre-tokens of the text. */
  between(p: number, q: number): number {
    return this.cum!.get(q) - this.cum!.get(p);
  }

  /** Where the text's pre-tokens start, in order (for tests), or null if the scan gave up. */
  preTokenStarts(): number[] | null {
    const { cum } = this;
    if (cum === null) return null;
    const starts: number[] = [];
    for (let p = 0; p < this.text.length; p++) if (cum.rel[p] !== 0) starts.push(p);
    return starts;
  }

  /**
   * count(a, b), given `tail` = count(s, b) for a start `s` of one of the text's pre-tokens with
   * a <= s < b (the packer knows each piece's own count: a run's count is the pre-tokens before
   * its last piece and that piece's count). When `a` starts a pre-token too and the slice does
   * not end in whitespace or between the halves of a surrogate pair, count(a, b) and count(s, b)
   * stop at the same boundary `q >= s` (count's `limit` is `b`) and count the same tail from it,
   * so they differ by the pre-tokens in [a, s). Otherwise count(a, b). A paragraph that ends with
   * `.` or a rule `***` ends inside a pre-token (`.\n`, `***\n`): each run ending there scanned
   * its last pre-token again.
   */
  countWithTail(a: number, s: number, b: number, tail: number): number {
    const { cum, text } = this;
    if (cum !== null && a <= s && s < b && cum.rel[a] !== 0 && cum.rel[s] !== 0) {
      const last = text.charCodeAt(b - 1);
      if (!isSpaceUnit(last) && !(isHighSurrogate(last) && b < text.length && isLowSurrogate(text.charCodeAt(b)))) {
        return cum.get(s) - cum.get(a) + tail;
      }
    }
    return this.count(a, b);
  }

  /**
   * count(a, b) when `a` starts a pre-token of the whole text and `b` is where the line breaks
   * that end one begin: a block that ends with punctuation before its line break (`***`, `.`,
   * `|`, a closing backtick), whose `.\n\n` the whole text's scan took as one pre-token. -1 when
   * the slice is not so.
   *
   * A pre-token holding a character that is neither whitespace nor a line break, then line
   * breaks, can only be ` ?[^\s\p{L}\p{N}]+[\r\n]*` (no other alternative holds both), so its part
   * before the breaks is punctuation, with one space before it or none: alone it is one pre-token
   * of the same alternative (the letter and number alternatives before it fail on it as on the
   * whole), counted from the memo. The pre-tokens before it are the whole text's (they end before
   * `b` and look at nothing past their match). Before, the general path found its start and scanned
   * it again: a page of thematic breaks, or of table rows, was counted at about five times the
   * cost of one that ends in a letter (issue 15).
   */
  private beforeBreaks(a: number, b: number): number {
    const { text } = this;
    const rel = this.cum!.rel;
    const brk = text.charCodeAt(b);
    if (brk !== 10 && brk !== 13) return -1; // NaN past the text's end
    const last = text.charCodeAt(b - 1);
    if (last === 10 || last === 13 || isSpaceUnit(last)) return -1;
    // The breaks reach the next boundary, and the pre-token's start is near: a long run of
    // punctuation, or of breaks after it, goes to the general path, which finds a long run's ends
    // from the long runs' list (walked here, a block before 100,000 line breaks read them all at
    // each count that ended there).
    let e = b + 1;
    while (rel[e] === 0) {
      const c = text.charCodeAt(e);
      if ((c !== 10 && c !== 13) || e - b >= BEFORE_BREAKS_MOST) return -1;
      e++;
    }
    let q = b - 1;
    const stop = Math.max(a, b - BEFORE_BREAKS_MOST);
    while (rel[q] === 0) {
      if (q <= stop) return -1;
      q--;
    }
    return this.cum!.get(q) - this.cum!.get(a) + preTokenCount(text, q, b);
  }

  /** Exact cl100k_base token count of `text.slice(a, b)`. */
  count(a: number, b: number): number {
    const { cum, text } = this;
    if (b <= a) return 0;
    if (cum === null) return countRange(text, a, b);
    // Inside a long run's stretch of one pre-token, from one of its token ends to another: the slice is
    // one pre-token, whose count is a subtraction (fromLong), without scanning it to see so
    // (the splitter and the packer count thousands of slices of one huge unspaced run).
    // Asked before `cum` at `a` is read: inside a long run `cum` is never written, so each read
    // there was a cache miss, or the fault of a page first touched (93% of this method's
    // time on 1 MB of random letters); withinOne reads only tokAt, written all along it.
    if (this.tokAt !== null) {
      const fast = this.withinOne(a, b);
      if (fast >= 0) return fast;
    }
    const { rel } = cum;
    // Both ends start pre-tokens of the whole text: the slice alone splits into the same
    // pre-tokens, unless its last one is a run of whitespace that a scan of the whole text cut
    // by looking past the slice (`\s+(?!\S)`: see the class comment). A run ending in a line
    // break is matched by `\s*[\r\n]+` first, which looks at nothing past its match. The
    // splitter counts each sentence or line it packs from (a paragraph of a million tiny lines:
    // a scan of the break after each line was a fifth of the pass).
    if (rel[a] !== 0 && rel[b] !== 0) {
      const last = text.charCodeAt(b - 1);
      if (last === 10 || last === 13 || !isSpaceUnit(last)) return cum.get(b) - cum.get(a);
    } else if (rel[a] !== 0) {
      const cut = this.beforeBreaks(a, b);
      if (cut >= 0) return cut;
    }
    let total = 0;
    let p = a;
    while (p < b && rel[p] === 0) {
      const runEnd = this.uniformEnd(p);
      const e = runEnd >= 0 ? Math.min(runEnd, b) : nextPreTokenEnd(text, p, b);
      const fast = this.fromLong(p, e);
      total += fast >= 0 ? fast : preTokenCount(text, p, e);
      p = e;
    }
    if (p >= b) return total;
    // The scans agree on every pre-token that ends by `limit`: the start of the
    // whitespace run the slice ends with, or, when the slice ends between the
    // two halves of a surrogate pair (a lone surrogate in the slice, another
    // character in the whole text), before that half and the pre-token that
    // looked at it.
    let limit = b;
    while (limit > p && isSpaceUnit(text.charCodeAt(limit - 1))) limit--;
    if (b < text.length && isHighSurrogate(text.charCodeAt(b - 1)) && isLowSurrogate(text.charCodeAt(b))) {
      limit = Math.min(limit, b - 2);
    }
    if (limit < p) return total + scan(text, p, b);
    const q = this.boundaryAtOrBefore(limit);
    const whole = q < b ? this.wholeRunCount(q, b) : -1;
    if (whole >= 0) return total + (cum.get(q) - cum.get(p)) + whole;
    // A slice that ends inside a long run: its last pre-token is the run's prefix up to b.
    const fast = this.tokAt !== null && q < b && rel[b] === 0 && (this.startsOne(q, b) || nextPreTokenEnd(text, q, b) === b) ? this.fromLong(q, b) : -1;
    const tail = fast >= 0 ? fast : scan(text, q, b);
    return total + (cum.get(q) - cum.get(p)) + tail;
  }
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** `\s` as the split pattern means it; every such character is one code unit. */
function isSpaceUnit(c: number): boolean {
  return (c < 128 ? bmpClass[c]! : classOfUnit(c)) === SPACE;
}

/** `joined.slice(at, at + b - a)` is `counter.text.slice(a, b)`. */
export interface JoinedSlice {
  at: number;
  counter: SliceCounter;
  a: number;
  b: number;
}

/**
 * Exact cl100k_base token count of `joined`, a text made of slices of texts
 * whose SliceCounters are at hand (`parts`, in order, not overlapping) and
 * whatever lies between them. The scan of `joined` jumps over the inside of
 * each slice, from where it meets one of that text's pre-token starts to the
 * slice's syncEnd, adding that text's counts: only the few pre-tokens at each
 * joint are counted again. Equal to `countRange(joined)`.
 */
export function countJoined(joined: string, parts: readonly JoinedSlice[]): number {
  const end = joined.length;
  let total = 0;
  let pos = 0;
  let k = 0;
  while (pos < end) {
    while (k < parts.length && parts[k]!.at + (parts[k]!.b - parts[k]!.a) <= pos) k++;
    if (k < parts.length) {
      const part = parts[k]!;
      if (pos >= part.at) {
        const off = part.a + (pos - part.at);
        const q = part.counter.syncEnd(off, part.a, part.b);
        if (q > off) {
          total += part.counter.between(off, q);
          pos = part.at + (q - part.a);
          continue;
        }
      }
    }
    const e = nextPreTokenEnd(joined, pos, end);
    total += preTokenCount(joined, pos, e);
    pos = e;
  }
  return total;
}
