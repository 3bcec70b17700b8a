/**
 * Retrieval: full-text (FTS5 with BM25), vector (cosine over the packed matrix) and their
 * fusion by reciprocal rank (RRF, Cormack et al. 2009: score = Σ 1 / (60 + rank)). RRF needs
 * no score calibration between BM25 and cosine, which live on unrelated scales.
 */
import type Database from 'better-sqlite3';
import { bm25DocumentTerms, bm25QueryTerms, bm25Terms, cjkRuns, cutCjkTerms, hasCjk, onlyCjkWords as onlyCjkWordsOf } from '@chunkyard/retrieval';
import type { SearchFilters } from './types.js';
import type { IndexedUnit } from './vector-index.js';

type DB = Database.Database;

export const RRF_K = 60;

export interface RankedId {
  unitId: string;
  score: number;
}

/**
 * How many words of a query full-text search takes (the first ones), counted as FTS5 reads them.
 * FTS5 evaluates an OR of n words in time quadratic in n: 24,000 took 0.9 s, and a 1.6 MB
 * search_docs query of 200,000 distinct words held the MCP server for 190 s (issue 15 probe).
 * A question has tens of words; BM25 gains nothing from the thousandth.
 */
export const FTS_MAX_WORDS = 256;

/**
 * The characters of a query word (`[\p{L}\p{N}_]`) at which FTS5's unicode61 tokenizer splits
 * it: `_`, and the letters its Unicode tables (older than Node's) do not hold. A word holding
 * them is a phrase of several FTS5 words; `search.test.ts` checks this class against SQLite.
 */
export const FTS5_SPLITS = /[_\u19b0-\u19c0\u19c8\u19c9\u1cf2\u1cf3]/;

/**
 * `word` cut after its first `room` FTS5 words, and how many it keeps (at least 1, so that a word
 * of separators alone still counts). The cap counts these, not query words: one word
 * `a_a_…_a` is a phrase of that many words, and FTS5 walks the whole position list of `a` once
 * per word of the phrase, so a 80 KB phrase over a 320 KB store took 17 s and 630 MB, and the
 * time grew with the phrase times the store (issue 15).
 */
function ftsWords(word: string, room: number): { kept: string; count: number } {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < word.length; i++) {
    if (FTS5_SPLITS.test(word[i]!)) {
      inWord = false;
    } else if (!inWord) {
      inWord = true;
      if (count === room) return { kept: word.slice(0, i), count };
      count++;
    }
  }
  return { kept: word, count: Math.max(count, 1) };
}

/**
 * The user's words as an FTS5 query: each word quoted (so `AND`, `-`, `:` or `*` in the
 * query are text, not syntax) and OR-ed, letting BM25 rank documents matching more words
 * first; the first FTS_MAX_WORDS words as FTS5 reads them (`snake_case` is a phrase of two),
 * the last phrase cut to the words left. Words the routed hybrid's BM25 has no term for (the
 * local model's English stop words) are left out, as PostgreSQL's and MySQL's full-text search
 * leave theirs out: "the" is in nearly every chunk, so `how do I` OR-ed ranked the whole store
 * by how often it says "the", "do" and "i", and padded any query's tail with chunks that shared
 * only such a word with it. null when no word is left (see queryWithoutWords).
 */
export function ftsQuery(text: string): string | null {
  const words = new Set<string>();
  const skipped = new Set<string>();
  let room = FTS_MAX_WORDS;
  // One word at a time, so a query of millions stops being read at the cap.
  for (const [w] of text.toLowerCase().matchAll(/[\p{L}\p{N}_]+/gu)) {
    if (words.has(w) || skipped.has(w)) continue;
    if (isStopWord(w)) {
      skipped.add(w);
      continue;
    }
    const { kept, count } = ftsWords(w, room);
    words.add(kept);
    room -= count;
    if (room <= 0) break;
  }
  return words.size ? [...words].map((w) => `"${w}"`).join(' OR ') : null;
}

/**
 * Chinese, Japanese and Korean (CJK) text, and why it has an index of its own.
 *
 * unicode61 reads a word as a run of letters between separators, and Chinese and Japanese put
 * no space between words: "如何配置服务器" is one FTS5 word, so a query for 配置 ("configure")
 * matched nothing inside it, only a run that was exactly 配置. Korean separates words by spaces,
 * but glues particles to them (서버를 is 서버 "server" + 를), so 서버 missed 서버를.
 *
 * Chosen: overlapping bigrams (Lucene's CJKBigramFilter, the classic CJK full-text approach).
 * Every run of CJK letters is indexed as the pairs of characters it holds (如何 何配 配置 置服
 * 服务 务器) in `units_cjk`, a second FTS5 table with units_fts's rowids and its title /
 * headings / body columns; the query's runs are cut the same way and OR-ed, as its other words
 * are, so a word of any length inside a run is found and a question typed as one run (as
 * Chinese questions are) ranks the units holding most of its pairs first. A run's last
 * character is also indexed alone, so a query of one character (a prefix query, `"猫"*`) finds
 * every place it occurs: it starts a pair or ends a run.
 *
 * Rejected: FTS5's trigram tokenizer (SQLite 3.34+; this SQLite is newer) matches a query
 * term only from 3 characters, and most Chinese and Japanese words, like 配置 and 設定, are 2.
 * An extra column in units_fts: its bigrams would change every row's length, and with it
 * BM25's average length, so English rankings in a store holding CJK text would move; a table
 * of its own leaves units_fts, and every query without CJK text, exactly as before.
 *
 * A run of CJK letters (cjkRuns, hasCjk) is retrieval's (cjk-terms.ts), which the routed BM25
 * cuts too, so both searches read the same runs.
 */

/** The tokens a CJK run is indexed as: its overlapping pairs, then its last character alone. */
function runTokens(run: string): string[] {
  const chars = [...run];
  const tokens: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) tokens.push(chars[i]! + chars[i + 1]!);
  tokens.push(chars[chars.length - 1]!);
  return tokens;
}

/**
 * What `text` puts in units_cjk: the tokens of its CJK runs, space-separated ('' when it has
 * none). Each run's pairs are consecutive tokens; no pair spans two runs.
 */
export function cjkTerms(text: string): string {
  if (!hasCjk(text)) return '';
  const out: string[] = [];
  for (const [run] of cjkRuns(text)) out.push(...runTokens(run));
  return out.join(' ');
}

/**
 * The CJK runs of a query as a units_cjk query: each run's distinct pairs, quoted and OR-ed (a
 * run's last character alone is not asked for: the pair holding it is), and a run of one
 * character as a prefix query (it matches the pairs it starts and the runs it ends). At most FTS_MAX_WORDS of them, for the reason that caps ftsQuery. null without CJK text.
 */
export function cjkQuery(text: string): string | null {
  if (!hasCjk(text)) return null;
  const terms = new Set<string>();
  for (const [run] of cjkRuns(text)) {
    // Pair by pair, so a query of one run of millions stops being read at the cap.
    let last = '';
    for (const c of run) {
      if (last !== '') terms.add(`"${last}${c}"`);
      if (terms.size === FTS_MAX_WORDS) return [...terms].join(' OR ');
      last = c;
    }
    // A run of one character (which may be two UTF-16 units): the character as a prefix.
    if (last === run) terms.add(`"${run}"*`);
    if (terms.size === FTS_MAX_WORDS) break;
  }
  return [...terms].join(' OR ');
}

/**
 * The routed BM25's terms (routes.ts) of CJK text. Its terms are retrieval's bm25Terms, the
 * local model's words, stored at ingest: they keep a run of CJK letters whole (如何配置服务器
 * is one term, as it is one word to the local model's vectors), so 配置 scored 0 inside it and
 * the default search did not find it. The stored terms stay as they are (every store since
 * schema 3 holds them, and the local model's vectors and simhash read the same words); each
 * term holding a CJK letter is cut when the route reads it, so an old store finds the word
 * too, without being ingested again: in a document each character of a run and its
 * overlapping pairs, in a query its pairs only (a run of one character, the character). The
 * cut is retrieval's (cjk-terms.ts: cutCjkTerms, bm25DocumentTerms, bm25QueryTerms), which
 * docs-query's BM25 reads with, so both search a run alike. A term without CJK letters is
 * unchanged, so a text without any has exactly the terms it had.
 */

/** Stored terms (ingest's routeTerms, space-separated) as the route reads them: routeDocumentTerms of the text they came from. */
export function routeStoredTerms(stored: string): string {
  return hasCjk(stored) ? cutCjkTerms(stored.split(' '), 'document').join(' ') : stored;
}

/** A document's terms in the routed BM25 (retrieval's bm25DocumentTerms: bm25Terms with CJK runs cut). */
export function routeDocumentTerms(text: string): string[] {
  return bm25DocumentTerms(text);
}

/**
 * Whether every word the local model reads in `query` holds a CJK letter, and there is one
 * (retrieval's onlyCjkWords): the route then leaves the local model's cosines out of the sum.
 */
export function onlyCjkWords(query: string): boolean {
  return onlyCjkWordsOf(query);
}

/** A query's terms in the routed BM25 (retrieval's bm25QueryTerms: bm25Terms with CJK runs cut into pairs). */
export function routeQueryTerms(text: string): string[] {
  return bm25QueryTerms(text);
}

/**
 * A query word (lower case) that search skips: one with a letter or digit that the routed BM25
 * (retrieval's bm25Terms, the local model's words) has no term for, i.e. an English stop word
 * (`the`, `how`, `don`, `t`). `snake_case` words are kept whole however they begin (`the_app`).
 */
function isStopWord(word: string): boolean {
  return HAS_LETTER.test(word) && bm25Terms(word).length === 0;
}
const HAS_LETTER = /[\p{L}\p{N}]/u;

/**
 * Why `text` gives search no word to match, or null when it has one: it holds no letter or
 * digit (`?!`, an emoji, NUL), or only stop words (`the`, `how do I`). Full-text search then
 * matches nothing, and under the local model neither do vector and routed search (the query
 * embeds to a zero vector), so an empty result says this instead of "no results", which read
 * as if the docs did not cover the question. Stops at the first word that is not a stop word.
 */
export function queryWithoutWords(text: string): string | null {
  const stop: string[] = [];
  for (const [w] of text.toLowerCase().matchAll(/[\p{L}\p{N}_]+/gu)) {
    // `_` alone is no word (FTS5 reads it as nothing).
    if (!HAS_LETTER.test(w)) continue;
    if (!isStopWord(w)) return null;
    if (stop.length <= 5 && !stop.includes(w)) stop.push(w);
  }
  if (stop.length === 0) return 'the query holds no word to search for (no letter or digit); give the words to search for';
  const named = stop.slice(0, 5).map((w) => JSON.stringify(w)).join(', ') + (stop.length > 5 ? ', …' : '');
  return `every word of the query is a stop word (${named}: words nearly every text holds, which the search skips); give the words that name what you are looking for`;
}

/**
 * `value` without the slashes it ends with: `value.replace(/\/+$/, '')` in linear time. That
 * backtracked quadratically over a run of slashes not at the end, once per stored topic: an
 * MCP search_docs topic of 160,000 slashes and a letter took 11 s (issue 15).
 */
export function withoutTrailingSlashes(value: string): string {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 0x2f) end--;
  return value.slice(0, end);
}

/**
 * Matches a stored topic path against a filter: the whole path, or its trailing segment(s),
 * both in Unicode NFC. A folder name from macOS is NFD (e + U+0301) and a typed one NFC
 * (U+00E9): "café" missed "docs/café", and the message listed a topic that looked the same.
 */
export function topicMatches(stored: string | null, wanted: string): boolean {
  if (stored === null) return false;
  const s = stored.normalize('NFC');
  const w = withoutTrailingSlashes(wanted).normalize('NFC');
  return s === w || s.endsWith(`/${w}`);
}

export function acceptsUnit(filters: SearchFilters): ((u: IndexedUnit) => boolean) | undefined {
  const { topic, contentType, contentHints } = filters;
  if (topic === undefined && contentType === undefined && !contentHints?.length) return undefined;
  const hints = contentHints?.length ? new Set<string>(contentHints) : null;
  // Once per stored topic, not per unit: the match normalizes both.
  const topicSeen = new Map<string | null, boolean>();
  const topicOk = (t: string | null): boolean => {
    let ok = topicSeen.get(t);
    if (ok === undefined) topicSeen.set(t, (ok = topicMatches(t, topic!)));
    return ok;
  };
  return (u) =>
    (topic === undefined || topicOk(u.topic)) &&
    (contentType === undefined || u.artifactType === contentType) &&
    (hints === null || hints.has(u.contentHints));
}

/**
 * BM25 over title (×4), headings (×2) and body; best first, score = -bm25 (higher is better).
 * A query holding CJK text also searches units_cjk (see cjkTerms), and a unit's score is then
 * the sum of its BM25 in both tables (each a sum over the query's terms, so the sum is too); a
 * query without CJK text runs the same statement as before units_cjk existed. A store of
 * schema 3 or older opened read-only has no units_cjk: its search is the one it had.
 */
export function searchFts(db: DB, text: string, filters: SearchFilters, limit: number): RankedId[] {
  const match = ftsQuery(text);
  if (!match || limit <= 0) return [];
  const where: string[] = [];
  const params: Record<string, unknown> = { match, limit };
  if (filters.topic !== undefined) {
    // The stored topics topicMatches takes (SQL has no Unicode normalization), as a list.
    const wanted = filters.topic;
    const stored = (db.prepare('SELECT DISTINCT topic FROM artifacts WHERE topic IS NOT NULL').all() as { topic: string }[]).map((r) => r.topic);
    where.push('topic IN (SELECT value FROM json_each(@topics))');
    params.topics = JSON.stringify(stored.filter((t) => topicMatches(t, wanted)));
  }
  if (filters.contentType !== undefined) {
    where.push('artifact_type = @contentType');
    params.contentType = filters.contentType;
  }
  if (filters.contentHints?.length) {
    // One variable per distinct hint: one per entry made a list of 40,000 copies of "code" from
    // an MCP client fail with "too many SQL variables" (issue 15 probe), where the filter is a set.
    const names = [...new Set(filters.contentHints)].map((h, i) => {
      params[`hint${i}`] = h;
      return `@hint${i}`;
    });
    where.push(`content_hints IN (${names.join(', ')})`);
  }
  const cjk = cjkQuery(text);
  if (cjk !== null && hasCjkIndex(db)) params.cjk = cjk;
  const sql =
    params.cjk === undefined
      ? `SELECT unit_id AS unitId, bm25(units_fts, 4.0, 2.0, 1.0) AS rank FROM units_fts WHERE ${['units_fts MATCH @match', ...where].join(' AND ')} ORDER BY rank, rowid LIMIT @limit`
      : `WITH hits (hit, score) AS (
           SELECT rowid, bm25(units_fts, 4.0, 2.0, 1.0) FROM units_fts WHERE units_fts MATCH @match
           UNION ALL
           SELECT rowid, bm25(units_cjk, 4.0, 2.0, 1.0) FROM units_cjk WHERE units_cjk MATCH @cjk
         ), summed (hit, total) AS (SELECT hit, sum(score) FROM hits GROUP BY hit)
         SELECT unit_id AS unitId, total AS rank FROM summed JOIN units_fts ON units_fts.rowid = summed.hit
         ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY total, hit LIMIT @limit`;
  const rows = db.prepare(sql).all(params) as { unitId: string; rank: number }[];
  return rows.map((r) => ({ unitId: r.unitId, score: -r.rank }));
}

/** Whether the store has units_cjk (schema 4): a reader may have a store of an older schema open. */
function hasCjkIndex(db: DB): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'units_cjk'").get() !== undefined;
}

/** Reciprocal rank fusion of ranked lists; ties broken by the best single rank, then id. */
export function fuseRrf(lists: readonly RankedId[][], k = RRF_K): { unitId: string; score: number; ranks: number[] }[] {
  const fused = new Map<string, { score: number; ranks: number[] }>();
  lists.forEach((list, li) =>
    list.forEach((hit, i) => {
      const entry = fused.get(hit.unitId) ?? { score: 0, ranks: lists.map(() => 0) };
      entry.score += 1 / (k + i + 1);
      entry.ranks[li] = i + 1;
      fused.set(hit.unitId, entry);
    }),
  );
  const best = (ranks: number[]) => Math.min(...ranks.filter((r) => r > 0));
  return [...fused]
    .map(([unitId, e]) => ({ unitId, ...e }))
    .sort((a, b) => b.score - a.score || best(a.ranks) - best(b.ranks) || (a.unitId < b.unitId ? -1 : a.unitId > b.unitId ? 1 : 0));
}
