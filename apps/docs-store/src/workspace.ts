/**
 * Where things live: the workspace root (the nearest folder up from the cwd holding
 * chunkyard.config.yaml or nx.json, else the cwd), the default database in it, the
 * workspace config, and the embedding provider that config names.
 */
import { existsSync } from 'node:fs';
import { describeFsError, readRegularFile, utf8TextProblem } from '@chunkyard/fs-atomic';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, parseConfig, type ChunkyardConfig } from '@chunkyard/config';
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
  let bytes: Buffer;
  try {
    // Refuses a FIFO or device at once (a plain read would block on a FIFO forever).
    bytes = readRegularFile(file);
  } catch (err) {
    // A FIFO or device too (describeFsError words NotRegularFileError as fileProblem does;
    // it was "<file>: cannot read config (a FIFO (named pipe), not a regular file)").
    // "cannot read config (ENOENT)" named the errno only: this is chunking-tool's, topic-spec's
    // and docs-score's wording, with what it means and what to do.
    throw new UsageError(`cannot read config: ${describeFsError(err, file)}`);
  }
  return { config: parseConfig(configText(bytes, file), file), file };
}

/**
 * A settings file's bytes as text, or a ConfigError (exit 2) when they are not UTF-8, in
 * topic-io's words (docs-store does not load topic-io): decoded with replacement characters,
 * a UTF-16 file was "expected a mapping of settings at the top level" and a Latin-1 byte
 * became U+FFFD in a value (issue 15 probe).
 */
export function configText(bytes: Buffer, file: string): string {
  const problem = utf8TextProblem(bytes);
  if (problem !== null) throw new ConfigError(file, null, problem);
  return bytes.toString('utf8');
}

/** The configured embedding provider (`embeddings:`), the offline local one by default. */
export function providerFor(config: ChunkyardConfig, env: Env = process.env): EmbeddingProvider {
  return createProvider({ provider: 'local', ...config.embeddings }, env);
}
