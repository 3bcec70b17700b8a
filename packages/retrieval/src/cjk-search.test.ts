// search() (docs-query's) finding a Chinese, Japanese or Korean word inside a run, as docs-store's
// routed search does: with the routes (the default) and without, a unit trimmed to the sentence
// holding the word. BM25 read a run of CJK letters whole (如何配置服务器 one term), so 配置
// scored 0 on its chunk and the ranking was the local model's cosine, a hash collision for a
// CJK word: an English chunk came first. A real fixture workspace (the real chunking-tool), the
// real local embedder through the workspace's embedding cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bm25DocumentTerms, bm25QueryTerms } from './cjk-terms.js';
import { DocsClient } from './client.js';
import { createBackend } from './embed.js';
import { bm25Terms } from './hybrid.js';
import { search } from './retrieve.js';
import { trimSegments } from './routes.js';
import { FolderSource } from './source.js';
import { buildFixtureDocs, CJK_LONG_PAGE, CJK_PAGES, type FixtureDocs } from './test-fixture-docs.js';

let fx: FixtureDocs;
beforeAll(async () => {
  fx = await buildFixtureDocs({
    topics: ['deployment/native-aot', 'libraries/system-text-json-polymorphism'],
    pages: { 'cjk/zh': CJK_PAGES.zh, 'cjk/ja': CJK_PAGES.ja, 'cjk/ko': CJK_PAGES.ko, 'cjk/zh-long': CJK_LONG_PAGE },
  });
});
afterAll(() => fx?.cleanup());

const searchFor = (query: string, routes?: false) =>
  search(new DocsClient(new FolderSource(fx.docs)), { query, n: 3, embeddings: () => createBackend({ folder: fx.docs }), ...(routes === false ? { routes } : {}) });

const WORDS_INSIDE_RUNS: [string, string][] = [
  ['配置', 'cjk/zh'], // inside 如何配置服务器的网络设置
  ['网络', 'cjk/zh'],
  ['防火墙', 'cjk/zh'],
  ['如何配置防火墙', 'cjk/zh'], // a question typed as one run
  ['設定', 'cjk/ja'], // inside サーバーの設定を変更する方法について
  ['変更', 'cjk/ja'],
  ['서버', 'cjk/ko'], // only as 서버를
  ['설정', 'cjk/ko'], // only as 설정하는
  ['서버를', 'cjk/ko'],
];

describe('search(), a CJK word inside a run', () => {
  it.each(WORDS_INSIDE_RUNS)('%s finds its page first, with the routes and without (%s)', async (word, topic) => {
    for (const routes of [undefined, false] as const) {
      const r = await searchFor(word, routes);
      expect(r.method).toBe('embedding');
      expect(r.chunks[0]?.topic, `${word} routes ${routes}`).toBe(topic);
      expect(r.chunks[0]?.score).toMatchObject({ kind: 'hybrid', bm25: expect.any(Number) });
      expect((r.chunks[0]!.score as { bm25: number }).bm25).toBeGreaterThan(0);
    }
  });

  it('in a chunked page, finds the chunk holding it and trims the unit to the sentence; one character alone, and a question typed as one run, too', async () => {
    for (const q of ['压缩', '缓存', '如何启用缓存压缩', '压']) {
      const [hit] = (await searchFor(q)).chunks;
      expect(hit?.topic, q).toBe('cjk/zh-long');
      // Its chunk's heading (## 第7节) shares no term with the question: trimmed off.
      expect(hit?.text, q).toBe('在生产环境中启用缓存压缩可以减少带宽。');
      const [plain] = (await searchFor(q, false)).chunks;
      expect(plain?.text, q).toContain('启用缓存压缩');
    }
    // A CJK word in no page: no chunk shares a term, and the cosines (collisions) do not count.
    expect((await searchFor('数据库')).chunks).toEqual([]);
    // Mixed with English: both halves count.
    const mixed = (await searchFor('polymorphism 配置')).chunks.map((c) => c.topic);
    expect(mixed).toEqual(expect.arrayContaining(['cjk/zh', 'libraries/system-text-json-polymorphism']));
  });
});

describe('trimSegments with BM25 both sides (bm25QueryTerms for the question, bm25DocumentTerms for a sentence)', () => {
  const segments = [
    { index: 0, text: '## 第6节\n\n这一节讲述一般的注意事项。\n\n' },
    { index: 1, text: '在生产环境中启用缓存压缩可以减少带宽。\n\n' },
    { index: 2, text: '这一节讲述背景知识。' },
  ];

  it('keeps the sentence holding a word inside a run, and one holding a character asked for alone', () => {
    for (const q of ['压缩', '如何启用缓存压缩', '压']) {
      expect(trimSegments(segments, q, 1, bm25QueryTerms, bm25DocumentTerms), q).toEqual([{ index: 1, text: '在生产环境中启用缓存压缩可以减少带宽。\n\n' }]);
      // bm25Terms (what search() gave it) shares nothing with any sentence: the unit stayed whole.
      expect(trimSegments(segments, q, 1, bm25Terms), q).toEqual(segments);
    }
    // A sentence read as a query (pairs only) lacks the character 压: document side it is.
    expect(trimSegments(segments, '压', 1, bm25QueryTerms)).toEqual(segments);
  });

  it('English text trims as with bm25Terms', () => {
    const english = [
      { index: 0, text: 'Native AOT needs a toolchain. ' },
      { index: 1, text: 'Trimming removes unused code. Publish with PublishAot. ' },
      { index: 2, text: 'See the limitations.' },
    ];
    for (const q of ['How do I trim unused code?', 'publish native AOT', 'limitations', 'nothing here']) {
      expect(trimSegments(english, q, 1, bm25QueryTerms, bm25DocumentTerms), q).toEqual(trimSegments(english, q, 1, bm25Terms));
    }
  });
});
