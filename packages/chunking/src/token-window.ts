/**
 * The `token-window` strategy (seed 004): exact cl100k windows of
 * `windowTokens` tokens, each starting `windowOverlapTokens` tokens before the
 * previous one ends; a document of at most `singlePieceMaxTokens` tokens is
 * one chunk. A pure token window by design: it cuts through code blocks,
 * tables and sentences. What it does promise: a window ends only where a token
 * and a UTF-8 character both end, every chunk is an exact slice of the
 * source, and it never holds more than `windowTokens` tokens.
 */
import { createHash } from 'node:crypto';
import { PIPELINE } from './metadata.js';
import { contentFields, headingFields, RangeContexts } from './range-context.js';
import type { StrategyInput } from './semantic.js';
import { tokenBoundaries } from './token-boundaries.js';
import { countTokens, estimateTokens } from './tokens.js';
import type { ChunkRecord } from './types.js';
import { toUnits } from './units.js';
import { validate } from './validate.js';
import { isCode } from './metadata.js';
import { shownValue } from './options.js';

export interface WindowSpan {
  /** UTF-16 range in the text that was windowed. */
  start: number;
  end: number;
  startToken: number;
  endToken: number;
  overlapTokens: number;
}

export interface WindowSizes {
  windowTokens: number;
  windowOverlapTokens: number;
  singlePieceMaxTokens: number;
}

/**
 * The windows of `text`, as ranges of it. Seed 004's loop, with two guards
 * the seed leaves out: an end that falls inside a character moves back to the
 * previous token boundary that is also a character boundary (a start likewise
 * moves back, so such a window overlaps a token or two more), and a window
 * whose text re-encodes to more than `windowTokens` tokens (BPE on a slice
 * can merge differently at its edges) ends one token earlier until it fits.
 */
export function tokenWindows(text: string, sizes: WindowSizes): WindowSpan[] {
  checkWindowArguments(text, sizes);
  if (!text.trim()) return [];
  const { count: n, offsets } = tokenBoundaries(text);
  if (n <= sizes.singlePieceMaxTokens) {
    const start = text.length - text.trimStart().length;
    const end = text.trimEnd().length;
    return [{ start, end, startToken: 0, endToken: n, overlapTokens: 0 }];
  }
  const spans: WindowSpan[] = [];
  let pos = 0;
  let overlap = 0;
  for (;;) {
    let end = Math.min(pos + sizes.windowTokens, n);
    while (end > pos + 1 && offsets[end]! < 0) end--;
    while (end > pos + 1 && countTokens(text.slice(offsets[pos]!, offsets[end]!)) > sizes.windowTokens) {
      end--;
      while (end > pos + 1 && offsets[end]! < 0) end--;
    }
    spans.push({ start: offsets[pos]!, end: offsets[end]!, startToken: pos, endToken: end, overlapTokens: overlap });
    if (end >= n) break;
    let next = end - sizes.windowOverlapTokens;
    while (next > 0 && offsets[next]! < 0) next--;
    // Always move forward, even with an overlap as large as the window.
    if (next <= pos) next = end;
    overlap = end - next;
    pos = next;
  }
  return spans;
}

/**
 * tokenWindows' arguments, as resolveOptions holds the options it is called with. A windowTokens
 * of 0, NaN, -5 or 100.5 (or sizes without it) never moved the window forward, and the call ran
 * until the heap was gone; a windowOverlapTokens of -50 left 50 tokens between windows out.
 */
function checkWindowArguments(text: string, sizes: WindowSizes): void {
  if (typeof text !== 'string') throw new TypeError(`tokenWindows: text must be a string, got ${shownValue(text)}`);
  if (typeof sizes !== 'object' || sizes === null) throw new TypeError(`tokenWindows: sizes must be an object, got ${shownValue(sizes)}`);
  const { windowTokens, windowOverlapTokens, singlePieceMaxTokens } = sizes;
  const isInt = (v: unknown, min: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min;
  if (!isInt(windowTokens, 1)) throw new RangeError(`tokenWindows: windowTokens must be an integer >= 1, got ${shownValue(windowTokens)}`);
  if (!isInt(windowOverlapTokens, 0) || windowOverlapTokens >= windowTokens) {
    throw new RangeError(`tokenWindows: windowOverlapTokens must be an integer from 0 to windowTokens - 1 (${windowTokens - 1}), got ${shownValue(windowOverlapTokens)}`);
  }
  if (!isInt(singlePieceMaxTokens, 0) && singlePieceMaxTokens !== Infinity) {
    throw new RangeError(`tokenWindows: singlePieceMaxTokens must be an integer >= 0 (or Infinity), got ${shownValue(singlePieceMaxTokens)}`);
  }
}

/** Seed 004's artifact id: from the source system and id when given, else from the content. */
export function artifactIdOf(content: string, sourceId?: string, sourceSystem?: string): string {
  // A content of 5 threw Node's 'The "data" argument must be of type string …', and a sourceId of
  // null hashed ":null" as if it were the id "null".
  if (typeof content !== 'string') throw new TypeError(`artifactIdOf: content must be a string, got ${shownValue(content)}`);
  for (const [name, v] of [['sourceId', sourceId], ['sourceSystem', sourceSystem]] as const) {
    if (v !== undefined && typeof v !== 'string') throw new TypeError(`artifactIdOf: ${name} must be a string (or left out), got ${shownValue(v)}`);
  }
  const basis = sourceId !== undefined ? `${sourceSystem ?? ''}:${sourceId}` : content;
  return `art_${sha256(basis).slice(0, 8)}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function chunkTokenWindow(input: StrategyInput): ChunkRecord[] {
  const { source, doc, options } = input;
  const bodyStart = doc.frontMatter?.end ?? 0;
  const spans = tokenWindows(source.slice(bodyStart), options).filter((s) => source.slice(bodyStart + s.start, bodyStart + s.end).trim());
  const artifactId = artifactIdOf(source, input.sourceId, input.sourceSystem);
  const contexts = new RangeContexts(toUnits(doc.blocks));
  const parentId = `${options.contentType}:${options.docName}`;
  const idOf = (n: number): string => `${parentId}::ch${n}`;
  const records = spans.map((span, n): ChunkRecord => {
    const charStart = bodyStart + span.start;
    const charEnd = bodyStart + span.end;
    const text = source.slice(charStart, charEnd);
    const tokens = countTokens(text);
    const ctx = contexts.of(charStart, charEnd);
    const contentHash = sha256(text);
    const previous = spans[n - 1];
    return {
      id: idOf(n),
      parentId,
      chunkNumber: n,
      contentType: options.contentType,
      embedText: text,
      originalText: text,
      fileTitle: input.fileTitle,
      ...headingFields(ctx.path),
      sourcePosition: { charStart, charEnd, totalChars: source.length },
      tokenStats: { tokens, estimatedTokens: estimateTokens(text), embedTokens: tokens },
      prevId: n > 0 ? idOf(n - 1) : null,
      nextId: n < spans.length - 1 ? idOf(n + 1) : null,
      ...contentFields(ctx),
      isCode: isCode(text),
      splitUnit: false,
      overlapChars: previous ? Math.max(0, previous.end - span.start) : 0,
      metadata: { sourceFile: input.sourceFile, chunkingOptions: options, pipeline: { ...PIPELINE } },
      window: {
        artifactId,
        chunkId: `${artifactId}::chunk::${String(n).padStart(3, '0')}::${contentHash.slice(0, 8)}`,
        chunkIndex: n,
        contentHash,
        startToken: span.startToken,
        endToken: span.endToken,
        overlapTokens: span.overlapTokens,
      },
    };
  });
  const maxTokens = records.length === 1 ? Math.max(options.singlePieceMaxTokens, options.windowTokens) : options.windowTokens;
  return validate(source, records, { maxTokens, docName: options.docName, recount: input.recount === true });
}
