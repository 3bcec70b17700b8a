// The retrieval routes `npm run eval` can switch on for our rows (issue 17).

/** @typedef {{ corpusId: string, start: number, end: number }} Span */

/**
 * Small-to-big at query time: walking down the ranking, a span that touches a unit already
 * returned (gap of at most 2 characters, same corpus) extends that unit instead of taking a
 * slot; the walk stops at the first span that would open unit k + 1, or (`fill`) goes on to
 * the end of `ranked`, taking only spans that touch a unit (a touching span can join two units).
 * @param {readonly Span[]} ranked best first
 * @param {number} k
 * @param {boolean} [fill]
 * @returns {Span[]}
 */
export function mergeAdjacent(ranked, k, fill = false) {
  /** @type {Span[]} */
  const units = [];
  for (const s of ranked) {
    const u = units.find((x) => x.corpusId === s.corpusId && s.start <= x.end + 2 && s.end >= x.start - 2);
    if (u) {
      u.start = Math.min(u.start, s.start);
      u.end = Math.max(u.end, s.end);
    } else if (units.length < k) units.push({ ...s });
    else if (!fill) break;
  }
  return units;
}

/**
 * Context in what is embedded: `embed`, then the last words of the previous chunk and the
 * first words of the next, as many (equal shares) as keep the whole within `cap` tokens.
 * @param {string} embed
 * @param {string | undefined} prev
 * @param {string | undefined} next
 * @param {number} cap
 * @param {(text: string) => number} countTokens
 */
export function withNeighbours(embed, prev, next, cap, countTokens) {
  const room = cap - countTokens(embed) - 2;
  if (room <= 0 || (!prev && !next)) return embed;
  const pw = (prev ?? '').split(/\s+/).filter(Boolean);
  const nw = (next ?? '').split(/\s+/).filter(Boolean);
  let words = Math.floor((room * 0.7) / ((prev ? 1 : 0) + (next ? 1 : 0)));
  for (;;) {
    if (words <= 0) return embed;
    const out = `${embed}\n${pw.slice(Math.max(0, pw.length - words)).join(' ')}\n${nw.slice(0, words).join(' ')}`;
    if (countTokens(out) <= cap) return out;
    words = Math.floor(words * 0.8);
  }
}

/**
 * Each chunk's window: the chunks within ±w of it in the same corpus, in order, joined by
 * blank lines, with the chunk's own embedded text in its place (score fusion: the window is
 * scored on its own, beside the chunk, instead of being mixed into what the chunk embeds).
 * @param {readonly { corpusId: string, text: string, embed: string }[]} chunks in document order per corpus
 * @param {number} w
 * @returns {string[]}
 */
export function windowTexts(chunks, w) {
  return chunks.map((c, i) => {
    const parts = [];
    for (let j = i - w; j <= i + w; j++) {
      const d = chunks[j];
      if (d && d.corpusId === c.corpusId) parts.push(j === i ? c.embed : d.text);
    }
    return parts.join('\n\n');
  });
}

/**
 * Score fusion: the weighted sum of score lists, each divided by its own maximum first
 * (scores of different scales, BM25 and cosine, or a chunk's and its window's, then count
 * alike; a list whose maximum is not positive adds nothing).
 * @param {readonly { scores: ArrayLike<number>, weight: number }[]} lists of equal length
 * @returns {Float64Array}
 */
export function fuseScores(lists) {
  const n = lists[0]?.scores.length ?? 0;
  const out = new Float64Array(n);
  for (const { scores, weight } of lists) {
    if (scores.length !== n) throw new Error(`fuseScores: lists differ in length (${scores.length} and ${n})`);
    let max = 0;
    for (let i = 0; i < n; i++) if ((scores[i] ?? 0) > max) max = scores[i] ?? 0;
    if (!(max > 0) || weight === 0) continue;
    // Divide first: weight / max overflows for a subnormal max.
    for (let i = 0; i < n; i++) out[i] = (out[i] ?? 0) + weight * (Math.max(0, scores[i] ?? 0) / max);
  }
  return out;
}

/**
 * Indexes of the k highest scores, best first; ties to the lower index (as topK and tf-idf's search).
 * @param {ArrayLike<number>} scores
 * @param {number} k
 * @returns {number[]}
 */
export function topIndexes(scores, k) {
  const order = Array.from({ length: scores.length }, (_, i) => i);
  order.sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b);
  return order.slice(0, k);
}

/**
 * Query-time expansion by the neighbours' scores: each unit takes in the chunk just before its
 * first chunk and just after its last (same corpus) when that chunk scores at least `gate`
 * times the best score of the question.
 * @param {readonly Span[]} units
 * @param {ArrayLike<number>} scores one per span
 * @param {readonly Span[]} spans every chunk, in document order per corpus
 * @param {Map<string, number>} startAt `${corpusId}\0${start}` -> span index
 * @param {Map<string, number>} endAt `${corpusId}\0${end}` -> span index
 * @param {number} gate
 * @returns {Span[]}
 */
export function expandByScore(units, scores, spans, startAt, endAt, gate) {
  let best = 0;
  for (let i = 0; i < scores.length; i++) if ((scores[i] ?? 0) > best) best = scores[i] ?? 0;
  if (!(best > 0)) return units.map((u) => ({ ...u }));
  return units.map((u) => {
    const out = { ...u };
    const first = startAt.get(`${u.corpusId}\0${u.start}`);
    const last = endAt.get(`${u.corpusId}\0${u.end}`);
    const before = first === undefined ? undefined : spans[first - 1];
    const after = last === undefined ? undefined : spans[last + 1];
    if (first !== undefined && before && before.corpusId === u.corpusId && (scores[first - 1] ?? 0) >= gate * best) out.start = Math.min(out.start, before.start);
    if (last !== undefined && after && after.corpusId === u.corpusId && (scores[last + 1] ?? 0) >= gate * best) out.end = Math.max(out.end, after.end);
    return out;
  });
}

/**
 * Query-time trimming of a returned unit: its sentences (or paragraphs) at either edge that
 * share fewer than `min` distinct terms with the question are dropped (when none shares that
 * many, the unit stays whole).
 * The unit still starts and ends on the text's own sentence boundaries, inside its span.
 * @param {Span} u
 * @param {string} text the corpus the span indexes
 * @param {string} question
 * @param {number} min
 * @param {(text: string) => string[]} terms the ranking's terms (BM25's stems)
 * @returns {Span}
 */
export function trimUnit(u, text, question, min, terms) {
  const q = new Set(terms(question));
  const body = text.slice(u.start, u.end);
  const cuts = [0];
  for (const m of body.matchAll(/[.!?]["')\]]?\s+|\n\s*\n/g)) cuts.push((m.index ?? 0) + m[0].length);
  cuts.push(body.length);
  /** @type {[number, number][]} */
  const parts = [];
  for (let i = 0; i + 1 < cuts.length; i++) if ((cuts[i + 1] ?? 0) > (cuts[i] ?? 0)) parts.push([cuts[i] ?? 0, cuts[i + 1] ?? 0]);
  if (parts.length < 2) return { ...u };
  const hits = parts.map(([a, b]) => new Set(terms(body.slice(a, b)).filter((w) => q.has(w))).size >= min);
  // No sentence matches: nothing tells which part to keep, so the unit stays whole.
  if (!hits.some(Boolean)) return { ...u };
  let lo = 0;
  let hi = parts.length - 1;
  while (lo < hi && !hits[lo]) lo++;
  while (hi > lo && !hits[hi]) hi--;
  return { ...u, start: u.start + (parts[lo]?.[0] ?? 0), end: u.start + (parts[hi]?.[1] ?? body.length) };
}

/**
 * Small-to-big with two more knobs (fourth round, issue 17), over ranked chunks that carry
 * their index in document order:
 * - `bridge` B: a hit within B chunks of a unit (same corpus; the chunks between not yet
 *   taken) joins it, taking in the chunks between; B = 0 is `mergeAdjacent`'s touching rule.
 *   It is the structure-free form of "return the parent when several of its snippets match":
 *   two hits close together become one passage instead of two slots.
 * - `gate` G: past rank `k` a hit joins a unit only when its score is at least G times the
 *   best score of the question, so how far units grow depends on how flat the ranking is,
 *   not on a fixed depth (G = 0: every hit up to the end of `ranked`). A hit that would open
 *   a unit is not gated (k units whenever the ranking has them) unless `gateOpen`.
 * Units are returned in the order they were opened; each covers whole chunks.
 * @param {readonly (Span & { index: number, score?: number })[]} ranked best first
 * @param {number} k
 * @param {{ fill?: boolean, bridge?: number, gate?: number, gateOpen?: boolean }} [options]
 * @returns {Span[]}
 */
export function mergeRanked(ranked, k, options = {}) {
  const { fill = false, bridge = 0, gate = 0, gateOpen = false } = options;
  const best = ranked[0]?.score ?? 0;
  /** @type {(Span & { first: number, last: number })[]} */
  const units = [];
  for (const [rank, s] of ranked.entries()) {
    const weak = rank >= k && gate > 0 && !((s.score ?? 0) >= gate * best);
    const u = units.find(
      (x) => x.corpusId === s.corpusId && ((s.start <= x.end + 2 && s.end >= x.start - 2) || (s.index >= x.first - bridge - 1 && s.index <= x.last + bridge + 1)),
    );
    if (weak && (u || gateOpen)) continue;
    if (u) {
      u.start = Math.min(u.start, s.start);
      u.end = Math.max(u.end, s.end);
      u.first = Math.min(u.first, s.index);
      u.last = Math.max(u.last, s.index);
      // A unit that grew may now touch or reach another: the other joins it.
      for (let j = units.length - 1; j >= 0; j--) {
        const o = units[j];
        if (!o || o === u || o.corpusId !== u.corpusId) continue;
        if (o.first <= u.last + bridge + 1 && o.last >= u.first - bridge - 1) {
          u.start = Math.min(u.start, o.start);
          u.end = Math.max(u.end, o.end);
          u.first = Math.min(u.first, o.first);
          u.last = Math.max(u.last, o.last);
          units.splice(j, 1);
        }
      }
    } else if (units.length < k) units.push({ corpusId: s.corpusId, start: s.start, end: s.end, first: s.index, last: s.index });
    else if (!fill) break;
  }
  return units.map(({ corpusId, start, end }) => ({ corpusId, start, end }));
}
