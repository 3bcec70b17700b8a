/**
 * Stage 3: units → pieces that each fit the cap. A unit that fits stays whole
 * (code blocks, tables, quotes, HTML blocks and list items are never cut while
 * they fit). A unit that does not is split along its own structure:
 *
 * - fenced code by lines, at blank lines where possible, each part re-opening
 *   the original fence line and closing it (text rebuilt);
 * - a table by rows, each part repeating the header and delimiter rows (text rebuilt);
 * - list items, block quotes and footnote definitions by their children
 *   (line-aligned slices, so `> ` markers and indentation stay in the text);
 * - prose by sentences, then lines, words, and characters as a last resort;
 * - indented code, HTML and anything nested by lines, blank lines preferred.
 *
 * Parts aim at `target` tokens so that they pack with their neighbours.
 */
import { childrenOf } from './fast-blocks.js';
import { lineOf, skipWhitespace, trimEndOffset, type LineTable } from './lines.js';
import { grown, PieceTable, type UnitPart } from './pieces.js';
import { sentenceStartsInScratch } from './sentences.js';
import { SpareColumns } from './spare.js';
import { bpeTokenEnds } from './bpe.js';
import { nextPreTokenEnd } from './cl100k-count.js';
import { countTokens, type JoinedPart, type TokenIndex } from './tokens.js';
import type { Block, BlockType } from './types.js';
import { newUnitsState, visitUnits, type Unit, type UnitsState } from './units.js';

export interface SplitContext {
  source: string;
  lines: LineTable;
  tokens: TokenIndex;
  target: number;
  /**
   * Largest originalText a chunk may have when it starts at this heading path (max less the
   * breadcrumb reserve); the path is an index in the document's Headings (units.ts).
   */
  budget(heading: number): number;
  /**
   * An atomic unit (code, table, quote, HTML, list item…) up to this many
   * tokens stays whole even when it is over `budget`: a reader wants the whole
   * block more than the breadcrumb, so the prefix gives way instead (semantic
   * passes maxTokens; unset, the budget is the only cap).
   */
  wholeCap?: number;
}

/** Units that are never cut while they fit: everything but prose and headings. */
function isAtomic(block: Block): boolean {
  return block.type !== 'paragraph' && block.type !== 'heading';
}

export function splitOversized(units: Unit[], ctx: SplitContext): PieceTable {
  const pieces = new PieceTable(units.length);
  // Indexed loops: a `for…of` allocated an iterator result per unit (issue 15).
  for (let u = 0; u < units.length; u++) {
    const unit = units[u]!;
    addPieces(pieces, unit.block, unit.heading, unit.types, ctx);
  }
  return pieces;
}

/** splitOversized(toUnits(blocks, state), ctx) without a Unit object per unit (visitUnits). */
export function splitOversizedBlocks(blocks: Block[], ctx: SplitContext, state: UnitsState = newUnitsState()): PieceTable {
  // Every block makes at least one piece (a list one per item): the columns are made that long
  // at once. Grown from a few entries, on a document of tiny headings (a piece per line) the
  // copies were a fifth of this stage (issue 15).
  // The headings visitUnits reserves room for are counted in the same pass: each block is a
  // pointer away, and one-line paragraphs are 200,000 blocks per MB (issue 15).
  let units = blocks.length;
  let headings = 0;
  for (let b = 0; b < blocks.length; b++) {
    const block = blocks[b]!;
    const type = block.type;
    if (type === 'heading') headings++;
    else if (type === 'list') {
      const items = block.children;
      if (items !== undefined && items.length > 1) units += items.length - 1;
    }
  }
  const pieces = new PieceTable(units);
  visitUnits(blocks, state, (block, heading, types) => addPieces(pieces, block, heading, types, ctx), headings);
  return pieces;
}

/** Appends the pieces of one unit to `pieces`: itself when it fits, else its parts. */
function addPieces(pieces: PieceTable, block: Block, heading: number, types: readonly BlockType[], ctx: SplitContext): void {
  const tokens = ctx.tokens.count(block.start, block.end);
  const cap = ctx.budget(heading);
  if (tokens <= cap || (ctx.wholeCap !== undefined && tokens <= ctx.wholeCap && isAtomic(block))) {
    pieces.push(block, tokens, heading, types, null);
    return;
  }
  const limit = Math.min(ctx.target, cap);
  const parts = splitBlock(block, block.start, limit, cap, ctx, true);
  for (let k = 0; k < parts.length; k++) {
    const part = parts[k]!;
    if (part.rebuiltText === null && part.tokens > Math.max(cap, ctx.wholeCap ?? cap)) {
      // Parts are packed with the whitespace before them and trimmed after, and BPE counts are
      // not monotone: ` donnée` is two tokens, `donnée` three. A part that fit with its leading
      // space can be over the hard cap without it (a fuzzed document: 17 tokens under a cap of 16).
      // Cut again at words: each word part starts after whitespace, so it is counted as it stands.
      const words = splitWords(part.start, part.end, limit, ctx);
      for (let w = 0; w < words.length; w++) pieces.push(block, words[w]!.tokens, heading, types, words[w]!);
    } else pieces.push(block, part.tokens, heading, types, part);
  }
}

/** A split unit's pieces hold their parts (PieceTable.part): a part is not changed once its piece is made. */
type Part = UnitPart;

/**
 * Splits `block` (from `start`, which may be earlier than block.start for
 * line-aligned children) into parts of at most `limit` tokens, never above `cap`.
 */
function splitBlock(block: Block, start: number, limit: number, cap: number, ctx: SplitContext, topLevel: boolean): Part[] {
  // childrenOf: a top-level item may hold DEFERRED_PARAGRAPH or DEFERRED_NESTED (an empty array)
  // for its paragraph, or its paragraph and nested list.
  const children = childrenOf(block, ctx.source, ctx.lines);
  if (children?.length) return splitByChildren(block, children, start, limit, cap, ctx);
  // Fenced code is split by lines with each part re-fenced, nested in a container or not: a
  // nested one cut as plain lines left parts with a lone fence line, which packing then joined
  // to a neighbour (a closing fence of a list item's code before the next block's part: three
  // fence lines in one chunk, issue 15).
  if (block.type === 'code' && block.fenced) {
    const parts = splitFencedCode(block, limit, cap, ctx, topLevel);
    // Fences that take the cap themselves (a line of 127 backticks, a long info string) leave
    // no re-fenced part under it: the block is then cut as its exact lines, like any other
    // block too large for one chunk (s36 fuzz probe: 129 tokens > max 64).
    return parts.length === 0 || partsOver(parts, cap) ? splitLines(start, block.end, limit, ctx) : parts;
  }
  if (topLevel && block.type === 'table') return splitTable(block, limit, cap, ctx);
  if (block.type === 'paragraph' || block.type === 'heading') return splitProse(start, block.end, limit, ctx);
  return splitLines(start, block.end, limit, ctx);
}

function partsOver(parts: Part[], cap: number): boolean {
  for (let k = 0; k < parts.length; k++) if (parts[k]!.tokens > cap) return true;
  return false;
}

function splitByChildren(block: Block, children: Block[], start: number, limit: number, cap: number, ctx: SplitContext): Part[] {
  const out: (Part | null)[] = [];
  splitChildrenInto(block, children, start, limit, cap, ctx, out);
  // The holes the seams left, dropped in one pass.
  let kept = 0;
  for (let k = 0; k < out.length; k++) {
    const part = out[k]!;
    if (part !== null) out[kept++] = part;
  }
  out.length = kept;
  return out as Part[];
}

/**
 * splitByChildren's parts of `block`, appended to `out` from its current length on. A nested
 * container appends its own parts to the same array: returning them made each level copy all
 * the parts of the levels below it, quadratic in a quote nested thousands deep. A child's
 * first part joined to the part before it becomes a hole (null), so that nothing after it
 * moves; `out` never ends with one (the parts after `out.length` at the call are this
 * block's, and its last part is out's last element).
 */
function splitChildrenInto(block: Block, children: Block[], start: number, limit: number, cap: number, ctx: SplitContext, out: (Part | null)[]): void {
  const from = out.length;
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!;
    const childStart = i === 0 ? start : child.start;
    // Each child's range runs up to the next child, so container markers on
    // the lines between them (a lone `>`) stay covered.
    const next = children[i + 1];
    const childEnd = next ? trimEndOffset(ctx.source, childStart, next.start) : block.end;
    // Leading indentation is whitespace: trim it so the part starts where its text does.
    const trimmedStart = skipWhitespace(ctx.source, childStart, child.end);
    const extended: Block = { ...child, start: trimmedStart, end: Math.max(child.end, childEnd) };
    const tokens = ctx.tokens.count(extended.start, extended.end);
    // A child that is itself atomic (a code block in a list item…) stays whole while it fits
    // the cap, even over the target, as a top-level one does (wholeCap: the breadcrumb gives
    // way): cutting it by lines left unbalanced fences (issue 15).
    if (tokens <= limit || (isAtomic(child) && tokens <= Math.max(cap, ctx.wholeCap ?? cap))) {
      appendMerged(out, from, [{ start: extended.start, end: extended.end, rebuiltText: null, tokens }], limit, ctx);
      // A fenced block that starts a part on its own is re-fenced when its slice would not read as one.
      const last = out[out.length - 1]!;
      if (child.type === 'code' && child.fenced && last.start === extended.start) {
        const refenced = refencedWhole(extended, Math.max(cap, ctx.wholeCap ?? cap), ctx);
        if (refenced) out[out.length - 1] = refenced;
      }
    } else {
      // The child's own children. Only the items of a top-level list defer their children (and
      // those childrenOf makes again hold none), and a list is never split whole, so no child
      // here holds a sentinel; childrenOf all the same.
      const grandChildren = childrenOf(child, ctx.source, ctx.lines);
      if (grandChildren !== undefined && grandChildren.length > 0) {
        // A nested container (splitBlock would split it by its children): its parts go straight
        // into `out`, and only its first one may join this block's last, as appendMerged does.
        const mark = out.length;
        splitChildrenInto(extended, grandChildren, extended.start, limit, cap, ctx, out);
        const last = mark > from ? out[mark - 1]! : null;
        const first = out.length > mark ? out[mark]! : null;
        if (last !== null && first !== null && last.rebuiltText === null && first.rebuiltText === null) {
          const joined = ctx.tokens.count(last.start, first.end);
          if (joined <= limit) {
            out[mark - 1] = { ...last, end: first.end, tokens: joined };
            if (mark === out.length - 1) out.pop();
            else out[mark] = null;
          }
        }
      } else appendMerged(out, from, splitBlock(extended, extended.start, limit, cap, ctx, false), limit, ctx);
    }
  }
}

/**
 * A nested fenced block kept whole, re-fenced without its container prefix, when its exact slice
 * (which starts at the fence) would not read as the same block on its own: a quote's `>` on its
 * lines, or a closing fence indented four or more columns past the opening one (a list nested
 * in a list), which then closes nothing. Null when the slice is fine, or the text is over `cap`.
 */
function refencedWhole(block: Block, cap: number, ctx: SplitContext): Part | null {
  const { source, lines } = ctx;
  const lineStart = lines.starts[block.startLine]!;
  const prefix = source.slice(lineStart, block.start);
  if (/^ {0,3}$/.test(prefix)) return null;
  if (!/^(`{3,}|~{3,})/.test(source.slice(block.start, block.start + 3))) return null;
  const [part] = splitFencedCode(block, Infinity, Infinity, ctx, false);
  if (!part || part.rebuiltText === null) return null;
  const tokens = countTokens(part.rebuiltText);
  return tokens <= cap ? { start: block.start, end: block.end, rebuiltText: part.rebuiltText, tokens } : null;
}

/**
 * Appends a child's parts, joining the first of them to the last part so far (the block's
 * parts are those from `from` on) when both are exact slices and together fit `limit`, so children do not become tiny chunks. Only that seam
 * is tried: the child's own parts were packed or joined already. (Joining the whole list again
 * at every level made a quote nested thousands deep quadratic, each level recounting every
 * part of the levels below it.)
 */
function appendMerged(parts: (Part | null)[], from: number, more: Part[], limit: number, ctx: SplitContext): void {
  for (let k = 0; k < more.length; k++) {
    const part = more[k]!;
    const last = parts.length > from ? parts[parts.length - 1]! : null;
    if (k === 0 && last !== null && last.rebuiltText === null && part.rebuiltText === null) {
      const joined = ctx.tokens.count(last.start, part.end);
      if (joined <= limit) {
        parts[parts.length - 1] = { ...last, end: part.end, tokens: joined };
        continue;
      }
    }
    parts.push(part);
  }
}

function splitFencedCode(block: Block, limit: number, cap: number, ctx: SplitContext, topLevel: boolean): Part[] {
  const { source, lines } = ctx;
  const openLine = block.startLine;
  // Nested in a list item or quote, the open line starts with the container's markers or
  // indentation (and the part may start before the fence): the fence is taken from where its
  // characters begin, and each line loses that prefix (the same text, or as many spaces).
  const openText = source.slice(lines.starts[openLine]!, lines.ends[openLine]!);
  const fenceAt = topLevel ? -1 : openText.search(/`{3,}|~{3,}/);
  const prefix = fenceAt > 0 ? openText.slice(0, fenceAt) : '';
  const open = prefix ? openText.slice(fenceAt) : source.slice(block.start, lines.ends[openLine]!);
  const fence = /^(`{3,}|~{3,})/.exec(open)?.[1] ?? '```';
  const lineStart = (l: number): number => {
    const s = lines.starts[l]!;
    if (!prefix) return s;
    if (source.startsWith(prefix, s)) return Math.min(s + prefix.length, lines.ends[l]!);
    let i = s;
    while (i < s + prefix.length && i < lines.ends[l]! && source.charCodeAt(i) === 32) i++;
    return i === s + prefix.length ? i : s;
  };
  const lastLine = block.endLine;
  const closed = lastLine > openLine && new RegExp(`^ {0,3}${fence[0]}{${fence.length},}\\s*$`).test(source.slice(lineStart(lastLine), lines.ends[lastLine]!));
  const bodyFirst = openLine + 1;
  const bodyLast = closed ? lastLine - 1 : lastLine;
  if (bodyLast < bodyFirst) return splitLines(block.start, block.end, limit, ctx);
  const body = (from: number, to: number): string => {
    if (!prefix) return source.slice(lines.starts[from]!, lines.ends[to]!);
    let t = source.slice(lineStart(from), lines.ends[from]!);
    for (let l = from + 1; l <= to; l++) t += `\n${source.slice(lineStart(l), lines.ends[l]!)}`;
    return t;
  };
  const wrap = (from: number, to: number): string => `${open}\n${body(from, to)}\n${fence}`;
  // The code between the fences is one source range when no container prefix was taken off its
  // lines: the text is then counted from the index, only the joints at the fences afresh.
  const count = (text: string, from: number, to: number): number =>
    !prefix || from === to ? countWrapped(text, open.length + 1, lineStart(from), lines.ends[to]!, ctx) : countTokens(text);
  // Read from the index first (a subtraction): a fence of a megabyte is not counted afresh to learn it is too long.
  if (!prefix && 2 * ctx.tokens.count(block.start, lines.ends[openLine]!) > cap) return splitLines(block.start, block.end, limit, ctx);
  const overhead = countTokens(`${open}\n`) + countTokens(`\n${fence}`);
  // Fences (or an info string) that take half the cap leave too little room to wrap each part in
  // them again: a fence of 12,000 backticks made every part 24,000 characters of fence around a
  // token of code, each counted afresh, so the split took time of the fence's length per part
  // (a fuzzed document of 107 KB: 28 s and 1.9 GB). Such a block is split as lines of source;
  // its parts are splitUnit pieces, their fences unbalanced like any part of a split unit.
  if (overhead * 2 > cap) return splitLines(block.start, block.end, limit, ctx);
  const groups = lineGroups(bodyFirst, bodyLast, ctx);
  const parts: Part[] = [];
  let from = bodyFirst;
  while (from <= bodyLast) {
    let to = from;
    // Grow by blank-line groups while the estimate fits, then confirm exactly.
    for (const g of groups) {
      if (g.to < from || g.to <= to) continue;
      if (overhead + ctx.tokens.count(lines.starts[from]!, lines.ends[g.to]!) > limit) break;
      to = g.to;
    }
    if (to === from || overhead + ctx.tokens.count(lines.starts[from]!, lines.ends[to]!) > limit) {
      to = from;
      while (to < bodyLast && overhead + ctx.tokens.count(lines.starts[from]!, lines.ends[to + 1]!) <= limit) to++;
    }
    let text = wrap(from, to);
    let tokens = count(text, from, to);
    while (tokens > cap && to > from) {
      to--;
      text = wrap(from, to);
      tokens = count(text, from, to);
    }
    if (tokens > cap) {
      // One line longer than the cap: split the line itself, fence kept around each part.
      // (The line's container prefix is left out of the text but covered by its first part.)
      const lineParts = splitProse(lineStart(from), lines.ends[from]!, Math.max(1, cap - overhead - 2), ctx);
      lineParts.forEach((p, k) => {
        const t = `${open}\n${source.slice(p.start, p.end)}\n${fence}`;
        ctx.tokens.noteWrapped(t, open.length + 1, p.start, p.end);
        parts.push({ start: k === 0 ? Math.min(p.start, lines.starts[from]!) : p.start, end: p.end, rebuiltText: t, tokens: countWrapped(t, open.length + 1, p.start, p.end, ctx) });
      });
    } else {
      // The code between the fences is one source range when no container prefix was taken off its lines.
      if (!prefix || from === to) ctx.tokens.noteWrapped(text, open.length + 1, lineStart(from), lines.ends[to]!);
      parts.push({ start: lines.starts[from]!, end: lines.ends[to]!, rebuiltText: text, tokens });
    }
    from = to + 1;
    // A part starts at code, not at the blank line it was cut at.
    while (from <= bodyLast && skipWhitespace(source, lines.starts[from]!, lines.ends[from]!) === lines.ends[from]!) from++;
  }
  // Code of blank lines only, under fences too long to wrap it in the cap, leaves no part: the
  // caller cuts the block as its exact lines (a TypeError here before, s36 property test).
  if (parts.length === 0) return parts;
  // The parts name the code lines they hold; the first and last also cover the fences.
  parts[0]!.start = block.start;
  parts[parts.length - 1]!.end = block.end;
  return parts;
}

function splitTable(block: Block, limit: number, cap: number, ctx: SplitContext): Part[] {
  const { source, lines } = ctx;
  const headerEnd = lines.ends[block.startLine + 1] ?? block.end;
  const header = source.slice(block.start, headerEnd);
  const headerTokens = countTokens(`${header}\n`);
  const last = block.endLine;
  // A header (with its delimiter row) larger than the cap cannot be repeated
  // in every part: the table is then split like text, every row alike.
  if (block.startLine + 2 > last || headerTokens > cap) return splitLines(block.start, block.end, Math.min(limit, cap), ctx);
  const parts: Part[] = [];
  const rowsText = (from: number, to: number): string => source.slice(lines.starts[from]!, lines.ends[to]!);
  for (let from = block.startLine + 2; from <= last; ) {
    const first = parts.length === 0;
    // The first part is the source verbatim, so it is counted with the source's own line break
    // (a lone CR or CRLF counts differently from the LF the rebuilt parts use).
    const join = first ? source.slice(headerEnd, lines.starts[from]!) : '\n';
    // Grow while the estimate stays within the soft limit, then enforce the hard cap exactly.
    let to = from;
    while (to < last && headerTokens + ctx.tokens.count(lines.starts[from]!, lines.ends[to + 1]!) <= limit) to++;
    // The text is the header and the rows, two source ranges (the first part all one range,
    // its own line break between them): counted from the index, only the joint afresh.
    const rowsAt = header.length + join.length;
    const count = (text: string, to: number): number =>
      first ? ctx.tokens.count(block.start, lines.ends[to]!) : countWrapped(text, rowsAt, lines.starts[from]!, lines.ends[to]!, ctx, block.start, headerEnd);
    let text = `${header}${join}${rowsText(from, to)}`;
    let tokens = count(text, to);
    while (tokens > cap && to > from) {
      to--;
      text = `${header}${join}${rowsText(from, to)}`;
      tokens = count(text, to);
    }
    if (tokens <= cap) {
      // The first part is the table's own opening lines, verbatim; the others hold their rows whole after the header.
      if (!first) ctx.tokens.noteWrapped(text, rowsAt, lines.starts[from]!, lines.ends[to]!);
      parts.push({ start: first ? block.start : lines.starts[from]!, end: lines.ends[to]!, rebuiltText: first ? null : text, tokens });
    } else {
      // One row longer than the cap even alone: the header stands on its own, the row is split as text.
      if (first) parts.push({ start: block.start, end: headerEnd, rebuiltText: null, tokens: ctx.tokens.count(block.start, headerEnd) });
      parts.push(...splitProse(lines.starts[from]!, lines.ends[from]!, Math.min(limit, cap), ctx));
    }
    from = to + 1;
  }
  return parts;
}

/**
 * `countTokens(text)`, where `text.slice(at, at + end - start)` is `source.slice(start, end)`
 * (and, when given, `text.slice(0, headEnd - headStart)` is `source.slice(headStart, headEnd)`):
 * the ranges are counted from the token index, only the text around and between them is
 * scanned (TokenIndex.countJoined). A rebuilt code or table part was scanned whole, its code
 * or rows once more after the index had counted them while growing the part.
 */
function countWrapped(text: string, at: number, start: number, end: number, ctx: SplitContext, headStart = 0, headEnd = 0): number {
  const parts: JoinedPart[] = [];
  if (headEnd > headStart) parts.push({ at: 0, start: headStart, end: headEnd, text: null });
  parts.push({ at, start, end, text: null });
  return ctx.tokens.countJoined(text, parts);
}

/** Runs of non-blank lines in `[first, last]`, as `{from, to}` line pairs. */
function lineGroups(first: number, last: number, ctx: SplitContext): { from: number; to: number }[] {
  const groups: { from: number; to: number }[] = [];
  let open: { from: number; to: number } | null = null;
  for (let l = first; l <= last; l++) {
    const blank = skipWhitespace(ctx.source, ctx.lines.starts[l]!, ctx.lines.ends[l]!) === ctx.lines.ends[l]!;
    if (blank) {
      open = null;
    } else if (open) {
      open.to = l;
    } else {
      open = { from: l, to: l };
      groups.push(open);
    }
  }
  return groups;
}

/** Splits `[start, end)` at line starts (blank-line boundaries preferred) into exact parts. */
function splitLines(start: number, end: number, limit: number, ctx: SplitContext): Part[] {
  const { source, lines } = ctx;
  const firstLine = lineOf(lines, start);
  const lastLine = lineOf(lines, Math.max(start, end - 1));
  const cuts: number[] = [];
  const preferred: number[] = [];
  for (let l = firstLine + 1; l <= lastLine; l++) {
    const ls = lines.starts[l]!;
    if (ls <= start || ls >= end) continue;
    cuts.push(ls);
    const prevBlank = skipWhitespace(source, lines.starts[l - 1]!, lines.ends[l - 1]!) === lines.ends[l - 1]!;
    if (prevBlank) preferred.push(ls);
  }
  return packAt(start, end, preferred.length ? preferred : cuts, limit, ctx, (a, b) => splitLinesPlain(a, b, limit, ctx));
}

function splitLinesPlain(start: number, end: number, limit: number, ctx: SplitContext): Part[] {
  // The line starts after `start`'s line and before `end`, as a view of the line table (packAt
  // keeps only those strictly inside the range): no array of them per call.
  const { starts } = ctx.lines;
  const first = lineOf(ctx.lines, start) + 1;
  let last = first;
  while (last < starts.length && starts[last]! < end) last++;
  return packAt(start, end, starts.subarray(first, last), limit, ctx, (a, b) => splitWords(a, b, limit, ctx));
}

/** Prose: sentences first, then lines, words, characters. */
function splitProse(start: number, end: number, limit: number, ctx: SplitContext): Part[] {
  // The starts are offsets into the slice: packAt shifts them and drops those not inside
  // (start, end) as it copies them (a map and a filter made two arrays of a line per entry
  // on a paragraph of a million tiny lines: a tenth of its time).
  // A view of the segmenter's scratch: packAt copies it before anything segments again.
  const starts = sentenceStartsInScratch(ctx.source.slice(start, end));
  return packAt(start, end, starts, limit, ctx, (a, b) => splitLinesPlain(a, b, limit, ctx), start);
}

function splitWords(start: number, end: number, limit: number, ctx: SplitContext): Part[] {
  return packAt(start, end, whitespaceRunEnds(ctx.source, start, end), limit, ctx, (a, b) => splitChars(a, b, limit, ctx));
}

/**
 * The offsets inside (start, end) just after each run of whitespace (JS `\s+`) in
 * source[start, end), read in place: no slice, no match array per run (a wide table row is
 * tens of thousands of cells, issue 15). One pass into a typed array that doubles (a view of
 * its first n entries is returned): counting first and then writing read the range twice, a
 * function call and a regex test per character, 13% of a pass over a megabyte-long heading.
 * Exported for its test.
 */
export function whitespaceRunEnds(source: string, start: number, end: number): Int32Array {
  let cuts = new Int32Array(Math.min(1024, ((end - start) >> 1) + 1));
  let n = 0;
  let i = start;
  for (;;) {
    while (i < end && !isJsSpace(source.charCodeAt(i))) i++;
    if (i >= end) break;
    i++;
    while (i < end && isJsSpace(source.charCodeAt(i))) i++;
    // A run that reaches `end` ends no cut inside the range.
    if (i >= end) break;
    if (n === cuts.length) cuts = grown(cuts, n * 2);
    cuts[n++] = i;
  }
  return cuts.subarray(0, n);
}

/**
 * JS `\s` at a UTF-16 unit (as the regex reads a string without the u flag): ASCII's six,
 * then Unicode's Space_Separator, the line and paragraph separators and the BOM.
 */
function isJsSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Last resort: the longest prefix that fits, never inside a surrogate pair.
 * The search window doubles from a few characters per token, so a huge line
 * costs about its own length per part, not the rest of the line each time.
 * Exported for its test.
 */
export function splitChars(start: number, end: number, limit: number, ctx: SplitContext): Part[] {
  const parts: Part[] = [];
  let a = start;
  let hint = 0; // characters in the last part: the next window's first guess
  while (a < end) {
    const long = splitLongPreToken(a, end, limit, ctx, hint);
    if (typeof long === 'object' && long !== null) {
      parts.push(long);
      hint = long.end - long.start;
      a = long.end;
      continue;
    }
    // ctx.tokens counts any slice exactly as if it stood alone, without rescanning the window.
    // The part's own count is the one its end was probed with: counting it again was a tenth
    // of the counts of a base64 run, each a cache miss in the index and the count memo.
    let lo = a + 1;
    let loTokens = -1; // count(a, lo), once a probe has counted it
    if (typeof long === 'number') {
      // When the rest of a run fits (the last part of a deep quote's `>>>>` line), the search
      // starts past it. Probing prefixes that end inside the run merged each one again (a
      // slice's count is a subtraction only between the run's token ends), a sixth of a
      // deep quote's time.
      const n = ctx.tokens.count(a, long);
      if (n <= limit) {
        lo = long;
        loTokens = n;
      }
    }
    let hi = Math.min(end, a + Math.max(16, limit * 4));
    if (hi <= lo) hi = Math.min(end, lo + 16);
    while (hi < end) {
      const n = ctx.tokens.count(a, hi);
      if (n > limit) break;
      lo = hi;
      loTokens = n;
      hi = Math.min(end, a + (hi - a) * 2);
    }
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      const n = ctx.tokens.count(a, mid);
      if (n <= limit) {
        lo = mid;
        loTokens = n;
      } else hi = mid - 1;
    }
    let b = lo;
    const c = ctx.source.charCodeAt(b - 1);
    if (b < end && c >= 0xd800 && c <= 0xdbff && b - 1 > a) b--;
    parts.push({ start: a, end: b, rebuiltText: null, tokens: b === lo && loTokens >= 0 ? loTokens : ctx.tokens.count(a, b) });
    a = b;
  }
  return parts;
}

/**
 * The part at `a` when a pre-token longer than the part starts there (an
 * unspaced run: base64, a hash, minified code): the binary search above would
 * run the BPE of a window a dozen times per part. One BPE of the window gives
 * where its tokens end, and a prefix that ends at a token end has exactly the
 * tokens before it (bpeTokenEnds), so the part ends at the last token end
 * within `limit`. The count is confirmed exactly; null leaves the part to the
 * search, and so does the pre-token's end when the rest of it may fit (the
 * search starts from there when it does).
 */
function splitLongPreToken(a: number, end: number, limit: number, ctx: SplitContext, hint: number): Part | number | null {
  // The run's own BPE, when the token index kept it (a run over 256 characters, `a` at
  // one of its token ends): the part is a subtraction away, confirmed exactly below.
  const kept = ctx.tokens.lastTokenEnd(a, end, limit);
  if (kept > a) {
    let b = kept;
    const c = ctx.source.charCodeAt(b - 1);
    if (b < end && c >= 0xd800 && c <= 0xdbff && b - 1 > a) b--;
    const n = ctx.tokens.count(a, b);
    if (n <= limit) return { start: a, end: b, rebuiltText: null, tokens: n };
  }
  // The window is a guess from the last part's length (a run looks alike
  // throughout), so each part costs about one BPE of itself.
  for (let window = hint > 0 ? Math.ceil(hint * 1.25) + 64 : Math.max(512, limit * 8); ; window *= 2) {
    // The pre-token is scanned only as far as the window: scanning it to its
    // end for every part would make a long run quadratic again.
    const reach = Math.min(end, a + window);
    const w = nextPreTokenEnd(ctx.source, a, reach);
    const e = w < reach || reach === end ? w : Infinity; // the pre-token's end, when the window sees it
    // A short rest of a run, or a short pre-token, is the search's; a rest of more than a few
    // characters is where it starts, when it fits (splitChars checks).
    if (w - a <= 256) return w === e && w - a > 16 ? w : null;
    const { ends, tokens } = bpeTokenEnds(ctx.source.slice(a, w));
    const total = tokens[tokens.length - 1] ?? 0;
    if (w === e && total <= limit) return w; // the rest of the run fits: the search takes what follows too
    if (total <= limit && w < e) continue; // the window holds too few tokens
    let k = tokens.length - 1;
    while (k >= 0 && tokens[k]! > limit) k--;
    // The part is confirmed with one exact count (the BPE of a slice can differ from the
    // slice of a BPE at its edges) and shortened a token at a time while it is over. The
    // count is ctx.tokens': from a token end to a token end of the run's own BPE it is a
    // subtraction (SliceCounter), not another merge of the part.
    for (; k >= 0 && ends[k]! > 0; k--) {
      let b = a + ends[k]!;
      const c = ctx.source.charCodeAt(b - 1);
      if (b < end && c >= 0xd800 && c <= 0xdbff && b - 1 > a) b--;
      const n = ctx.tokens.count(a, b);
      if (n <= limit) return { start: a, end: b, rebuiltText: null, tokens: n };
    }
    return null;
  }
}

/**
 * packAt's two columns (its cuts and their segments' counts) at each depth of nesting (sentences,
 * then lines, words, characters), kept for the next call: on 10 MB of tiny lines, one paragraph
 * of a million sentences, they were 26 MB of fresh memory a pass (issue 15). A packAt running
 * inside another's `finer` is one depth down and takes the next two; past PACK_DEPTHS, new ones.
 */
const PACK_DEPTHS = 4;
const PACK_COLUMNS = new SpareColumns(2 * PACK_DEPTHS);
let packDepth = 0;

/** `finer(a, b)` one packAt depth down: the caller's columns are still being read. */
function deeper(finer: (a: number, b: number) => Part[], a: number, b: number): Part[] {
  packDepth++;
  try {
    return finer(a, b);
  } finally {
    packDepth--;
  }
}

/**
 * Greedy packing of `[start, end)` cut only at `cuts` (each moved by `shift`, and
 * kept only strictly inside the range): each part takes as many
 * segments as fit `limit`; a segment that alone exceeds it goes to `finer`.
 * Each segment is counted once and the sum steers the greedy choice; the part
 * is then counted exactly (a seam may merge or split a token) and shortened
 * while it is over. Parts are trimmed of surrounding whitespace.
 */
function packAt(
  start: number,
  end: number,
  cuts: ArrayLike<number>,
  limit: number,
  ctx: SplitContext,
  finer: (a: number, b: number) => Part[],
  shift = 0,
): Part[] {
  // Typed, and without a spread, a slice and a map: a wide table row has tens of thousands of cuts.
  // Each cut is `shift + cuts[k]`; those not strictly inside (start, end) are left out. Int32, not
  // Float64: offsets and counts fit, and the two arrays were the splitter's largest allocation on
  // a wide table (4 MB per MB of row).
  const depth = packDepth;
  const room = depth < PACK_DEPTHS ? PACK_COLUMNS.column(2 * depth, Int32Array, cuts.length + 2) : new Int32Array(cuts.length + 2);
  room[0] = start;
  let m = 1;
  for (let k = 0; k < cuts.length; k++) {
    const c = shift + cuts[k]!;
    if (c > start && c < end) room[m++] = c;
  }
  room[m++] = end;
  const bounds = m === room.length ? room : room.subarray(0, m);
  const segment = depth < PACK_DEPTHS ? PACK_COLUMNS.column(2 * depth + 1, Int32Array, m - 1) : new Int32Array(m - 1);
  for (let k = 0; k < segment.length; k++) segment[k] = ctx.tokens.count(bounds[k]!, bounds[k + 1]!);
  const parts: Part[] = [];
  let i = 0;
  while (i < bounds.length - 1) {
    const a = bounds[i]!;
    if (segment[i]! > limit) {
      for (const q of deeper(finer, a, trimEndOffset(ctx.source, a, bounds[i + 1]!))) parts.push(q);
      i++;
      continue;
    }
    let j = i + 1;
    let estimate = segment[i]!;
    while (j < bounds.length - 1 && estimate + segment[j]! <= limit) estimate += segment[j++]!;
    let b = trimEndOffset(ctx.source, a, bounds[j]!);
    let tokens = ctx.tokens.count(a, b);
    while (tokens > limit && j > i + 1) {
      j--;
      b = trimEndOffset(ctx.source, a, bounds[j]!);
      tokens = ctx.tokens.count(a, b);
    }
    if (tokens > limit) {
      for (const q of deeper(finer, a, b)) parts.push(q); // (no spread: a part list may be longer than an argument list can be)
    } else if (b > a) {
      parts.push({ start: a, end: b, rebuiltText: null, tokens });
    }
    i = j;
  }
  // Leading whitespace trimmed and empty parts dropped, in place.
  let kept = 0;
  for (const p of parts) {
    let q = p;
    if (p.rebuiltText === null) {
      const s = skipWhitespace(ctx.source, p.start, p.end);
      if (s !== p.start) q = { ...p, start: s, tokens: ctx.tokens.count(s, p.end) };
    }
    if (q.end > q.start) parts[kept++] = q;
  }
  parts.length = kept;
  return parts;
}

