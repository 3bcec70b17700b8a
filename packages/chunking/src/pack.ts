/**
 * Stage 4: pieces → draft chunks. Greedy, in document order, with three rules
 * on top of the hard cap:
 *
 * - a heading starts a new chunk once the current one has at least `min` tokens
 *   (a smaller section is merged forward into the next), unless the whole
 *   section it opens still fits within `target` alongside the current chunk,
 *   so short neighbouring sections share a chunk instead of each making a small one;
 * - past `target`, the chunk closes at whichever side of the next piece is
 *   nearer to `target`;
 * - headings stay with what follows them: a chunk never closes right after one.
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
import type { DraftChunk, Piece } from './pieces.js';
import type { JoinedPart, TokenIndex } from './tokens.js';

export interface PackContext {
  source: string;
  tokens: TokenIndex;
  minTokens: number;
  targetTokens: number;
  /** The budget of a heading path (an index in the document's Headings: Piece.heading). */
  budget(heading: number): number;
  /** A heading piece that must start a chunk; none when absent. */
  opensChunk?(piece: Piece): boolean;
}

export function pack(pieces: Piece[], ctx: PackContext): DraftChunk[] {
  const env = environment(pieces, ctx);
  // Closed runs go to columns, not a Run object each: a document of tiny headings closes a
  // run at nearly every piece (issue 15: 169,000 runs per MB, a tenth of the allocation).
  const runs = new Runs(pieces.length);
  // The current run, in locals: pieces[from, to) with its exact tokens and budget; none when from < 0.
  let from = -1;
  let to = 0;
  let tokens = 0;
  let budget = 0;
  let exact = true;
  const sectionEnds = sectionEndIndexes(pieces);
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    // Tokens of the current run with this piece appended, when still valid.
    let joined = -1;
    if (from >= 0) {
      joined = tokensWith(from, exact, i, env);
      const forced = opens(piece, ctx) && !allHeadings(from, to, env);
      if (forced || shouldClose(from, to, tokens, budget, i, joined, env, sectionEnds[i]!)) {
        // The bare headings that end the run move to the next one.
        // Just after the run's last piece that is not a bare heading (but after its first piece).
        const cut = Math.max(from + 1, env.lastNonHeading[to]! + 1);
        if (cut < to) {
          // The run keeps pieces[from, cut), the rest is carried into the next run.
          runs.push(from, cut, tokensOfRange(from, cut, env), budgetOfRange(from, cut, env), isExact(from, cut, env));
          from = cut;
          tokens = tokensOfRange(from, to, env);
          budget = budgetOfRange(from, to, env);
          exact = isExact(from, to, env);
          // The carried run with this piece: kept as `joined` when it fits (the same count tokensWith makes below).
          const withPiece = tokensOfRange(from, i + 1, env);
          if (withPiece > Math.min(budget, env.budgets[i]!)) {
            runs.push(from, to, tokens, budget, exact);
            from = -1;
            joined = -1;
          } else {
            joined = withPiece;
          }
        } else {
          runs.push(from, to, tokens, budget, exact);
          from = -1;
          joined = -1;
        }
      }
    }
    if (from >= 0) {
      // Grow in place: the same tokens and budget as a new run of all its pieces.
      tokens = joined >= 0 ? joined : tokensWith(from, exact, i, env);
      to = i + 1;
      budget = Math.min(budget, env.budgets[i]!);
      exact = exact && piece.rebuiltText === null;
    } else {
      from = i;
      to = i + 1;
      tokens = piece.tokens;
      budget = env.budgets[i]!;
      exact = piece.rebuiltText === null;
    }
  }
  if (from >= 0) runs.push(from, to, tokens, budget, exact);
  const n = mergeSmall(runs, env);
  const drafts: DraftChunk[] = new Array<DraftChunk>(n);
  for (let r = 0; r < n; r++) {
    const a = runs.from[r]!;
    const b = runs.to[r]!;
    drafts[r] = {
      pieces: pieces.slice(a, b),
      start: pieces[a]!.start,
      end: pieces[b - 1]!.end,
      tokens: runs.tokens[r]!,
      overlapChars: 0,
      overlapTokens: 0,
      text: '',
      exact: false,
    };
  }
  return drafts;
}

/**
 * Runs of pieces[from, to) as columns, each with its exact token count, budget (the least of
 * its pieces') and whether no piece is rebuilt (its text is one slice of the source). Sized for
 * one run per piece, the most there can be: never grown.
 */
class Runs {
  length = 0;
  from: Int32Array;
  to: Int32Array;
  tokens: Float64Array;
  budget: Float64Array;
  exact: Uint8Array;

  constructor(capacity: number) {
    this.from = new Int32Array(capacity);
    this.to = new Int32Array(capacity);
    this.tokens = new Float64Array(capacity);
    this.budget = new Float64Array(capacity);
    this.exact = new Uint8Array(capacity);
  }

  push(from: number, to: number, tokens: number, budget: number, exact: boolean): void {
    this.set(this.length++, from, to, tokens, budget, exact);
  }

  set(r: number, from: number, to: number, tokens: number, budget: number, exact: boolean): void {
    this.from[r] = from;
    this.to[r] = to;
    this.tokens[r] = tokens;
    this.budget[r] = budget;
    this.exact[r] = exact ? 1 : 0;
  }
}

/**
 * What packing looks up per piece, once: its budget (the per-path lookup was a
 * tenth of the time on thousands of tiny headings, done again for every run a
 * piece was in), whether it is a bare heading, and prefix counts of headings
 * and rebuilt pieces, so that a run is a range of indexes and never an array
 * copied as it grows, closes or merges (the garbage was a quarter of the time).
 */
interface Env {
  pieces: Piece[];
  ctx: PackContext;
  budgets: Float64Array;
  heading: Uint8Array;
  /** Bare headings in pieces[0, i). */
  headingsBefore: Int32Array;
  /** Rebuilt pieces in pieces[0, i). */
  rebuiltBefore: Int32Array;
  /** The last index below i of a piece that is not a bare heading, or -1. */
  lastNonHeading: Int32Array;
  /** The least budget of each block of BLOCK pieces, for budgetOfRange. */
  blockBudgets: Float64Array;
}

/** Pieces per entry of Env.blockBudgets. */
const BLOCK = 32;

function environment(pieces: Piece[], ctx: PackContext): Env {
  const n = pieces.length;
  const budgets = new Float64Array(n);
  const heading = new Uint8Array(n);
  const headingsBefore = new Int32Array(n + 1);
  const rebuiltBefore = new Int32Array(n + 1);
  const lastNonHeading = new Int32Array(n + 1);
  lastNonHeading[0] = -1;
  for (let i = 0; i < n; i++) {
    const p = pieces[i]!;
    budgets[i] = ctx.budget(p.heading);
    heading[i] = isHeading(p) ? 1 : 0;
    headingsBefore[i + 1] = headingsBefore[i]! + heading[i]!;
    rebuiltBefore[i + 1] = rebuiltBefore[i]! + (p.rebuiltText !== null ? 1 : 0);
    lastNonHeading[i + 1] = heading[i] === 1 ? lastNonHeading[i]! : i;
  }
  return { pieces, ctx, budgets, heading, headingsBefore, rebuiltBefore, lastNonHeading, blockBudgets: blockMinima(budgets) };
}

/**
 * The least budget of pieces[from, to): whole blocks by their minimum, so that a run of
 * thousands of tiny headings closing at every piece does not rescan all it carries.
 */
function budgetOfRange(from: number, to: number, env: Env): number {
  return rangeMin(env.budgets, env.blockBudgets, from, to);
}

/** min(values[from, to)), Infinity when empty; `blocks[b]` is the least of values[b·BLOCK, (b+1)·BLOCK). Exported for its test. */
export function rangeMin(values: Float64Array, blocks: Float64Array, from: number, to: number): number {
  let min = Infinity;
  let k = from;
  for (; k < to && k % BLOCK !== 0; k++) min = Math.min(min, values[k]!);
  for (; k + BLOCK <= to; k += BLOCK) min = Math.min(min, blocks[k / BLOCK]!);
  for (; k < to; k++) min = Math.min(min, values[k]!);
  return min;
}

/** The `blocks` argument of rangeMin for `values`. */
export function blockMinima(values: Float64Array): Float64Array {
  const blocks = new Float64Array(Math.ceil(values.length / BLOCK)).fill(Infinity);
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
  if (to - from === 1) return pieces[from]!.tokens;
  if (env.rebuiltBefore[to] === env.rebuiltBefore[from]) return ctx.tokens.count(pieces[from]!.start, pieces[to - 1]!.end);
  const parts: JoinedPart[] = [];
  return ctx.tokens.countJoined(runText(pieces.slice(from, to), ctx.source, parts), parts);
}

/** The tokens of the run pieces[from, i) with pieces[i] (the next piece) appended; `exact`: no piece of the run is rebuilt. */
function tokensWith(from: number, exact: boolean, i: number, env: Env): number {
  const piece = env.pieces[i]!;
  if (exact && piece.rebuiltText === null) return env.ctx.tokens.count(env.pieces[from]!.start, piece.end);
  return tokensOfRange(from, i + 1, env);
}

/** For each heading piece, the index one past the last piece of the section it opens. */
function sectionEndIndexes(pieces: Piece[]): Int32Array {
  const ends = new Int32Array(pieces.length);
  let next = pieces.length;
  for (let i = pieces.length - 1; i >= 0; i--) {
    ends[i] = next;
    if (isHeading(pieces[i]!)) next = i;
  }
  return ends;
}

/**
 * Whether the run pieces[from, to) (`tokens`, `budget`) closes before pieces[i]: `joined` is
 * its tokens with pieces[i] appended; `sectionEnd` one past the last piece of the section
 * pieces[i] opens, when it is a heading (an index, not a closure per piece: issue 15).
 */
function shouldClose(from: number, to: number, tokens: number, budget: number, i: number, joined: number, env: Env, sectionEnd: number): boolean {
  const { ctx } = env;
  if (joined > Math.min(budget, env.budgets[i]!)) return true;
  if (env.heading[to - 1] === 1) return false;
  if (tokens < ctx.minTokens) return false;
  if (env.heading[i] === 1) return tokensOfRange(from, sectionEnd, env) > ctx.targetTokens;
  return joined > ctx.targetTokens && joined - ctx.targetTokens > ctx.targetTokens - tokens;
}

/** Merges runs under `min` (in place); returns how many runs remain, in runs[0, n). */
function mergeSmall(runs: Runs, env: Env): number {
  const { ctx } = env;
  // The runs kept so far are a stack in runs[0, done) and the ones after the current one a
  // cursor into the runs not yet read, runs[k, total): merging is a pop or an advance, never a
  // splice of the whole list, which made thousands of tiny sections quadratic. The stack never
  // reaches the cursor (done < k), so kept runs are written over runs already read, and a
  // merge grows one run's values in place: a document of tiny headings merges 135,000 times
  // per MB (issue 15). A candidate is counted before anything is changed.
  const total = runs.length;
  if (total === 0) return 0;
  let done = 0;
  let k = 1;
  // The current run, in locals.
  let from = runs.from[0]!;
  let to = runs.to[0]!;
  let tokens = runs.tokens[0]!;
  let budget = runs.budget[0]!;
  let exact = runs.exact[0] === 1;
  let has = true;
  while (has) {
    if (done + 1 + (total - k) <= 1 || tokens >= ctx.minTokens) {
      runs.set(done++, from, to, tokens, budget, exact);
      if (k < total) {
        from = runs.from[k]!;
        to = runs.to[k]!;
        tokens = runs.tokens[k]!;
        budget = runs.budget[k]!;
        exact = runs.exact[k] === 1;
        k++;
      } else has = false;
      continue;
    }
    // Never merge into the front of a run a forced heading opens (bare headings excepted), nor that run backwards.
    if (k < total && !(opensRun(runs.from[k]!, runs.to[k]!, env) && !allHeadings(from, to, env))) {
      const nextTo = runs.to[k]!;
      const merged = tokensOfRange(from, nextTo, env);
      const mergedBudget = Math.min(budget, runs.budget[k]!);
      if (merged <= mergedBudget) {
        exact = exact && runs.exact[k] === 1;
        k++;
        to = nextTo;
        tokens = merged;
        budget = mergedBudget;
        continue;
      }
    }
    if (done > 0 && !opensRun(from, to, env)) {
      const p = done - 1;
      const prevFrom = runs.from[p]!;
      const merged = tokensOfRange(prevFrom, to, env);
      const mergedBudget = Math.min(runs.budget[p]!, budget);
      if (merged <= mergedBudget) {
        done = p;
        exact = runs.exact[p] === 1 && exact;
        from = prevFrom;
        tokens = merged;
        budget = mergedBudget;
        continue;
      }
    }
    runs.set(done++, from, to, tokens, budget, exact);
    if (k < total) {
      from = runs.from[k]!;
      to = runs.to[k]!;
      tokens = runs.tokens[k]!;
      budget = runs.budget[k]!;
      exact = runs.exact[k] === 1;
      k++;
    } else has = false;
  }
  return done;
}

function isHeading(piece: Piece): boolean {
  return piece.unit.type === 'heading' && !piece.splitUnit;
}

function opens(piece: Piece, ctx: PackContext): boolean {
  return ctx.opensChunk !== undefined && isHeading(piece) && ctx.opensChunk(piece);
}

/** The run pieces[from, to) starts with a forced heading, or with bare headings that lead into one. */
function opensRun(from: number, to: number, env: Env): boolean {
  const { ctx, pieces } = env;
  if (ctx.opensChunk === undefined) return false;
  for (let k = from; k < to; k++) {
    const p = pieces[k]!;
    if (opens(p, ctx)) return true;
    if (env.heading[k] !== 1) return false;
  }
  return false;
}

/** The strictest budget of the run: its breadcrumb may come from any of its pieces' paths. */
export function budgetOf(run: Piece[], ctx: Pick<PackContext, 'budget'>): number {
  let b = Infinity;
  for (let k = 0; k < run.length; k++) b = Math.min(b, ctx.budget(run[k]!.heading));
  return b;
}

/** Exact tokens of the text a run of pieces makes. */
export function tokensOf(run: Piece[], ctx: Pick<PackContext, 'source' | 'tokens'>): number {
  if (run.length === 1) return run[0]!.tokens;
  if (run.every((p) => p.rebuiltText === null)) return ctx.tokens.count(run[0]!.start, run[run.length - 1]!.end);
  const parts: JoinedPart[] = [];
  return ctx.tokens.countJoined(runText(run, ctx.source, parts), parts);
}

/**
 * The text of a run: the pieces' own texts with the source between them.
 * `parts`, when given, receives where each piece's text sits in it (for TokenIndex.countJoined).
 */
export function runText(run: Piece[], source: string, parts?: JoinedPart[]): string {
  let text = '';
  for (let i = 0; i < run.length; i++) {
    const p = run[i]!;
    if (i > 0) {
      const prev = run[i - 1]!;
      const gap = source.slice(prev.end, p.start);
      // Parts of one code line too long for the cap each carry their own
      // fences; the space between them in the source would put a closing and
      // an opening fence on one line, which is no fence at all.
      // Nor may indentation before a rebuilt part (a piece of a line cut
      // after its leading spaces) push its fence into an indented code block.
      const joint = p.rebuiltText !== null ? gap.replace(/[ \t]+$/, '') : gap;
      text += (prev.rebuiltText !== null || p.rebuiltText !== null) && !/[\r\n]/.test(joint) ? '\n' : joint;
    }
    parts?.push({ at: text.length, start: p.start, end: p.end, text: p.rebuiltText });
    text += p.rebuiltText ?? source.slice(p.start, p.end);
  }
  return text;
}
