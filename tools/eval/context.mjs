// Contextual embed text for `npm run eval -- --context MODES` (issue 17, "small returned span,
// context in what is embedded", as in Anthropic's contextual retrieval but without a model):
// each chunk's embedded text gets, within its cap, what its records say about its context.
// Everything is computed from one document's records alone, so a topic's text (and vectors)
// never depends on another topic.
//
// Modes (comma-separated, applied in this order):
//   path     the section path (headerPath joined by " > "), unless the embedText has it already
//   lead     the first sentence of the chunk's section, unless the chunk holds it
//   kw:N     the N key terms of the chunk's section (tf × idf over the document's chunks)
//   nkw:N    the N key terms of the chunks before and after it (same section) that it lacks
//   lkw:N:R  the N terms of its region (chunks within ±R, same section) found in the most of those
//            chunks (at least 2), weighed by idf over the document: the region's topic words

const WORD = /[\p{L}\p{N}_]{3,}/gu;

/**
 * @param {string} text
 * @param {ReadonlySet<string>} stop
 */
function terms(text, stop) {
  return (text.toLowerCase().match(WORD) ?? []).filter((w) => !stop.has(w) && !/^\d+$/.test(w));
}

/** @param {string} spec */
export function parseContextModes(spec) {
  /** @type {{ path: boolean, lead: boolean, kw: number, nkw: number, lkw: number, lkwRadius: number }} */
  const m = { path: false, lead: false, kw: 0, nkw: 0, lkw: 0, lkwRadius: 0 };
  for (const part of spec.split(',').filter(Boolean)) {
    const [name, n] = part.split(':');
    if (name === 'path' || name === 'lead') m[name] = true;
    else if ((name === 'kw' || name === 'nkw') && /^\d+$/.test(n ?? '')) m[name] = Number(n);
    else if (name === 'lkw' && /^\d+$/.test(n ?? '') && /^\d+$/.test(part.split(':')[2] ?? '')) {
      m.lkw = Number(n);
      m.lkwRadius = Number(part.split(':')[2]);
    }
    else throw new Error(`--context: unknown mode "${part}" (path, lead, kw:N, nkw:N)`);
  }
  return m;
}

/**
 * @param {readonly { embedText: string, originalText: string, headerPath?: readonly string[] }[]} records one document's chunks, in order
 * @param {ReturnType<typeof parseContextModes>} modes
 * @param {{ cap: number, countTokens: (t: string) => number, stopWords: ReadonlySet<string> }} env
 * @returns {string[]} the embedded text of each chunk
 */
export function contextualTexts(records, modes, env) {
  const { cap, countTokens, stopWords } = env;
  const section = records.map((r) => (r.headerPath ?? []).join(' > '));
  const bags = records.map((r) => terms(r.originalText, stopWords));
  /** @type {Map<string, number>} */
  const df = new Map();
  for (const b of bags) for (const t of new Set(b)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = records.length;
  const idf = (/** @type {string} */ t) => Math.log((1 + n) / (1 + (df.get(t) ?? 0))) + 1;
  /**
   * @param {readonly string[][]} groups
   * @param {number} k
   * @param {ReadonlySet<string>} skip
   */
  const top = (groups, k, skip) => {
    /** @type {Map<string, number>} */
    const tf = new Map();
    for (const g of groups) for (const t of g) if (!skip.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
    return [...tf]
      .map(([t, c]) => /** @type {[string, number]} */ ([t, (1 + Math.log(c)) * idf(t)]))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, k)
      .map(([t]) => t);
  };
  /** @type {Map<string, number[]>} */
  const members = new Map();
  section.forEach((s, i) => members.set(s, [...(members.get(s) ?? []), i]));
  return records.map((r, i) => {
    /** @type {string[]} */
    const extra = [];
    const own = new Set(bags[i]);
    const same = members.get(section[i] ?? '') ?? [i];
    if (modes.path && section[i] && !r.embedText.includes(section[i] ?? '')) extra.push(section[i] ?? '');
    if (modes.lead) {
      const first = records[same[0] ?? i]?.originalText ?? '';
      const lead = (/^[\s\S]*?[.!?](?=\s|$)/.exec(first.trim())?.[0] ?? first.trim()).slice(0, 300);
      if (lead && !r.originalText.includes(lead)) extra.push(lead);
    }
    if (modes.kw) extra.push(top(same.map((j) => bags[j] ?? []), modes.kw, new Set()).join(' '));
    if (modes.nkw) {
      const near = [i - 1, i + 1].filter((j) => j >= 0 && j < n && section[j] === section[i]).map((j) => bags[j] ?? []);
      extra.push(top(near, modes.nkw, own).join(' '));
    }
    if (modes.lkw) {
      /** @type {Map<string, number>} */
      const seen = new Map();
      for (let j = i - modes.lkwRadius; j <= i + modes.lkwRadius; j++) {
        if (j < 0 || j >= n || section[j] !== section[i]) continue;
        for (const t of new Set(bags[j])) seen.set(t, (seen.get(t) ?? 0) + 1);
      }
      const picked = [...seen]
        .filter(([t, c]) => c >= 2 && !own.has(t))
        .map(([t, c]) => /** @type {[string, number]} */ ([t, c * idf(t)]))
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, modes.lkw)
        .map(([t]) => t);
      extra.push(picked.join(' '));
    }
    const add = extra.filter(Boolean);
    if (!add.length) return r.embedText;
    // Within the cap: drop the last additions first, then shorten what is left word by word.
    for (let keep = add.length; keep > 0; keep--) {
      const out = `${r.embedText}\n\n${add.slice(0, keep).join('\n')}`;
      if (countTokens(out) <= cap) return out;
    }
    return r.embedText;
  });
}
