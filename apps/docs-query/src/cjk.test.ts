// docs-query finding a Chinese, Japanese or Korean word inside a run of its docs, as
// `docs-store search` does: 配置 inside 如何配置服务器的网络设置. Its BM25 read a run of CJK
// letters whole, so the word scored 0 there and an English chunk's colliding cosine came
// first. A real fixture workspace (real chunking-tool output, index.json per the contract),
// the real local embedder and cache, main() as the command line runs it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildFixtureDocs, CJK_LONG_PAGE, CJK_PAGES, type FixtureDocs } from '../../../packages/retrieval/src/test-fixture-docs.js';
import { run } from './test-run.js';

let fx: FixtureDocs;
beforeAll(async () => {
  fx = await buildFixtureDocs({
    topics: ['deployment/native-aot', 'libraries/system-text-json-polymorphism'],
    pages: { 'guides/zh': CJK_PAGES.zh, 'guides/ja': CJK_PAGES.ja, 'guides/ko': CJK_PAGES.ko, 'guides/zh-long': CJK_LONG_PAGE },
  });
});
afterAll(() => fx?.cleanup());

interface Out {
  method: string;
  chunks: { topic: string; text: string; score: { kind: string; similarity: number; bm25: number } }[];
}

const query = async (...argv: string[]): Promise<Out> => {
  const r = await run(fx.docs, '--max-distance', '0', '-n', '3', '--json', ...argv);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Out;
};

it.each([
  ['配置', 'guides/zh'],
  ['防火墙', 'guides/zh'],
  ['如何配置防火墙', 'guides/zh'],
  ['設定', 'guides/ja'],
  ['서버', 'guides/ko'],
])('-q %s finds the page holding it inside a run first (%s)', async (word, topic) => {
  const out = await query('-q', word);
  expect(out.method).toBe('embedding');
  expect(out.chunks[0]?.topic).toBe(topic);
  expect(out.chunks[0]!.score).toMatchObject({ kind: 'hybrid', similarity: 0 });
  expect(out.chunks[0]!.score.bm25).toBeGreaterThan(0);
});

it('a word in a long page returns the chunk holding it, trimmed to its sentence; a word in no page returns nothing', async () => {
  for (const q of ['压缩', '压']) {
    const out = await query('-q', q);
    expect(out.chunks[0]?.topic, q).toBe('guides/zh-long');
    expect(out.chunks[0]?.text, q).toBe('在生产环境中启用缓存压缩可以减少带宽。');
  }
  expect((await query('-q', '数据库')).chunks).toEqual([]);
  const human = await run(fx.docs, '--max-distance', '0', '-q', '配置');
  expect(human.code).toBe(0);
  expect(human.stdout).toContain('本文介绍如何配置服务器的网络设置');
});
