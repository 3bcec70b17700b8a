/**
 * `chunkDocumentStream`: the records of `chunkDocument`, byte for byte and in the same order,
 * made a window of the document at a time, so that a big document never holds all its parsed
 * blocks, token tables, pieces or records at once (issue 16: peak memory per MB of input).
 *
 * The semantic pipeline runs on sections of the document cut where the whole-document run
 * would have cut anyway:
 *
 * 1. **Parse groups.** markdown-it parses a slab of lines at a time. A top-level heading the
 *    slab's parse finds (not in its last lines) starts a block in the parse of the whole
 *    document too: what comes before it was decided by the lines before it. The text from
 *    one such heading's line to the next is parsed again on its own with the whole
 *    document's reference definitions (a heading's text depends on them), which gives the
 *    blocks the whole parse gives there. A cut is taken only after a `\n` on a line with
 *    text, where no cl100k pre-token spans it, so token counts add up across cuts.
 * 2. **Units and pieces** are per block: the slugger and heading path carry over from one
 *    group to the next, and each group's token table covers its own text.
 * 3. **Packing** looks ahead (a heading's whole section) and merges small chunks both ways,
 *    so a window of groups is packed and only its chunks before a safe boundary are kept:
 *    a chunk that opens with a heading, holds more than headings, follows a chunk that does
 *    not end with one (bare headings are carried to what follows them), holds at least
 *    minTokens, and has at least
 *    `SETTLED` chunks after it in the window. Packing then restarts at that heading, with
 *    the pieces after it; what lies further on cannot reach back past chunks that size.
 *    The property tests compare the two paths on hostile documents.
 * 4. **Overlap** never reaches into a chunk that opens with a heading, so each window's
 *    drafts get theirs alone; normalize, metadata, validation and source lines are per record.
 *
 * Everything else falls back to `chunkDocument` itself and streams its array: other
 * strategies (hierarchical and paginate relate chunks across the document; token-window's
 * artifact id hashes the whole text), the remark parser, plain text with guessed headings
 * and boilerplate removal (both need the whole document), and documents under two windows.
 */
import { bomLength, recordPastBom, spansPastBom } from './bom.js';
import { headingLabel } from './heading-label.js';
import { findFrontMatter, type FrontMatter } from './front-matter.js';
import { fastBlocks } from './fast-blocks.js';
import { chunkDocument, type ChunkDocumentExtras } from './index.js';
import { lineTable, type LineTable } from './lines.js';
import { RecordBuilder } from './metadata.js';
import { hasDefinitions } from './reference-rule.js';
import { normalize, type NormalizedChunk } from './normalize.js';
import { ChunkOptionsError, recordedOf, resolveOptions, shownValue, sourceFileOf, sourceText, strategyKeyOf } from './options.js';
import { addOverlap } from './overlap.js';
import { pack, type PackContext } from './pack.js';
import { PieceTable, type DraftChunk } from './pieces.js';
import { breadcrumbPrefixes, countPrefix, opensTechnicalBaseline, pathBudget } from './semantic.js';
import { LineCursor } from './source-lines.js';
import { splitOversizedBlocks } from './split-oversized.js';
import { TokenIndex } from './tokens.js';
import { forgetLastMatch } from './shape-anchor.js';
import type { Block, ChunkDocumentResult, ChunkOptions, ChunkRecord, ResolvedChunkOptions } from './types.js';
import { newUnitsState, type UnitsState } from './units.js';
import { RecordChecker } from './validate.js';

export interface ChunkStreamExtras extends ChunkDocumentExtras {
  /**
   * Characters of text parsed and packed at a time (default 64 Ki). A document shorter
   * than two windows is chunked whole. Tests set it small to exercise the sectioned path.
   */
  windowChars?: number;
}

/** chunkDocument's result with its records as an iterator, made as they are read. */
export interface ChunkStream extends Omit<ChunkDocumentResult, 'chunks'> {
  /** The records, in order; read once. */
  chunks: IterableIterator<ChunkRecord>;
  /** True when the document was chunked in windows, false when whole (see the module comment). */
  sectioned: boolean;
}

/**
 * Characters parsed at a time when looking for parse groups. Small, so that each slab's
 * markdown-it tokens die young: a slab of 1 MB survived into V8's old generation, which then
 * grew by hundreds of MB of garbage before a full collection (peak RSS, not live memory).
 */
const PLAN_SLAB = 64 * 1024;

/** Chunks after a boundary, in the window, before the chunks before it are kept. */
const SETTLED = 3;

/**
 * The records `chunkDocument(source, options, extras)` returns, as an iterator over records
 * made a window at a time (semantic strategy, fast parser, markdown headings); the other
 * fields are computed first. Throws what chunkDocument throws; a ChunkingInvariantError may
 * come while reading the records.
 */
export function chunkDocumentStream(given: string, options: Partial<ChunkOptions> = {}, extras: ChunkStreamExtras = {}): ChunkStream {
  const source = sourceText(given, 'chunkDocumentStream');
  checkExtras(extras);
  const shift = bomLength(source);
  if (shift === 0) return streamText(source, options, extras);
  // The text after the marks, as chunkDocument takes it (bom.ts); its whole() finds none left.
  const stream = streamText(source.slice(shift), options, extras);
  return { ...spansPastBom(stream, shift), chunks: recordsPastBom(stream.chunks, shift, source.length) };
}

function* recordsPastBom(records: IterableIterator<ChunkRecord>, shift: number, totalChars: number): IterableIterator<ChunkRecord> {
  for (const record of records) yield recordPastBom(record, shift, totalChars);
}

/**
 * The extras as the stream reads them. A windowChars of NaN (or a string that is not a number)
 * went through `Math.max(1, …)` as NaN and the planning loop never advanced: the call hung.
 */
function checkExtras(extras: ChunkStreamExtras): void {
  if (typeof extras !== 'object' || extras === null || Array.isArray(extras)) {
    throw new ChunkOptionsError(`extras must be an object (or left out), got ${shownValue(extras)}`);
  }
  const w = extras.windowChars;
  if (w !== undefined && (typeof w !== 'number' || !(w >= 1) || (w !== Infinity && !Number.isInteger(w)))) {
    throw new ChunkOptionsError(`extras.windowChars must be an integer >= 1 (or Infinity), got ${shownValue(w)}`);
  }
}

/** chunkDocumentStream of a source without a byte order mark. */
function streamText(source: string, options: Partial<ChunkOptions>, extras: ChunkStreamExtras): ChunkStream {
  const resolved = resolveOptions(options);
  const sourceFile = sourceFileOf(options, resolved);
  const windowChars = extras.windowChars ?? 64 * 1024;
  const whole = (): ChunkStream => {
    const { chunks, ...rest } = chunkDocument(source, options, extras);
    return { ...rest, chunks: chunks[Symbol.iterator](), sectioned: false };
  };
  if (resolved.strategy !== 'semantic' || resolved.parser !== 'fast' || /\.txt$/i.test(sourceFile) || source.length < 2 * windowChars) return whole();
  // Seed 003's plain-text rule (usesHeuristicHeadings): fewer than 3 `#` headings. Every such
  // heading is on a line that looks like one, so a document with fewer such lines is chunked
  // whole before any planning parse (a flat list of 10 MB was parsed three times: session 41).
  if (!hasAtxLines(source, 3)) return whole();
  // A chunk is kept only where it holds more than headings: a document of nothing but heading
  // lines (and blank ones) has no place to cut, and planning it, parsing its groups again and
  // packing it in one window cost three times chunkDocument's time (1 MB of tiny headings).
  if (!hasTextLine(source)) return whole();
  const plan = planGroups(source, Math.min(windowChars, PLAN_SLAB));
  if (plan === null || plan.atxHeadings < 3 || plan.cuts.length < 2) return whole();
  // Labelled once: deriveTitle's result is a label already.
  const given = options.fileTitle?.trim();
  const fileTitle = given ? headingLabel(given) : deriveTitle(source, plan, options.fallbackTitle?.trim() || resolved.docName);
  const recorded = recordedOf(resolved);
  return {
    strategy: resolved.strategy,
    strategyKey: strategyKeyOf(resolved),
    options: recorded,
    fileTitle,
    frontMatter: plan.frontMatter ? { start: plan.frontMatter.start, end: plan.frontMatter.end } : null,
    chunks: streamRecords(source, plan, { resolved, recorded, fileTitle, sourceFile, windowChars, recount: extras.recount === true }),
    removed: [],
    headingDetection: 'markdown',
    sectioned: true,
  };
}

interface Plan {
  /** Offsets where parse groups start: 0, then line starts of top-level headings. */
  cuts: number[];
  /** The whole document's markdown-it environment (its reference definitions). */
  env: Record<string, unknown>;
  frontMatter: FrontMatter | null;
  /** Top-level headings whose first character is `#` (plain-text.ts's atxHeadingCount). */
  atxHeadings: number;
  /** Indexes into `cuts` of the groups holding a top-level H1, in order. */
  h1Groups: number[];
}

/** The offset just past the line break ending the line that holds `p` (or the end). */
function lineEndAfter(source: string, p: number): number {
  if (p >= source.length) return source.length;
  const nl = source.indexOf('\n', p);
  return nl < 0 ? source.length : nl + 1;
}

/** What the stream parsed and packed since the last resetStreamWorkForTests: tests bound its work. */
const work = { parsedChars: 0, packedPieces: 0 };

/** For tests: the characters parsed and the pieces packed by streams since the last reset. */
export function streamWorkForTests(): { parsedChars: number; packedPieces: number } {
  return { ...work };
}

export function resetStreamWorkForTests(): void {
  work.parsedChars = 0;
  work.packedPieces = 0;
}

/** Parses `[start, end)` of the source; blocks in its own offsets and lines. */
function parseRange(source: string, start: number, end: number, env: Record<string, unknown>): { text: string; lines: LineTable; blocks: Block[]; frontMatter: FrontMatter | null } {
  const text = source.slice(start, end);
  work.parsedChars += text.length;
  const lines = lineTable(text);
  const { blocks, frontMatter } = fastBlocks(text, lines, env);
  return { text, lines, blocks, frontMatter };
}

/**
 * Line start of a top-level heading, when a parse group may begin there (after a `\n`): where
 * the heading parsed alone from its line is the heading the whole parse made. That holds for
 * an ATX heading (it interrupts anything), and for a setext heading after a blank line. A
 * setext heading's first line may instead continue the paragraph a definition opened, and
 * then it may be a line that opens nothing there but opens another block alone: indented as
 * code, an ordered item not starting at 1, an empty item (fuzz seed 4001).
 */
function cutBefore(text: string, lines: LineTable, b: Block): number {
  const line = b.startLine;
  const at = lines.starts[line]!;
  if (at === 0 || text.charCodeAt(at - 1) !== 10) return -1;
  if (isAtxLine(text, at, lines.ends[line]!)) return at;
  return line > 0 && isBlankLine(text, lines.starts[line - 1]!, lines.ends[line - 1]!) ? at : -1;
}

/**
 * At least `wanted` lines of the source open an ATX heading (isAtxLine), lines as findLine
 * takes them: more lines than markdown-it's, never fewer, so a false answer is sure.
 */
function hasAtxLines(source: string, wanted: number): boolean {
  let found = 0;
  return findLine(source, 0, (text, from, to) => isAtxLine(text, from, to) && ++found >= wanted) >= 0;
}

/** Some line holds more than spaces and tabs and does not open an ATX heading. */
function hasTextLine(source: string): boolean {
  return findLine(source, 0, (text, from, to) => !isBlankLine(text, from, to) && !isAtxLine(text, from, to)) >= 0;
}

/**
 * The start of the first line at or after `from` (a line's start) for which `test` holds, or
 * -1. A line starts after any `\n` or `\r`, so a CRLF line is followed by an empty one.
 */
function findLine(source: string, from: number, test: (text: string, from: number, to: number) => boolean): number {
  // The next `\n` and the next `\r` found so far (the source's length for none), each searched
  // for again only once passed: one indexOf of `\r` per line scanned a document without one to
  // its end every line (quadratic).
  let n = -1;
  let r = -1;
  for (let p = from; p < source.length; ) {
    if (n < p) n = indexOrLength(source, '\n', p);
    if (r < p) r = indexOrLength(source, '\r', p);
    const end = Math.min(n, r);
    if (test(source, p, end)) return p;
    p = end + 1;
  }
  return -1;
}

function indexOrLength(source: string, c: string, from: number): number {
  const i = source.indexOf(c, from);
  return i < 0 ? source.length : i;
}

/**
 * The start of the first line at or after `from` that a top-level heading can end on: one that
 * opens an ATX heading, or a setext underline (up to three spaces, a run of `=` or of `-`,
 * then spaces or tabs); -1 if none.
 */
function nextHeadingLine(source: string, from: number): number {
  return findLine(source, from, (text, start, end) => isAtxLine(text, start, end) || isUnderline(text, start, end));
}

/** `[from, to)` is a setext heading's underline (markdown-it's lheading rule). */
function isUnderline(text: string, from: number, to: number): boolean {
  let p = from;
  while (p < to && p - from < 3 && text.charCodeAt(p) === 32) p++;
  const marker = text.charCodeAt(p);
  if (p >= to || (marker !== 61 && marker !== 45)) return false;
  while (p < to && text.charCodeAt(p) === marker) p++;
  while (p < to && (text.charCodeAt(p) === 32 || text.charCodeAt(p) === 9)) p++;
  return p === to;
}

/** `[from, to)` opens an ATX heading: up to three spaces, one to six `#`, then a space, a tab or the end. */
function isAtxLine(text: string, from: number, to: number): boolean {
  let p = from;
  while (p < to && p - from < 3 && text.charCodeAt(p) === 32) p++;
  let hashes = 0;
  while (p < to && text.charCodeAt(p) === 35) {
    p++;
    hashes++;
  }
  if (hashes < 1 || hashes > 6) return false;
  const c = p < to ? text.charCodeAt(p) : -1;
  return c === -1 || c === 32 || c === 9;
}

/** `[from, to)` holds only spaces and tabs (markdown-it's blank line; a `\r` is not one). */
function isBlankLine(text: string, from: number, to: number): boolean {
  for (let p = from; p < to; p++) {
    const c = text.charCodeAt(p);
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

/**
 * Pass 1: where the parse groups start, and the whole document's reference definitions
 * (each group's, in order, first definition of a label winning as in one parse). Null when a
 * group would hold more than half the document: streaming it saves no memory, and the whole
 * document is chunked at once instead, with no planning parse of that group.
 */
function planGroups(source: string, slabChars: number): Plan | null {
  const frontMatter = findFrontMatter(source);
  const env: Record<string, unknown> = {};
  const cuts: number[] = [0];
  let atxHeadings = 0;
  const h1Groups: number[] = [];
  let start = 0;
  let slab = slabChars;
  while (start < source.length) {
    let end = lineEndAfter(source, Math.max(start + slab, start === 0 && frontMatter ? frontMatter.end : 0));
    const scratch: Record<string, unknown> = {};
    const { text, lines, blocks } = parseRange(source, start, end, scratch);
    const lastLine = lines.starts.length - 1;
    // The last top-level heading the rest of the document cannot change (not in the slab's
    // last lines) ends the group.
    let cut = text.length;
    if (end < source.length) {
      cut = -1;
      for (let k = blocks.length - 1; k >= 0 && cut < 0; k--) {
        const b = blocks[k]!;
        if (b.type === 'heading' && b.endLine < lastLine - 2) cut = cutBefore(text, lines, b);
      }
      if (cut <= 0) {
        // No heading to cut at: a bigger slab, reaching at least the next line a heading can
        // end on (a cut needs two lines after it). The headings before the slab's last lines
        // were tried, and a bigger parse gives the same ones there, so a cut can only come
        // from such a line at or after them: with none, the rest of the document is one group
        // (before, the slab doubled to the end, parsing that rest twice over).
        const next = nextHeadingLine(source, start + lines.starts[Math.max(0, lastLine - 3)]!);
        let reach = next < 0 ? source.length : next;
        for (let k = 0; k < 4 && reach < source.length; k++) reach = lineEndAfter(source, reach);
        slab = Math.max(slab * 2, reach - start);
        if (start + slab >= source.length && 2 * (source.length - start) > source.length) return null;
        continue;
      }
      end = start + cut;
    }
    if (start > 0) cuts.push(start);
    // With reference definitions, the group is parsed again alone with the shared environment:
    // exactly the definitions of the whole parse there (the slab's last lines may differ).
    const withDefinitions = hasDefinitions(scratch);
    const groupBlocks = withDefinitions ? parseRange(source, start, end, env).blocks : blocks;
    let h1 = false;
    for (const b of groupBlocks) {
      if (b.type !== 'heading' || b.start >= cut) continue;
      if (source.charCodeAt(start + b.start) === 35) atxHeadings++;
      if (b.depth === 1) h1 = true;
    }
    if (h1) h1Groups.push(cuts.length - 1);
    start = end;
    slab = slabChars;
  }
  return { cuts, env, frontMatter, atxHeadings, h1Groups };
}

/** deriveFileTitle: front matter `title`, else the first top-level H1 with text, else the fallback; as a label (headingLabel). */
function deriveTitle(source: string, plan: Plan, fallback: string): string {
  if (plan.frontMatter?.title) return headingLabel(plan.frontMatter.title);
  for (const g of plan.h1Groups) {
    const { blocks } = parseRange(source, plan.cuts[g]!, plan.cuts[g + 1] ?? source.length, plan.env);
    const h1 = blocks.find((b) => b.type === 'heading' && b.depth === 1 && b.text?.trim());
    if (h1) return headingLabel(h1.text!.trim());
  }
  return headingLabel(fallback);
}

/** Moves a parsed group's blocks to document offsets (lines stay the group's own). */
function shift(blocks: Block[] | undefined, by: number): void {
  if (!blocks) return;
  for (const b of blocks) {
    b.start += by;
    b.end += by;
    shift(b.children, by);
  }
}

/**
 * Exact token counts over the groups of a window, each group counted by its own table: a
 * group starts after a `\n`, on a line with text, where no pre-token spans, so a slice's
 * count is the sum of its parts' counts in each group.
 */
class WindowTokens extends TokenIndex {
  private readonly groups: { start: number; end: number; index: TokenIndex; total: number }[] = [];

  constructor() {
    super('');
  }

  add(start: number, text: string): TokenIndex {
    const index = new TokenIndex(text);
    this.groups.push({ start, end: start + text.length, index, total: -1 });
    return index;
  }

  /** Forgets the groups that end at or before `offset`. */
  dropBefore(offset: number): void {
    let k = 0;
    while (k < this.groups.length - 1 && this.groups[k]!.end <= offset) k++;
    if (k > 0) this.groups.splice(0, k);
  }

  /** The last group starting at or before `p` (0 if none): a window may hold many groups. */
  private groupAt(p: number): number {
    const { groups } = this;
    let lo = 0;
    let hi = groups.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (groups[mid]!.start <= p) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  override count(start: number, end: number): number {
    if (end <= start) return 0;
    let k = this.groupAt(start);
    let g = this.groups[k]!;
    if (end <= g.end) return g.index.count(start - g.start, end - g.start);
    let n = g.index.count(start - g.start, g.end - g.start);
    for (g = this.groups[++k]!; end > g.end; g = this.groups[++k]!) {
      if (g.total < 0) g.total = g.index.count(0, g.end - g.start);
      n += g.total;
    }
    return n + g.index.count(0, end - g.start);
  }

  override lastTokenEnd(start: number, end: number, limit: number): number {
    // A long unspaced run lies within one group (it holds no line break).
    const g = this.groups[this.groupAt(start)]!;
    const b = g.index.lastTokenEnd(start - g.start, Math.min(end, g.end) - g.start, limit);
    return b < 0 ? b : b + g.start;
  }
}

interface StreamSettings {
  resolved: ResolvedChunkOptions;
  recorded: ReturnType<typeof recordedOf>;
  fileTitle: string;
  sourceFile: string;
  windowChars: number;
  recount: boolean;
}

/** Every piece of the draft is a whole heading. */
function allHeadings(draft: DraftChunk): boolean {
  for (let k = draft.from; k < draft.to; k++) if (!draft.table.isHeading(k)) return false;
  return true;
}

/**
 * Some piece could open a chunk kept below: a heading after a piece that is not one, with a
 * piece after it that is not one either (a kept chunk opens with a heading, does not follow
 * a bare heading, and holds more than headings). Without one, packing cannot find a boundary.
 */
function mayOpenKeptChunk(pieces: PieceTable): boolean {
  let opener = false;
  for (let k = 1; k < pieces.length; k++) {
    if (pieces.isHeading(k)) {
      if (!pieces.isHeading(k - 1)) opener = true;
    } else if (opener) return true;
  }
  return false;
}

function* streamRecords(source: string, plan: Plan, s: StreamSettings): Generator<ChunkRecord, void, undefined> {
  const o = s.resolved;
  const { prefixTokens, intern } = breadcrumbPrefixes();
  const unitsState: UnitsState = newUnitsState();
  const budget = pathBudget(s.fileTitle, o, unitsState.headings, countPrefix);
  const tokens = new WindowTokens();
  const ctx: PackContext = { source, tokens, minTokens: o.minTokens, targetTokens: o.targetTokens, budget, opensChunk: opensTechnicalBaseline };
  const records = new RecordBuilder({ source, fileTitle: s.fileTitle, options: o, sourceFile: s.sourceFile, prefixTokens, intern, headings: unitsState.headings, recorded: s.recorded });
  const lines = new LineCursor(source);

  // The window: pieces not yet packed for good, and the top-level blocks they come from.
  let pieces = new PieceTable();
  let blocks: Block[] = [];
  let group = 0;
  let want = s.windowChars;
  let n = 0;
  let pending: { chunk: NormalizedChunk; checker: RecordChecker } | null = null;

  const finish = (chunk: NormalizedChunk, checker: RecordChecker, hasNext: boolean): ChunkRecord => {
    const record = records.record(chunk, n, hasNext);
    lines.attach(record, s.sourceFile);
    checker.check(record, n);
    checker.finish();
    n++;
    return record;
  };

  while (true) {
    // Fill the window up to `want` characters past its first piece.
    const from = pieces.length ? pieces.start(0) : group < plan.cuts.length ? plan.cuts[group]! : source.length;
    while (group < plan.cuts.length && (plan.cuts[group]! - from < want || pieces.length === 0)) {
      const gStart = plan.cuts[group]!;
      const gEnd = plan.cuts[group + 1] ?? source.length;
      const parsed = parseRange(source, gStart, gEnd, plan.env);
      shift(parsed.blocks, gStart);
      const groupLines: LineTable = { starts: parsed.lines.starts.map((x) => x + gStart), ends: parsed.lines.ends.map((x) => x + gStart) };
      tokens.add(gStart, parsed.text);
      // Units become pieces as they are found (no Unit object per unit: issue 15).
      const groupPieces = splitOversizedBlocks(parsed.blocks, { source, lines: groupLines, tokens, target: o.targetTokens, budget, wholeCap: o.maxTokens }, unitsState);
      pieces.append(groupPieces);
      for (const b of parsed.blocks) blocks.push(b);
      group++;
    }
    const atEnd = group >= plan.cuts.length;
    if (pieces.length === 0) break;
    // Packing the window only to find no place to keep chunks up to, then again over twice as
    // much, packed a document of bare headings (or of quotes holding them) twice over, and
    // held all of it anyway: where no piece could open a kept chunk, the window grows unpacked.
    if (!atEnd && !mayOpenKeptChunk(pieces)) {
      want *= 2;
      continue;
    }
    work.packedPieces += pieces.length;
    const drafts = pack(pieces, ctx);
    let keep = drafts.length;
    if (!atEnd) {
      keep = 0;
      for (let k = drafts.length - SETTLED; k >= 1; k--) {
        const d = drafts[k]!;
        const before = drafts[k - 1]!;
        // Never inside or right after a run of bare headings: packing carries those to what
        // follows them, and a run it pushed alone (too big with what follows) is no place
        // where the whole document's packing closed a chunk.
        if (pieces.isHeading(d.from) && !pieces.isHeading(before.to - 1) && !allHeadings(d) && d.tokens >= o.minTokens) {
          keep = k;
          break;
        }
      }
      if (keep === 0) {
        want *= 2; // no safe boundary yet: a bigger window
        continue;
      }
    }
    want = s.windowChars;
    const kept = drafts.slice(0, keep);
    const checker = new RecordChecker(source, { maxTokens: o.maxTokens, docName: o.docName, recount: s.recount, blocks });
    for (const chunk of normalize(addOverlap(kept, o.overlapSentences, ctx), source, tokens)) {
      if (pending) yield finish(pending.chunk, pending.checker, true);
      pending = { chunk, checker };
    }
    if (atEnd) break;
    // Restart at the boundary: the pieces from the first chunk not kept.
    const at = drafts[keep]!.from;
    const nextStart = pieces.start(at);
    pieces = pieces.slice(at);
    blocks = blocks.filter((b) => b.end > nextStart);
    tokens.dropBefore(nextStart);
  }
  if (pending) {
    yield finish(pending.chunk, pending.checker, false);
  }
  // The last regex ran on a slice of the document: V8 would keep it (forgetLastMatch).
  forgetLastMatch();
}
