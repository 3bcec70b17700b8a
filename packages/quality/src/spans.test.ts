import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { locateChunk } from './spans.js';

describe('locateChunk (Chroma rigorous_document_search, steps 1–2)', () => {
  const corpus = 'Alpha beta.\nGamma  delta epsilon. Alpha beta.';
  it('drops one trailing period and finds the first occurrence', () => {
    expect(locateChunk(corpus, 'Alpha beta.')).toEqual({ start: 0, end: 10, method: 'exact' });
  });
  it('matches across different whitespace, ignoring case', () => {
    expect(locateChunk(corpus, 'gamma delta\nEPSILON')).toEqual({ start: 12, end: 32, method: 'whitespace' });
  });
  it('returns null for text that is not there', () => {
    expect(locateChunk(corpus, 'zeta')).toBeNull();
    expect(locateChunk(corpus, '   ')).toBeNull();
  });
  it('maps every substring to a span whose text equals it (minus a final period)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 80 }), fc.nat(), fc.nat(), (text, a, b) => {
        const s = Math.min(a, b) % text.length;
        const e = s + 1 + (Math.max(a, b) % (text.length - s));
        const piece = text.slice(s, e);
        const span = locateChunk(text, piece);
        const want = piece.endsWith('.') ? piece.slice(0, -1) : piece;
        expect(span).not.toBeNull();
        expect(text.slice(span!.start, span!.end)).toBe(want);
      }),
    );
  });
});
