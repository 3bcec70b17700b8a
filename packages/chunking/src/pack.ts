/**
 * Stage 4: pieces → draft chunks. Greedy, in document order, with these rules
 * on top of the hard cap:
 *
 * - a heading starts a new chunk once the current one has at least `min` tokens
 *   (a smaller section is merged forward into the next), unless the current chunk
 *   opens with a heading and the whole section the new heading opens still fits
 *   within `target` alongside it, so short neighbouring sections share a chunk
 *   instead of each making a small one; a chunk that starts inside a section
 *   ends at the next heading;
 * - past `target`, the chunk closes at whichever side of the next piece is
 *   nearer to `target`, except before a section's last pieces under `min`
 *   that fit it;
 * - headings stay with what follows them: a chunk never closes right after one (a run of
 *   bare headings that reaches the cap closes before its last heading and that heading's
 *   parents right above it); so does a paragraph ending with a colon, unless a heading
 *   follows it.
 *
 * Then chunks under `min` are merged into the next chunk, or else the previous
 * one, when the result fits the cap. A chunk stays under `min` only when it is
 * the whole document or neither merge fits.
 *
 * A heading for which `opensChunk` says so (semantic: a Quick Reference / API
 * Reference / Cheat Sheet title, seed 001's technical baseline) always starts a
 * chunk: the chunk before it closes however small, and no merge joins the two,
 * except that a run of bare headings (a title right above it) stays with it.
 */
import { grown, PieceTable, type DraftChunk } from './pieces.js';
import { isWhitespaceCode } from './lines.js';
import { anchorEmpty } from './shape-anchor.js';
import { SpareColumns } from './spare.js';
import { type JoinedPart, TokenIndex } from './tokens.js';
import type { Block } from './types.js';

export interface PackContext {
  source: string;
  tokens: TokenIndex;
  minTokens: number;
  targetTokens: number;
  /** The budget of a heading path (an index in the document's Headings: Piece.heading). */
  budget(heading: number): number;
  /** A heading (the unit of a whole heading piece) that must start a chunk; none when absent. */
  opensChunk?(heading: Block): boolean;
}

export function pack(pieces: PieceTable, ctx: PackContext): DraftChunk[] {
  // A MergeSmall's map is a field transition, held weakly: once the last instance died at a full
  // GC between documents, `merged.end()` after the loop had no feedback and deoptimized pack in
  // every pass (see shape-anchor.ts). The one kept is over no pieces (this document's run holds
  // its pieces, blocks, source and counts), made before this call takes its pooled columns.
  anchorEmpty('pack merge', () => new MergeSmall(environment(new PieceTable(0), emptyContext())));
  const env = environment(pieces, ctx);
  // Each run closed goes straight to mergeSmall's stream, which stores only a run that is not
  // merged into the one before it as it arrives. A document of tiny headings closes a run at
  // nearly every piece (169,000 per MB) and merges nearly all of them away: a Run per closed
  // run, kept in an array until all were closed, was a sixth of the time in pack.
  const merged = new MergeSmall(env);
  // The current run, in locals: pieces[from, to) with its exact tokens and budget; none unless `open`.
  let open = false;
  let from = 0;
  let to = 0;
  let tokens = 0;
  let budget = 0;
  let exact = true;
  const sectionEnds = sectionEndIndexes(env.heading);
  for (let i = 0; i < pieces.length; i++) {
    // Tokens of the current run with this piece appended, when still valid.
    let joined = -1;
    if (open) {
      joined = tokensWith(from, exact, i, env);
      const forced = opens(i, env) && !allHeadings(from, to, env);
      if (forced || shouldClose(from, to, tokens, budget, i, joined, env, sectionEnds[i]!)) {
        joined = -1;
        // The bare headings that end the run move to the next one: just after the run's last
        // piece that is not a bare heading. A run of bare headings only keeps all but the
        // headings that open what follows (carriedHeadings).
        // Introductions go with them too, unless nothing else is left in the run.
        const cut =
          env.lastKept[to]! >= from ? env.lastKept[to]! + 1 : env.lastNonHeading[to]! >= from ? env.lastNonHeading[to]! + 1 : carriedHeadings(from, to, env);
        if (cut < to) {
          // The run keeps pieces[from, cut); pieces[cut, to) are carried into the next run.
          merged.push(from, cut, tokensOfRange(from, cut, env), budgetOfRange(from, cut, env), isExact(from, cut, env));
          from = cut;
          budget = budgetOfRange(from, to, env);
          exact = isExact(from, to, env);
          // The carried run with this piece: kept as `joined` when it fits (the same count tokensWith
          // makes below). The carried run's own count is needed only when it does not.
          const withPiece = tokensOfRange(from, i + 1, env);
          if (withPiece > Math.min(budget, env.budgets[i]!)) {
            merged.push(from, to, tokensOfRange(from, to, env), budget, exact);
            open = false;
          } else {
            joined = withPiece;
          }
        } else {
          merged.push(from, to, tokens, budget, exact);
          open = false;
        }
      }
    }
    if (open) {
      // Grow in place: the same tokens and budget as a new run of all its pieces.
      tokens = joined >= 0 ? joined : tokensWith(from, exact, i, env);
      to = i + 1;
      budget = Math.min(budget, env.budgets[i]!);
      exact = exact && pieces.rebuiltText(i) === null;
    } else {
      open = true;
      from = i;
      to = i + 1;
      tokens = pieces.tokens(i);
      budget = env.budgets[i]!;
      exact = pieces.rebuiltText(i) === null;
    }
  }
  if (open) merged.push(from, to, tokens, budget, exact);
  merged.end();
  return draftsOf(merged, pieces);
}

/**
 * Where a run of bare headings pieces[from, to) closed by the cap is cut: before its last
 * heading and the shallower ones right above it (its parents, which open what follows with
 * it), but after its first piece. It once kept its first heading alone and carried the rest,
 * and the carried run, as full as the first, did the same at every piece after: 1 MB of tiny
 * headings made 33,874 chunks of five headings (each under `min` until five were merged)
 * where 1,356 fit (issue 15 probe; 200 headings made 16 chunks where 100 made one).
 */
function carriedHeadings(from: number, to: number, env: Env): number {
  let cut = to - 1;
  while (cut - 1 > from && depthOf(env.pieces, cut - 1) < depthOf(env.pieces, cut)) cut--;
  return Math.max(from + 1, cut);
}

function depthOf(pieces: PieceTable, i: number): number {
  return pieces.unit(i).depth ?? 0;
}

/**
 * The runs as draft chunks. A loop of its own, not `.map` at the end of pack: pack's loop is
 * compiled on stack (OSR) in every pass over a large document, and that code deoptimized at the
 * `.map` after the loop ("out of bounds") in every pass over a document of tiny headings.
 */
function draftsOf(runs: MergeSmall, pieces: PieceTable): DraftChunk[] {
  const drafts = new Array<DraftChunk>(runs.n);
  for (let k = 0; k < runs.n; k++) {
    const from = runs.from[k]!;
    const to = runs.to[k]!;
    drafts[k] = {
      table: pieces,
      from,
      to,
      start: pieces.start(from),
      end: pieces.end(to - 1),
      tokens: runs.tokens[k]!,
      overlapChars: 0,
      overlapTokens: 0,
      text: '',
      exact: false,
    };
  }
  return drafts;
}

/**
 * What packing looks up per piece, once: its budget (the per-path lookup was a
 * tenth of the time on thousands of tiny headings, done again for every run a
 * piece was in), whether it is a bare heading, and prefix counts of headings
 * and rebuilt pieces, so that a run is a range of indexes and never an array
 * copied as it grows, closes or merges (the garbage was a quarter of the time).
 */
interface Env {
  pieces: PieceTable;
  ctx: PackContext;
  budgets: Float64Array;
  heading: Uint8Array;
  /** Bare headings in pieces[0, i). */
  headingsBefore: Int32Array;
  /** Rebuilt pieces in pieces[0, i). */
  rebuiltBefore: Int32Array;
  /** The last index below i of a piece that is not a bare heading, or -1. */
  lastNonHeading: Int32Array;
  /** The last index below i of a piece that is neither a bare heading nor an introduction (introduces), or -1. */
  lastKept: Int32Array;
  /** The least budget of each block of BLOCK pieces, for budgetOfRange. */
  blockBudgets: Float64Array;
  /** The first index of the stretch of equal budgets that pieces[i] ends. */
  sameFrom: Int32Array;
}

/** Pieces per entry of Env.blockBudgets. */
const BLOCK = 32;

/** A PackContext of an empty document, for the MergeSmall anchored. */
function emptyContext(): PackContext {
  return { source: '', tokens: new TokenIndex(''), minTokens: 0, targetTokens: 1, budget: () => 1 };
}

function environment(pieces: PieceTable, ctx: PackContext): Env {
  const n = pieces.length;
  const budgets = POOL.column(BUDGETS, Float64Array, n);
  const heading = POOL.column(HEADING, Uint8Array, n);
  const headingsBefore = POOL.column(HEADINGS_BEFORE, Int32Array, n + 1);
  const rebuiltBefore = POOL.column(REBUILT_BEFORE, Int32Array, n + 1);
  const lastNonHeading = POOL.column(LAST_NON_HEADING, Int32Array, n + 1);
  const lastKept = POOL.column(LAST_KEPT, Int32Array, n + 1);
  // Every entry is written below: a pooled column holds the last call's values.
  headingsBefore[0] = 0;
  rebuiltBefore[0] = 0;
  lastNonHeading[0] = -1;
  lastKept[0] = -1;
  for (let i = 0; i < n; i++) {
    budgets[i] = ctx.budget(pieces.heading(i));
    heading[i] = pieces.isHeading(i) ? 1 : 0;
    headingsBefore[i + 1] = headingsBefore[i]! + heading[i]!;
    rebuiltBefore[i + 1] = rebuiltBefore[i]! + (pieces.rebuiltText(i) !== null ? 1 : 0);
    lastNonHeading[i + 1] = heading[i] === 1 ? lastNonHeading[i]! : i;
  }
  // After `heading` is whole: an introduction is one only before a piece that is not a heading.
  for (let i = 0; i < n; i++) lastKept[i + 1] = heading[i] === 1 || introduces(pieces, i, heading, ctx.source) ? lastKept[i]! : i;
  const blockBudgets = blockMinima(budgets, POOL.column(BLOCK_BUDGETS, Float64Array, Math.ceil(n / BLOCK)));
  const sameFrom = equalStretches(budgets, POOL.column(SAME_FROM, Int32Array, n));
  return { pieces, ctx, budgets, heading, headingsBefore, rebuiltBefore, lastNonHeading, lastKept, blockBudgets, sameFrom };
}

/**
 * Whether pieces[i] introduces the piece after it: a whole paragraph whose text ends with a
 * colon ("The main differences between npm install and npm ci are:"), followed by a piece that
 * is not a heading (the list, code or table it announces). Like a bare heading, it goes with what
 * follows when a run closes after it: cut from it, the list was a chunk without its subject, and
 * the run ended on a dangling colon (268 of 2,648 chunks of npm's docs, the .NET corpus and
 * docs/ ended so, session 60).
 */
function introduces(pieces: PieceTable, i: number, heading: Uint8Array, source: string): boolean {
  if (i + 1 >= heading.length || heading[i + 1] === 1 || pieces.rebuiltText(i) !== null || pieces.splitUnit(i)) return false;
  if (!pieces.isParagraph(i)) return false;
  let end = pieces.end(i);
  const start = pieces.start(i);
  while (end > start && isWhitespaceCode(source.charCodeAt(end - 1))) end--;
  const last = source.charCodeAt(end - 1);
  return end > start && (last === 0x3a || last === 0xff1a); // ':' or the fullwidth '：'
}

/**
 * pack's typed columns, kept from one call to the next and handed out again (pack runs to its
 * end before it returns, and nothing reads its columns after). A document of tiny headings has
 * a piece per line: eight columns of 170,000 entries per MB were made in every pass, each page
 * of them faulted in fresh and zeroed (issue 15). A column much larger than a call needs is
 * let go, so that one huge document does not hold its columns for every small one after it.
 * Up to STRONG_MOST entries (the pieces of about 1.5 MB of tiny headings and of any real
 * document; at most about 7.5 MiB for all the columns together) a column is held strongly,
 * up to SPARE_MOST weakly, past it not at all (spare.ts): unbounded and strong, the pool held 29
 * bytes a piece of the largest recent document (49 MiB after 10 MB of tiny headings, `node
 * bench/memory.mjs --shape tiny-headings --mb 10 --path whole`).
 */
const POOL = new SpareColumns(14);
const BUDGETS = 0;
const HEADING = 1;
const HEADINGS_BEFORE = 2;
const REBUILT_BEFORE = 3;
const LAST_NON_HEADING = 4;
const LAST_KEPT = 13;
const BLOCK_BUDGETS = 5;
const SAME_FROM = 6;
const SECTION_ENDS = 7;
const RUN_FROM = 8;
const RUN_TO = 9;
const RUN_TOKENS = 10;
const RUN_BUDGET = 11;
const RUN_EXACT = 12;

/**
 * The least budget of pieces[from, to): whole blocks by their minimum, so that a run of
 * thousands of tiny headings closing at every piece does not rescan all it carries.
 */
function budgetOfRange(from: number, to: number, env: Env): number {
  return rangeMin(env.budgets, env.blockBudgets, from, to, env.sameFrom);
}

/**
 * min(values[from, to)), Infinity when empty; `blocks[b]` is the least of values[b·BLOCK, (b+1)·BLOCK),
 * `sameFrom` (when given) is equalStretches(values). Exported for its test.
 */
export function rangeMin(values: Float64Array, blocks: Float64Array, from: number, to: number, sameFrom?: Int32Array): number {
  // Most ranges lie within one stretch of equal budgets (a path's budget is mostly the cap less
  // the same reserve): a run carried on at every piece scanned its whole range (issue 15).
  if (sameFrom !== undefined && to > from && sameFrom[to - 1]! <= from) return values[from]!;
  let min = Infinity;
  let k = from;
  for (; k < to && k % BLOCK !== 0; k++) min = Math.min(min, values[k]!);
  for (; k + BLOCK <= to; k += BLOCK) min = Math.min(min, blocks[k / BLOCK]!);
  for (; k < to; k++) min = Math.min(min, values[k]!);
  return min;
}

/**
 * The `sameFrom` argument of rangeMin for `values`: for each index, where the stretch of values
 * equal to its own that it ends starts. Written into `sameFrom` when given (of values' length).
 */
export function equalStretches(values: Float64Array, sameFrom = new Int32Array(values.length)): Int32Array {
  if (values.length > 0) sameFrom[0] = 0;
  for (let i = 1; i < values.length; i++) sameFrom[i] = values[i] === values[i - 1] ? sameFrom[i - 1]! : i;
  return sameFrom;
}

/** The `blocks` argument of rangeMin for `values`, written into `blocks` when given (of its length). */
export function blockMinima(values: Float64Array, blocks = new Float64Array(Math.ceil(values.length / BLOCK))): Float64Array {
  blocks.fill(Infinity);
  for (let i = 0; i < values.length; i++) {
    const b = (i / BLOCK) | 0;
    blocks[b] = Math.min(blocks[b]!, values[i]!);
  }
  return blocks;
}

/** No piece of pieces[from, to) is rebuilt. */
function isExact(from: number, to: number, env: Env): boolean {
  return env.rebuiltBefore[to] === env.rebuiltBefore[from];
}

function allHeadings(from: number, to: number, env: Env): boolean {
  return env.headingsBefore[to]! - env.headingsBefore[from]! === to - from;
}

/** Exact tokens of the text pieces[from, to) make. */
function tokensOfRange(from: number, to: number, env: Env): number {
  const { pieces, ctx } = env;
  if (to - from === 1) return pieces.tokens(from);
  if (env.rebuiltBefore[to] === env.rebuiltBefore[from]) return sourceRunTokens(pieces, from, to - 1, ctx.tokens);
  const parts: JoinedPart[] = [];
  return ctx.tokens.countJoined(runText(pieces, from, to, ctx.source, parts), parts);
}

/** Exact tokens of the source from pieces[from]'s start to pieces[last]'s end, none of them rebuilt. */
function sourceRunTokens(pieces: PieceTable, from: number, last: number, tokens: TokenIndex): number {
  const start = pieces.start(from);
  const end = pieces.end(last);
  // A whole unit's tokens are its source range's count (addPieces): the run's count is the
  // pre-tokens before it and that count, read, not scanned (TokenIndex.countWithTail).
  return pieces.splitUnit(last) ? tokens.count(start, end) : tokens.countWithTail(start, pieces.start(last), end, pieces.tokens(last));
}

/** The tokens of the run pieces[from, i) with pieces[i] (the next piece) appended; `exact`: none of the run's pieces is rebuilt. */
function tokensWith(from: number, exact: boolean, i: number, env: Env): number {
  const { pieces } = env;
  if (exact && pieces.rebuiltText(i) === null) return sourceRunTokens(pieces, from, i, env.ctx.tokens);
  return tokensOfRange(from, i + 1, env);
}

/**
 * For each heading piece, the index one past the last piece of the section it opens; `heading`
 * is Env.heading (read there, not from the pieces again: each piece's block is a pointer away,
 * and a document of tiny headings has 170,000 of them per MB).
 */
function sectionEndIndexes(heading: Uint8Array): Int32Array {
  const ends = POOL.column(SECTION_ENDS, Int32Array, heading.length);
  let next = heading.length;
  for (let i = heading.length - 1; i >= 0; i--) {
    ends[i] = next;
    if (heading[i] === 1) next = i;
  }
  return ends;
}

/** The most pieces a section's tail may have to stay with the run before it (shouldClose). */
const TAIL_PIECES = 64;

/**
 * Whether the run pieces[from, to) (`tokens`, `budget`) closes before pieces[i]: `joined` is its
 * tokens with pieces[i] appended; `sectionEnd` is the index of the next heading after pieces[i]
 * (when pieces[i] is one, one past the last piece of the section it opens: an index, not a
 * closure per piece, issue 15).
 */
function shouldClose(from: number, to: number, tokens: number, budget: number, i: number, joined: number, env: Env, sectionEnd: number): boolean {
  const { ctx } = env;
  if (joined > Math.min(budget, env.budgets[i]!)) return true;
  if (env.heading[to - 1] === 1) return false;
  // A run of nothing but headings and an introduction takes what it introduces (introduces).
  if (env.lastKept[to]! < from) return false;
  if (tokens < ctx.minTokens) return false;
  // At a heading, a run a heading opens takes the section in while the two stay within the
  // target (small sections together); a run that starts inside a section closes. It took them in
  // too, and the chunk of a section's last paragraph and the small sections after it was shown
  // and embedded under the first of those sections' breadcrumb (66 chunks of 2,721 in npm's docs,
  // the .NET corpus and docs/: "Management of teams … `npm team`" under "Configuration").
  if (env.heading[i] === 1) return env.heading[from] !== 1 || tokensOfRange(from, sectionEnd, env) > ctx.targetTokens;
  // The last pieces of a section, under min together, stay with the run before them when all of
  // them fit it: closed here, they went to the front of the next section's chunk (a run under min
  // does not close before a heading) and were shown and embedded under its breadcrumb ("See the
  // alpha notes." under "Guide > Beta"). Each piece holds a token at least: more pieces than min
  // cannot be under it, and are not counted; nor more than TAIL_PIECES, so that the count (of
  // their joined text, when a part is rebuilt) stays bounded per piece whatever min is.
  if (sectionEnd - i <= Math.min(ctx.minTokens, TAIL_PIECES) && tokensOfRange(i, sectionEnd, env) < ctx.minTokens && tokensOfRange(from, sectionEnd, env) <= budgetOfRange(from, sectionEnd, env)) {
    return false;
  }
  return joined > ctx.targetTokens && joined - ctx.targetTokens > ctx.targetTokens - tokens;
}

/**
 * Chunks under `min` merged into the next chunk, or else the previous one, as the runs arrive
 * (push, then end): the runs kept so far are a stack (`done`), and the run that arrives is the
 * one after the current run. A run absorbed as it arrives is never stored.
 * Merging is a pop or a growth in place, never a splice of the whole list (thousands of tiny
 * sections were quadratic). A candidate is counted before anything is changed.
 *
 * The stack is columns of typed arrays and the current run five fields, not a Run object per
 * run: on a document of tiny headings (34,000 runs per MB, all alive until the drafts were made)
 * the objects and their array were half of pack's time (issue 15).
 */
class MergeSmall {
  /** The stack of kept runs, runs[0, n): pieces[from[k], to[k]) with their tokens, budget and exactness. */
  n = 0;
  from: Int32Array;
  to: Int32Array;
  tokens: Float64Array;
  budget: Float64Array;
  exact: Uint8Array;
  /** The current run: one under `min`, waiting for the next run to know where it goes (none unless `hasCur`). */
  private hasCur = false;
  private curFrom = 0;
  private curTo = 0;
  private curTokens = 0;
  private curBudget = 0;
  private curExact = false;

  constructor(private readonly env: Env) {
    // At most one run per piece; grown as needed from a size that fits small documents (pooled
    // columns: whatever room the last call left, its contents unspecified, each entry written
    // before it is read).
    const size = Math.max(16, Math.min(env.pieces.length, 1024));
    const most = 4 * env.pieces.length + 4096;
    this.from = POOL.room(RUN_FROM, Int32Array, size, most);
    this.to = POOL.room(RUN_TO, Int32Array, size, most);
    this.tokens = POOL.room(RUN_TOKENS, Float64Array, size, most);
    this.budget = POOL.room(RUN_BUDGET, Float64Array, size, most);
    this.exact = POOL.room(RUN_EXACT, Uint8Array, size, most);
  }

  push(from: number, to: number, tokens: number, budget: number, exact: boolean): void {
    const { env } = this;
    if (!this.hasCur) {
      this.become(from, to, tokens, budget, exact);
      return;
    }
    // The current run is under min with runs before or after it: it merges into this run, or the one before it, when that fits.
    for (;;) {
      // Never merge into the front of a run a forced heading opens (bare headings excepted), nor that run backwards.
      if (!(opensRun(from, to, env) && !allHeadings(this.curFrom, this.curTo, env))) {
        const merged = tokensOfRange(this.curFrom, to, env);
        const mergedBudget = Math.min(this.curBudget, budget);
        if (merged <= mergedBudget) {
          this.become(this.curFrom, to, merged, mergedBudget, this.curExact && exact);
          return;
        }
      }
      if (this.n > 0 && !opensRun(this.curFrom, this.curTo, env) && this.absorbIntoTop()) {
        // The grown run, with this one still after it.
        if (this.curTokens >= env.ctx.minTokens) break;
        continue;
      }
      break;
    }
    this.keep(this.curFrom, this.curTo, this.curTokens, this.curBudget, this.curExact);
    this.become(from, to, tokens, budget, exact);
  }

  /** The runs are the stack, once the last has been pushed and this has returned. */
  end(): void {
    const { env } = this;
    if (!this.hasCur) return;
    this.hasCur = false;
    // Unless it is the whole document or not small, the current run goes into the run before it when that fits.
    while (this.n > 0 && this.curTokens < env.ctx.minTokens) {
      if (opensRun(this.curFrom, this.curTo, env) || !this.absorbIntoTop()) break;
    }
    this.keep(this.curFrom, this.curTo, this.curTokens, this.curBudget, this.curExact);
  }

  /**
   * The top of the stack grown over the current run (the run right after it), popped into the
   * current run, when the two fit one budget; false (and nothing changed) when not.
   */
  private absorbIntoTop(): boolean {
    const top = this.n - 1;
    const merged = tokensOfRange(this.from[top]!, this.curTo, this.env);
    const mergedBudget = Math.min(this.budget[top]!, this.curBudget);
    if (merged > mergedBudget) return false;
    this.curFrom = this.from[top]!;
    this.curTokens = merged;
    this.curBudget = mergedBudget;
    this.curExact = this.exact[top] === 1 && this.curExact;
    this.n = top;
    return true;
  }

  /** The run is the current run: kept at once when it is not small, else held for the run after it. */
  private become(from: number, to: number, tokens: number, budget: number, exact: boolean): void {
    if (tokens >= this.env.ctx.minTokens) {
      this.hasCur = false;
      this.keep(from, to, tokens, budget, exact);
    } else {
      this.hasCur = true;
      this.curFrom = from;
      this.curTo = to;
      this.curTokens = tokens;
      this.curBudget = budget;
      this.curExact = exact;
    }
  }

  private keep(from: number, to: number, tokens: number, budget: number, exact: boolean): void {
    const k = this.n;
    if (k === this.from.length) this.grow();
    this.from[k] = from;
    this.to[k] = to;
    this.tokens[k] = tokens;
    this.budget[k] = budget;
    this.exact[k] = exact ? 1 : 0;
    this.n = k + 1;
  }

  private grow(): void {
    const size = this.from.length * 2;
    // The grown columns are the pool's from now on.
    this.from = POOL.keep(RUN_FROM, grown(this.from, size));
    this.to = POOL.keep(RUN_TO, grown(this.to, size));
    this.tokens = POOL.keep(RUN_TOKENS, grown(this.tokens, size));
    this.budget = POOL.keep(RUN_BUDGET, grown(this.budget, size));
    this.exact = POOL.keep(RUN_EXACT, grown(this.exact, size));
  }

}

/** pieces[i] is a heading that must start a chunk. */
function opens(i: number, env: Env): boolean {
  const { ctx } = env;
  return ctx.opensChunk !== undefined && env.heading[i] === 1 && ctx.opensChunk(env.pieces.unit(i));
}

/** The run pieces[from, to) starts with a forced heading, or with bare headings that lead into one. */
function opensRun(from: number, to: number, env: Env): boolean {
  if (env.ctx.opensChunk === undefined) return false;
  for (let k = from; k < to; k++) {
    if (opens(k, env)) return true;
    if (env.heading[k] !== 1) return false;
  }
  return false;
}

/** The strictest budget of the run of pieces [from, to): its breadcrumb may come from any of its pieces' paths. */
export function budgetOf(pieces: PieceTable, from: number, to: number, ctx: Pick<PackContext, 'budget'>): number {
  let b = Infinity;
  for (let k = from; k < to; k++) b = Math.min(b, ctx.budget(pieces.heading(k)));
  return b;
}

/** No piece of [from, to) is rebuilt. */
export function noneRebuilt(pieces: PieceTable, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (pieces.rebuiltText(k) !== null) return false;
  return true;
}

/** Exact tokens of the text the run of pieces [from, to) makes. */
export function tokensOf(pieces: PieceTable, from: number, to: number, ctx: Pick<PackContext, 'source' | 'tokens'>): number {
  if (to - from === 1) return pieces.tokens(from);
  if (noneRebuilt(pieces, from, to)) return sourceRunTokens(pieces, from, to - 1, ctx.tokens);
  const parts: JoinedPart[] = [];
  return ctx.tokens.countJoined(runText(pieces, from, to, ctx.source, parts), parts);
}

/**
 * The text of a run: the pieces' own texts with the source between them.
 * `parts`, when given, receives where each piece's text sits in it (for TokenIndex.countJoined).
 */
export function runText(pieces: PieceTable, from: number, to: number, source: string, parts?: JoinedPart[]): string {
  let text = '';
  for (let i = from; i < to; i++) {
    const start = pieces.start(i);
    const end = pieces.end(i);
    const rebuilt = pieces.rebuiltText(i);
    if (i > from) {
      const prevRebuilt = pieces.rebuiltText(i - 1);
      const gap = source.slice(pieces.end(i - 1), start);
      // Parts of one code line too long for the cap each carry their own
      // fences; the space between them in the source would put a closing and
      // an opening fence on one line, which is no fence at all.
      // Nor may indentation before a rebuilt part (a piece of a line cut
      // after its leading spaces) push its fence into an indented code block.
      const joint = rebuilt !== null ? gap.slice(0, endWithoutBlanks(gap)) : gap;
      text += (prevRebuilt !== null || rebuilt !== null) && !/[\r\n]/.test(joint) ? '\n' : joint;
    }
    parts?.push({ at: text.length, start, end, text: rebuilt });
    text += rebuilt ?? source.slice(start, end);
  }
  return text;
}

/**
 * Where `text` ends without its trailing spaces and tabs. `/[ \t]+$/` tried the rest of a run
 * from each of its characters when the run did not end the text: a line of 200,000 spaces
 * before a code block split into parts took 36 s (quadratic; issue 15 probe).
 */
function endWithoutBlanks(text: string): number {
  let end = text.length;
  while (end > 0 && (text.charCodeAt(end - 1) === 0x20 || text.charCodeAt(end - 1) === 0x09)) end--;
  return end;
}
