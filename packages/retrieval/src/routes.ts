/**
 * Retrieval routes (issue 17), the pure stages `search()` runs after ranking by default:
 *
 *   windowScores  each chunk also scored on its window (the chunks within ±R of it, same
 *                 document), added to its own score: a chunk whose neighbours talk about the
 *                 question ranks higher, while the chunk returned stays small
 *   mergeHits     small-to-big: walking down the ranking, a hit next to a unit already taken
 *                 joins it instead of taking a slot; past rank n a hit counts only when it
 *                 scores ≥ gate × the best, for joining and (gateOpen) for opening a unit
 *   trimSegments  a returned unit loses the sentences at its edges that share fewer than
 *                 `min` terms with the question
 *
 * Chosen by `npm run eval` (eval/README.md, "Fourth round"): with no-overlap 16/80/512 chunks
 * and tf-idf they reach recall ≥ Recursive 400/200 and IoU ≥ 1.2 × Recursive 200/0 on Chroma
 * (held-out half included) and on the docs set. The same code as tools/eval/routes.mjs's
 * `mergeRanked` (bridge 0) and `trimUnit`, over chunk indices instead of character spans.
 */
import { Bm25Index, checkCosineWeight, fuseMaxNormalised, type Bm25Options } from './hybrid.js';
import { checkCount, cosine, shownValue } from './similarity.js';

/** One window score: the chunks within ±radius, weighted `weight` in the fusion. */
export interface WindowScore {
  weight: number;
  radius: number;
}

/** The eval's `--window-score 1+1@2`. */
export const DEFAULT_WINDOWS: readonly WindowScore[] = [
  { weight: 1, radius: 1 },
  { weight: 1, radius: 2 },
];

/** The eval's `--bm25-k1 0.6`: a repeated term saturates sooner, so small chunks are not outscored by repeats. */
export const DEFAULT_ROUTE_BM25: Readonly<Bm25Options> = { k1: 0.6 };

/**
 * The widest window a route score takes (±32 chunks). A window's work grows with its width
 * (each chunk's window is summed, its text joined), so a radius of a million made one query
 * quadratic in a document's chunks; a window that wide is no longer a chunk's context anyway.
 */
export const MAX_WINDOW_RADIUS = 32;

/**
 * What is wrong with a window score, or null (docs-store's routes check the same). A weight of
 * Infinity passed `weight >= 0` and made every fused score Infinity or NaN.
 */
export function windowProblem(w: WindowScore): string | null {
  if (Number.isFinite(w.weight) && w.weight >= 0 && Number.isInteger(w.radius) && w.radius >= 1 && w.radius <= MAX_WINDOW_RADIUS) return null;
  // shownValue: a string "3" (JSON, a CLI) was shown as `radius 3`, as if 3 were refused.
  return `a window score needs a finite weight ≥ 0 and an integer radius from 1 to ${MAX_WINDOW_RADIUS}, got weight ${shownValue(w.weight)}, radius ${shownValue(w.radius)}`;
}

/** What is wrong with BM25's k1, or null: a finite number ≥ 0 (Infinity or NaN made every BM25 score 0 or NaN). */
export function bm25K1Problem(k1: number): string | null {
  return Number.isFinite(k1) && k1 >= 0 ? null : `BM25 needs a finite k1 ≥ 0, got ${shownValue(k1)}`;
}

function checkWindows(windows: readonly WindowScore[]): void {
  for (const w of windows) {
    const problem = windowProblem(w);
    if (problem !== null) throw new RangeError(problem);
  }
}

/**
 * Half-open ranges [start, end) of items that belong to the same document: `group(i)` must
 * be equal for consecutive items of one document (items in document order within each).
 */
function runs(n: number, group: (i: number) => string): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  for (let i = 1; i <= n; i++) {
    if (i === n || group(i) !== group(start)) {
      if (i > start) out.push([start, i]);
      start = i;
    }
  }
  return out;
}

/**
 * Each chunk's window text: the chunks within ±radius of it in the same document, in order,
 * joined by blank lines, with the chunk's own `embed` text in its place and its neighbours'
 * `text` (what the eval's `windowTexts` does).
 */
export function windowTexts(items: readonly { group: string; text: string; embed: string }[], radius: number): string[] {
  checkWindows([{ weight: 0, radius }]);
  const out: string[] = new Array<string>(items.length);
  for (const [a, b] of runs(items.length, (i) => items[i]!.group)) {
    for (let i = a; i < b; i++) {
      const parts: string[] = [];
      for (let j = Math.max(a, i - radius); j <= Math.min(b - 1, i + radius); j++) parts.push(j === i ? items[i]!.embed : items[j]!.text);
      out[i] = parts.join('\n\n');
    }
  }
  return out;
}

/**
 * Each chunk's window vector: the sum of the vectors of the chunks within ±radius of it in the
 * same document. Why a sum and not the window's text embedded: the window texts are not in
 * any cache, and embedding them would call a remote embedder once per chunk per query; for a
 * bag-of-words embedder the sum points where the joined text's vector points.
 */
export function windowVectors(items: readonly { group: string; vector: Float32Array }[], radius: number): Float32Array[] {
  checkWindows([{ weight: 0, radius }]);
  const out: Float32Array[] = new Array<Float32Array>(items.length);
  for (const [a, b] of runs(items.length, (i) => items[i]!.group)) {
    for (let i = a; i < b; i++) {
      const v = new Float32Array(items[i]!.vector.length);
      for (let j = Math.max(a, i - radius); j <= Math.min(b - 1, i + radius); j++) {
        const u = items[j]!.vector;
        for (let d = 0; d < v.length && d < u.length; d++) v[d]! += u[d]!;
      }
      out[i] = v;
    }
  }
  return out;
}

export interface RouteScored {
  /** Own-text similarity and BM25, each max-normalised, plus every window's the same way (the ranking key). */
  fused: Float64Array;
  /** Own-text cosine + BM25, each max-normalised (0..2; cosine alone without BM25). */
  own: Float64Array;
  similarity: Float64Array;
  bm25: Float64Array;
}

/**
 * Score fusion over a collection: cosine similarity of each chunk (and with `bm25` its BM25
 * score over the chunks' texts), then for each window the same scores of the chunk's window,
 * every list divided by its maximum and weighted (own text 1, a window its weight; each cosine
 * list also times `cosineWeight`, default 1, see HybridOptions).
 */
export function windowScores(
  query: string,
  queryVector: Float32Array,
  items: readonly { group: string; vector: Float32Array; embed: string; text: string }[],
  options: { windows?: readonly WindowScore[]; bm25?: Bm25Options | false; cosineWeight?: number } = {},
): RouteScored {
  const windows = options.windows ?? DEFAULT_WINDOWS;
  checkWindows(windows);
  const cosineWeight = checkCosineWeight(options.cosineWeight ?? 1);
  const bm25Options = options.bm25 === undefined ? DEFAULT_ROUTE_BM25 : options.bm25;
  const k1Problem = bm25Options === false || bm25Options.k1 === undefined ? null : bm25K1Problem(bm25Options.k1);
  if (k1Problem !== null) throw new RangeError(k1Problem);
  const similarity = Float64Array.from(items, (it) => cosine(queryVector, it.vector));
  const bm25 = bm25Options === false ? new Float64Array(items.length) : new Bm25Index(items.map((it) => it.embed), bm25Options).scores(query);
  const ownLists = [{ scores: similarity, weight: cosineWeight }, ...(bm25Options === false ? [] : [{ scores: bm25, weight: 1 }])];
  const lists = [...ownLists];
  for (const w of windows) {
    if (w.weight === 0) continue;
    const vs = windowVectors(items, w.radius);
    lists.push({ scores: Float64Array.from(vs, (v) => cosine(queryVector, v)), weight: w.weight * cosineWeight });
    if (bm25Options !== false) lists.push({ scores: new Bm25Index(windowTexts(items, w.radius), bm25Options).scores(query), weight: w.weight });
  }
  return { fused: fuseMaxNormalised(lists), own: fuseMaxNormalised(ownLists), similarity, bm25 };
}

// ---------------------------------------------------------------------------------------------

export interface MergeOptions {
  /** How many ranks the walk looks at (default 30). */
  depth?: number;
  /** Past rank n, a hit counts only when it scores ≥ gate × the best (default 0.65; 0: every hit). */
  gate?: number;
  /** The gate also applies to a hit that would open a unit (default true), so fewer than n units may come back. */
  gateOpen?: boolean;
  /** The walk goes on past the hit that would open unit n + 1, taking hits that join a unit (default true). */
  fill?: boolean;
}

export const DEFAULT_MERGE: Readonly<Required<MergeOptions>> = { depth: 30, gate: 0.65, gateOpen: true, fill: true };

export interface RankedHit {
  /** The document the chunk is in; only chunks of one document merge. */
  group: string;
  /** The chunk's index in its document. */
  index: number;
  score: number;
}

/** A run of adjacent chunks of one document, first..last inclusive. */
export interface Unit {
  group: string;
  first: number;
  last: number;
  /** The hit that opened it (its rank decides the unit's place). */
  opener: number;
  /** How many hits it took in. */
  hits: number;
}

/**
 * Small-to-big over a ranking, best first: a hit that touches a unit (same document, index
 * within 1 of it) joins it, and a unit that grew takes in any unit it now touches; otherwise
 * the hit opens a unit while there are fewer than `n`. Past rank `n`, a hit with a score below
 * `gate` × the first hit's is skipped when it would join (and with `gateOpen` when it would
 * open). Units come back in the order they were opened; they never overlap or touch.
 */
export function mergeHits(ranked: readonly RankedHit[], n: number, options: MergeOptions = {}): Unit[] {
  const { depth, gate, gateOpen, fill } = { ...DEFAULT_MERGE, ...options };
  // checkCount: Number.isInteger took 1e300 and 2^53 (harmless here, the walk stops at the
  // ranking's end, but refused everywhere else), and showed a string "3" as `got 3`.
  checkCount('n', n);
  checkCount('merge depth', depth);
  // A number: a string "0.5" passed the comparisons (coerced) and was taken.
  if (!(typeof gate === 'number' && gate >= 0 && gate <= 1)) throw new RangeError(`merge gate must be in [0, 1], got ${shownValue(gate)}`);
  const best = ranked[0]?.score ?? 0;
  // Each chunk a unit covers, by document, points at that unit (or at one merged into another
  // since: `into`). Looking units up among all of them per hit was quadratic in n: -n 100000
  // over a large collection spent about 20 s here, and a larger n through the API minutes.
  type Live = Unit & { into?: Live };
  const opened: Live[] = [];
  const covered = new Map<string, Map<number, Live>>();
  let open = 0;
  const current = (u: Live): Live => {
    let r = u;
    while (r.into) r = r.into;
    for (let at = u; at.into && at.into !== r; ) {
      const next = at.into;
      at.into = r;
      at = next;
    }
    return r;
  };
  const unitAt = (group: string, index: number): Live | undefined => {
    const u = covered.get(group)?.get(index);
    return u && current(u);
  };
  const cover = (u: Live, index: number) => {
    let m = covered.get(u.group);
    if (!m) covered.set(u.group, (m = new Map()));
    m.set(index, u);
  };
  for (let rank = 0; rank < ranked.length && rank < Math.max(depth, n); rank++) {
    const s = ranked[rank]!;
    const weak = rank >= n && gate > 0 && !(s.score >= gate * best);
    // Units never touch, so the one a hit touches covers its chunk or a neighbour.
    const u = unitAt(s.group, s.index) ?? unitAt(s.group, s.index - 1) ?? unitAt(s.group, s.index + 1);
    if (weak && (u || gateOpen)) continue;
    if (u) {
      u.first = Math.min(u.first, s.index);
      u.last = Math.max(u.last, s.index);
      u.hits++;
      cover(u, s.index);
      // A unit that grew may now touch another, one on either side: the other joins it.
      for (const o of [unitAt(u.group, u.first - 1), unitAt(u.group, u.last + 1)]) {
        if (!o || o === u) continue;
        u.first = Math.min(u.first, o.first);
        u.last = Math.max(u.last, o.last);
        u.hits += o.hits;
        u.opener = Math.min(u.opener, o.opener);
        o.into = u;
        open--;
      }
    } else if (open < n) {
      const unit: Live = { group: s.group, first: s.index, last: s.index, opener: rank, hits: 1 };
      opened.push(unit);
      cover(unit, s.index);
      open++;
    } else if (!fill) break;
  }
  return opened
    .filter((u) => !u.into)
    .map(({ group, first, last, opener, hits }): Unit => ({ group, first, last, opener, hits }))
    .sort((a, b) => a.opener - b.opener);
}

// ---------------------------------------------------------------------------------------------

/** One chunk's text in a unit (overlap with the chunk before already left out). */
export interface Segment {
  index: number;
  text: string;
}

/** Where the sentences (or paragraphs) of `text` start: 0, then after each `. ` / blank line. */
function sentenceParts(text: string): [number, number][] {
  const cuts = [0];
  for (const m of text.matchAll(/[.!?]["')\]]?\s+|\n\s*\n/g)) cuts.push((m.index ?? 0) + m[0].length);
  cuts.push(text.length);
  const parts: [number, number][] = [];
  for (let i = 0; i + 1 < cuts.length; i++) if (cuts[i + 1]! > cuts[i]!) parts.push([cuts[i]!, cuts[i + 1]!]);
  return parts;
}

/**
 * Edge trimming of a unit: its sentences, across its segments, at either edge that share
 * fewer than `min` distinct terms with the question are dropped. When no sentence shares
 * that many, or there is one sentence, the unit stays whole. What is kept is a contiguous run
 * of segments, the first cut at a sentence start and the last at a sentence end, each a slice
 * of its input text, never empty (segments left with no text are dropped at the edges).
 * `terms` reads the question, `sentenceTerms` (default `terms`) each sentence: search() gives
 * bm25QueryTerms and bm25DocumentTerms, BM25's two sides, so a sentence holding a CJK word
 * inside a run shares its pairs, and one holding a character asked for alone shares it.
 */
export function trimSegments(
  segments: readonly Segment[],
  question: string,
  min: number,
  terms: (text: string) => string[],
  sentenceTerms: (text: string) => string[] = terms,
): Segment[] {
  checkCount('trim', min);
  const whole = segments.filter((s) => s.text.length > 0).map((s) => ({ ...s }));
  if (min === 0) return whole;
  const q = new Set(terms(question));
  const parts: { seg: number; a: number; b: number; hit: boolean }[] = [];
  whole.forEach((s, seg) => {
    for (const [a, b] of sentenceParts(s.text)) parts.push({ seg, a, b, hit: new Set(sentenceTerms(s.text.slice(a, b)).filter((w) => q.has(w))).size >= min });
  });
  if (parts.length < 2 || !parts.some((p) => p.hit)) return whole;
  let lo = 0;
  let hi = parts.length - 1;
  while (lo < hi && !parts[lo]!.hit) lo++;
  while (hi > lo && !parts[hi]!.hit) hi--;
  const first = parts[lo]!;
  const last = parts[hi]!;
  const out: Segment[] = [];
  for (let seg = first.seg; seg <= last.seg; seg++) {
    const s = whole[seg]!;
    const a = seg === first.seg ? first.a : 0;
    const b = seg === last.seg ? last.b : s.text.length;
    out.push({ index: s.index, text: s.text.slice(a, b) });
  }
  return out;
}
