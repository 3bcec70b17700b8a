import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { locateExcerpt, questionsFromQuotes } from './excerpts.mjs';
import { findNpmDocs, NPM_DOCS_VERSION, readMarkdownTree, SETS } from './sets.mjs';

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

describe('the npm-docs question set', () => {
  const root = join(import.meta.dirname, '../..');
  const set = SETS['npm-docs']!;
  const items = JSON.parse(readFileSync(join(root, 'eval/npm-docs/questions.json'), 'utf8')) as { corpus: string; question: string; excerpts: string[] }[];
  // The npm installed with Node, when it is the release the quotes were taken from; else why not.
  const found = findNpmDocs();
  it('has at least 60 questions, none repeated, each on one of the set\'s articles', () => {
    expect(items.length).toBeGreaterThanOrEqual(60);
    expect(new Set(items.map((q) => q.question)).size).toBe(items.length);
    for (const q of items) expect(set.files).toContain(q.corpus);
    expect(new Set(items.map((q) => q.corpus)).size).toBe(set.files!.length);
  });
  it('refuses docs of another npm release, saying how to get the right one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'npm-docs-'));
    try {
      mkdirSync(join(dir, 'docs', 'content'), { recursive: true });
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ version: '0.0.1' }));
      expect(findNpmDocs(join(dir, 'docs')).problem).toMatch(new RegExp(`npm 0\\.0\\.1's docs.*npm pack npm@${NPM_DOCS_VERSION.replaceAll('.', '\\.')}`));
      expect(findNpmDocs(join(dir, 'nowhere')).problem).toMatch(/no npm docs at .*tar -xzf/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  // Skipped only when this machine's npm docs are absent or another release: the reason is found.problem.
  it.skipIf(found.problem !== null)(`quotes every answer exactly once from its article, and from no other article of the set (${found.problem ?? `npm ${NPM_DOCS_VERSION}`})`, () => {
    const corpora = new Map<string, string>(readMarkdownTree(join(found.dir, set.corpora)).filter(([id]) => set.files!.includes(id)));
    expect(corpora.size).toBe(set.files!.length);
    const questions = questionsFromQuotes(items, corpora, 'questions.json');
    expect(questions).toHaveLength(items.length);
    items.forEach((q, i) => {
      for (const e of q.excerpts) {
        for (const [id, text] of corpora) if (id !== q.corpus) expect(() => locateExcerpt(text, e), `question ${i + 1} also in ${id}`).toThrow(/not found/);
      }
    });
  });
});
