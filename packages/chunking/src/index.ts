/**
 * @chunkyard/chunking — Common.Chunking.
 *
 *   import { chunkDocument } from '@chunkyard/chunking';
 *   const { chunks, strategyKey } = chunkDocument(markdown, { docName: 'guide' });
 */
import { resolveOptions, strategyKey } from './options.js';
import { chunkSemantic, deriveFileTitle, documentBlocks } from './semantic.js';
import type { ChunkDocumentResult, ChunkOptions } from './types.js';

export interface ChunkDocumentExtras {
  /** Recount every chunk's tokens from scratch in the validate stage (slower; tests use it). */
  recount?: boolean;
}

/**
 * Chunks one markdown document. Pure: the same source and options give the
 * same records, byte for byte.
 */
export function chunkDocument(
  source: string,
  options: Partial<ChunkOptions> = {},
  extras: ChunkDocumentExtras = {},
): ChunkDocumentResult {
  const resolved = resolveOptions(options);
  const doc = documentBlocks(source, resolved.parser);
  const fileTitle = options.fileTitle?.trim() || deriveFileTitle(doc, resolved.docName);
  const chunks = chunkSemantic({
    source,
    doc,
    fileTitle,
    sourceFile: options.sourceFile ?? `${resolved.docName}.md`,
    options: resolved,
    recount: extras.recount === true,
  });
  return {
    strategy: resolved.strategy,
    strategyKey: strategyKey(resolved),
    options: resolved,
    fileTitle,
    frontMatter: doc.frontMatter ? { start: doc.frontMatter.start, end: doc.frontMatter.end } : null,
    chunks,
  };
}

export { ChunkOptionsError, DEFAULT_OPTIONS, resolveOptions, strategyKey } from './options.js';
export { ChunkingInvariantError } from './validate.js';
export { countTokens, estimateTokens, TokenIndex } from './tokens.js';
export { documentBlocks, deriveFileTitle } from './semantic.js';
export { fastBlocks } from './fast-blocks.js';
export { parse } from './parse.js';
export { flatten } from './flatten.js';
export { findFrontMatter } from './front-matter.js';
export { isCode, contentHint, fullBreadcrumb } from './metadata.js';
export type * from './types.js';
