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
import { extractKeywords, KeywordMatcher, ScanMemo } from '@chunkyard/keywords';
import { PIPELINE, isCode } from './metadata.js';
import { normalize, type NormalizedChunk } from './normalize.js';
import { pack, type PackContext } from './pack.js';
import type { Piece } from './pieces.js';
import { contentFields, headingFields, RangeContexts } from './range-context.js';
import { fitPrefix, PREFIX_RESERVE } from './retrieval-prefix.js';
import type { StrategyInput } from './semantic.js';
import { splitOversized, type SplitContext } from './split-oversized.js';
import { addTokenOverlap } from './token-overlap.js';
import { countTokens, estimateTokens, TokenIndex } from './tokens.js';
import type { ChunkRecord } from './types.js';
import { toUnits, type Unit } from './units.js';
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
  const units = toUnits(doc.blocks);
  const tokens = new TokenIndex(source);
  const section: Tier = { target: o.sectionTargetTokens, budget: o.sectionMaxTokens - PREFIX_RESERVE, overlap: o.sectionOverlapTokens };
  const snippet: Tier = { target: o.snippetTargetTokens, budget: o.snippetMaxTokens - PREFIX_RESERVE, overlap: o.snippetOverlapTokens };
  const splitCtx = (t: Tier): SplitContext => ({ source, lines: doc.lines, tokens, target: t.target, budget: () => t.budget });
  const packCtx = (t: Tier): PackContext => ({
    source,
    tokens,
    minTokens: Math.floor(t.target / MIN_SHARE),
    targetTokens: t.target,
    budget: () => t.budget,
  });

  // Section tier: a unit that fits a section is one piece; a larger one is cut at snippet size.
  const unitOf = new Map<unknown, Unit>(units.map((u) => [u.block, u]));
  const sectionPieces = units.flatMap((u) =>
    tokens.count(u.block.start, u.block.end) <= section.budget ? splitOversized([u], splitCtx(section)) : splitOversized([u], splitCtx(snippet)),
  );
  const sectionDrafts = addTokenOverlap(pack(sectionPieces, packCtx(section)), { source, tokens, budget: section.budget, overlapTokens: section.overlap });
  const sections = normalize(sectionDrafts, source);

  const snippetsOf = sections.map((s) => {
    const pieces = s.pieces.flatMap((p): Piece[] =>
      !p.splitUnit && p.tokens > snippet.budget ? splitOversized([unitOf.get(p.unit)!], splitCtx(snippet)) : [p],
    );
    const core = pieces[0]!.start;
    const drafts = addTokenOverlap(pack(pieces, packCtx(snippet)), { source, tokens, budget: snippet.budget, overlapTokens: snippet.overlap, floor: core });
    return normalize(drafts, source);
  });

  // The extraction's scan of the document is kept for matching its chunks, which repeat its text.
  const memo = new ScanMemo();
  const keywords = o.maxConcepts > 0 ? extractKeywords([{ name: input.sourceFile, text: source.slice(doc.frontMatter?.end ?? 0) }], { memo }) : [];
  return validate(source, toRecords(input, sections, snippetsOf, new KeywordMatcher(keywords, memo), new RangeContexts(units)), {
    maxTokens: o.sectionMaxTokens,
    maxTokensOf: (c) => (c.tier?.level === 'snippet' ? o.snippetMaxTokens : o.sectionMaxTokens),
    docName: o.docName,
    recount: input.recount === true,
  });
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
): ChunkRecord[] {
  const { source, options: o } = input;
  const docId = `${o.contentType}:${o.docName}`;
  const sectionId = (s: number): string => `${docId}::sec${s}`;
  const snippetId = (s: number, k: number): string => `${sectionId(s)}::sn${k}`;
  const allSnippets = snippetsOf.flatMap((list, s) => list.map((_, k) => snippetId(s, k)));
  const records: ChunkRecord[] = [];
  const make = (chunk: NormalizedChunk, id: string, parentId: string, prevId: string | null, nextId: string | null, tier: ChunkRecord['tier'] & object): ChunkRecord => {
    const ctx = contexts.of(chunk.start, chunk.end);
    const ranked = matcher.match(chunk.text).sort((a, b) => b.score - a.score);
    const concepts = (ranked.length || matcher.size ? ranked.map((k) => k.name) : []).slice(0, o.maxConcepts);
    const { prefix, parts } = fitPrefix({ doc: input.fileTitle, path: ctx.path.map((h) => h.text), tableHeaders: ctx.tableHeaders, concepts });
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
      ...headingFields(ctx.path),
      sourcePosition: { charStart: chunk.start, charEnd: chunk.end, totalChars: source.length },
      tokenStats: { tokens, estimatedTokens: estimateTokens(chunk.text), embedTokens: countTokens(embedText) },
      prevId,
      nextId,
      ...contentFields(ctx),
      isCode: isCode(chunk.text),
      splitUnit: chunk.pieces.some((p) => p.splitUnit),
      overlapChars: chunk.overlapChars,
      metadata: { sourceFile: input.sourceFile, chunkingOptions: o, pipeline: { ...PIPELINE } },
      tier: { ...tier, retrievalPrefix: prefix, concepts: parts.concepts, overlapTokens: chunk.overlapTokens },
    };
  };
  let snippetIndex = 0;
  sections.forEach((sec, s) => {
    const children = snippetsOf[s]!.map((_, k) => snippetId(s, k));
    records.push(
      make(sec, sectionId(s), docId, s > 0 ? sectionId(s - 1) : null, s < sections.length - 1 ? sectionId(s + 1) : null, {
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
        make(sn, snippetId(s, k), sectionId(s), allSnippets[n - 1] ?? null, allSnippets[n + 1] ?? null, {
          level: 'snippet',
          section: s,
          snippet: k,
          sectionId: sectionId(s),
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
