/**
 * @chunkyard/chunking — Common.Chunking.
 *
 *   import { chunkDocument } from '@chunkyard/chunking';
 *   const { chunks, strategyKey } = chunkDocument(markdown, { docName: 'guide' });
 */
import { recordedOptions, resolveOptions, strategyKey } from './options.js';
import { chunkSemantic, deriveFileTitle, documentBlocks, type DocumentBlocks } from './semantic.js';
import { chunkHierarchical } from './hierarchical.js';
import { chunkPaginate } from './paginate.js';
import { chunkTokenWindow } from './token-window.js';
import type { ChunkDocumentResult, ChunkOptions, ChunkRecord, ResolvedChunkOptions } from './types.js';

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
  const chunks = runStrategy({
    source,
    doc,
    fileTitle,
    sourceFile: options.sourceFile ?? `${resolved.docName}.md`,
    options: resolved,
    recount: extras.recount === true,
    ...(options.sourceId !== undefined ? { sourceId: options.sourceId } : {}),
    ...(options.sourceSystem !== undefined ? { sourceSystem: options.sourceSystem } : {}),
  });
  const recorded = recordedOptions(resolved);
  for (const c of chunks) c.metadata.chunkingOptions = recorded;
  return {
    strategy: resolved.strategy,
    strategyKey: strategyKey(resolved),
    options: recorded,
    fileTitle,
    frontMatter: doc.frontMatter ? { start: doc.frontMatter.start, end: doc.frontMatter.end } : null,
    chunks,
  };
}

interface StrategyInput {
  source: string;
  doc: DocumentBlocks;
  fileTitle: string;
  sourceFile: string;
  options: ResolvedChunkOptions;
  recount: boolean;
  sourceId?: string;
  sourceSystem?: string;
}

/** The dispatch: every strategy takes the same parsed document. */
function runStrategy(input: StrategyInput): ChunkRecord[] {
  switch (input.options.strategy) {
    case 'semantic':
      return chunkSemantic(input);
    case 'token-window':
      return chunkTokenWindow(input);
    case 'hierarchical':
      return chunkHierarchical(input);
    case 'paginate':
      return chunkPaginate(input);
  }
}

export { CHUNK_BOUNDARY, expandNeighbors, type Expandable } from './expand.js';
export { artifactIdOf, tokenWindows, type WindowSpan } from './token-window.js';
export { encodeWithOffsets } from './token-offsets.js';
export { ctComment, ctId, pageReserve } from './paginate.js';
export { formatPrefix, fitPrefix, PREFIX_RESERVE } from './retrieval-prefix.js';
export { ChunkOptionsError, DEFAULT_OPTIONS, STRATEGIES, recordedOptions, resolveOptions, strategyKey } from './options.js';
export { ChunkingInvariantError } from './validate.js';
export { countTokens, estimateTokens, TokenIndex } from './tokens.js';
export { documentBlocks, deriveFileTitle } from './semantic.js';
export { fastBlocks } from './fast-blocks.js';
export { parse } from './parse.js';
export { flatten } from './flatten.js';
export { findFrontMatter } from './front-matter.js';
export { isCode, contentHint, fullBreadcrumb } from './metadata.js';
export type * from './types.js';
