// Shared by this package's tests: real temp dirs, real SQLite files, the real local
// embedding provider, and real documents from the repository's docs/ folder.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProvider, localModelId, type EmbeddingProvider } from '@chunkyard/embeddings';
import type { DocStore } from './store.js';

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
