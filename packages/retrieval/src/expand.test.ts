// Neighbour expansion over documents chunked by the real @chunkyard/chunking (generated with
// fast-check, so sentence overlap and section breaks land everywhere) and over the real
// sample topics: the segments are the source span, each overlap shown once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { chunkDocument } from '@chunkyard/chunking';
import { describe, expect, it } from 'vitest';
import type { ManifestChunk } from './contract.js';
import { BOUNDARY_SEPARATOR, CHUNK_BOUNDARY, expand, expandRange } from './expand.js';
import { REPO, SAMPLE_TOPICS } from './test-fixture-docs.js';

const word = fc.constantFrom('source', 'generation', 'serializer', 'context', 'options', 'type', 'metadata', 'mode', 'runtime', 'trim', 'value', 'field');
const sentence = fc.array(word, { minLength: 4, maxLength: 14 }).map((ws) => `${ws.join(' ').replace(/^./, (c) => c.toUpperCase())}.`);
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 8 }).map((ss) => ss.join(' '));
const section = fc.record({ title: fc.array(word, { minLength: 1, maxLength: 3 }), paras: fc.array(paragraph, { minLength: 1, maxLength: 6 }) });
const documentArb = fc.array(section, { minLength: 1, maxLength: 6 }).map(
  (sections) => `# Generated guide\n\n${sections.map((s) => `## ${s.title.join(' ')}\n\n${s.paras.join('\n\n')}\n`).join('\n')}`,
);

function chunksOf(source: string, opts: { minTokens: number; targetTokens: number; maxTokens: number }): ManifestChunk[] {
  return chunkDocument(source, { ...opts, overlapSentences: 2 }).chunks.map((c) => ({
    id: c.id,
    chunkNumber: c.chunkNumber,
    originalText: c.originalText,
    embedText: c.embedText,
    sourcePosition: c.sourcePosition,
    overlapChars: c.overlapChars,
  }));
}

/** Asserts the segments are consecutive slices of `source`, separated by whitespace only. */
function assertReconstructs(source: string, chunks: readonly ManifestChunk[], center: number, k: number): void {
  const e = expand(chunks, center, k);
  expect(e.from).toBe(Math.max(0, center - k));
  expect(e.to).toBe(Math.min(chunks.length - 1, center + k));
  expect(e.segments.map((s) => s.index)).toEqual(Array.from({ length: e.to - e.from + 1 }, (_, i) => e.from + i));
  let rebuilt = '';
  e.segments.forEach((s, i) => {
    expect(source.slice(s.charStart, s.charEnd)).toBe(s.text);
    if (i > 0) {
      const gap = source.slice(e.segments[i - 1]!.charEnd, s.charStart);
      expect(gap).toMatch(/^\s*$/); // overlap dropped exactly: nothing repeated, nothing lost
      rebuilt += gap;
    }
    rebuilt += s.text;
  });
  const first = chunks[e.from]!.sourcePosition.charStart;
  const last = chunks[e.to]!.sourcePosition.charEnd;
  expect(rebuilt).toBe(source.slice(first, last));
  expect(e.text.split(BOUNDARY_SEPARATOR)).toEqual(e.segments.map((s) => s.text));
  expect(e.text.split(CHUNK_BOUNDARY).length - 1).toBe(e.segments.length - 1);
}

describe('expand', () => {
  it('reconstructs the exact source span of generated documents (overlap shown once)', () => {
    let overlapped = 0;
    fc.assert(
      fc.property(documentArb, fc.nat(), fc.nat(3), (source, c, k) => {
        const chunks = chunksOf(source, { minTokens: 8, targetTokens: 40, maxTokens: 60 });
        const center = c % chunks.length;
        assertReconstructs(source, chunks, center, k);
        if (chunks.slice(Math.max(0, center - k + 1), center + k + 1).some((x) => x.overlapChars > 0)) overlapped++;
      }),
      { numRuns: 60 },
    );
    expect(overlapped).toBeGreaterThan(5); // the generator does exercise overlap
  });

  it('reconstructs every span of the real sample topics, whose chunks overlap', () => {
    let overlapping = 0;
    for (const topic of SAMPLE_TOPICS) {
      const source = readFileSync(join(REPO, 'docs', topic, 'golden-reference.md'), 'utf8');
      const chunks = chunksOf(source, { minTokens: 64, targetTokens: 400, maxTokens: 512 });
      overlapping += chunks.filter((c) => c.overlapChars > 0).length;
      for (let i = 0; i < chunks.length; i++) for (const k of [1, 2]) assertReconstructs(source, chunks, i, k);
    }
    expect(overlapping).toBeGreaterThan(0); // the property above covered real overlap
  });

  it('k = 0 is the chunk itself; the first segment keeps its own overlap', () => {
    const source = readFileSync(join(REPO, 'docs', SAMPLE_TOPICS[6], 'golden-reference.md'), 'utf8');
    const chunks = chunksOf(source, { minTokens: 64, targetTokens: 400, maxTokens: 512 });
    const withOverlap = chunks.findIndex((c) => c.overlapChars > 0);
    expect(withOverlap).toBeGreaterThan(0);
    expect(expand(chunks, withOverlap, 0).text).toBe(chunks[withOverlap]!.originalText);
    const e = expand(chunks, withOverlap, 1);
    expect(e.segments[1]!.text).toBe(chunks[withOverlap]!.originalText.slice(chunks[withOverlap]!.overlapChars));
  });

  it('rejects a missing chunk or a negative k', () => {
    const chunks = chunksOf('# T\n\nOne paragraph only.\n', { minTokens: 1, targetTokens: 40, maxTokens: 60 });
    expect(() => expand(chunks, 5, 1)).toThrow(/no chunk 5/);
    expect(() => expand(chunks, 0, -1)).toThrow(new RangeError('k must be a non-negative integer (0..2^53 − 1), got -1'));
  });
});

describe('expandRange', () => {
  it('is expand for one chunk, and a unit first..last plus ±k is the segments of each chunk in it', () => {
    fc.assert(
      fc.property(documentArb, fc.nat(), fc.nat(), fc.integer({ min: 0, max: 2 }), (source, x, y, k) => {
        const chunks = chunksOf(source, { minTokens: 8, targetTokens: 24, maxTokens: 48 });
        const a = x % chunks.length;
        const b = a + (y % (chunks.length - a));
        expect(expandRange(chunks, a, a, k)).toEqual(expand(chunks, a, k));
        const e = expandRange(chunks, a, b, k);
        expect([e.from, e.to]).toEqual([Math.max(0, a - k), Math.min(chunks.length - 1, b + k)]);
        // Each segment of a range is the same slice expand gives the chunk after its predecessor.
        e.segments.slice(1).forEach((s) => expect(s).toEqual(expand(chunks, s.index - 1, 1).segments.find((t) => t.index === s.index)));
        expect(e.text).toBe(e.segments.map((s) => s.text).join(BOUNDARY_SEPARATOR));
      }),
      { numRuns: 40 },
    );
    expect(() => expandRange([], 0, 0, 0)).toThrow(/no chunks 0..0/);
  });
});
