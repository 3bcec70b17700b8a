// Property tests: any finite Float32 vectors (every bit pattern that is not NaN or ±Infinity,
// so -0, subnormals and the extremes included) round-trip bit-exactly through both stores,
// and path-segment escaping is reversible and always yields one safe folder name.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingCache, decodePathSegment, encodePathSegment, sha256Hex } from './index.js';
import { bitsOf, makeTempRoot } from './test-helpers.js';

let temp: ReturnType<typeof makeTempRoot>;
let cache: EmbeddingCache;
beforeAll(() => {
  temp = makeTempRoot();
  cache = new EmbeddingCache(temp.root);
  cache.onCorrupt = (path, reason) => {
    throw new Error(`unexpected corruption at ${path}: ${reason}`);
  };
});
afterAll(() => temp.cleanup());

/** A finite float32 as its bit pattern: exponent bits all ones would be NaN or ±Infinity. */
const finiteBits = fc.oneof(
  fc.integer({ min: 0, max: 0xffffffff }).filter((b) => ((b >>> 23) & 0xff) !== 0xff),
  // The edges, so every run meets them: +0, -0, smallest subnormals, largest subnormal, smallest normal, ±max.
  fc.constantFrom(0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x00800000, 0x7f7fffff, 0xff7fffff),
);
const vectorOf = (dims: number) =>
  fc.array(finiteBits, { minLength: dims, maxLength: dims }).map((bits) => new Float32Array(new Uint32Array(bits).buffer));
const documentVectors = fc
  .integer({ min: 1, max: 64 })
  .chain((dims) => fc.array(vectorOf(dims), { minLength: 1, maxLength: 8 }));

describe('bit-exact round trips', () => {
  it('document entries', () => {
    let run = 0;
    fc.assert(
      fc.property(documentVectors, (vectors) => {
        const key = { strategyKey: 'prop', model: 'org/model:tag', fileHash: sha256Hex(`run ${run++}`) };
        const texts = vectors.map((_, i) => `chunk ${i}`);
        cache.putDocument(key, texts, vectors);
        const got = cache.getDocument(key, texts, vectors[0]!.length);
        expect(got).not.toBeNull();
        expect(got!.map(bitsOf)).toEqual(vectors.map(bitsOf));
      }),
    );
  });

  it('text entries', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }).chain(vectorOf), fc.string(), (vector, text) => {
        cache.putText('prop-model', text, vector);
        expect(bitsOf(cache.getText('prop-model', text)!)).toEqual(bitsOf(vector));
      }),
    );
  });
});

describe('path segments', () => {
  it('are one safe folder name, never hidden or reserved, and reversible unless shortened', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), (value) => {
        const seg = encodePathSegment(value);
        expect(seg).toMatch(/^[A-Za-z0-9%-][A-Za-z0-9._%-]*(~[0-9a-f]{16})?$/);
        expect(seg).not.toMatch(/\.$/);
        expect(seg).not.toBe('_by-text');
        if (seg.includes('~')) {
          // Shortened: too long when escaped; cut on an escape boundary, with the value's hash.
          expect(seg.length).toBeLessThanOrEqual(117);
          expect(seg.endsWith(`~${sha256Hex(value).slice(0, 16)}`)).toBe(true);
          expect(decodePathSegment(seg)).toBeNull();
        } else {
          expect(decodePathSegment(seg)).toBe(value);
        }
      }),
    );
  });
});
