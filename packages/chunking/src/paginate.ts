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
 *
 * CT ids are `{docName}:chunk-NNN`. Seed 000's `chunk-NNN` alone collides as
 * soon as a topic has two paged sources ("CT collision in merged docs"); the
 * seed's fixes, UUID v7 or a repo-wide counter, are not deterministic or make
 * one file's ids depend on the others. The document name is unique within a
 * topic (chunking-tool refuses two sources that would share output names), so
 * the ids are unique across the topic while each document's pages still depend
 * only on its own text, name and options: byte-identical reruns, exact caching.
 */
import { createHash } from 'node:crypto';
import { leadLine, LEAD_MAX_TOKENS, pageGist } from './lead-lines.js';
import { PIPELINE, isCode } from './metadata.js';
import { normalize, type NormalizedChunk } from './normalize.js';
import { pack } from './pack.js';
import { contentFields, headingFields, RangeContexts } from './range-context.js';
import type { StrategyInput } from './semantic.js';
import { splitOversizedBlocks } from './split-oversized.js';
import { addTokenOverlap } from './token-overlap.js';
import { countTokens, estimateTokens, TokenIndex, type JoinedPart } from './tokens.js';
import type { Block, ChunkRecord, ContinuityToken } from './types.js';
import { newUnitsState } from './units.js';
import { ChunkingInvariantError, validate } from './validate.js';

/** Longest document name (in cl100k tokens) used as it is in CT ids. */
const CT_NAME_MAX_TOKENS = 24;

/**
 * The document part of CT ids: the name itself, or, for a name longer than
 * CT_NAME_MAX_TOKENS, `doc-` and 12 hex digits of its SHA-256, so that ids
 * (three in each CT comment, one in each lead line) leave room for the page
 * text even at the smallest Nmax.
 */
function ctName(docName: string): string {
  return countTokens(docName) <= CT_NAME_MAX_TOKENS ? docName : `doc-${createHash('sha256').update(docName).digest('hex').slice(0, 12)}`;
}

/** Page `index`'s (0-based) continuity id: `{docName}:chunk-{index + 1, 3 digits}`, unique across a topic. */
/**
 * The file in `_chunks/` that holds paginate's continuity-token graph of the folder's paged
 * documents (seed 000), not a chunk manifest: every reader of `_chunks/*.json` leaves it out,
 * and no document may be named so that its own manifest would take the name.
 */
export const PAGES_MANIFEST = 'chunks.json';

export const ctId = (docName: string, index: number): string => `${ctName(docName)}:chunk-${String(index + 1).padStart(3, '0')}`;

/**
 * The page's first line, `<!--CT {json}-->`. `<` and `>` (possible in a
 * document name) are written as JSON escapes, so no id can end the comment early.
 */
export function ctComment(ct: ContinuityToken): string {
  return `<!--CT ${JSON.stringify(ct).replace(/</g, '\\u003c').replace(/>/g, '\\u003e')}-->`;
}

/**
 * Tokens reserved around a page's text: the longest CT comment (four-digit
 * ids of this document), two lead lines at their cap (or at the length of the
 * line with no gist, for a document name so long that it alone passes the
 * cap), and the blank lines between the parts.
 */
export function pageReserve(docName = 'document'): number {
  const name = ctName(docName);
  const id = (n: number): string => ctId(name, n);
  const ct = ctComment({ id: id(9998), prev: id(9997), next: id(9999) });
  const lead = Math.max(LEAD_MAX_TOKENS, countTokens(leadLine('in', id(9999), '…')), countTokens(leadLine('out', id(9999), '…')));
  return countTokens(`${ct}\n`) + 2 * (lead + 2) + 4;
}

export function chunkPaginate(input: StrategyInput): ChunkRecord[] {
  const { source, doc, options: o } = input;
  const nmax = o.ctxSize - o.bufSize;
  const budget = nmax - pageReserve(o.docName);
  const tokens = new TokenIndex(source);
  // Pieces straight from the blocks, no Unit per unit (see splitOversizedBlocks); the pages'
  // heading paths come from the units' Headings when a page asks (RangeContexts over pieces).
  const state = newUnitsState();
  const pieces = splitOversizedBlocks(doc.blocks, { source, lines: doc.lines, tokens, target: budget, budget: () => budget }, state);
  // Fill pages to the cap; a page ends early only at a heading whose whole section would not fit, once half full.
  const drafts = pack(pieces, { source, tokens, minTokens: Math.floor(budget / 2), targetTokens: budget, budget: () => budget });
  const pages = normalize(addTokenOverlap(drafts, { source, tokens, budget, overlapTokens: o.pageOverlapTokens }), source, tokens);
  const records = toRecords(input, pages, nmax, new RangeContexts(pieces, state.headings), tokens);
  // Nothing reads the pieces, the headings or the token index now: the pages and their contexts
  // are done, and the records hold none of them.
  pieces.release();
  state.headings.release();
  tokens.release();
  const over = records.filter((r) => r.page!.tokens > nmax).map((r) => `chunk ${r.chunkNumber}: page ${r.page!.tokens} tokens > Nmax ${nmax}`);
  if (over.length) throw new ChunkingInvariantError(over, o.docName);
  return validate(source, records, { maxTokens: nmax, docName: o.docName, recount: input.recount === true });
}

const NO_BLOCKS: Block[] = [];

/**
 * The first paragraph among `blocks` (top level: sorted and disjoint, so their ends increase too)
 * that overlaps [start, end): the one pageGist looks for. Found from the first block ending
 * after `start`, not from the document's first block: searched from the start for every page,
 * the blocks before the page made the lead lines quadratic in the document's length (issue 15:
 * three quarters of a second per pass on a megabyte of tiny headings).
 */
export function firstParagraph(blocks: readonly Block[], start: number, end: number): Block | null {
  let lo = 0;
  let hi = blocks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (blocks[mid]!.end > start) hi = mid;
    else lo = mid + 1;
  }
  for (let k = lo; k < blocks.length && blocks[k]!.start < end; k++) if (blocks[k]!.type === 'paragraph') return blocks[k]!;
  return null;
}

/**
 * The exact tokens of a page's body (lead-in, the page's source text, lead-out) and of its whole
 * text (CT comment, body), as countTokens gives them, for a page whose text is its source range:
 * counted by the document's TokenIndex, which scans only the joints around the range. Counted
 * whole, each page's text was tokenized twice more after packing had counted it: three fifths of
 * a pass over a megabyte of unspaced letters, where every token is a BPE merge (issue 15).
 */
function joinedCounts(
  index: TokenIndex,
  page: NormalizedChunk,
  comment: string,
  leadIn: string | null,
  leadOut: string | null,
  body: string,
  text: string,
): { embedTokens: number; pageTokens: number } {
  const parts: JoinedPart[] = [];
  let at = 0;
  if (leadIn !== null) {
    parts.push({ at, start: 0, end: 0, text: leadIn });
    at += leadIn.length + 2;
  }
  parts.push({ at, start: page.start, end: page.end, text: null });
  at += page.end - page.start;
  if (leadOut !== null) parts.push({ at: at + 2, start: 0, end: 0, text: leadOut });
  const embedTokens = index.countJoined(body, parts);
  const shift = comment.length + 1;
  const whole: JoinedPart[] = [{ at: 0, start: 0, end: 0, text: comment }];
  for (const p of parts) whole.push({ ...p, at: p.at + shift });
  return { embedTokens, pageTokens: index.countJoined(text, whole) };
}

function toRecords(input: StrategyInput, pages: NormalizedChunk[], nmax: number, contexts: RangeContexts, index: TokenIndex): ChunkRecord[] {
  const { source, options: o, doc } = input;
  const parentId = `${o.contentType}:${o.docName}`;
  const idOf = (n: number): string => `${parentId}::ch${n}`;
  const ctxs = pages.map((p) => contexts.of(p.start, p.end));
  const gists = pages.map((p, i) => {
    const path = ctxs[i]!.path;
    const from = p.start + p.overlapChars;
    const para = firstParagraph(doc.blocks, from, p.end);
    return pageGist(source, para === null ? NO_BLOCKS : [para], from, p.end, path.length ? path[path.length - 1]!.text : '');
  });
  const n = pages.length;
  return pages.map((page, i): ChunkRecord => {
    const ctx = ctxs[i]!;
    const name = ctName(o.docName);
    const id = (k: number): string => ctId(name, k);
    const ct: ContinuityToken = { id: id(i), prev: i > 0 ? id(i - 1) : null, next: i < n - 1 ? id(i + 1) : null };
    const leadIn = o.leadLines === 'extractive' && ct.prev ? leadLine('in', ct.prev, gists[i - 1]!) : null;
    const leadOut = o.leadLines === 'extractive' && ct.next ? leadLine('out', ct.next, gists[i + 1]!) : null;
    const body = [leadIn, page.text, leadOut].filter((x): x is string => x !== null).join('\n\n');
    const comment = ctComment(ct);
    const text = `${comment}\n${body}\n`;
    const tokens = page.exact ? page.tokens : countTokens(page.text);
    const { embedTokens, pageTokens } = page.exact ? joinedCounts(index, page, comment, leadIn, leadOut, body, text) : { embedTokens: countTokens(body), pageTokens: countTokens(text) };
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
      tokenStats: { tokens, estimatedTokens: estimateTokens(page.text), embedTokens },
      prevId: i > 0 ? idOf(i - 1) : null,
      nextId: i < n - 1 ? idOf(i + 1) : null,
      ...contentFields(ctx),
      isCode: isCode(page.text),
      splitUnit: page.table.anySplit(page.from, page.to),
      overlapChars: page.overlapChars,
      metadata: { sourceFile: input.sourceFile, chunkingOptions: o, pipeline: { ...PIPELINE } },
      page: {
        ct,
        leadIn,
        leadOut,
        text,
        tokens: pageTokens,
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
