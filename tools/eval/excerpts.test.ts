import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { locateExcerpt, questionsFromQuotes } from './excerpts.mjs';
import { readMarkdownTree, SETS } from './sets.mjs';

describe('locateExcerpt', () => {
  const corpus = 'Alpha beta.\n\n| a   | b |\nGamma   delta\nepsilon. Alpha beta.';
  it('finds a verbatim quote, or one whose whitespace differs', () => {
    expect(locateExcerpt(corpus, 'Gamma   delta')).toEqual({ start: 25, end: 38 });
    const r = locateExcerpt(corpus, '| a | b | Gamma delta epsilon');
    expect(corpus.slice(r.start, r.end)).toBe('| a   | b |\nGamma   delta\nepsilon');
  });
  it('refuses a missing or ambiguous quote', () => {
    expect(() => locateExcerpt(corpus, 'zeta')).toThrow(/not found/);
    expect(() => locateExcerpt(corpus, 'Alpha beta')).toThrow(/more than once/);
    expect(() => locateExcerpt(corpus, '  ')).toThrow(/empty/);
  });
  it('locates every unique substring at its place', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 60 }), fc.nat(), fc.nat(), (text, a, b) => {
        const s = Math.min(a, b) % text.length;
        const piece = text.slice(s, s + 1 + (Math.max(a, b) % (text.length - s))).trim();
        fc.pre(piece.length > 0 && text.indexOf(piece) === text.lastIndexOf(piece));
        const r = locateExcerpt(text, piece);
        expect(text.slice(r.start, r.end)).toBe(piece);
      }),
    );
  });
});

describe('the dotnet-docs question set', () => {
  const root = join(import.meta.dirname, '../..');
  const docs = join(root, SETS['dotnet-docs']!.data, 'docs');
  const items = JSON.parse(readFileSync(join(root, 'eval/dotnet-docs/questions.json'), 'utf8')) as { corpus: string; question: string; excerpts: string[] }[];
  it('has at least 60 questions, none repeated', () => {
    expect(items.length).toBeGreaterThanOrEqual(60);
    expect(new Set(items.map((q) => q.question)).size).toBe(items.length);
  });
  it.skipIf(!existsSync(docs))('quotes every answer exactly once from its article', () => {
    const corpora = new Map<string, string>(readMarkdownTree(docs));
    const questions = questionsFromQuotes(items, corpora, 'questions.json');
    expect(questions).toHaveLength(items.length);
    for (const q of questions) for (const r of q.references) expect(r.end).toBeGreaterThan(r.start);
  });
});
