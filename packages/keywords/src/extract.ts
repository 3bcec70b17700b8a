/**
 * KeywordExtractor: a topic's keyword authority table from its own text. Pure and
 * deterministic; the algorithm and its weights are described in ../README.md.
 */
import { stemmer } from 'stemmer';
import { scanMarkdownInto, type Context, type Occurrence, type ScanMemo } from './scan.js';
import { COMMON_WORDS, STOP_WORDS } from './words.js';
import { procliticBase } from './proclitics.js';
import { argumentError, INVISIBLE, KEYWORD_CONTROL, quoted, shownArgument } from './quote.js';

export interface KeywordEntry {
  name: string;
  /** Integer 1..10; 10 is the strongest keyword of the topic. */
  score: number;
}

export interface KeywordSource {
  /** File name, for messages only: the name does not affect the result. */
  name: string;
  text: string;
}

export interface ExtractOptions {
  /** Most entries to return (default 40). Hand-written entries are always returned, even past it. */
  max?: number;
  /** Entries that are always included with their own scores and replace extracted ones of the same name (case-insensitive). */
  handWritten?: readonly KeywordEntry[];
  /**
   * Keeps this scan of the sources for later scans of the same text, such as matching the
   * table against each chunk of the document (`new KeywordMatcher(table, memo)`). The table
   * is the same with or without it.
   */
  memo?: ScanMemo;
}

export const DEFAULT_MAX = 40;

/** Weight of one occurrence, by where it is. */
export const WEIGHTS: Readonly<Record<Context, number>> = Object.freeze({
  heading: 4, // headings, front matter title and description
  codeSpan: 3, // identifiers in inline code and DocFX <xref:…> links
  codeBlock: 1, // identifiers in fenced or indented code, once per block
  body: 1, // running text: paragraphs, list items, table cells, link text
});

/** Multipliers for very common English words (COMMON_WORDS, compared by stem). */
export const COMMON_PENALTY = Object.freeze({
  /** A one-word keyword that is a common word. */
  word: 0.25,
  /** A phrase whose words (stop words aside) are all common words. */
  phrase: 0.5,
});

/**
 * Multiplier by the number of (non-stop) words: a phrase is more specific than its words, so
 * "native aot" ranks above "native" when both occur about as often.
 */
export const PHRASE_FACTOR: Readonly<Record<number, number>> = Object.freeze({ 1: 1, 2: 1.5, 3: 1.5 });

/** A term that occurs only in running text must occur at least this often. */
export const MIN_BODY_COUNT = 2;

const COMMON_STEMS: ReadonlySet<string> = new Set(COMMON_WORDS.map((w) => stemmer(w)));
const STOP_STEMS: ReadonlySet<string> = new Set([...STOP_WORDS].map((w) => stemmer(w)));

interface Candidate {
  key: string;
  kind: Occurrence['kind'];
  words: number;
  /** Σ WEIGHTS over occurrences. */
  weight: number;
  /** Occurrences, unweighted (code blocks counted once each). */
  count: number;
  /** Seen in a heading or in code: qualifies without repetition. */
  strong: boolean;
  /**
   * How the term was written: the first surface and its count, and every surface with its
   * count once a second one is seen (null until then). A Map per candidate, where most
   * candidates have one surface, was a fifth of the time on a document of a large vocabulary.
   */
  surface: string;
  surfaceCount: number;
  surfaces: Map<string, number> | null;
}

/** Whether a candidate can rank: seen in a heading or code, or often enough in running text. */
function qualifies(c: Candidate): boolean {
  return c.strong || c.count >= MIN_BODY_COUNT;
}

/** Orders names deterministically and independently of the locale: case-insensitively, then by code units. */
export function compareNames(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

/**
 * What makes two keyword names the same name: case-insensitive, in NFC, and without the
 * characters that show as nothing and change no letter's shape (soft hyphen, zero-width space,
 * word joiner, U+FEFF, the left-to-right and right-to-left marks), so that a hand-written
 * "café" typed with a combining accent replaces the extracted "café" instead of standing
 * beside it as a second row that reads the same; and `| foo |` and `| foo<U+200B> |` in one
 * keywords.md were two rows reading "foo" (s58 probe). The joiners U+200C and U+200D stay:
 * they change how the letters or emoji beside them are drawn.
 */
export function sameNameKey(name: string): string {
  return name.replace(SHAPELESS, '').normalize('NFC').toLowerCase();
}
const SHAPELESS = /[\u00ad\u200b\u200e\u200f\u2060\ufeff]/g;

/** Score order of a keyword table: score descending, then name. */
export function compareEntries(a: KeywordEntry, b: KeywordEntry): number {
  return b.score - a.score || compareNames(a.name, b.name);
}

/** Checks hand-written entries: a non-empty name, an integer score 1..10, no name twice (case-insensitive). */
export function validateEntries(entries: readonly KeywordEntry[]): void {
  if (!Array.isArray(entries)) throw argumentError('the keyword entries', 'an array of { name, score }', entries);
  const seen = new Set<string>();
  for (const [i, e] of entries.entries()) {
    if (typeof e !== 'object' || e === null) throw argumentError(`keyword entry ${i}`, 'an object { name, score }', e);
    if (typeof e.name !== 'string' || !e.name.trim()) throw new RangeError('keyword entry with an empty name');
    if (!Number.isInteger(e.score) || e.score < 1 || e.score > 10) {
      throw new RangeError(`keyword ${quoted(e.name)}: score ${shownArgument(e.score)} is not a whole number from 1 to 10`);
    }
    const lower = sameNameKey(e.name.trim());
    if (seen.has(lower)) throw new RangeError(`keyword ${quoted(e.name)} is listed twice`);
    seen.add(lower);
  }
}

/**
 * The keyword table of a topic: at most `max` entries sorted by score (desc) then name.
 * Same sources and options in, same table out: ties are broken by name, never by input order.
 */
export function extractKeywords(sources: readonly KeywordSource[], options: ExtractOptions | null = {}): KeywordEntry[] {
  if (!Array.isArray(sources)) throw argumentError('extractKeywords: sources', 'an array of { name, text }', sources);
  for (const [i, source] of sources.entries()) {
    if (typeof source !== 'object' || source === null) throw argumentError(`extractKeywords: sources[${i}]`, 'an object { name, text }', source);
    if (typeof source.text !== 'string') throw argumentError(`extractKeywords: sources[${i}].text`, 'a string', source.text);
  }
  options ??= {};
  if (typeof options !== 'object') throw argumentError('extractKeywords: options', 'an object', options);
  const max = options.max ?? DEFAULT_MAX;
  // (`max: "3"` read "got 3", as if the number were wrong.)
  if (!Number.isInteger(max) || max < 0) throw new RangeError(`max must be a non-negative integer, got ${shownArgument(max)}`);
  const given = options.handWritten ?? [];
  if (!Array.isArray(given)) throw argumentError('extractKeywords: options.handWritten', 'an array of { name, score }', given);
  for (const [i, e] of given.entries()) {
    if (typeof e !== 'object' || e === null || typeof e.name !== 'string') throw argumentError(`extractKeywords: options.handWritten[${i}]`, 'an object { name, score } with a string name', e);
  }
  const handWritten = given.map((e) => ({ name: e.name.trim(), score: e.score }));
  validateEntries(handWritten);

  const ranked = rankCandidates(sources, options.memo);
  // A name is taken once, case-insensitively, as words.md takes it: hand-written ones first,
  // then the better-ranked of two candidates that display alike (the xref `Stack` and the word
  // "stack" are two candidates; both kept, formatWordsMd threw "listed twice").
  const taken = new Set(handWritten.map((e) => sameNameKey(e.name)));
  const extracted = ranked
    .filter((c) => {
      // Never a name words.md would refuse to read back (parseWordsMd): none is made of word
      // characters, but a generated table that topic-spec cannot read would stop the pipeline.
      if (KEYWORD_CONTROL.test(c.name) || !c.name.replace(INVISIBLE, '').trim()) return false;
      const name = sameNameKey(c.name);
      if (taken.has(name)) return false;
      taken.add(name);
      return true;
    })
    .slice(0, Math.max(0, max - handWritten.length));
  return [...handWritten, ...scoreByRank(extracted)].sort(compareEntries);
}

interface Ranked {
  name: string;
  raw: number;
}

/** Every qualifying candidate with its raw score, best first (ties by name). */
function rankCandidates(sources: readonly KeywordSource[], memo: ScanMemo | undefined): Ranked[] {
  const candidates = new Map<string, Candidate>();
  sources.forEach((source, sourceIndex) => {
    const seenInBlock = new Set<string>();
    // Counted as the scan finds them (in document order, as from scanMarkdown's array).
    const count = (o: Occurrence): void => {
      if (o.block !== undefined) {
        // A long listing repeats its names; a code block says "this name matters" once.
        const blockKey = `${sourceIndex}:${o.block}:${o.key}`;
        if (seenInBlock.has(blockKey)) return;
        seenInBlock.add(blockKey);
      }
      let c = candidates.get(o.key);
      if (!c) {
        c = { key: o.key, kind: o.kind, words: o.words, weight: 0, count: 0, strong: false, surface: o.surface, surfaceCount: 0, surfaces: null };
        candidates.set(o.key, c);
      }
      c.weight += WEIGHTS[o.context];
      c.count++;
      if (o.context !== 'body') c.strong = true;
      if (c.surfaces === null && o.surface === c.surface) c.surfaceCount++;
      else {
        c.surfaces ??= new Map([[c.surface, c.surfaceCount]]);
        c.surfaces.set(o.surface, (c.surfaces.get(o.surface) ?? 0) + 1);
      }
    };
    scanMarkdownInto(source.text, { push: count }, memo);
  });

  mergeProcliticForms(candidates);
  const inside = insideLongerPhrases(candidates);
  const ranked: Ranked[] = [];
  for (const c of candidates.values()) {
    if (!qualifies(c)) continue;
    let weight = c.weight;
    const container = inside.get(c.key);
    if (container) {
      // Never outside one longer phrase: that phrase says the same, more precisely.
      if (container.count >= c.count) continue;
      // A single word counts only where its most frequent phrase does not explain it, so
      // "native" ranks by the uses that are not "native aot".
      if (c.words === 1) weight -= container.weight;
    }
    if (weight <= 0) continue;
    // (A phrase of Tibetan syllables may hold more than three: as a phrase of three.)
    ranked.push({ name: displayName(c), raw: weight * commonPenalty(c) * (PHRASE_FACTOR[Math.min(c.words, 3)] ?? 1) });
  }
  return ranked.sort((a, b) => b.raw - a.raw || compareNames(a.name, b.name));
}

/**
 * Groups the Arabic and Hebrew words written with a proclitic with the word the document also
 * writes without it (proclitics.ts): بالخادم and الخادم are خادم's forms on a page that writes خادم,
 * בשרת and השרת are שרת's. Word by word, so "تشغيل بالخادم" joins "تشغيل الخادم". The
 * document's words are its one-word candidates, which every word that is not a stop word is.
 * A merged candidate is shown in its most frequent form, as any other (displayName).
 */
function mergeProcliticForms(candidates: Map<string, Candidate>): void {
  const lexicon = new Set<string>();
  for (const c of candidates.values()) if (c.kind === 'phrase' && c.words === 1 && PROCLITIC_START.test(c.key)) lexicon.add(c.key.slice(2));
  if (lexicon.size === 0) return;
  const moved: [string, Candidate][] = [];
  for (const c of candidates.values()) {
    if (c.kind !== 'phrase' || !PROCLITIC_WORD.test(c.key)) continue;
    const stems = c.key.slice(2).split(' ');
    const key = `w:${stems.map((s) => procliticBase(s, lexicon)).join(' ')}`;
    if (key !== c.key) moved.push([key, c]);
  }
  for (const [key, c] of moved) {
    candidates.delete(c.key);
    const into = candidates.get(key);
    if (!into) {
      candidates.set(key, { ...c, key });
      continue;
    }
    into.weight += c.weight;
    into.count += c.count;
    into.strong ||= c.strong;
    const surfaces = (into.surfaces ??= new Map([[into.surface, into.surfaceCount]]));
    for (const [surface, n] of c.surfaces ?? [[c.surface, c.surfaceCount] as const]) surfaces.set(surface, (surfaces.get(surface) ?? 0) + n);
  }
}
/** A one-word key that may be the remainder of another word: Arabic or Hebrew letters. */
const PROCLITIC_START = /^w:[\u0590-\u06ff]/;
/** A key with a word that may start with a proclitic. */
const PROCLITIC_WORD = /(?:^w:| )[وفبكلاוהבכלמש]/;

/**
 * For each phrase key that occurs inside longer phrases and can rank (qualifies): its
 * occurrences (and their weight) inside the one longer phrase that holds most of them.
 * "source" when every "source" is in "source generation" gets that phrase's full count.
 * Sub-phrases that cannot rank are left out: rankCandidates never asks for them, and on a
 * document of a large vocabulary (every pair of words a phrase seen once) recording each was
 * a quarter of the time and most of the garbage (issue 15 probe: 2.5 s per MB of random words).
 */
function insideLongerPhrases(candidates: ReadonlyMap<string, Candidate>): Map<string, { count: number; weight: number }> {
  const inside = new Map<string, { count: number; weight: number }>();
  // The sub-phrases of one phrase with how many times it holds each ("a b a" holds "a"
  // twice): a phrase has a handful of words, so arrays searched in order, not a Map per phrase.
  const subs: Candidate[] = [];
  const times: number[] = [];
  for (const c of candidates.values()) {
    if (c.kind !== 'phrase' || c.words < 2) continue;
    const stems = c.key.slice(2).split(' ');
    subs.length = 0;
    times.length = 0;
    for (let n = 1; n < stems.length; n++) {
      for (let i = 0; i + n <= stems.length; i++) {
        const sub = candidates.get(`w:${stems.slice(i, i + n).join(' ')}`);
        if (sub === undefined || !qualifies(sub)) continue;
        const at = subs.indexOf(sub);
        if (at >= 0) times[at]!++;
        else {
          subs.push(sub);
          times.push(1);
        }
      }
    }
    for (let k = 0; k < subs.length; k++) {
      const key = subs[k]!.key;
      const best = inside.get(key);
      const count = c.count * times[k]!;
      const weight = c.weight * times[k]!;
      if (!best || count > best.count || (count === best.count && weight > best.weight)) inside.set(key, { count, weight });
    }
  }
  return inside;
}

function commonPenalty(c: Candidate): number {
  if (c.kind !== 'phrase') return 1;
  const stems = c.key.slice(2).split(' ');
  if (c.words === 1) return COMMON_STEMS.has(stems[0]!) ? COMMON_PENALTY.word : 1;
  // Inner stop words are neither common nor rare; the edges never are stop words.
  const content = stems.filter((s, i) => i === 0 || i === stems.length - 1 || !STOP_STEMS.has(s));
  return content.every((s) => COMMON_STEMS.has(s)) ? COMMON_PENALTY.phrase : 1;
}

/** The most frequent way the term was written (ties: the first by name). */
function displayName(c: Candidate): string {
  let best = '';
  let bestCount = -1;
  if (c.surfaces === null) return c.surface;
  for (const [surface, n] of c.surfaces) {
    if (n > bestCount || (n === bestCount && compareNames(surface, best) < 0)) {
      best = surface;
      bestCount = n;
    }
  }
  return best;
}

/**
 * Integer scores 1..10 by rank among the kept entries: the top entry gets 10, and each tenth
 * of the list one less (a list of 40: four entries per score). Equal raw scores share the
 * better rank, so a tie never splits across two scores.
 */
function scoreByRank(ranked: readonly Ranked[]): KeywordEntry[] {
  const n = ranked.length;
  let rank = 0;
  return ranked.map((r, i) => {
    if (i > 0 && r.raw !== ranked[i - 1]!.raw) rank = i;
    return { name: r.name, score: 10 - Math.floor((10 * rank) / n) };
  });
}
