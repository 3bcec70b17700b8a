import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromHex, hammingDistance, isSimhashHex, simhash64, simhashFeatures, toHex } from './index.js';

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

  it('hashes a text the same in NFC and NFD, and with soft hyphens, word joiners or BOMs inside its words (property)', () => {
    // `café` typed with a combining accent hashed 13 bits away from `café`, so a client's
    // query from a macOS keyboard missed the stored question; a soft hyphen split a word in two.
    expect(simhash64('How do I configure the cafe\u0301?')).toBe(simhash64('How do I configure the caf\u00e9?'));
    expect(simhash64('con\u00adfig\u2060ure the \ufeffsource')).toBe(simhash64('configure the source'));
    const word = fc.constantFrom('caf\u00e9', 'r\u00e9sum\u00e9', 'na\u00efve', '\u1e9b\u0323', 'Stra\u00dfe', '\uac00\ub098', '\u0928\u093f', 'source', 'generation', 'JsonSerializer', 'A\u030a', '\u212b', 'x');
    const invisible = fc.constantFrom('\u00ad', '\u2060', '\ufeff');
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 8 }), fc.array(fc.tuple(fc.nat(), invisible), { maxLength: 4 }), (words, inserts) => {
        const text = words.join(' ');
        const h = simhash64(text);
        expect(simhash64(text.normalize('NFD'))).toBe(h);
        expect(simhash64(text.normalize('NFC'))).toBe(h);
        let withInvisible = text;
        for (const [at, ch] of inserts) {
          const i = at % (withInvisible.length + 1);
          withInvisible = withInvisible.slice(0, i) + ch + withInvisible.slice(i);
        }
        expect(simhash64(withInvisible)).toBe(h);
      }),
      { numRuns: 1_000 },
    );
  });

  it('is pinned: stored hashes must not move without a version bump', () => {
    expect(toHex(simhash64('How do I enable source generation?'))).toMatchInlineSnapshot(`"1681e58c9a691f4c"`);
  });

  it('equals the hash as first written (a BigInt per feature, a Hash object per digest) on any text', () => {
    // The reference: version 1's vote loop, kept here so a faster one cannot drift from it.
    const reference = (text: string): bigint => {
      const votes = new Float64Array(64);
      for (const [feature, weight] of simhashFeatures(text)) {
        const h = createHash('sha256').update(feature, 'utf8').digest().readBigUInt64BE(0);
        for (let bit = 0; bit < 64; bit++) votes[bit]! += (h >> BigInt(bit)) & 1n ? weight : -weight;
      }
      let out = 0n;
      for (let bit = 0; bit < 64; bit++) if (votes[bit]! > 0) out |= 1n << BigInt(bit);
      return out;
    };
    const word = fc.constantFrom('source', 'generation', 'JsonSerializer', 'options', 'the', 'AOT', 'native', 'readFile', 'x', 'ünïcode', '日本語', 'C#');
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.array(word, { maxLength: 40 }).map((w) => w.join(' '))), (text) => {
        expect(simhash64(text)).toBe(reference(text));
      }),
      { numRuns: 500 },
    );
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

describe('arguments a JavaScript caller gets wrong (issue 15 library probe)', () => {
  it('toHex refuses a number, where 5.5 and NaN came out as "00000000000005.8" and "0000000000000NaN", hex that fromHex refuses', () => {
    for (const bad of [5, 5.5, Number.NaN, '1681e58c9a691f4c', null]) {
      expect(() => toHex(bad as never), String(bad)).toThrow(TypeError);
    }
    expect(() => toHex(5.5 as never)).toThrow('toHex: the hash must be a bigint (simhash64\'s result), got number');
    // Whatever toHex gives back, fromHex reads: no stored hash that cannot be read.
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: -1n, max: 1n << 65n }), fc.double(), fc.integer()), (value) => {
        let hex: string;
        try {
          hex = toHex(value as bigint);
        } catch (err) {
          expect(err instanceof TypeError || err instanceof RangeError).toBe(true);
          return;
        }
        expect(fromHex(hex)).toBe(value);
      }),
    );
  });

  it('simhash64 and hammingDistance name a wrong argument (were "text.toLowerCase is not a function" and "Cannot mix BigInt and other types")', () => {
    expect(() => simhash64(5 as never)).toThrow(new TypeError('simhash64: text must be a string, got number'));
    expect(() => simhash64(null as never)).toThrow(new TypeError('simhash64: text must be a string, got null'));
    expect(() => hammingDistance(1 as never, 2n)).toThrow(new TypeError('hammingDistance: both hashes must be bigints, got number and bigint'));
    expect(hammingDistance(0n, 7n)).toBe(3);
  });

  it('hammingDistance refuses a bigint wider than 64 bits or negative, naming its width, as toHex refuses it (was the distance of its low 64 bits: 1n << 70n was 0 from 0n)', () => {
    const tail = "a SimHash is a 64-bit unsigned value (simhash64's or fromHex's result)";
    expect(() => hammingDistance(1n << 70n, 0n)).toThrow(new RangeError(`hammingDistance: the first hash is 71 bits wide (${1n << 70n}); ${tail}`));
    expect(() => hammingDistance(0n, 1n << 64n)).toThrow(new RangeError(`hammingDistance: the second hash is 65 bits wide (${1n << 64n}); ${tail}`));
    expect(() => hammingDistance(-1n, 0n)).toThrow(new RangeError(`hammingDistance: the first hash is negative (-1); ${tail}`));
    // A bigint of a million bits is named by its width, not its 300,000 digits.
    expect(() => hammingDistance(0n, 1n << 1_000_000n)).toThrow(new RangeError(`hammingDistance: the second hash is 1000001 bits wide; ${tail}`));
    expect(hammingDistance(0xffffffffffffffffn, 0n)).toBe(64);
  });

  it('hammingDistance takes exactly what toHex takes: a RangeError for any other bigint on either side, else the popcount (property)', () => {
    const any = fc.oneof(fc.bigInt({ min: -(1n << 80n), max: 1n << 80n }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.constantFrom(-1n, 1n << 64n, (1n << 64n) - 1n, 0n));
    fc.assert(
      fc.property(any, any, (a, b) => {
        const simhash = (v: bigint): boolean => {
          try {
            toHex(v);
            return true;
          } catch {
            return false;
          }
        };
        if (simhash(a) && simhash(b)) {
          expect(hammingDistance(a, b)).toBe([...(a ^ b).toString(2)].filter((c) => c === '1').length);
        } else {
          for (const [x, y] of [[a, b], [b, a]] as const) {
            expect(() => hammingDistance(x, y)).toThrow(RangeError);
            expect(() => hammingDistance(x, y)).toThrow(/is (negative|\d+ bits wide)/);
          }
        }
      }),
    );
  });

  it('fromHex quotes a bad value cut to 40 characters, and names what is not a string', () => {
    const long = (() => {
      try {
        fromHex('x'.repeat(1_000_000));
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    })();
    expect(long).toBe(`not a 16-digit lowercase hex SimHash: "${'x'.repeat(40)}…"`);
    expect(() => fromHex(12 as never)).toThrow(new RangeError('not a 16-digit lowercase hex SimHash: number'));
  });
});
