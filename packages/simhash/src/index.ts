/**
 * @chunkyard/simhash — the 64-bit SimHash of a short text (a question), used for seed 001's
 * prompt matching: `spec` stores the SimHash of each qa-pairs.md question close to a chunk,
 * and a client hashes its query the same way and compares by Hamming distance.
 *
 *   const h = simhash64('How do I enable source generation?');   // bigint
 *   toHex(h);                                                     // '9f3a…' (16 lowercase hex digits)
 *   hammingDistance(h, simhash64('how to enable source generation')); // small: shared terms
 *
 * Features are the local lexical embedding's (`lexicalFeatures`): Porter stems without stop
 * words, whole code identifiers, and adjacent stem pairs. So case, punctuation, stop words
 * and inflection do not move the hash; different content words do. Each distinct feature
 * counts once (questions are short; repeating a word should not outvote the others).
 *
 * Version 2: each feature's 64-bit hash is two MurmurHash3 (x86, 32-bit) hashes of its UTF-16LE
 * bytes, seeds FEATURE_SEED_HI (the high 32 bits) and FEATURE_SEED_LO (the low 32 bits).
 * Version 1 took the first 8 bytes of a sha256 per feature: 1-5 s per MB on text where every
 * token is a distinct feature (unspaced runs, minified code, wide tables; issue 15), for the
 * same distribution. Any change to the features or the hash changes every stored hash, so it
 * bumps SIMHASH_VERSION, which `spec` writes next to the hashes.
 */
import { lexicalFeatures } from '@chunkyard/embeddings';

export const SIMHASH_VERSION = 'simhash64-lexical-v2';

/** Bigrams weigh less than words: a reordered question should stay close. */
const BIGRAM_WEIGHT = 0.5;

/** Seeds of the two 32-bit halves of a feature's hash (any two distinct values would do; fixed forever for v2). */
export const FEATURE_SEED_HI = 0x9e3779b9;
export const FEATURE_SEED_LO = 0x85ebca6b;

/**
 * MurmurHash3 x86_32 of the UTF-16LE bytes of `s` (two code units per 4-byte block), as an
 * unsigned 32-bit number. Any language can reproduce it: encode UTF-16LE, hash with the seed.
 */
export function murmur3Utf16(s: string, seed: number): number {
  let h = seed | 0;
  const n = s.length;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    let k = (s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16)) | 0;
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  if (i < n) {
    // Tail: one code unit, two bytes.
    let k = s.charCodeAt(i);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
  }
  h ^= n * 2;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A feature's 64-bit hash (v2): the two seeded halves, high then low. */
export function featureHash64(feature: string): bigint {
  return (BigInt(murmur3Utf16(feature, FEATURE_SEED_HI)) << 32n) | BigInt(murmur3Utf16(feature, FEATURE_SEED_LO));
}

/** The weighted features of a text (distinct). Exposed for tests and for explaining a match. */
export function simhashFeatures(text: string): Map<string, number> {
  const { unigrams, identifiers, bigrams } = lexicalFeatures(text);
  const features = new Map<string, number>();
  for (const f of unigrams) features.set(f, 1);
  for (const f of identifiers) features.set(f, 1);
  for (const f of bigrams) if (!features.has(f)) features.set(f, BIGRAM_WEIGHT);
  return features;
}

/** Adds `weight` to ones[offset + b] for every 1-bit b of the 32-bit `h`. */
function countOnes(h: number, weight: number, ones: Float64Array, offset: number): void {
  while (h !== 0) {
    const b = 31 - Math.clz32(h);
    ones[offset + b]! += weight;
    h ^= 1 << b;
  }
}

const SPACE = 0x20;

/**
 * murmur3Utf16 of `a + ' ' + b` without building the string (a text of distinct words has as
 * many bigrams as words; joining each would make a string to flatten per bigram).
 */
function murmur3Bigram(a: string, b: string, seed: number): number {
  let h = seed | 0;
  let pending = -1; // a code unit waiting for its block partner
  const block = (k: number) => {
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  };
  for (let i = 0; i < a.length; i++) {
    const u = a.charCodeAt(i);
    if (pending < 0) pending = u;
    else {
      block(pending | (u << 16));
      pending = -1;
    }
  }
  if (pending < 0) pending = SPACE;
  else {
    block(pending | (SPACE << 16));
    pending = -1;
  }
  for (let i = 0; i < b.length; i++) {
    const u = b.charCodeAt(i);
    if (pending < 0) pending = u;
    else {
      block(pending | (u << 16));
      pending = -1;
    }
  }
  if (pending >= 0) {
    let k = Math.imul(pending, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
  }
  h ^= (a.length + 1 + b.length) * 2;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The distinct 64-bit feature hashes of one text with their votes. Features are told apart
 * by their 64-bit hash, not their string: unigrams and identifiers never contain a space and
 * bigrams always do, so two different features share a slot only when their hashes collide
 * (about n²/2⁶⁵ for n features), which would change the vote by one feature's weight.
 */
class Votes {
  readonly ones = new Float64Array(64); // [0, 32): low word bits 0..31; [32, 64): high word
  total = 0;
  private readonly hi: Int32Array;
  private readonly lo: Int32Array;
  private readonly used: Uint8Array;
  private readonly mask: number;

  constructor(capacity: number) {
    let size = 16;
    while (size < capacity * 2) size *= 2;
    this.hi = new Int32Array(size);
    this.lo = new Int32Array(size);
    this.used = new Uint8Array(size);
    this.mask = size - 1;
  }

  /** Votes once per distinct (hi, lo). */
  add(hi: number, lo: number, weight: number): void {
    const { mask, used } = this;
    // lo is already well mixed (murmur's finaliser); fold hi in so a shared lo spreads too.
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
    while (used[i]) {
      if (this.hi[i] === (hi | 0) && this.lo[i] === (lo | 0)) return;
      i = (i + 1) & mask;
    }
    used[i] = 1;
    this.hi[i] = hi;
    this.lo[i] = lo;
    countOnes(lo, weight, this.ones, 0);
    countOnes(hi, weight, this.ones, 32);
    this.total += weight;
  }
}

/**
 * Charikar's SimHash: each feature's 64-bit hash votes +weight on its 1-bits and −weight on
 * its 0-bits; the result has a 1 where the vote is positive. A text without features
 * (empty, only stop words or punctuation) hashes to 0n.
 *
 * Counted as the weight of the 1-bits per position against the total weight (a bit's vote is
 * positive when its ones weigh more than half the total): weights are 1 and 0.5, so both sums
 * are exact and the comparison is the vote's sign. Linear in the text: one hash pair and one
 * table probe per feature occurrence, no string per bigram.
 */
export function simhash64(text: string): bigint {
  const { unigrams, identifiers } = lexicalFeatures(text);
  const votes = new Votes(2 * unigrams.length + identifiers.length);
  for (const f of unigrams) votes.add(murmur3Utf16(f, FEATURE_SEED_HI), murmur3Utf16(f, FEATURE_SEED_LO), 1);
  for (const f of identifiers) votes.add(murmur3Utf16(f, FEATURE_SEED_HI), murmur3Utf16(f, FEATURE_SEED_LO), 1);
  for (let i = 1; i < unigrams.length; i++) {
    const a = unigrams[i - 1]!;
    const b = unigrams[i]!;
    votes.add(murmur3Bigram(a, b, FEATURE_SEED_HI), murmur3Bigram(a, b, FEATURE_SEED_LO), BIGRAM_WEIGHT);
  }
  const { ones, total } = votes;
  let lo = 0;
  let hi = 0;
  for (let b = 0; b < 32; b++) {
    if (2 * ones[b]! > total) lo |= 1 << b;
    if (2 * ones[32 + b]! > total) hi |= 1 << b;
  }
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}

/** 16 lowercase hex digits: a JSON number cannot hold 64 bits exactly. */
export function toHex(hash: bigint): string {
  if (hash < 0n || hash > 0xffffffffffffffffn) throw new RangeError(`not a 64-bit unsigned value: ${hash}`);
  return hash.toString(16).padStart(16, '0');
}

const HEX64 = /^[0-9a-f]{16}$/;

/** Parses `toHex`'s output; anything else (wrong length, upper case, sign) is a RangeError. */
export function fromHex(hex: string): bigint {
  if (!HEX64.test(hex)) throw new RangeError(`not a 16-digit lowercase hex SimHash: ${JSON.stringify(hex)}`);
  return BigInt(`0x${hex}`);
}

export function isSimhashHex(value: unknown): value is string {
  return typeof value === 'string' && HEX64.test(value);
}

/** Number of differing bits. */
export function hammingDistance(a: bigint, b: bigint): number {
  let x = (a ^ b) & 0xffffffffffffffffn;
  let n = 0;
  while (x) {
    x &= x - 1n;
    n++;
  }
  return n;
}
