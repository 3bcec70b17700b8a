// The default search (hybrid, routed: retrieval's BM25 over the stored terms plus the local
// model's cosine) finding a Chinese, Japanese or Korean word inside a run, as full-text search
// does since units_cjk (cjk-search.test.ts). The stored BM25 terms are the local model's words
// (retrieval's bm25Terms), which keep a run of CJK letters whole, and the local model hashes
// the whole run, so 配置 inside 如何配置服务器的网络设置 scored 0 on both and was not found, nor
// 設定 inside サーバーの設定を変更する, nor 서버 in 서버를. Real SQLite files, the real store.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bm25Terms } from '@chunkyard/retrieval';
import { routeTerms } from './ingest.js';
import { routeDocumentTerms, routeQueryTerms, routeStoredTerms } from './search.js';
import { DocStore } from './store.js';
import { cjkStore as cjkStoreOf, DOCS, localProvider, makeTempDir, sourceIdsOf } from './test-helpers.js';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => (temp = makeTempDir()));
afterEach(() => temp.cleanup());

const embedder = localProvider();
const cjkStore = (path: string): Promise<DocStore> => cjkStoreOf(path, embedder);

/** The source ids of a default (routed hybrid) search's hits, best first. */
async function found(store: DocStore, query: string, limit = 5): Promise<string[]> {
  return sourceIdsOf(store, await store.search(query, { embedder, limit }));
}

const WORDS_INSIDE_RUNS: [string, string][] = [
  ['配置', 'zh'], // inside 如何配置服务器的网络设置
  ['网络', 'zh'],
  ['防火墙', 'zh'],
  ['如何配置防火墙', 'zh'], // a question typed as one run
  ['設定', 'ja'], // inside サーバーの設定を変更する方法について
  ['変更', 'ja'],
  ['서버', 'ko'], // only as 서버를
  ['설정', 'ko'], // only as 설정하는
  ['서버를', 'ko'], // whole words between spaces were found already, and still are
  ['관리자 안내', 'ko'],
];

describe('the default (routed) search, a CJK word inside a run', () => {
  it.each(WORDS_INSIDE_RUNS)('%s finds its document first (%s)', async (word, source) => {
    const store = await cjkStore(`${temp.dir}/s.db`);
    try {
      expect((await found(store, word))[0]).toBe(source);
    } finally {
      store.close();
    }
  });

  it('in a chunked document, finds the chunk holding it and trims the unit to it; one character alone finds it too', async () => {
    const store = await cjkStore(`${temp.dir}/s.db`);
    try {
      for (const q of ['压缩', '缓存', '如何启用缓存压缩', '压']) {
        const [hit] = await store.search(q, { embedder, limit: 3 });
        expect(hit?.unit?.text, q).toContain('启用缓存压缩');
        expect(hit?.chunkIndex, q).not.toBeNull();
        expect(hit?.unit?.bm25, q).toBeGreaterThan(0);
      }
      // Mixed with English: both halves count.
      expect(await found(store, 'polymorphism 配置', 10)).toEqual(expect.arrayContaining([DOCS.polymorphism, 'zh']));
      // A CJK word in no document: nothing (an English chunk's colliding cosine was a result).
      expect(await found(store, '数据库')).toEqual([]);
      // The cosine left out of a CJK query's score is still reported, as computed.
      const [hit] = await store.search('网络', { embedder, limit: 1 });
      const [vector] = await embedder.embed(['网络']);
      // A document stored whole: units_fts holds the text it embedded.
      expect(hit?.chunkIndex).toBeNull();
      const [own] = await embedder.embed([store.db.prepare('SELECT body FROM units_fts WHERE unit_id = ?').pluck().get(hit!.unitId) as string]);
      expect(hit?.unit?.similarity).toBeCloseTo(vector!.reduce((sum, x, i) => sum + x * own![i]!, 0), 6);
    } finally {
      store.close();
    }
  });

  it('a store written before this change (its stored terms are the same) finds the word without being ingested again, read-only', async () => {
    const path = `${temp.dir}/s.db`;
    (await cjkStore(path)).close();
    // The stored terms keep each run whole: what every docs-store since schema 3 wrote.
    const raw = new Database(path, { readonly: true });
    const stored = raw.prepare("SELECT route_terms AS t FROM artifacts WHERE source_id = 'zh'").get() as { t: string };
    raw.close();
    expect(stored.t.split(' ')).toContain('本文介绍如何配置服务器的网络设置');
    expect(stored.t.split(' ')).not.toContain('配置');
    const reader = DocStore.open(path, { readonly: true });
    try {
      expect((await found(reader, '配置'))[0]).toBe('zh');
    } finally {
      reader.close();
    }
  });

  it('English queries rank as before: the same units, scores and texts as with no CJK term stored', async () => {
    const path = `${temp.dir}/s.db`;
    const store = await cjkStore(path);
    const QUERIES = ['polymorphic discriminator', 'trimming warnings', 'how do I configure the trimmer?', 'JsonDerivedType', 'native AOT publish'];
    const results = async (s: DocStore) => Promise.all(QUERIES.map((q) => s.search(q, { embedder, limit: 5 })));
    const now = await results(store);
    store.close();
    // Each stored term holding a CJK letter replaced by a Latin word no query holds: the store
    // as the route read it before runs were cut, every item's length kept.
    const raw = new Database(path);
    let n = 0;
    const blank = (terms: string) => terms.split(' ').map((t) => (/[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/u.test(t) ? `zzcjk${n++}` : t)).join(' ');
    raw.function('blank', (t: string | null) => (t === null ? null : blank(t)));
    raw.exec('UPDATE artifacts SET route_terms = blank(route_terms); UPDATE artifact_chunks SET embed_terms = blank(embed_terms), content_terms = blank(content_terms);');
    raw.close();
    expect(n).toBeGreaterThan(50);
    const blanked = DocStore.open(path, { readonly: true });
    try {
      const before = await results(blanked);
      expect(now.flat().length).toBeGreaterThan(10);
      expect(now).toEqual(before);
    } finally {
      blanked.close();
    }
  });
});

// Copied from search.ts before the CJK expansion: the route's terms were retrieval's bm25Terms.
const oldRouteTerms = (text: string): string[] => bm25Terms(text);

describe('route terms', () => {
  it('text without CJK letters gets exactly the terms it had, on both sides', () => {
    const words = fc.constantFrom('the', 'The', 'running', 'fs.readFileSync', 'XMLHttpRequest', 'max_token_count', 'HTTP2Server', 'naïve', 'İstanbul', 'Zürich', '2024', 'don’t', "don't", 'ß', 'Ελλάδα', 'Москва', 'ไทย', 'a', ' ', '.', '_', '\n', '-');
    const english = fc.array(words, { maxLength: 12 }).map((ws) => ws.join(''));
    fc.assert(
      fc.property(fc.oneof(english, fc.string(), fc.string({ unit: 'binary' })), (text) => {
        if (/[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/u.test(text)) return;
        expect(routeQueryTerms(text)).toEqual(oldRouteTerms(text));
        expect(routeDocumentTerms(text)).toEqual(oldRouteTerms(text));
        const stored = oldRouteTerms(text).join(' ');
        expect(routeStoredTerms(stored)).toBe(stored);
      }),
      { numRuns: 2000 },
    );
    // Every character below U+1100 (the route looks for CJK letters only above it), and the
    // CJK letters around that edge.
    const low = Array.from({ length: 0x1100 }, (_, c) => String.fromCodePoint(c)).join(' ');
    expect(routeQueryTerms(low)).toEqual(bm25Terms(low));
    expect(routeDocumentTerms(low)).toEqual(bm25Terms(low));
    expect(routeDocumentTerms('\u1100\u1100')).toEqual(['\u1100', '\u1100', '\u1100\u1100']);
    for (const t of ['How do I configure the trimmer?', 'fs.readFileSync JsonSerializerOptions', 'Zürich naïve 2024 İstanbul']) expect(routeQueryTerms(t)).toEqual(bm25Terms(t));
  });

  it('a CJK run is its characters and pairs in a document, its pairs in a query (its character when it has one)', () => {
    expect(routeDocumentTerms('配置服务')).toEqual(['配', '置', '服', '务', '配置', '置服', '服务']);
    expect(routeQueryTerms('配置服务')).toEqual(['配置', '置服', '服务']);
    expect(routeQueryTerms('压')).toEqual(['压']);
    expect(routeQueryTerms('서버를')).toEqual(['서버', '버를']);
    // A run glued to Latin letters: the Latin part is read as the local model reads words.
    expect(routeQueryTerms('使用serializers配置')).toEqual(['使用', 'serial', '配置']);
    // Stop words inside a mixed run stay out, and identifiers stay whole.
    expect(routeQueryTerms('the配置')).toEqual(['配置']);
    expect(routeStoredTerms('配置服务 json')).toBe('配 置 服 务 配置 置服 服务 json');
  });

  it('any 1 to 4 characters of a stored run score in its document: the query terms are among the stored terms', () => {
    const CJK = [...'配置服务器网络设置的了人サーバー設定をかなカナ서버를설정하는々〇'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...CJK, ' ', '，', 'a', 'Z', '1'), { minLength: 1, maxLength: 30 }), fc.nat(), fc.integer({ min: 1, max: 4 }), (chars, pick, len) => {
        const text = chars.join('');
        const runs = [...text.matchAll(/[^ ，aZ1]+/gu)].map((m) => [...m[0]]);
        if (runs.length === 0) return;
        const run = runs[pick % runs.length]!;
        const start = pick % run.length;
        const word = run.slice(start, start + len).join('');
        // What ingest stores (routeTerms: bm25Terms, space-separated), as the route reads it.
        const read = routeStoredTerms(routeTerms(text));
        expect(read).toBe(routeDocumentTerms(text).join(' '));
        const stored = new Set(read.split(' '));
        const query = routeQueryTerms(word);
        expect(query.length).toBeGreaterThan(0);
        for (const t of query) expect(stored.has(t), `${word} in ${text}: ${t}`).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
