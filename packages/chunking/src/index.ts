/**
 * @chunkyard/chunking — Common.Chunking.
 *
 *   import { chunkDocument } from '@chunkyard/chunking';
 *   const { chunks, strategyKey } = chunkDocument(markdown, { docName: 'guide' });
 */
import { headingLabel } from './heading-label.js';
import { ChunkOptionsError, recordedOf, resolveOptions, shownValue, sourceFileOf, sourceText, strategyKeyOf } from './options.js';
import { type BlockPool, handBackBlockPool, takeBlockPool } from './block-pool.js';
import { chunkSemantic, chunkerDocumentBlocks, deriveFileTitle, type StrategyInput } from './semantic.js';
import { chunkHierarchical } from './hierarchical.js';
import { chunkPaginate } from './paginate.js';
import { chunkTokenWindow } from './token-window.js';
import { cutSpans, findBoilerplate, OffsetMap } from './boilerplate.js';
import { detectHeadings, usesHeuristicHeadings } from './plain-text.js';
import { attachSourceLines } from './source-lines.js';
import { bomLength, recordPastBom, spansPastBom } from './bom.js';
import { forgetLastMatch } from './shape-anchor.js';
import type { ChunkDocumentResult, ChunkOptions, ChunkRecord, RemovedSpan, ResolvedChunkOptions } from './types.js';

export interface ChunkDocumentExtras {
  /** Recount every chunk's tokens from scratch in the validate stage (slower; tests use it). */
  recount?: boolean;
}

/**
 * Chunks one markdown document. Pure: the same source and options give the
 * same records, byte for byte.
 */
export function chunkDocument(
  given: string,
  options: Partial<ChunkOptions> = {},
  extras: ChunkDocumentExtras = {},
): ChunkDocumentResult {
  // A JavaScript caller may pass null or a number: `extras.recount` threw "Cannot read properties of null".
  if (typeof extras !== 'object' || extras === null || Array.isArray(extras)) {
    throw new ChunkOptionsError(`extras must be an object (or left out), got ${shownValue(extras)}`);
  }
  const source = sourceText(given, 'chunkDocument');
  const shift = bomLength(source);
  try {
    if (shift === 0) return chunkText(source, options, extras);
    const result = chunkText(source.slice(shift), options, extras);
    for (let k = 0; k < result.chunks.length; k++) recordPastBom(result.chunks[k]!, shift, source.length);
    return spansPastBom(result, shift);
  } finally {
    forgetLastMatch();
  }
}

/** chunkDocument of a source without a byte order mark (bom.ts). */
function chunkText(source: string, options: Partial<ChunkOptions>, extras: ChunkDocumentExtras): ChunkDocumentResult {
  const resolved = resolveOptions(options);
  const sourceFile = sourceFileOf(options, resolved);
  // The blocks' objects, from the last call's (block-pool.ts); handed back once the records are made.
  const pool = takeBlockPool();
  const { text, doc, removed, headingDetection, sourceLines } = prepare(source, resolved, sourceFile, pool);
  // deriveFileTitle labels the title it derives; only the caller's needs labelling here.
  const givenTitle = options.fileTitle?.trim();
  const fileTitle = givenTitle ? headingLabel(givenTitle) : deriveFileTitle(doc, options.fallbackTitle?.trim() || resolved.docName);
  const recorded = recordedOf(resolved);
  let chunks = runStrategy({
    source: text,
    doc,
    fileTitle,
    sourceFile,
    options: resolved,
    recorded,
    recount: extras.recount === true,
    ...(options.sourceId !== undefined ? { sourceId: options.sourceId } : {}),
    ...(options.sourceSystem !== undefined ? { sourceSystem: options.sourceSystem } : {}),
  });
  if (removed.length) chunks = mapBack(chunks, removed, source);
  // Seed 002's `source` lines, in the original source (the first parse's line table).
  attachSourceLines(chunks, source, sourceFile, sourceLines);
  // The semantic strategy's records share one frozen metadata holding `recorded` already.
  for (let k = 0; k < chunks.length; k++) {
    const { metadata } = chunks[k]!; // (indexed: no iterator result per record)
    if (metadata.chunkingOptions !== recorded) metadata.chunkingOptions = recorded;
  }
  // Nothing reads the blocks now: the records hold none of them (a call that threw above keeps
  // its pool, and the next call makes one).
  handBackBlockPool(pool);
  return {
    strategy: resolved.strategy,
    strategyKey: strategyKeyOf(resolved),
    options: recorded,
    fileTitle,
    frontMatter: doc.frontMatter ? { start: doc.frontMatter.start, end: doc.frontMatter.end } : null,
    chunks,
    removed,
    headingDetection,
  };
}

/**
 * Seed 003 for plain text: when the document is .txt or has fewer than 3 `#`
 * headings, boilerplate lines are cut (the strategy sees the text without
 * them) and headings are guessed from line patterns.
 */
function prepare(source: string, o: ResolvedChunkOptions, sourceFile: string, pool: BlockPool | null) {
  let doc = chunkerDocumentBlocks(source, o.parser, pool);
  // The source's line table, for the records' `source` lines, also once text was cut.
  const sourceLines = doc.lines;
  if (!usesHeuristicHeadings(source, doc.blocks, sourceFile)) {
    return { text: source, doc, removed: [] as RemovedSpan[], headingDetection: 'markdown' as const, sourceLines };
  }
  const removed = findBoilerplate(source, doc.blocks, doc.frontMatter?.end ?? 0, sourceLines);
  const text = removed.length ? cutSpans(source, removed) : source;
  // The same pool: its objects go on from where the first parse's ended (findBoilerplate has read those).
  if (removed.length) doc = chunkerDocumentBlocks(text, o.parser, pool);
  return { text, doc: { ...doc, blocks: detectHeadings(text, doc.blocks) }, removed, headingDetection: 'heuristic' as const, sourceLines };
}

/** Offsets of chunks of the cut text, back in the source; `removed` lists what each range leaves out. */
function mapBack(chunks: ChunkRecord[], removed: RemovedSpan[], source: string): ChunkRecord[] {
  const map = new OffsetMap(removed);
  return chunks.map((c) => {
    const charStart = map.start(c.sourcePosition.charStart);
    const charEnd = map.end(c.sourcePosition.charEnd);
    const inside = map.within(charStart, charEnd);
    // `source` (declared, still unset) left out: attachSourceLines adds it after `removed`, as it always has.
    const { source: _unset, ...rest } = c;
    return { ...rest, sourcePosition: { charStart, charEnd, totalChars: source.length }, ...(inside.length ? { removed: inside } : {}) };
  });
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

export { chunkDocumentStream, type ChunkStream, type ChunkStreamExtras } from './stream.js';
export { CHUNK_BOUNDARY, expandNeighbors, type Expandable } from './expand.js';
export { artifactIdOf, tokenWindows, type WindowSpan } from './token-window.js';
export { encodeWithOffsets } from './token-offsets.js';
export { cutSpans, findBoilerplate, OffsetMap } from './boilerplate.js';
export { atxHeadingCount, detectHeadings, headingOf, usesHeuristicHeadings } from './plain-text.js';
export { ctComment, ctId, PAGES_MANIFEST, pageReserve } from './paginate.js';
export { leadLine, LEAD_MAX_TOKENS } from './lead-lines.js';
export { formatPrefix, fitPrefix, PREFIX_RESERVE } from './retrieval-prefix.js';
export { ChunkOptionsError, CONTENT_TYPE, DEFAULT_OPTIONS, STRATEGIES, recordedOptions, resolveOptions, strategyKey } from './options.js';
export { ChunkingInvariantError } from './validate.js';
export { sentenceStarts } from './sentences.js';
export { countTokens, estimateTokens, TokenIndex } from './tokens.js';
export { documentBlocks, deriveFileTitle } from './semantic.js';
export { fastBlocks } from './fast-blocks.js';
export { parse } from './parse.js';
export { flatten } from './flatten.js';
export { findFrontMatter } from './front-matter.js';
export { isCode, contentHint, fullBreadcrumb } from './metadata.js';
export type * from './types.js';
