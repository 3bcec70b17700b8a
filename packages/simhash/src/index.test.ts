import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { featureHash64, FEATURE_SEED_HI, FEATURE_SEED_LO, fromHex, hammingDistance, isSimhashHex, murmur3Utf16, SIMHASH_VERSION, simhash64, simhashFeatures, toHex } from './index.js';

/** MurmurHash3 x86_32 written from the reference over a byte array, to check the UTF-16 fast path. */
function murmur3Bytes(bytes: Uint8Array, seed: number): number {
  let h = seed >>> 0;
  const blocks = bytes.length >> 2;
  const mix = (k: number) => {
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    return Math.imul(k, 0x1b873593);
  };
  for (let b = 0; b < blocks; b++) {
    const i = b * 4;
    const k = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    h ^= mix(k);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  const tail = blocks * 4;
  switch (bytes.length & 3) {
    case 3:
      k ^= bytes[tail + 2]! << 16;
    // falls through
    case 2:
      k ^= bytes[tail + 1]! << 8;
    // falls through
    case 1:
      k ^= bytes[tail]!;
      h ^= mix(k);
  }
  h ^= bytes.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Version 1's definition of the vote, over any 64-bit feature hash: the rule v2 counts faster. */
function voteReference(text: string): bigint {
  const votes = new Float64Array(64);
  for (const [feature, weight] of simhashFeatures(text)) {
    const h = featureHash64(feature);
    for (let bit = 0; bit < 64; bit++) votes[bit]! += (h >> BigInt(bit)) & 1n ? weight : -weight;
  }
  let out = 0n;
  for (let bit = 0; bit < 64; bit++) if (votes[bit]! > 0) out |= 1n << BigInt(bit);
  return out;
}

/** A deterministic stream of words for distribution tests. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}


describe('simhash64', () => {
  it('ignores case, punctuation, stop words and inflection', () => {
    const a = simhash64('How do I enable source generation for my types?');
    expect(simhash64('HOW do i ENABLE source-generation for my types')).toBe(a);
    expect(simhash64('enabling source generation, types')).toBe(a);
  });

  it('puts a reworded question nearer than an unrelated one', () => {
    const q = simhash64('How do I enable source generation in System.Text.Json?');
    const near = simhash64('how to enable System.Text.Json source generation');
    const far = simhash64('Which trimming options reduce the size of a native AOT app?');
    expect(hammingDistance(q, near)).toBeLessThan(hammingDistance(q, far));
    expect(hammingDistance(q, near)).toBeLessThanOrEqual(12);
    expect(hammingDistance(q, far)).toBeGreaterThan(16);
  });

  it('hashes a text without content words to 0', () => {
    expect(simhash64('')).toBe(0n);
    expect(simhash64('what is the ?')).toBe(0n);
    expect(simhashFeatures('the of and').size).toBe(0);
  });

  it('is pinned: stored hashes must not move without a version bump', () => {
    expect(SIMHASH_VERSION).toBe('simhash64-lexical-v2');
    expect(toHex(simhash64('How do I enable source generation?'))).toMatchInlineSnapshot(`"090da70eda322458"`);
    // The reference vectors of MurmurHash3 x86_32 (empty input; seed 1).
    expect(murmur3Utf16('', 0)).toBe(0);
    expect(murmur3Utf16('', 1)).toBe(0x514e28b7);
  });

  it('hashes a feature as MurmurHash3 x86_32 of its UTF-16LE bytes, two seeds', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.integer({ min: 0, max: 0xffffffff }), (s, seed) => {
        const bytes = new Uint8Array(Buffer.from(s, 'utf16le'));
        expect(murmur3Utf16(s, seed)).toBe(murmur3Bytes(bytes, seed));
        expect(featureHash64(s)).toBe((BigInt(murmur3Bytes(bytes, FEATURE_SEED_HI)) << 32n) | BigInt(murmur3Bytes(bytes, FEATURE_SEED_LO)));
      }),
    );
  });

  it('counts votes exactly as the signed vote over featureHash64 (ties give 0)', () => {
    const word = fc.constantFrom('cache', 'chunk', 'token', 'serialize', 'enum', 'source', 'generation', 'XMLHttpRequest', 'max_token_count', 'the', 'of', 'run', 'ünïcode', '😀');
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 120 }), fc.array(word, { maxLength: 30 }).map((w) => w.join(' '))), (text) => {
        expect(simhash64(text)).toBe(voteReference(text));
      }),
    );
  });

  it('spreads feature hashes evenly: each bit is set for about half of many features', () => {
    const n = 20000;
    const ones = new Array<number>(64).fill(0);
    for (let i = 0; i < n; i++) {
      const h = featureHash64(`w${i}`);
      for (let b = 0; b < 64; b++) if ((h >> BigInt(b)) & 1n) ones[b]!++;
    }
    // Binomial(20000, 0.5): sd about 71; 5 sd either side.
    for (const c of ones) expect(Math.abs(c - n / 2)).toBeLessThan(355);
  });

  it('keeps near-duplicates close and puts unrelated texts about 32 bits apart', () => {
    const vocab = Array.from({ length: 2000 }, (_, i) => `term${i.toString(36)}x`);
    const r = lcg(7);
    const text = (len: number) => Array.from({ length: len }, () => vocab[Math.floor(r() * vocab.length)]!);
    const unrelated: number[] = [];
    const near: number[] = [];
    for (let t = 0; t < 300; t++) {
      const a = text(40);
      unrelated.push(hammingDistance(simhash64(a.join(' ')), simhash64(text(40).join(' '))));
      const b = [...a];
      b[Math.floor(r() * b.length)] = vocab[Math.floor(r() * vocab.length)]!; // one word of 40 replaced
      near.push(hammingDistance(simhash64(a.join(' ')), simhash64(b.join(' '))));
    }
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    expect(mean(unrelated)).toBeGreaterThan(30);
    expect(mean(unrelated)).toBeLessThan(34);
    expect(Math.min(...unrelated)).toBeGreaterThan(12);
    expect(mean(near)).toBeLessThan(8);
  });

  it('is a 64-bit value that round-trips through hex', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const h = simhash64(s);
        expect(h >= 0n && h < 1n << 64n).toBe(true);
        const hex = toHex(h);
        expect(isSimhashHex(hex)).toBe(true);
        expect(fromHex(hex)).toBe(h);
      }),
    );
  });
});

describe('hex and distance', () => {
  it('rejects what is not 16 lowercase hex digits', () => {
    for (const bad of ['', 'abc', 'ABCDEF0123456789', '0123456789abcdef0', '-123456789abcdef', 'g123456789abcdef']) {
      expect(() => fromHex(bad)).toThrow(RangeError);
      expect(isSimhashHex(bad)).toBe(false);
    }
    expect(() => toHex(-1n)).toThrow(RangeError);
    expect(() => toHex(1n << 64n)).toThrow(RangeError);
  });

  it('counts differing bits', () => {
    expect(hammingDistance(0n, 0n)).toBe(0);
    expect(hammingDistance(0n, 0xffffffffffffffffn)).toBe(64);
    expect(hammingDistance(0b1011n, 0b0110n)).toBe(3);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (a, b) => {
        expect(hammingDistance(a, b)).toBe(hammingDistance(b, a));
        expect(hammingDistance(a, b)).toBe([...(a ^ b).toString(2)].filter((c) => c === '1').length);
      }),
    );
  });
});
