/**
 * Where things live: the workspace root (the nearest folder up from the cwd holding
 * chunkyard.config.yaml or nx.json, else the cwd), the default database in it, the
 * workspace config, and the embedding provider that config names.
 */
import { existsSync } from 'node:fs';
import { describeFsError, readRegularFile } from '@chunkyard/fs-atomic';
import { dirname, join, resolve } from 'node:path';
import { parseConfig, type ChunkyardConfig } from '@chunkyard/config';
import { createProvider, type EmbeddingProvider, type Env } from '@chunkyard/embeddings';

export const CONFIG_FILE = 'chunkyard.config.yaml';

export function findWorkspaceRoot(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, CONFIG_FILE)) || existsSync(join(dir, 'nx.json'))) return dir;
    if (dirname(dir) === dir) return resolve(from);
  }
}

/** `<workspace>/.chunkyard/store.db`: in the workspace (git-ignored), never a temp path. */
export const defaultDbPath = (root: string): string => join(root, '.chunkyard', 'store.db');

export class UsageError extends Error {}

/** The workspace config (`--config`, else `<root>/chunkyard.config.yaml` if present, else defaults). */
export function loadWorkspaceConfig(root: string, explicit?: string): { config: ChunkyardConfig; file: string | null } {
  const file = explicit ?? (existsSync(join(root, CONFIG_FILE)) ? join(root, CONFIG_FILE) : null);
  if (!file) return { config: { chunking: {} }, file: null };
  let text: string;
  try {
    // Refuses a FIFO or device at once (a plain read would block on a FIFO forever).
    text = readRegularFile(file).toString('utf8');
  } catch (err) {
    // A FIFO or device too (describeFsError words NotRegularFileError as fileProblem does;
    // it was "<file>: cannot read config (a FIFO (named pipe), not a regular file)").
    // "cannot read config (ENOENT)" named the errno only: this is chunking-tool's, topic-spec's
    // and docs-score's wording, with what it means and what to do.
    throw new UsageError(`cannot read config: ${describeFsError(err, file)}`);
  }
  return { config: parseConfig(text, file), file };
}

/** The configured embedding provider (`embeddings:`), the offline local one by default. */
export function providerFor(config: ChunkyardConfig, env: Env = process.env): EmbeddingProvider {
  return createProvider({ provider: 'local', ...config.embeddings }, env);
}
