import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { decode, encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import { artifactIdOf, tokenWindows } from './token-window.js';
import { chunkDocument } from './index.js';
import { realDocuments } from './test-corpus.js';
import { countTokens } from './tokens.js';

const PLAIN = { disallowedSpecial: new Set<string>() };
const TW = { strategy: 'token-window' as const };

/** `n` tokens exactly: "the" and then " the" n-1 times (each a single cl100k token). */
function tokensText(n: number): string {
  return `the${' the'.repeat(n - 1)}`;
}

/** The documents of the corpus long enough to be windowed. */
const long = realDocuments().filter(([, t]) => countTokens(t) > 2500);

describe('token-window: the seed 004 boundary tests', () => {
  it.each([
    [1199, 1],
    [1200, 1],
    [1201, 2],
  ])('%i tokens give %i chunk(s)', (n, expected) => {
    const text = tokensText(n);
    expect(countTokens(text)).toBe(n);
    const { chunks } = chunkDocument(text, TW, { recount: true });
    expect(chunks).toHaveLength(expected);
    if (expected === 1) expect(chunks[0]!.originalText).toBe(text);
    else {
      expect(chunks.map((c) => c.window!.startToken)).toEqual([0, 800]);
      expect(chunks.map((c) => c.tokenStats.tokens)).toEqual([900, 401]);
    }
  });

  it('honours other sizes', () => {
    const { chunks, strategyKey } = chunkDocument(tokensText(1000), { ...TW, windowTokens: 300, windowOverlapTokens: 50, singlePieceMaxTokens: 0 });
    expect(strategyKey).toBe('token-window-300-50-s0');
    expect(chunks.map((c) => [c.window!.startToken, c.window!.endToken])).toEqual([[0, 300], [250, 550], [500, 800], [750, 1000]]);
  });
});

describe('token-window on real documents', () => {
  it('has documents to test', () => expect(long.length).toBeGreaterThan(2));

  it('shares exactly the last 100 tokens of a chunk with the first 100 of the next', () => {
    for (const [file, text] of long) {
      const { chunks, frontMatter } = chunkDocument(text, TW, { recount: true });
      const body = text.slice(frontMatter?.end ?? 0);
      // An independent encoding of the body, straight from the tokenizer.
      const tokens = encode(body, PLAIN);
      expect(chunks.length, file).toBeGreaterThan(1);
      for (let i = 0; i + 1 < chunks.length; i++) {
        const a = chunks[i]!;
        const b = chunks[i + 1]!;
        expect(b.window!.startToken, file).toBe(a.window!.endToken - b.window!.overlapTokens);
        // These documents are ASCII or split cleanly: the overlap is exactly 100 tokens.
        expect(b.window!.overlapTokens, file).toBe(100);
        const shared = decode(tokens.slice(a.window!.endToken - 100, a.window!.endToken));
        expect(a.originalText.endsWith(shared)).toBe(true);
        expect(b.originalText.startsWith(shared)).toBe(true);
        expect(shared.length).toBe(b.overlapChars);
      }
    }
  });

  it('reconstructs each document exactly from the chunks and their offsets', () => {
    for (const [, text] of long) {
      const { chunks, frontMatter } = chunkDocument(text, TW);
      let rebuilt = '';
      let end = frontMatter?.end ?? 0;
      for (const c of chunks) {
        expect(text.slice(c.sourcePosition.charStart, c.sourcePosition.charEnd)).toBe(c.originalText);
        expect(c.sourcePosition.charStart).toBeLessThanOrEqual(end);
        rebuilt += c.originalText.slice(end - c.sourcePosition.charStart);
        end = c.sourcePosition.charEnd;
      }
      expect(rebuilt).toBe(text.slice(frontMatter?.end ?? 0));
    }
  });

  it('gives every window at most 900 exact tokens, and the cap to every chunk', () => {
    for (const [, text] of long) {
      for (const c of chunkDocument(text, TW).chunks) {
        expect(countTokens(c.originalText)).toBeLessThanOrEqual(900);
        expect(c.tokenStats.tokens).toBe(countTokens(c.originalText));
        expect(c.embedText).toBe(c.originalText);
      }
    }
  });
});

describe('token-window ids', () => {
  const [, text] = long[0]!;

  it('are {artifactId}::chunk::{index:03}::{sha256(chunk)[:8]}, the same on every run', () => {
    const a = chunkDocument(text, TW).chunks;
    const b = chunkDocument(text, TW).chunks;
    expect(a.map((c) => c.window!.chunkId)).toEqual(b.map((c) => c.window!.chunkId));
    const artifact = `art_${createHash('sha256').update(text).digest('hex').slice(0, 8)}`;
    a.forEach((c, i) => {
      const hash = createHash('sha256').update(c.originalText).digest('hex');
      expect(c.window!.chunkId).toBe(`${artifact}::chunk::${String(i).padStart(3, '0')}::${hash.slice(0, 8)}`);
      expect(c.id).toBe(`doc:document::ch${i}`);
    });
  });

  it('derive the artifact id from the source id when one is given', () => {
    const expected = `art_${createHash('sha256').update('drive:1a2b3c4d').digest('hex').slice(0, 8)}`;
    expect(artifactIdOf('anything', '1a2b3c4d', 'drive')).toBe(expected);
    const { chunks } = chunkDocument(text, { ...TW, sourceId: '1a2b3c4d', sourceSystem: 'drive' });
    expect(chunks[0]!.window!.chunkId.startsWith(`${expected}::chunk::000::`)).toBe(true);
    // An edit changes the chunk hashes, not the artifact id.
    const edited = chunkDocument(`${text}\nOne more line.\n`, { ...TW, sourceId: '1a2b3c4d', sourceSystem: 'drive' });
    expect(edited.chunks[0]!.window!.artifactId).toBe(expected);
  });
});

describe('tokenWindows never cuts a character', () => {
  const unicodeText = fc.array(
    fc.oneof(fc.constantFrom('😀', '👩‍💻', '日本語', 'größe', ' ', '\n', 'é', '𝐀𝐁', 'x', '🇩🇪', '한국어'), fc.string({ unit: 'binary', maxLength: 6 })),
    { minLength: 1, maxLength: 400 },
  ).map((parts) => parts.join(''));

  it('holds on random unicode text with small windows', () => {
    fc.assert(
      fc.property(unicodeText, fc.integer({ min: 16, max: 80 }), fc.integer({ min: 0, max: 15 }), (text, window, overlap) => {
        fc.pre(text.trim().length > 0);
        const spans = tokenWindows(text, { windowTokens: window, windowOverlapTokens: overlap, singlePieceMaxTokens: 0 });
        let covered = 0;
        for (const s of spans) {
          const slice = text.slice(s.start, s.end);
          // No window edge between the halves of a surrogate pair.
          for (const edge of [s.start, s.end]) {
            const hi = text.charCodeAt(edge - 1);
            const lo = text.charCodeAt(edge);
            expect(hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff).toBe(false);
          }
          // A window ends at a token boundary of the whole text: its UTF-8 bytes are a prefix of whole tokens.
          expect(countTokens(slice)).toBeLessThanOrEqual(window);
          expect(s.start).toBeLessThanOrEqual(covered);
          covered = Math.max(covered, s.end);
        }
        expect(covered).toBe(text.length);
      }),
      { numRuns: 200 },
    );
  });

  it('puts every window end on a boundary of the document encoding', () => {
    // Characters that cl100k encodes as several byte tokens each.
    const text = '𓀀🦜龘'.repeat(400);
    const spans = tokenWindows(text, { windowTokens: 100, windowOverlapTokens: 10, singlePieceMaxTokens: 0 });
    const tokens = encode(text, PLAIN);
    const bytes = new TextEncoder();
    for (const s of spans) {
      const prefix = decode(tokens.slice(0, s.endToken));
      expect(prefix).toBe(text.slice(0, s.end));
      expect(bytes.encode(prefix).length).toBe(bytes.encode(text.slice(0, s.end)).length);
    }
    expect(spans.some((s) => s.overlapTokens > 10)).toBe(true);
  });
});
