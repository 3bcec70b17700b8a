// Shared by this package's tests: real temp dirs, real SQLite files, the real local
// embedding provider, and real documents from the repository's docs/ folder.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProvider, localModelId, type EmbeddingProvider } from '@chunkyard/embeddings';
import { CJK_LONG_PAGE, CJK_PAGES as CJK_PAGES_OF_RETRIEVAL } from '../../retrieval/src/test-fixture-docs.js';
import { readBuiltTopic } from './built.js';
import { embedPlans } from './ingest.js';
import type { SearchHit } from './types.js';
import { DocStore } from './store.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export function makeTempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'chunkyard-store-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const localProvider = (dimensions?: number): EmbeddingProvider =>
  createProvider(dimensions ? { provider: 'local', dimensions } : { provider: 'local' });

/**
 * A real provider that fails: ollama at a port nothing listens on, with no retries, so the
 * first embed() rejects with the provider's own connection error. It claims the local
 * model's name so a store built with the local provider accepts it up to the embed call.
 */
export const unreachableProvider = (): EmbeddingProvider =>
  createProvider({ provider: 'ollama', host: 'http://127.0.0.1:9', maxRetries: 0, timeoutMs: 2000, model: localModelId() });

export const readDoc = (rel: string): string => readFileSync(join(REPO_ROOT, rel), 'utf8');

export const DOCS = {
  collections: 'docs/libraries/system-text-json-collections/golden-reference.md',
  polymorphism: 'docs/libraries/system-text-json-polymorphism/golden-reference.md',
  reflection: 'docs/libraries/system-text-json-reflection-vs-source-generation/golden-reference.md',
  nativeAot: 'docs/deployment/native-aot/golden-reference.md',
} as const;

/** Every row of the store's tables, for before/after comparisons. */
export function snapshot(store: DocStore): unknown {
  const db = store.db;
  return {
    artifacts: db.prepare('SELECT * FROM artifacts ORDER BY id').all(),
    chunks: db.prepare('SELECT * FROM artifact_chunks ORDER BY id').all(),
    fts: db.prepare('SELECT rowid, * FROM units_fts ORDER BY rowid').all(),
    meta: db.prepare('SELECT * FROM store_meta ORDER BY key').all(),
  };
}

/** A document of exactly `n` cl100k tokens ("x" then " y" repeated: one token each). */
export const tokensDoc = (n: number, word = 'y'): string => `x${` ${word}`.repeat(n - 1)}`;

/**
 * The CJK search tests' corpus (cjk-search.test.ts, cjk-routes.test.ts): a Chinese, a Japanese
 * and a Korean page whose words sit inside runs (配置 in 如何配置服务器的网络设置, 設定 in
 * サーバーの設定を変更する, 서버 in 서버를), a chunked Chinese document whose eighth section holds
 * 启用缓存压缩, and two English pages of the repository's docs: retrieval's test pages (the same
 * texts docs-query's CJK tests search), keyed by source id.
 */
export const CJK_PAGES = { ...CJK_PAGES_OF_RETRIEVAL, 'zh-long': CJK_LONG_PAGE } as const;

/** A store at `path` holding CJK_PAGES (source ids `zh`, `ja`, `ko`, `zh-long`) and two English pages (their paths). */
export async function cjkStore(path: string, embedder: EmbeddingProvider = localProvider()): Promise<DocStore> {
  const store = DocStore.open(path);
  await store.ingest(
    [
      ...Object.entries(CJK_PAGES).map(([sourceId, content]) => ({ content, sourceSystem: 'test', sourceId })),
      { content: readDoc(DOCS.polymorphism), sourceSystem: 'file', sourceId: DOCS.polymorphism },
      { content: readDoc(DOCS.nativeAot), sourceSystem: 'file', sourceId: DOCS.nativeAot },
    ],
    embedder,
    { singlePieceMax: 200 },
  );
  return store;
}

/** The source ids of `hits`, in their order. */
export function sourceIdsOf(store: DocStore, hits: readonly SearchHit[]): string[] {
  const ids = store.db.prepare('SELECT id, source_id AS sourceId FROM artifacts').all() as { id: string; sourceId: string }[];
  const byId = new Map(ids.map((r) => [r.id, r.sourceId]));
  return hits.map((h) => byId.get(h.artifactId)!);
}

/**
 * Ingests each of `topics`, built in the docs folder `docs` (docs-query's topics), as docs-store
 * ingest names them: the topic its source system, a file shown as `topic/file`. The tests that
 * compare the store's units with docs-query's over the same built docs start from this.
 */
export async function ingestBuiltTopics(store: DocStore, docs: string, topics: readonly string[], provider: EmbeddingProvider): Promise<void> {
  for (const topic of topics) {
    const built = readBuiltTopic({ topicDir: join(docs, topic), topic, sourceSystem: topic, displayOf: (s) => `${topic}/${s}`, sourceIdOf: (s) => s });
    await store.ingestPlans(
      built.map((b) => b.plan),
      provider.model,
      (pending) => embedPlans(pending, provider),
    );
  }
}
