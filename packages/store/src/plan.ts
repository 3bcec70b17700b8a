/**
 * Stage 1, pure: a document becomes an ArtifactPlan. Seed 004's rules: the artifact id comes
 * from `source_system:source_id` when there is one (so a changed file replaces its earlier
 * version), else from the content hash; a document of at most `singlePieceMax` exact cl100k
 * tokens is one unit, a larger one is chunked with the configured strategy.
 */
import { createHash } from 'node:crypto';
import { chunkDocument, countTokens, type ChunkOptions, type ChunkRecord, type ContentHint } from '@chunkyard/chunking';
import { visibleDocName } from '@chunkyard/chunking/interop';
import { InputError } from './errors.js';
import { checkLabel, checkText, DEFAULT_LIMITS, type InputLimits } from './input.js';
import type { ArtifactInput, ArtifactPlan, UnitPlan } from './types.js';

/** Seed 004's SINGLE_PIECE_MAX_TOKENS. */
export const SINGLE_PIECE_MAX = 1200;
export const WHOLE_STRATEGY_KEY = 'whole';

export interface PlanOptions {
  singlePieceMax?: number;
  /** Passed to `chunkDocument` as is (strategy, sizes …); docName and sourceFile are derived. */
  chunking?: Partial<ChunkOptions>;
  limits?: InputLimits;
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** Seed 004: `art_` + 8 hex of sha256(`{source_system}:{source_id}`), or of the content. */
export function artifactId(sourceSystem: string, sourceId: string | null | undefined, contentHash: string): string {
  if (sourceId) return `art_${sha256Hex(`${sourceSystem}:${sourceId}`).slice(0, 8)}`;
  return `art_${contentHash.slice(0, 8)}`;
}

/** Seed 004: `{artifactId}::chunk::{index:03d}::{sha256(content)[:8]}`. */
export function chunkId(artifact: string, index: number, contentHash: string): string {
  return `${artifact}::chunk::${String(index).padStart(3, '0')}::${contentHash.slice(0, 8)}`;
}

export function planArtifact(input: ArtifactInput, options: PlanOptions = {}): ArtifactPlan {
  const sourceSystem = input.sourceSystem?.trim() || 'inline';
  const display = input.sourceFile ?? input.sourceId ?? input.title ?? '(inline content)';
  checkText(input.content, display, options.limits ?? DEFAULT_LIMITS);
  checkLabel(input.sourceSystem, 'its source system', display);
  checkLabel(input.sourceId, 'its source id', display);
  checkLabel(input.sourceFile, 'its source file', display);
  checkLabel(input.title, 'its title', display);
  checkLabel(input.topic, 'its topic', display);
  checkLabel(input.artifactType, 'its artifact type', display);
  const content = input.content;
  const contentHash = sha256Hex(content);
  const id = artifactId(sourceSystem, input.sourceId, contentHash);
  const docName = docNameOf(input.sourceFile ?? input.sourceId ?? id);
  const chunked = chunkDocument(content, {
    ...options.chunking,
    docName,
    contentType: input.artifactType ?? options.chunking?.contentType,
    sourceFile: input.sourceFile ?? `${docName}.md`,
    ...(input.title ? { fileTitle: input.title } : {}),
  });
  if (chunked.chunks.length === 0) throw new InputError(display, 'no content to store (only front matter)');
  const tokenCount = countTokens(content);
  const base = {
    id,
    artifactType: chunked.options.contentType,
    sourceSystem,
    sourceId: input.sourceId ?? null,
    sourceFile: input.sourceFile ?? null,
    topic: input.topic ?? null,
    title: chunked.fileTitle,
    tokenCount,
    contentHash,
    contentHints: overallHint(chunked.chunks.map((c) => c.contentHints)),
  };
  if (tokenCount <= (options.singlePieceMax ?? SINGLE_PIECE_MAX)) {
    const unit: UnitPlan = {
      id,
      chunkIndex: null,
      recordId: null,
      content,
      embedText: content,
      startChar: 0,
      endChar: content.length,
      tokenCount,
      contentHash,
      sectionTitle: '',
      headerBreadcrumb: '',
      contentHints: base.contentHints,
      isCode: chunked.chunks.every((c) => c.isCode),
    };
    return { ...base, content, isChunked: false, strategyKey: WHOLE_STRATEGY_KEY, units: [unit] };
  }
  return { ...base, content: '', isChunked: true, strategyKey: chunked.strategyKey, units: unitsOf(id, chunked.chunks) };
}

/** Chunk records (from `chunkDocument` or a `_chunks/` manifest) as units of artifact `id`. */
export function unitsOf(id: string, chunks: readonly ChunkRecord[]): UnitPlan[] {
  return chunks.map((c, index) => {
    const hash = sha256Hex(c.originalText);
    return {
      id: chunkId(id, index, hash),
      chunkIndex: index,
      recordId: c.id,
      content: c.originalText,
      embedText: c.embedText,
      startChar: c.sourcePosition.charStart,
      endChar: c.sourcePosition.charEnd,
      overlapChars: c.overlapChars,
      tokenCount: c.tokenStats.tokens,
      contentHash: hash,
      sectionTitle: c.sectionTitle,
      headerBreadcrumb: c.headerBreadcrumb,
      contentHints: c.contentHints,
      isCode: c.isCode,
    };
  });
}

export function overallHint(hints: readonly ContentHint[]): ContentHint {
  const set = new Set(hints);
  if (set.size === 1) return [...set][0]!;
  return set.size === 0 ? 'prose' : 'mixed';
}

/**
 * The name chunkDocument gives the chunks (their record ids, `doc:<name>::ch<n>`), from the
 * source file or id. chunkDocument refuses a control character there (3b8ba08), and a source id
 * is the caller's id in another system (MCP's ingest_artifact takes any source_id): such a
 * character is shown as U+FFFD, as the LangChain and LlamaIndex adapters show it in the names
 * they derive. The source id and file are stored as given. docs-store ingest refuses such a
 * file name first, as chunking-tool does.
 */
function docNameOf(path: string): string {
  const base = path.split(/[\\/]/).pop() || path;
  return visibleDocName(base.replace(/\.[^.]*$/, '') || base);
}
