// Hand-written question sets name their answers by quoting the corpus (eval/dotnet-docs/
// questions.json), not by offsets, so a person can write and review them. This turns each
// quote into a character range, and refuses a quote that is missing or ambiguous, since a
// reference must point at exactly one place.

/** @param {string} s */
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The one range of `corpus` that `excerpt` quotes: verbatim, or else with any run of
 * whitespace standing for any other (a quote copied across a line break or a table's
 * padding). Throws when the quote is absent or occurs more than once.
 * @param {string} corpus
 * @param {string} excerpt
 * @returns {{ start: number, end: number }}
 */
export function locateExcerpt(corpus, excerpt) {
  const text = excerpt.trim();
  if (!text) throw new Error('empty excerpt');
  const at = corpus.indexOf(text);
  if (at !== -1) {
    if (corpus.indexOf(text, at + 1) !== -1) throw new Error(`excerpt occurs more than once: "${text.slice(0, 60)}"`);
    return { start: at, end: at + text.length };
  }
  const re = new RegExp(text.split(/\s+/).map(escape).join('\\s+'), 'g');
  const hits = [...corpus.matchAll(re)];
  if (hits.length === 0) throw new Error(`excerpt not found: "${text.slice(0, 60)}"`);
  if (hits.length > 1) throw new Error(`excerpt occurs more than once: "${text.slice(0, 60)}"`);
  const hit = /** @type {RegExpMatchArray} */ (hits[0]);
  const start = hit.index ?? 0;
  return { start, end: start + hit[0].length };
}

/** @typedef {{ id: string, text: string, corpusId: string, references: { start: number, end: number }[] }} Question */

/**
 * Questions in the Chroma shape ({id, text, corpusId, references}) from quoted ones.
 * @param {{ corpus: string, question: string, excerpts: string[] }[]} items
 * @param {ReadonlyMap<string, string>} corpora
 * @param {string} file for messages
 * @returns {Question[]}
 */
export function questionsFromQuotes(items, corpora, file) {
  return items.map((item, i) => {
    const where = `${file}: question ${i + 1}`;
    const corpus = corpora.get(item.corpus);
    if (corpus === undefined) throw new Error(`${where}: unknown corpus "${item.corpus}"`);
    if (!item.question?.trim()) throw new Error(`${where}: empty question`);
    if (!Array.isArray(item.excerpts) || item.excerpts.length === 0) throw new Error(`${where}: no excerpts`);
    const references = item.excerpts.map((e, j) => {
      try {
        return locateExcerpt(corpus, e);
      } catch (err) {
        throw new Error(`${where}, excerpt ${j + 1}: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
    return { id: String(i), text: item.question.trim(), corpusId: item.corpus, references };
  });
}
