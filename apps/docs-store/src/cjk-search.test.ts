// `docs-store search` (the default: hybrid with routes) for a Chinese, Japanese or Korean word
// inside a run of text, as users type them: 配置 ("configure") inside 如何配置服务器的网络设置,
// 設定 inside サーバーの設定を変更する, 서버 ("server") glued to its particle in 서버를. The
// routed BM25 read a CJK run as one word and the local model hashes it whole, so the default
// search found nothing of them (only `--mode fts` and `--no-routes` did), or an English chunk
// whose vector collided with the query's. Real files, a real SQLite store, the CLI in-process.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStore } from './test-run.js';
import { REPO } from './test-build.js';

let ws: string;
const run = (args: string[]) => runStore(ws, args);
beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-cjk-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  // A topic is a folder holding golden-reference.md.
  const topic = (name: string, text: string) => {
    mkdirSync(join(ws, 'docs', name), { recursive: true });
    writeFileSync(join(ws, 'docs', name, 'golden-reference.md'), text);
  };
  topic('zh', '# 服务器指南\n\n本文介绍如何配置服务器的网络设置，以及防火墙的规则。\n');
  topic('ja', '# サーバーガイド\n\nサーバーの設定を変更する方法について説明します。\n');
  topic('ko', '# 관리자 안내\n\n이 문서는 서버를 설정하는 방법을 설명합니다.\n');
  cpSync(join(REPO, 'docs/deployment/native-aot'), join(ws, 'docs', 'native-aot'), { recursive: true });
  cpSync(join(REPO, 'docs/libraries/system-text-json-polymorphism'), join(ws, 'docs', 'polymorphism'), { recursive: true });
  const r = await run(['ingest', ...['zh', 'ja', 'ko', 'native-aot', 'polymorphism'].map((t) => `docs/${t}`)]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

/** The topics of a search's hits, best first. */
async function files(query: string, mode: string[] = []): Promise<string[]> {
  const r = await run(['search', ...mode, '--json', '--limit', '5', query]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { hits: { topic: string }[] }).hits.map((h) => h.topic.replace(/^docs\//, ''));
}

describe('docs-store search, a CJK word inside a run', () => {
  it.each([
    ['配置', 'zh'],
    ['网络', 'zh'],
    ['防火墙', 'zh'],
    ['設定', 'ja'],
    ['変更', 'ja'],
    ['서버', 'ko'],
    ['설정', 'ko'],
  ])('%s finds topic %s first, in the default search, in --mode fts and with --no-routes', async (word, file) => {
    expect((await files(word))[0]).toBe(file);
    expect((await files(word, ['--mode', 'fts']))[0]).toBe(file);
    // Under the local model a query of CJK words alone is ranked by FTS5 alone: its cosine
    // elsewhere is a hash collision, whose vector rank 1 (fused by rank) put an English chunk
    // first. So the word's topic is first, and no English topic is among the hits at all.
    const noRoutes = await files(word, ['--no-routes']);
    expect(noRoutes[0]).toBe(file);
    expect(noRoutes).not.toContain('native-aot');
    expect(noRoutes).not.toContain('polymorphism');
  });

  it('the text printed holds the word; a CJK word in no document finds nothing; English finds what it found', async () => {
    const r = await run(['search', '配置']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('如何配置服务器的网络设置');
    expect(await files('数据库')).toEqual([]);
    expect((await files('native AOT publish'))[0]).toBe('native-aot');
    expect(await files('polymorphism 配置')).toEqual(expect.arrayContaining(['polymorphism', 'zh']));
  });
});
