// The two retrieval routes `npm run eval` can switch on for our rows (issue 17).

/** @typedef {{ corpusId: string, start: number, end: number }} Span */

/**
 * Small-to-big at query time: walking down the ranking, a span that touches a unit already
 * returned (gap of at most 2 characters, same corpus) extends that unit instead of taking a
 * slot; the walk stops at the first span that would open unit k + 1.
 * @param {readonly Span[]} ranked best first
 * @param {number} k
 * @returns {Span[]}
 */
export function mergeAdjacent(ranked, k) {
  /** @type {Span[]} */
  const units = [];
  for (const s of ranked) {
    const u = units.find((x) => x.corpusId === s.corpusId && s.start <= x.end + 2 && s.end >= x.start - 2);
    if (u) {
      u.start = Math.min(u.start, s.start);
      u.end = Math.max(u.end, s.end);
    } else if (units.length < k) units.push({ ...s });
    else break;
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
