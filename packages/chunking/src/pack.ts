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
import type { DraftChunk, HeadingRef, Piece } from './pieces.js';
import { countTokens, type TokenIndex } from './tokens.js';

export interface PackContext {
  source: string;
  tokens: TokenIndex;
  minTokens: number;
  targetTokens: number;
  budget(path: HeadingRef[]): number;
  /** A heading piece that must start a chunk; none when absent. */
  opensChunk?(piece: Piece): boolean;
}

export function pack(pieces: Piece[], ctx: PackContext): DraftChunk[] {
  const runs: Run[] = [];
  let cur: Run | null = null;
  const sectionEnds = sectionEndIndexes(pieces);
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    // Tokens of the current run with this piece appended, when still valid.
    let joined = -1;
    if (cur) {
      joined = tokensWith(cur, piece, ctx);
      const forced = opens(piece, ctx) && !cur.pieces.every(isHeading);
      if (forced || shouldClose(cur, piece, joined, ctx, () => tokensOf([...cur!.pieces, ...pieces.slice(i, sectionEnds[i])], ctx))) {
        // The bare headings that end the run move to the next one (one slice: popping them one
        // by one onto the front of an array was quadratic in a run of hundreds of headings).
        let cut = cur.pieces.length;
        while (cut > 1 && isHeading(cur.pieces[cut - 1]!)) cut--;
        const carry: Piece[] = cur.pieces.slice(cut);
        cur.pieces.length = cut;
        if (carry.length) cur = makeRun(cur.pieces, ctx);
        runs.push(cur);
        cur = carry.length ? makeRun(carry, ctx) : null;
        if (cur && !fits([...cur.pieces, piece], ctx)) {
          runs.push(cur);
          cur = null;
        }
        joined = -1;
      }
    }
    if (cur) {
      // Grow in place (the run owns its array): the same tokens and budget as a new run of all its pieces.
      const tokens = joined >= 0 ? joined : tokensWith(cur, piece, ctx);
      cur.pieces.push(piece);
      cur.tokens = tokens;
      cur.budget = Math.min(cur.budget, ctx.budget(piece.path));
      cur.exact = cur.exact && piece.rebuiltText === null;
    } else {
      cur = makeRun([piece], ctx);
    }
  }
  if (cur) runs.push(cur);
  return mergeSmall(runs, ctx).map((run) => ({
    pieces: run.pieces,
    start: run.pieces[0]!.start,
    end: run.pieces[run.pieces.length - 1]!.end,
    tokens: run.tokens,
    overlapChars: 0,
    overlapTokens: 0,
  }));
}

/** A run of pieces with its exact token count and budget, kept up to date as it grows. */
interface Run {
  pieces: Piece[];
  tokens: number;
  budget: number;
  /** No piece is rebuilt: the run's text is one slice of the source. */
  exact: boolean;
}

function makeRun(pieces: Piece[], ctx: PackContext): Run {
  return {
    pieces,
    tokens: tokensOf(pieces, ctx),
    budget: budgetOf(pieces, ctx),
    exact: pieces.every((p) => p.rebuiltText === null),
  };
}

/** `tokensOf([...run.pieces, piece])`, without building the array when the text is one slice. */
function tokensWith(run: Run, piece: Piece, ctx: PackContext): number {
  if (run.exact && piece.rebuiltText === null) return ctx.tokens.count(run.pieces[0]!.start, piece.end);
  return tokensOf([...run.pieces, piece], ctx);
}

/** For each heading piece, the index one past the last piece of the section it opens. */
function sectionEndIndexes(pieces: Piece[]): number[] {
  const ends = new Array<number>(pieces.length).fill(pieces.length);
  let next = pieces.length;
  for (let i = pieces.length - 1; i >= 0; i--) {
    ends[i] = next;
    if (isHeading(pieces[i]!)) next = i;
  }
  return ends;
}

/** `joined` is the run's tokens with `piece` appended. */
function shouldClose(cur: Run, piece: Piece, joined: number, ctx: PackContext, withWholeSection: () => number): boolean {
  if (joined > Math.min(cur.budget, ctx.budget(piece.path))) return true;
  if (isHeading(cur.pieces[cur.pieces.length - 1]!)) return false;
  if (cur.tokens < ctx.minTokens) return false;
  if (isHeading(piece)) return withWholeSection() > ctx.targetTokens;
  return joined > ctx.targetTokens && joined - ctx.targetTokens > ctx.targetTokens - cur.tokens;
}

function mergeSmall(runs: Run[], ctx: PackContext): Run[] {
  // The runs before the current one are a stack and the ones after it a
  // cursor into `runs`: merging is a pop or an advance, never a splice of the
  // whole list, which made thousands of tiny sections quadratic.
  const done: Run[] = [];
  let k = 1;
  let cur: Run | undefined = runs[0];
  while (cur) {
    if (done.length + 1 + (runs.length - k) <= 1 || cur.tokens >= ctx.minTokens) {
      done.push(cur);
      cur = runs[k++];
      continue;
    }
    const next = runs[k];
    const prev = done[done.length - 1];
    // Never merge into the front of a run a forced heading opens (bare headings excepted), nor that run backwards.
    const forward = next && !(opensRun(next.pieces, ctx) && !cur.pieces.every(isHeading)) ? makeRun([...cur.pieces, ...next.pieces], ctx) : null;
    if (forward && forward.tokens <= forward.budget) {
      k++;
      cur = forward;
      continue;
    }
    const backward = prev && !opensRun(cur.pieces, ctx) ? makeRun([...prev.pieces, ...cur.pieces], ctx) : null;
    if (backward && backward.tokens <= backward.budget) {
      done.pop();
      cur = backward;
      continue;
    }
    done.push(cur);
    cur = runs[k++];
  }
  return done;
}

function fits(run: Piece[], ctx: PackContext): boolean {
  return tokensOf(run, ctx) <= budgetOf(run, ctx);
}

function isHeading(piece: Piece): boolean {
  return piece.unit.type === 'heading' && !piece.splitUnit;
}

function opens(piece: Piece, ctx: PackContext): boolean {
  return ctx.opensChunk !== undefined && isHeading(piece) && ctx.opensChunk(piece);
}

/** The run starts with a forced heading, or with bare headings that lead into one. */
function opensRun(run: Piece[], ctx: PackContext): boolean {
  if (ctx.opensChunk === undefined) return false;
  for (const p of run) {
    if (opens(p, ctx)) return true;
    if (!isHeading(p)) return false;
  }
  return false;
}

/** The strictest budget of the run: its breadcrumb may come from any of its pieces' paths. */
export function budgetOf(run: Piece[], ctx: Pick<PackContext, 'budget'>): number {
  let b = Infinity;
  for (const p of run) b = Math.min(b, ctx.budget(p.path));
  return b;
}

/** Exact tokens of the text a run of pieces makes. */
export function tokensOf(run: Piece[], ctx: Pick<PackContext, 'source' | 'tokens'>): number {
  if (run.length === 1) return run[0]!.tokens;
  if (run.every((p) => p.rebuiltText === null)) return ctx.tokens.count(run[0]!.start, run[run.length - 1]!.end);
  return countTokens(runText(run, ctx.source));
}

/** The text of a run: the pieces' own texts with the source between them. */
export function runText(run: Piece[], source: string): string {
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
    text += p.rebuiltText ?? source.slice(p.start, p.end);
  }
  return text;
}
