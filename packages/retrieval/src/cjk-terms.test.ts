// BM25 finding a Chinese, Japanese or Korean word inside a run. bm25Terms (the local model's
// words) keeps a run of CJK letters whole, so 配置 inside 如何配置服务器 scored 0 in Bm25Index,
// and rankHybrid ranked the chunk holding it by its cosine alone, which for a CJK word under
// the local model is 0 there and a hash collision elsewhere. Now a document's run is cut into
// characters and pairs, a query's into pairs (cjk-terms.ts); text without CJK letters reads
// and scores exactly as before. The real local embedder throughout.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { createProvider } from '@chunkyard/embeddings';
import { describe, expect, it } from 'vitest';
import { bm25DocumentTerms, bm25QueryTerms, cjkCosineWeight, cutCjkTerms, hasCjk, onlyCjkWords } from './cjk-terms.js';
import { Bm25Index, bm25Idf, bm25Terms, bm25Weight, rankHybrid } from './hybrid.js';
import { CJK_PAGES, REPO } from './test-fixture-docs.js';

/** Words found only inside a run of one page (or, for Korean, glued to a particle), and that page. */
const WORDS_INSIDE_RUNS: [string, keyof typeof CJK_PAGES][] = [
  ['配置', 'zh'],
  ['网络', 'zh'],
  ['防火墙', 'zh'],
  ['如何配置防火墙', 'zh'], // a question typed as one run
  ['設定', 'ja'],
  ['変更', 'ja'],
  ['서버', 'ko'],
  ['설정', 'ko'],
  ['서버를', 'ko'],
];

const CJK_CLASS = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/u;

/** Bm25Index as it was before CJK runs were cut: bm25Terms on both sides (copied). */
function oldScores(docs: readonly string[], query: string, k1 = 1.2, b = 0.75): number[] {
  const terms = docs.map((d) => bm25Terms(d));
  const avg = terms.reduce((s, t) => s + t.length, 0) / docs.length || 1;
  return terms.map((ts) => {
    let score = 0;
    for (const q of new Set(bm25Terms(query))) {
      const df = terms.filter((t) => t.includes(q)).length;
      const tf = ts.filter((t) => t === q).length;
      if (tf > 0) score += bm25Weight(bm25Idf(docs.length, df), tf, ts.length, avg, k1, b);
    }
    return score;
  });
}

const words = fc.constantFrom('the', 'The', 'running', 'fs.readFileSync', 'XMLHttpRequest', 'max_token_count', 'HTTP2Server', 'naïve', 'İstanbul', 'Zürich', '2024', 'don’t', "don't", 'ß', 'Ελλάδα', 'Москва', 'ไทย', 'a', ' ', '.', '_', '\n', '-');
const english = fc.array(words, { maxLength: 12 }).map((ws) => ws.join(''));
const noCjk = fc.oneof(english, fc.string(), fc.string({ unit: 'binary' })).filter((t) => !CJK_CLASS.test(t));

describe('BM25 terms of CJK text', () => {
  it('a run is its characters and pairs in a document, its pairs in a query (its character when it has one)', () => {
    expect(bm25Terms('配置服务')).toEqual(['配置服务']);
    expect(bm25DocumentTerms('配置服务')).toEqual(['配', '置', '服', '务', '配置', '置服', '服务']);
    expect(bm25QueryTerms('配置服务')).toEqual(['配置', '置服', '服务']);
    expect(bm25QueryTerms('压')).toEqual(['压']);
    expect(bm25QueryTerms('서버를')).toEqual(['서버', '버를']);
    // Latin letters glued to a run are read as bm25Terms reads words: stems, stop words dropped.
    expect(bm25QueryTerms('使用serializers配置')).toEqual(['使用', 'serial', '配置']);
    expect(bm25QueryTerms('the配置')).toEqual(['配置']);
    // Runs never pair across punctuation.
    expect(bm25DocumentTerms('设置，以及')).toEqual(['设', '置', '设置', '以', '及', '以及']);
    expect(cutCjkTerms(['配置服务', 'json'], 'document')).toEqual([...bm25DocumentTerms('配置服务'), 'json']);
    expect([hasCjk('配置'), hasCjk('서버'), hasCjk('サーバー'), hasCjk('Zürich ไทย')]).toEqual([true, true, true, false]);
    expect([onlyCjkWords('配置'), onlyCjkWords('서버를 설정'), onlyCjkWords('polymorphism 配置'), onlyCjkWords('the')]).toEqual([true, true, false, false]);
    expect([cjkCosineWeight('配置', 'local-lexical-v1-d512'), cjkCosineWeight('配置', 'mxbai-embed-large'), cjkCosineWeight('json 配置', 'local-lexical-v1-d512')]).toEqual([0, 1, 1]);
  });

  it('text without CJK letters gets exactly bm25Terms on both sides', () => {
    fc.assert(
      fc.property(noCjk, (text) => {
        expect(bm25QueryTerms(text)).toEqual(bm25Terms(text));
        expect(bm25DocumentTerms(text)).toEqual(bm25Terms(text));
      }),
      { numRuns: 2000 },
    );
    // Every character below U+1100 (hasCjk looks for CJK letters only above it).
    const low = Array.from({ length: 0x1100 }, (_, c) => String.fromCodePoint(c)).join(' ');
    expect(bm25DocumentTerms(low)).toEqual(bm25Terms(low));
    expect(bm25DocumentTerms('\u1100\u1100')).toEqual(['\u1100', '\u1100', '\u1100\u1100']);
  });

  it('any 1 to 4 characters of a run score in its document: the query terms are among the document terms', () => {
    const CJK = [...'配置服务器网络设置的了人サーバー設定をかなカナ서버를설정하는々〇'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...CJK, ' ', '，', 'a', 'Z', '1'), { minLength: 1, maxLength: 30 }), fc.nat(), fc.integer({ min: 1, max: 4 }), (chars, pick, len) => {
        const text = chars.join('');
        const runs = [...text.matchAll(/[^ ，aZ1]+/gu)].map((m) => [...m[0]]);
        if (runs.length === 0) return;
        const run = runs[pick % runs.length]!;
        const word = run.slice(pick % run.length, (pick % run.length) + len).join('');
        const doc = new Set(bm25DocumentTerms(text));
        const query = bm25QueryTerms(word);
        expect(query.length).toBeGreaterThan(0);
        for (const t of query) expect(doc.has(t), `${word} in ${text}: ${t}`).toBe(true);
        expect(new Bm25Index([text, 'zzz']).scores(word)[0]).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });
});

describe('Bm25Index and rankHybrid with CJK text', () => {
  it('scores a word inside a run (it scored 0)', () => {
    const docs = Object.values(CJK_PAGES);
    for (const [word, page] of WORDS_INSIDE_RUNS) {
      const s = [...new Bm25Index(docs).scores(word)];
      const at = Object.keys(CJK_PAGES).indexOf(page);
      expect(s[at], word).toBeGreaterThan(0);
      expect(Math.max(...s.filter((_, i) => i !== at)), word).toBeLessThan(s[at]!);
    }
  });

  it('texts and queries without CJK letters score exactly as before, in a collection with CJK texts or without', () => {
    fc.assert(
      fc.property(fc.array(noCjk, { minLength: 1, maxLength: 8 }), noCjk, fc.boolean(), (docs, query, withCjk) => {
        const all = withCjk ? [...docs, ...Object.values(CJK_PAGES)] : docs;
        expect([...new Bm25Index(all).scores(query)]).toEqual(oldScores(all, query));
        expect([...new Bm25Index(all, { k1: 0.6 }).scores(query)]).toEqual(oldScores(all, query, 0.6));
      }),
      { numRuns: 500 },
    );
    const english = ['How do I configure the trimmer?', 'fs.readFileSync JsonSerializerOptions', 'polymorphic discriminator', 'native AOT publish'];
    const docs = [...english, ...Object.values(CJK_PAGES)];
    for (const q of english) expect([...new Bm25Index(docs).scores(q)], q).toEqual(oldScores(docs, q));
  });

  it('rankHybrid over the local embedder: a CJK word inside a run ranks its page first, above English chunks', async () => {
    const provider = createProvider({ provider: 'local' });
    // Two English documents of the repository, one item a paragraph, and the CJK pages.
    const english = ['deployment/native-aot', 'libraries/system-text-json-polymorphism'].flatMap((t) =>
      readFileSync(join(REPO, 'docs', t, 'golden-reference.md'), 'utf8')
        .split(/\n\n+/)
        .map((text, i) => ({ ref: `${t}#${i}`, text })),
    );
    const texts = [...Object.entries(CJK_PAGES).map(([ref, text]) => ({ ref, text })), ...english];
    const vectors = await provider.embed(texts.map((t) => t.text));
    const items = texts.map((t, i) => ({ ...t, vector: vectors[i]! }));
    // The CJK pages last too, so the first place is not won by input order on a tie.
    const reversed = [...items].reverse();
    for (const [word, page] of WORDS_INSIDE_RUNS) {
      const [qv] = await provider.embed([word]);
      for (const list of [items, reversed]) {
        const ranked = rankHybrid(word, qv!, list, 3, { cosineWeight: cjkCosineWeight(word, provider.model) });
        expect(ranked[0]?.ref, word).toBe(page);
        expect(ranked[0]!.bm25, word).toBeGreaterThan(0);
        // Alone, and by a margin: no English chunk ties it.
        expect(ranked[1]!.score, word).toBeLessThan(ranked[0]!.score);
      }
    }
    // A word with English: both count, and the cosines do (cosineWeight 1).
    const [qv] = await provider.embed(['polymorphism 配置']);
    const ranked = rankHybrid('polymorphism 配置', qv!, items, 10, { cosineWeight: cjkCosineWeight('polymorphism 配置', provider.model) });
    expect(ranked.map((r) => r.ref)).toContain('zh');
    expect(ranked.some((r) => r.ref.startsWith('libraries/system-text-json-polymorphism'))).toBe(true);
  });

  it('refuses a cosine weight that is not a finite number ≥ 0', () => {
    const item = [{ ref: 0, vector: new Float32Array([1]), text: 'a b' }];
    for (const w of [-1, Infinity, NaN, '1' as unknown as number]) expect(() => rankHybrid('a', new Float32Array([1]), item, 1, { cosineWeight: w })).toThrow(/cosine weight must be a finite number ≥ 0/);
  });
});
