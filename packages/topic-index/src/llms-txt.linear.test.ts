// Issue 15: every stage runs in linear time. describeChunk (and every title and summary
// llms.txt writes) cut links and tags with global patterns that rescanned to the next `]`,
// `)` or `>` from each `[` or `<`, quadratic in a run of them; llms-full.txt trimmed each
// chunk with /\s+$/, quadratic in a run of whitespace not at the end. The loops that replace
// them give the same results, on strings built from the patterns' own characters.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeChunk, inlineLinkTexts, llmsFullTxt, llmsTxt, referenceLinkTexts, withoutTags, withoutTrailingPunctuation } from './llms-txt.js';

const chars = (...c: string[]) => fc.string({ unit: fc.constantFrom(...c), maxLength: 40 });

describe('the loops hold to the patterns they replace', () => {
  it('inlineLinkTexts, referenceLinkTexts, withoutTags', () => {
    fc.assert(
      fc.property(chars('[', ']', '(', ')', '!', 'a', '\n'), (s) => {
        expect(inlineLinkTexts(s)).toBe(s.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1'));
        expect(referenceLinkTexts(s)).toBe(s.replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1'));
      }),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(chars('<', '>', 'a', '\n'), (s) => {
        expect(withoutTags(s)).toBe(s.replace(/<[^>]+>/g, ''));
      }),
      { numRuns: 10_000 },
    );
  });

  it('withoutTrailingPunctuation, and trimEnd for /\\s+$/', () => {
    fc.assert(
      fc.property(chars(' ', '\t', '\n', '\u00a0', '\u2028', '\ufeff', '\u3000', ',', ';', ':', '.', 'a', '\u0085', '\u200b'), (s) => {
        expect(withoutTrailingPunctuation(s)).toBe(s.replace(/[\s,;:.]+$/, ''));
        expect(s.trimEnd()).toBe(s.replace(/\s+$/, ''));
      }),
      { numRuns: 10_000 },
    );
  });
});

describe('hostile chunks and titles take linear time', () => {
  const n = 400_000;
  it('a paragraph of 400,000 [ or < (describeChunk, an llms.txt title)', () => {
    expect(describeChunk(`Intro ${'['.repeat(n)}][]() end.`)).toMatch(/^Intro \[+…$/);
    expect(describeChunk(`Intro ${'[a]('.repeat(n / 4)}`)).toMatch(/^Intro \[a\]\(/);
    expect(describeChunk(`Intro ${'<a'.repeat(n / 2)}`)).toMatch(/^Intro <a<a/);
    const title = `T ${'['.repeat(n)}`;
    expect(llmsTxt({ title, summary: 's', sectionTitles: {}, topics: [] }).length).toBeGreaterThan(n);
  });

  it('a chunk holding 400,000 tabs before its last word (llms-full.txt)', () => {
    const chunk = `Text${'\t'.repeat(n)}x\t \n`;
    const full = llmsFullTxt({ title: 'T', summary: 'S', topics: [{ id: 'a', title: 'A', documents: [{ source: 'golden-reference.md', chunks: [chunk] }] }] });
    expect(full).toContain(`Text${'\t'.repeat(n)}x\n`);
  });
});

describe('many topics take linear time (s46 probe)', () => {
  it('llms.txt of one section holding 30,000 topics', () => {
    // Each topic was appended by copying its section's list: 20,000 topics took 50 s and
    // 40,000 took 263 s (measured), so 30,000 runs past vitest's 60 s limit against that code.
    const n = 30_000;
    const topics = Array.from({ length: n }, (_, i) => ({ id: `reference/t${String(i).padStart(6, '0')}`, title: `T${i}`, source: 'golden-reference.md', description: '' }));
    const text = llmsTxt({ title: 'Docs', summary: 's', sectionTitles: { reference: 'Reference' }, topics });
    const lines = text.split('\n');
    expect(lines.filter((l) => l.startsWith('- ['))).toHaveLength(n);
    expect(lines.filter((l) => l.startsWith('## '))).toEqual(['## Reference']);
    expect(lines[lines.indexOf('## Reference') + 2]).toBe('- [T0](reference/t000000/golden-reference.md)');
    expect(lines.at(-2)).toBe('- [T29999](reference/t029999/golden-reference.md)');
  });
});
