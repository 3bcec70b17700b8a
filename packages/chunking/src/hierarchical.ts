/**
 * The `hierarchical` strategy (seed 003): two tiers over one parse.
 *
 *   units → section pieces → pack (≈1700) → token overlap (120)   = sections
 *   each section's pieces → snippet pieces → pack (≈420) → token overlap (80) = its snippets
 *
 * A snippet is made from its section's own pieces, so it never crosses its
 * section. A unit that fits a section is one piece at the section tier (never
 * cut there) and is split for snippets only when it exceeds the snippet cap;
 * a unit larger than a section is split at snippet size for both tiers, so
 * both tiers cut it at the same places. Retrieval text is prefixed
 * `[DOC: …][PATH: …][CONCEPTS: …]`; concepts are the document's keywords
 * (@chunkyard/keywords) that occur in the chunk, strongest first.
 */
import type { Headings } from './headings.js';
import { extractKeywords, KeywordMatcher, ScanMemo } from '@chunkyard/keywords';
import { PIPELINE, isCode } from './metadata.js';
import { normalize, type NormalizedChunk } from './normalize.js';
import { pack, type PackContext } from './pack.js';
import { PieceTable } from './pieces.js';
import { contentFields, headingFields, RangeContexts } from './range-context.js';
import { fitPrefix, PREFIX_RESERVE } from './retrieval-prefix.js';
import type { StrategyInput } from './semantic.js';
import { splitOversized, type SplitContext } from './split-oversized.js';
import { addTokenOverlap } from './token-overlap.js';
import { countTokens, estimateTokens, TokenIndex } from './tokens.js';
import type { Block, BlockType, ChunkRecord } from './types.js';
import { newUnitsState, visitUnits, type Unit, type UnitsState } from './units.js';
import { validate } from './validate.js';

interface Tier {
  target: number;
  budget: number;
  overlap: number;
}

/** Smallest section or snippet the packer aims for before merging it with a neighbour. */
const MIN_SHARE = 8;

export function chunkHierarchical(input: StrategyInput): ChunkRecord[] {
  const { source, doc, options: o } = input;
  const tokens = new TokenIndex(source);
  const section: Tier = { target: o.sectionTargetTokens, budget: o.sectionMaxTokens - PREFIX_RESERVE, overlap: o.sectionOverlapTokens };
  const snippet: Tier = { target: o.snippetTargetTokens, budget: o.snippetMaxTokens - PREFIX_RESERVE, overlap: o.snippetOverlapTokens };
  const snippetSplit: SplitContext = { source, lines: doc.lines, tokens, target: snippet.target, budget: () => snippet.budget };
  const packCtx = (t: Tier): PackContext => ({
    source,
    tokens,
    minTokens: Math.floor(t.target / MIN_SHARE),
    targetTokens: t.target,
    budget: () => t.budget,
  });

  const state = newUnitsState();
  const sectionPieces = sectionTierPieces(doc.blocks, state, tokens, section.budget, snippetSplit);
  const sectionDrafts = addTokenOverlap(pack(sectionPieces, packCtx(section)), { source, tokens, budget: section.budget, overlapTokens: section.overlap });
  const sections = normalize(sectionDrafts, source, tokens);

  const snippetsOf = sections.map((s) => {
    const pieces = snippetTierPieces(s.table, s.from, s.to, state.headings, snippet.budget, snippetSplit);
    const core = pieces.start(0);
    const drafts = addTokenOverlap(pack(pieces, packCtx(snippet)), { source, tokens, budget: snippet.budget, overlapTokens: snippet.overlap, floor: core });
    return normalize(drafts, source, tokens);
  });

  // The extraction's scan of the document is kept for matching its chunks, which repeat its text.
  const memo = new ScanMemo();
  const keywords = o.maxConcepts > 0 ? extractKeywords([{ name: input.sourceFile, text: source.slice(doc.frontMatter?.end ?? 0) }], { memo }) : [];
  return validate(source, toRecords(input, sections, snippetsOf, new KeywordMatcher(keywords, memo), new RangeContexts(sectionPieces, state.headings), tokens), {
    maxTokens: o.sectionMaxTokens,
    maxTokensOf: (c) => (c.tier?.level === 'snippet' ? o.snippetMaxTokens : o.sectionMaxTokens),
    docName: o.docName,
    recount: input.recount === true,
  });
}

/**
 * The section tier's pieces: a unit within `budget` is one whole piece (what splitOversized
 * makes of it), a larger one is cut as for snippets. From visitUnits, not toUnits: a Unit, a
 * path array, a one-unit array, a context and a piece array per unit (and a Map from blocks to
 * units) were a third of what a pass over a document of tiny headings allocated (issue 15).
 * Only a unit over a section is given a Unit, to be split.
 */
export function sectionTierPieces(blocks: Block[], state: UnitsState, tokens: TokenIndex, budget: number, snippetSplit: SplitContext): PieceTable {
  const { headings } = state;
  // At least a piece per block (see splitOversizedBlocks).
  const pieces = new PieceTable(blocks.length);
  visitUnits(blocks, state, (block, heading, types) => {
    const n = tokens.count(block.start, block.end);
    if (n <= budget) pieces.push(block, n, heading, types, null);
    else pieces.append(splitOversized([unitOf(block, heading, types, headings)], snippetSplit));
  });
  return pieces;
}

/**
 * A section's pieces (`own`'s [from, to)) for its snippets: each whole unit over the snippet
 * `budget` split as for snippets.
 */
export function snippetTierPieces(own: PieceTable, from: number, to: number, headings: Headings, budget: number, snippetSplit: SplitContext): PieceTable {
  const pieces = new PieceTable(to - from);
  for (let k = from; k < to; k++) {
    if (own.splitUnit(k) || own.tokens(k) <= budget) pieces.append(own, k, k + 1);
    else pieces.append(splitOversized([unitOf(own.unit(k), own.heading(k), own.types(k), headings)], snippetSplit));
  }
  return pieces;
}

/** The Unit toUnits gives for a unit (its path from the document's Headings). */
function unitOf(block: Block, heading: number, types: readonly BlockType[], headings: Headings): Unit {
  return { block, path: headings.refs(heading), heading, types };
}

/**
 * countTokens(embedText), the prefix and a newline before the chunk's text: for a chunk whose
 * text is its source range, counted by the document's TokenIndex, which tokenizes the prefix
 * and the joint and takes the range's inside from its index, instead of the whole text again
 * (issue 15). The prefix is left to the joint scan: a counter of its own per record, held by
 * the index, would cost more than the few tokens it holds.
 */
function embedTokensOf(embedText: string, at: number, chunk: NormalizedChunk, index: TokenIndex): number {
  if (!chunk.exact) return countTokens(embedText);
  return index.countJoined(embedText, [{ at, start: chunk.start, end: chunk.end, text: null }]);
}

/**
 * Records in reading order: each section followed by its snippets. Ids:
 * `{doc}::sec{s}` and `{doc}::sec{s}::sn{k}`; a snippet's `parentId` is its
 * section, a section's is the document. prev/next link chunks of the same tier.
 */
function toRecords(
  input: StrategyInput,
  sections: NormalizedChunk[],
  snippetsOf: NormalizedChunk[][],
  matcher: KeywordMatcher,
  contexts: RangeContexts,
  index: TokenIndex,
): ChunkRecord[] {
  const { source, options: o } = input;
  const docId = `${o.contentType}:${o.docName}`;
  // Each id made once: the records' ids, parent ids, child lists and links share the strings.
  const sectionIds = sections.map((_, s) => `${docId}::sec${s}`);
  const childIdsOf = snippetsOf.map((list, s) => list.map((_, k) => `${sectionIds[s]!}::sn${k}`));
  const allSnippets = childIdsOf.flat();
  const records: ChunkRecord[] = [];
  const make = (chunk: NormalizedChunk, id: string, parentId: string, prevId: string | null, nextId: string | null, tier: ChunkRecord['tier'] & object): ChunkRecord => {
    const ctx = contexts.of(chunk.start, chunk.end);
    const ranked = matcher.match(chunk.text).sort((a, b) => b.score - a.score);
    const concepts = (ranked.length || matcher.size ? ranked.map((k) => k.name) : []).slice(0, o.maxConcepts);
    const headings = headingFields(ctx.path);
    // fitPrefix copies the path it is given: the record's own headerPath serves.
    const { prefix, parts } = fitPrefix({ doc: input.fileTitle, path: headings.headerPath, tableHeaders: ctx.tableHeaders, concepts });
    const embedText = `${prefix}\n${chunk.text}`;
    const tokens = chunk.exact ? chunk.tokens : countTokens(chunk.text);
    return {
      id,
      parentId,
      chunkNumber: records.length,
      contentType: o.contentType,
      embedText,
      originalText: chunk.text,
      fileTitle: input.fileTitle,
      ...headings,
      sourcePosition: { charStart: chunk.start, charEnd: chunk.end, totalChars: source.length },
      tokenStats: { tokens, estimatedTokens: estimateTokens(chunk.text), embedTokens: embedTokensOf(embedText, prefix.length + 1, chunk, index) },
      prevId,
      nextId,
      ...contentFields(ctx),
      isCode: isCode(chunk.text),
      splitUnit: chunk.table.anySplit(chunk.from, chunk.to),
      overlapChars: chunk.overlapChars,
      metadata: { sourceFile: input.sourceFile, chunkingOptions: o, pipeline: { ...PIPELINE } },
      tier: { ...tier, retrievalPrefix: prefix, concepts: parts.concepts, overlapTokens: chunk.overlapTokens },
    };
  };
  let snippetIndex = 0;
  sections.forEach((sec, s) => {
    const children = childIdsOf[s]!;
    const id = sectionIds[s]!;
    records.push(
      make(sec, id, docId, sectionIds[s - 1] ?? null, sectionIds[s + 1] ?? null, {
        level: 'section',
        section: s,
        snippet: null,
        sectionId: null,
        childIds: children,
        retrievalPrefix: '',
        concepts: [],
        overlapTokens: 0,
      }),
    );
    snippetsOf[s]!.forEach((sn, k) => {
      const n = snippetIndex++;
      records.push(
        make(sn, children[k]!, id, allSnippets[n - 1] ?? null, allSnippets[n + 1] ?? null, {
          level: 'snippet',
          section: s,
          snippet: k,
          sectionId: id,
          childIds: [],
          retrievalPrefix: '',
          concepts: [],
          overlapTokens: 0,
        }),
      );
    });
  });
  return records;
}
