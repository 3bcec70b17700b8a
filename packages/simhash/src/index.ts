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
 * Version 1. Any change to the features or the hash changes every stored hash, so it bumps
 * SIMHASH_VERSION, which `spec` writes next to the hashes.
 */
import { hash } from 'node:crypto';
import { lexicalFeatures } from '@chunkyard/embeddings';

export const SIMHASH_VERSION = 'simhash64-lexical-v1';

/** Bigrams weigh less than words: a reordered question should stay close. */
const BIGRAM_WEIGHT = 0.5;

/**
 * The first 8 bytes of sha256(feature), big-endian (stable on every platform), as two 32-bit
 * halves: the votes read them as numbers. A BigInt per feature and 64 BigInt shifts per
 * feature were half of hashing a text with many distinct features (an unspaced run, minified
 * code); `crypto.hash` is the one-shot digest, without a Hash object per feature.
 */
function featureHash(feature: string): { hi: number; lo: number } {
  const digest = hash('sha256', feature, 'buffer');
  return { hi: digest.readUInt32BE(0), lo: digest.readUInt32BE(4) };
}

/**
 * Characters that join or show as nothing inside a word: soft hyphen, word joiner, and U+FEFF
 * (its old use as a zero-width no-break space). A zero-width space (U+200B) stays: it marks a
 * word break (Thai, Khmer, long compounds), as a space does.
 */
const IN_WORD_INVISIBLE = /[\u00ad\u2060\ufeff]/g;

/**
 * The text as it reads: NFC, without in-word invisible characters. The same question typed with
 * combining accents (macOS file names, some keyboards) or copied with a soft hyphen hashed to
 * a different value: `café` as e + U+0301 was 13 bits from `café`, and `con\u00adfigure`
 * was two words. Text already in NFC and free of those three characters reads as before, so
 * its stored hashes stay valid (SIMHASH_VERSION unchanged).
 */
function asRead(text: string): string {
  // Removed first: a soft hyphen between a letter and its accent kept NFC from joining them.
  return text.replace(IN_WORD_INVISIBLE, '').normalize('NFC');
}

/** The weighted features of a text (distinct). Exposed for tests and for explaining a match. */
export function simhashFeatures(text: string): Map<string, number> {
  const { unigrams, identifiers, bigrams } = lexicalFeatures(asRead(text));
  const features = new Map<string, number>();
  for (const f of unigrams) features.set(f, 1);
  for (const f of identifiers) features.set(f, 1);
  for (const f of bigrams) if (!features.has(f)) features.set(f, BIGRAM_WEIGHT);
  return features;
}

/**
 * Charikar's SimHash: each feature's 64-bit hash votes +weight on its 1-bits and −weight on
 * its 0-bits; the result has a 1 where the vote is positive. A text without features
 * (empty, only stop words or punctuation) hashes to 0n.
 */
export function simhash64(text: string): bigint {
  // A JavaScript caller's number or null failed inside the feature scan ("text.toLowerCase is not a function").
  if (typeof text !== 'string') throw new TypeError(`simhash64: text must be a string, got ${kindOf(text)}`);
  // votes[b] is bit b's (bit 0 the least significant); the weights are 1 and 0.5, so every
  // sum is exact in a double whatever the order.
  const votes = new Float64Array(64);
  for (const [feature, weight] of simhashFeatures(text)) {
    const { hi, lo } = featureHash(feature);
    for (let bit = 0; bit < 32; bit++) {
      votes[bit]! += (lo >>> bit) & 1 ? weight : -weight;
      votes[bit + 32]! += (hi >>> bit) & 1 ? weight : -weight;
    }
  }
  let hi = 0;
  let lo = 0;
  for (let bit = 0; bit < 32; bit++) {
    if (votes[bit]! > 0) lo |= 1 << bit;
    if (votes[bit + 32]! > 0) hi |= 1 << bit;
  }
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}

const MAX64 = 0xffffffffffffffffn;

/**
 * Why a bigint is not a SimHash: its width, or that it is negative; the value itself only when
 * short (a bigint may have a million digits).
 */
function outOfRange(value: bigint, which: string): string {
  const shown = value >= -MAX64 && value <= MAX64 << 64n ? ` (${value})` : '';
  const what = value < 0n ? `negative${shown}` : `${value.toString(2).length} bits wide${shown}`;
  return `the ${which} hash is ${what}; a SimHash is a 64-bit unsigned value (simhash64's or fromHex's result)`;
}

/** A value's kind for a message, never the value (a string may be a megabyte). */
function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** 16 lowercase hex digits: a JSON number cannot hold 64 bits exactly. */
export function toHex(hash: bigint): string {
  // A number passed the range test and came out as "00000000000005.8" or "0000000000000NaN",
  // which fromHex then refused: a stored hash that could never be read back.
  if (typeof hash !== 'bigint') throw new TypeError(`toHex: the hash must be a bigint (simhash64's result), got ${kindOf(hash)}`);
  if (hash < 0n || hash > 0xffffffffffffffffn) throw new RangeError(`not a 64-bit unsigned value: ${hash}`);
  return hash.toString(16).padStart(16, '0');
}

const HEX64 = /^[0-9a-f]{16}$/;

/** Parses `toHex`'s output; anything else (wrong length, upper case, sign) is a RangeError. */
export function fromHex(hex: string): bigint {
  const given: unknown = hex;
  if (!isSimhashHex(given)) {
    // Quoted cut short: a stored value of any length came back whole in the message.
    const shown = typeof given === 'string' ? JSON.stringify(given.length > 40 ? `${given.slice(0, 40)}…` : given) : kindOf(given);
    throw new RangeError(`not a 16-digit lowercase hex SimHash: ${shown}`);
  }
  return BigInt(`0x${hex}`);
}

export function isSimhashHex(value: unknown): value is string {
  return typeof value === 'string' && HEX64.test(value);
}

/**
 * Number of differing bits of two 64-bit hashes. A bigint outside 0..2^64-1 is a RangeError, as
 * toHex refuses it: the distance was taken over the low 64 bits, so 1n << 70n was 0 from 0n and
 * -1n was 64 from 0n, an answer about other values.
 */
export function hammingDistance(a: bigint, b: bigint): number {
  // Numbers threw V8's "Cannot mix BigInt and other types, use explicit conversions".
  if (typeof a !== 'bigint' || typeof b !== 'bigint') throw new TypeError(`hammingDistance: both hashes must be bigints, got ${kindOf(a)} and ${kindOf(b)}`);
  if (a < 0n || a > MAX64 || b < 0n || b > MAX64) throw new RangeError(`hammingDistance: ${outOfRange(a < 0n || a > MAX64 ? a : b, a < 0n || a > MAX64 ? 'first' : 'second')}`);
  let x = a ^ b;
  let n = 0;
  while (x) {
    x &= x - 1n;
    n++;
  }
  return n;
}
