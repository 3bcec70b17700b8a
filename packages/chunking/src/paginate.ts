/**
 * The `paginate` strategy (seed 000): pages of at most Nmax = ctxSize − bufSize
 * tokens, the continuity-token (CT) comment and lead lines included.
 *
 *   units → pieces (cap = Nmax − reserve) → pack (fill to the cap; a whole unit
 *   that does not fit moves to the next page) → token overlap (≤ 5% of Nmax)
 *   → normalize → CT graph, lead lines, JSON-LD → validate
 *
 * The emitted page is `page.text`: the CT comment, the lead-in, the exact
 * source text and the lead-out. `originalText` stays the exact source slice.
 */
import { leadLine, LEAD_MAX_TOKENS, pageGist } from './lead-lines.js';
import { PIPELINE, isCode } from './metadata.js';
import { normalize, type NormalizedChunk } from './normalize.js';
import { pack } from './pack.js';
import { contentFields, headingFields, RangeContexts } from './range-context.js';
import type { StrategyInput } from './semantic.js';
import { splitOversized } from './split-oversized.js';
import { addTokenOverlap } from './token-overlap.js';
import { countTokens, estimateTokens, TokenIndex } from './tokens.js';
import type { ChunkRecord, ContinuityToken } from './types.js';
import { toUnits } from './units.js';
import { ChunkingInvariantError, validate } from './validate.js';

export const ctId = (index: number): string => `chunk-${String(index + 1).padStart(3, '0')}`;

export function ctComment(ct: ContinuityToken): string {
  return `<!--CT ${JSON.stringify(ct)}-->`;
}

/**
 * Tokens reserved around a page's text: the longest CT comment (four-digit
 * ids), two lead lines at their cap, and the blank lines between the parts.
 */
export function pageReserve(): number {
  const ct = ctComment({ id: 'chunk-9999', prev: 'chunk-9998', next: 'chunk-10000' });
  return countTokens(`${ct}\n`) + 2 * (LEAD_MAX_TOKENS + 2) + 4;
}

export function chunkPaginate(input: StrategyInput): ChunkRecord[] {
  const { source, doc, options: o } = input;
  const nmax = o.ctxSize - o.bufSize;
  const budget = nmax - pageReserve();
  const units = toUnits(doc.blocks);
  const tokens = new TokenIndex(source);
  const pieces = splitOversized(units, { source, lines: doc.lines, tokens, target: budget, budget: () => budget });
  // Fill pages to the cap; a page ends early only at a heading whose whole section would not fit, once half full.
  const drafts = pack(pieces, { source, tokens, minTokens: Math.floor(budget / 2), targetTokens: budget, budget: () => budget });
  const pages = normalize(addTokenOverlap(drafts, { source, tokens, budget, overlapTokens: o.pageOverlapTokens }), source);
  const records = toRecords(input, pages, nmax, new RangeContexts(units));
  const over = records.filter((r) => r.page!.tokens > nmax).map((r) => `chunk ${r.chunkNumber}: page ${r.page!.tokens} tokens > Nmax ${nmax}`);
  if (over.length) throw new ChunkingInvariantError(over, o.docName);
  return validate(source, records, { maxTokens: nmax, docName: o.docName, recount: input.recount === true });
}

function toRecords(input: StrategyInput, pages: NormalizedChunk[], nmax: number, contexts: RangeContexts): ChunkRecord[] {
  const { source, options: o, doc } = input;
  const parentId = `${o.contentType}:${o.docName}`;
  const idOf = (n: number): string => `${parentId}::ch${n}`;
  const ctxs = pages.map((p) => contexts.of(p.start, p.end));
  const gists = pages.map((p, i) => {
    const path = ctxs[i]!.path;
    return pageGist(source, doc.blocks, p.start + p.overlapChars, p.end, path.length ? path[path.length - 1]!.text : '');
  });
  const n = pages.length;
  return pages.map((page, i): ChunkRecord => {
    const ctx = ctxs[i]!;
    const ct: ContinuityToken = { id: ctId(i), prev: i > 0 ? ctId(i - 1) : null, next: i < n - 1 ? ctId(i + 1) : null };
    const leadIn = o.leadLines === 'extractive' && ct.prev ? leadLine('in', ct.prev, gists[i - 1]!) : null;
    const leadOut = o.leadLines === 'extractive' && ct.next ? leadLine('out', ct.next, gists[i + 1]!) : null;
    const body = [leadIn, page.text, leadOut].filter((x): x is string => x !== null).join('\n\n');
    const text = `${ctComment(ct)}\n${body}\n`;
    const tokens = page.exact ? page.tokens : countTokens(page.text);
    const headings = headingFields(ctx.path);
    const sectionTitle = headings.sectionTitle;
    return {
      id: idOf(i),
      parentId,
      chunkNumber: i,
      contentType: o.contentType,
      embedText: body,
      originalText: page.text,
      fileTitle: input.fileTitle,
      ...headings,
      sourcePosition: { charStart: page.start, charEnd: page.end, totalChars: source.length },
      tokenStats: { tokens, estimatedTokens: estimateTokens(page.text), embedTokens: countTokens(body) },
      prevId: i > 0 ? idOf(i - 1) : null,
      nextId: i < n - 1 ? idOf(i + 1) : null,
      ...contentFields(ctx),
      isCode: isCode(page.text),
      splitUnit: page.pieces.some((p) => p.splitUnit),
      overlapChars: page.overlapChars,
      metadata: { sourceFile: input.sourceFile, chunkingOptions: o, pipeline: { ...PIPELINE } },
      page: {
        ct,
        leadIn,
        leadOut,
        text,
        tokens: countTokens(text),
        nmax,
        overlapTokens: page.overlapTokens,
        jsonLd: {
          '@context': 'https://schema.org',
          '@type': 'CreativeWork',
          '@id': `${input.sourceFile}#${ct.id}`,
          name: sectionTitle && sectionTitle !== input.fileTitle ? `${input.fileTitle} — ${sectionTitle}` : input.fileTitle,
          position: i + 1,
          isBasedOn: input.sourceFile,
          pagination: `${i + 1}/${n}`,
          continuityToken: { '@type': 'PropertyValue', name: 'CT', value: JSON.stringify(ct) },
        },
      },
    };
  });
}
