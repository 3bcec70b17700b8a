import type { ChunkOptions, ResolvedChunkOptions } from './types.js';

export const DEFAULT_OPTIONS: ResolvedChunkOptions = {
  docName: 'document',
  contentType: 'doc',
  strategy: 'semantic',
  minTokens: 64,
  targetTokens: 400,
  maxTokens: 512,
  overlapSentences: 2,
  breadcrumbMode: 'conditional',
  parser: 'fast',
};

export class ChunkOptionsError extends Error {
  override name = 'ChunkOptionsError';
}

/** Fills defaults and rejects impossible settings with a message naming the option. */
export function resolveOptions(options: Partial<ChunkOptions> = {}): ResolvedChunkOptions {
  const defined = Object.fromEntries(
    Object.entries(options).filter(([k, v]) => v !== undefined && k !== 'fileTitle' && k !== 'sourceFile'),
  );
  const o: ResolvedChunkOptions = { ...DEFAULT_OPTIONS, ...defined };
  const int = (name: keyof ResolvedChunkOptions, min: number): void => {
    const v = o[name];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
      throw new ChunkOptionsError(`${name} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
    }
  };
  int('minTokens', 0);
  int('targetTokens', 1);
  int('maxTokens', 16);
  int('overlapSentences', 0);
  if (!(o.minTokens <= o.targetTokens && o.targetTokens <= o.maxTokens)) {
    throw new ChunkOptionsError(`need minTokens <= targetTokens <= maxTokens, got ${o.minTokens}/${o.targetTokens}/${o.maxTokens}`);
  }
  if (!['conditional', 'always', 'none'].includes(o.breadcrumbMode)) {
    throw new ChunkOptionsError(`breadcrumbMode must be conditional, always or none, got ${JSON.stringify(o.breadcrumbMode)}`);
  }
  if (o.strategy !== 'semantic') throw new ChunkOptionsError(`strategy must be semantic, got ${JSON.stringify(o.strategy)}`);
  if (o.parser !== 'fast' && o.parser !== 'remark') throw new ChunkOptionsError(`parser must be fast or remark, got ${JSON.stringify(o.parser)}`);
  if (typeof o.docName !== 'string' || !o.docName) throw new ChunkOptionsError('docName must be a non-empty string');
  if (typeof o.contentType !== 'string' || !o.contentType) throw new ChunkOptionsError('contentType must be a non-empty string');
  return o;
}

/**
 * The cache key of a chunking configuration, e.g. `semantic-64-400-512`.
 * Settings that change embedText but not the sizes are appended only when
 * they differ from the defaults, so the common key stays short.
 */
export function strategyKey(o: ResolvedChunkOptions): string {
  let key = `${o.strategy}-${o.minTokens}-${o.targetTokens}-${o.maxTokens}`;
  if (o.overlapSentences !== DEFAULT_OPTIONS.overlapSentences) key += `-o${o.overlapSentences}`;
  if (o.breadcrumbMode !== DEFAULT_OPTIONS.breadcrumbMode) key += `-b${o.breadcrumbMode}`;
  return key;
}
