/**
 * fitPrefix bounds a table header it cannot fit before copying and counting it (issue 15): the
 * result is the one the plain loop gives, checked against it restated here.
 */
import fc from 'fast-check';
import bpeRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';
import { describe, expect, it } from 'vitest';
import { fitPrefix, formatPrefix, MAX_TOKEN_UNITS, type PrefixParts } from './retrieval-prefix.js';
import { countTokens } from './tokens.js';

/** Seed 003's loop as it was: full copies, every state formatted and counted. */
function reference(p: PrefixParts, reserve: number): { prefix: string; parts: PrefixParts } {
  let parts: PrefixParts = { ...p, concepts: [...p.concepts], path: [...p.path], tableHeaders: p.tableHeaders.map((h) => [...h]) };
  const fits = (q: PrefixParts): boolean => countTokens(`${formatPrefix(q)}\n`) <= reserve;
  while (!fits(parts)) {
    if (parts.concepts.length) parts = { ...parts, concepts: parts.concepts.slice(0, -1) };
    else if (parts.tableHeaders.length) parts = { ...parts, tableHeaders: parts.tableHeaders.slice(0, -1) };
    else if (parts.path.length) parts = { ...parts, path: parts.path.slice(1) };
    else if (parts.doc.length > 0) parts = { ...parts, doc: parts.doc.slice(0, Math.floor(parts.doc.length / 2)) };
    else break;
  }
  return { prefix: formatPrefix(parts), parts };
}

describe('fitPrefix', () => {
  it('MAX_TOKEN_UNITS is the longest cl100k token in UTF-16 code units (and UTF-8 bytes)', () => {
    let longest = 0;
    const encoder = new TextEncoder();
    for (const value of bpeRanks as readonly (string | readonly number[])[]) {
      longest = Math.max(longest, typeof value === 'string' ? Math.max(value.length, encoder.encode(value).length) : value.length);
    }
    expect(longest).toBe(MAX_TOKEN_UNITS);
  });

  const cell = fc.oneof(
    fc.constantFrom('Name', 'Type', 'a', '[x]', '\n', '\r\n', 'é', '😀', ''),
    fc.string({ maxLength: 12 }),
    fc.integer({ min: 1, max: 400 }).map((n) => 'w'.repeat(n)),
  );
  const header = fc.oneof(fc.array(cell, { maxLength: 8 }), fc.integer({ min: 0, max: 3000 }).map((n) => Array.from({ length: n }, (_, i) => `h${i}`)));
  const parts = fc.record({
    doc: fc.string({ maxLength: 40 }),
    path: fc.array(fc.string({ maxLength: 30 }), { maxLength: 4 }),
    tableHeaders: fc.array(header, { maxLength: 3 }),
    concepts: fc.array(fc.string({ maxLength: 16 }), { maxLength: 5 }),
  });

  it('property: gives what the plain loop gives, for wide headers and any reserve', () => {
    fc.assert(
      fc.property(parts, fc.integer({ min: 1, max: 80 }), (p, reserve) => {
        expect(fitPrefix(p, reserve)).toEqual(reference(p, reserve));
      }),
      { numRuns: 300 },
    );
  });

  it('leaves the caller’s header arrays as they were', () => {
    const wide = Array.from({ length: 5000 }, (_, i) => `column ${i}`);
    const p = { doc: 'Doc', path: ['A'], tableHeaders: [wide], concepts: [] };
    const { parts: fitted } = fitPrefix(p);
    expect(wide).toHaveLength(5000);
    expect(fitted.tableHeaders).toEqual([]);
    expect(fitPrefix(p)).toEqual(reference(p, 64));
  });
});
