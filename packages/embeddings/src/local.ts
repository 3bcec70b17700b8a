/**
 * The `local` provider: a LEXICAL embedding. It needs no model, no network and no download,
 * and it is deterministic, so it is the default and the one the tests and CI use. It is
 * not a semantic model: it sees which words (stems) and word pairs a text uses, not what
 * the text means. Two texts are close when they share vocabulary — "read a file
 * synchronously" is close to "reading files synchronously", but not to "load the document
 * without async", which a neural model would place nearby.
 *
 * Algorithm, version 1 (the `v1` in the model id; any change to the output bumps it, so
 * caches never mix vectors of two versions):
 *
 *  1. Words are maximal runs of Unicode letters, marks and digits. Code identifiers — runs
 *     joined by `_` or `.`, or in camelCase / PascalCase — are split into their parts
 *     (`fs.readFileSync` → fs, read, file, sync; `XMLHttpRequest` → xml, http, request), and
 *     the whole identifier, lower-cased, is kept as one more feature.
 *  2. Lower-cased; English stop words (STOP_WORDS below) are dropped; ASCII words are Porter
 *     stemmed (`stemmer`), so `running` and `runs` both count as `run`.
 *  3. Features: every remaining word (unigram), every whole identifier, and every pair of
 *     adjacent remaining words (bigram; stop words between them are skipped).
 *  4. Each feature's weight is 1 + ln(tf) (sub-linear term frequency); bigrams get half.
 *  5. Signed feature hashing: a stable 32-bit hash (FNV-1a with the murmur3 finaliser,
 *     implemented here) picks the dimension (low 31 bits mod D) and the sign (top bit), so
 *     colliding features tend to cancel rather than pile up.
 *  6. The vector is L2-normalised. A text with no words left after step 2 (empty, only
 *     punctuation, only stop words) gives the all-zero vector: it has no lexical content,
 *     and callers must treat its cosine similarity as 0.
 *
 * Version 2 (`local-lexical-v2`, opt-in, 2048 dimensions by default) differs in three ways:
 * each unigram weighs sqrt(wordWeight(stem)), a fixed rarity in everyday English from the
 * SUBTLEX-US word counts (word-weights.ts), so "use" counts for less than "serializer";
 * whole identifiers weigh 1; bigrams weigh 0.25 × the mean of their two words' weights. The
 * weights are fixed data, not fitted on the texts, so a vector still depends on its own text
 * alone (the per-topic caches stay exact).
 *
 * Limits worth knowing: no synonyms or paraphrase beyond shared stems; scripts written
 * without spaces (Chinese, Japanese, Thai) become one "word" per run of characters, so they
 * match only on identical runs; only English is stemmed and stop-worded.
 */
import { stemmer } from 'stemmer';
import { checkedEmbedInput } from './embed-input.js';
import { EmbeddingError } from './errors.js';
import { WORD_WEIGHTS } from './word-weights.js';
import type { EmbeddingProvider, EmbedOptions } from './types.js';

export const LOCAL_LEXICAL_VERSION = 'v1';
export const LOCAL_DEFAULT_DIMENSIONS = 512;
/** The local algorithm versions: v1 (unweighted words), v2 (words weighted by English rarity). */
export type LocalLexicalVersion = 'v1' | 'v2';
export const LOCAL_LEXICAL_VERSIONS: readonly LocalLexicalVersion[] = ['v1', 'v2'];
/** Default dimensions per version: v2's weighting pays off only with fewer collisions. */
export const LOCAL_VERSION_DEFAULT_DIMENSIONS: Readonly<Record<LocalLexicalVersion, number>> = { v1: 512, v2: 2048 };
/** Below this, hashing collisions swamp the signal; also the config file's minimum. */
export const LOCAL_MIN_DIMENSIONS = 8;
/**
 * The most dimensions a provider takes: the config file's maximum, 16 times the largest models'
 * 4096. Unbounded, `dimensions: 2 ** 31` was accepted and the first embed allocated 8 GiB per
 * vector, and the process was killed with nothing said.
 */
export const MAX_DIMENSIONS = 65_536;
const BIGRAM_WEIGHT = 0.5;
/**
 * v2's bigrams weigh a quarter of their words' mean weight: every bigram is one more feature
 * to collide in D buckets, and at 0.5 they cost recall (Chroma set, see the README).
 */
const BIGRAM_WEIGHT_V2 = 0.25;

/** `local-lexical-v1-d512`: the dimension is part of the id so caches of two sizes never mix. */
export function localModelId(dimensions?: number, version: LocalLexicalVersion = LOCAL_LEXICAL_VERSION): string {
  return `local-lexical-${version}-d${dimensions ?? LOCAL_VERSION_DEFAULT_DIMENSIONS[version]}`;
}

/**
 * English stop words. Fixed here, not loaded from a package, because the list is part of the
 * v1 algorithm: changing it changes every vector. Includes the fragments that splitting
 * contractions leaves behind (don't → don, t).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are aren as at be because been before being below ' +
    'between both but by can cannot could couldn d did didn do does doesn doing don down during each few for ' +
    'from further had hadn has hasn have haven having he her here hers herself him himself his how i if in ' +
    'into is isn it its itself just ll m me more most my myself no nor not now of off on once only or other ' +
    'our ours ourselves out over own re s same shall shan she should shouldn so some such t than that the ' +
    'their theirs them themselves then there these they this those through to too under until up ve very ' +
    'was wasn we were weren what when where which while who whom why will with won would wouldn y you your ' +
    'yours yourself yourselves'
  ).split(' '),
);

// ---------------------------------------------------------------------------------------
// Hashing. Part of the v1 algorithm: must never change without bumping the version.

/** murmur3's 32-bit finaliser: FNV-1a's low bits are weak for short keys, and the index uses them. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** FNV-1a over UTF-16 code units of s[start, end), finalised. */
function hashRange(s: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** Stable hash of a string (exported for tests and tools that want to explain a vector). */
export function featureHash(s: string): number {
  return hashRange(s, 0, s.length);
}

/** Order-sensitive combination of two word hashes: "read file" ≠ "file read". */
function pairHash(a: number, b: number): number {
  return fmix32(Math.imul(a ^ 0x5bd1e995, 0x9e3779b1) ^ b);
}

// ---------------------------------------------------------------------------------------
// Character classes, by code unit. A table for ASCII; other BMP code units are classified
// once by regex and remembered, so the hot loop never allocates.

const OTHER = 0;
const WORD = 1;
const UNDERSCORE = 2;
const DOT = 3;
const ASCII = new Uint8Array(128);
for (let c = 48; c <= 57; c++) ASCII[c] = WORD;
for (let c = 65; c <= 90; c++) ASCII[c] = WORD;
for (let c = 97; c <= 122; c++) ASCII[c] = WORD;
ASCII[95] = UNDERSCORE;
ASCII[46] = DOT;

const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
/** 0 = not yet classified, 1 = word character, 2 = other. */
const bmpClass = new Uint8Array(0x10000);
const astralWord = new Map<number, boolean>();

function isWordCodePoint(cp: number): boolean {
  if (cp < 0x10000) {
    let k = bmpClass[cp]!;
    if (k === 0) {
      k = WORD_CHAR.test(String.fromCharCode(cp)) ? 1 : 2;
      bmpClass[cp] = k;
    }
    return k === 1;
  }
  let w = astralWord.get(cp);
  if (w === undefined) {
    w = WORD_CHAR.test(String.fromCodePoint(cp));
    astralWord.set(cp, w);
  }
  return w;
}

/** Class of the code unit at i; a surrogate pair counts as one word character when its code point is one. */
function classAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 128) return ASCII[c]!;
  if (c >= 0xd800 && c <= 0xdfff) {
    const cp = s.codePointAt(i)!;
    if (cp > 0xffff) return isWordCodePoint(cp) ? WORD : OTHER;
    // A lone surrogate is damaged text, not a letter.
    return OTHER;
  }
  return isWordCodePoint(c) ? WORD : OTHER;
}

// ---------------------------------------------------------------------------------------
// Words → stems, cached. The cache holds pure functions of the word, so its contents never
// change a result; it is bounded only to keep memory flat over huge vocabularies.

interface Stem {
  readonly stem: string;
  readonly hash: number;
  /** v2's weight of the stem, sqrt(wordWeight), in (0, 1]: lower for words common in everyday English. */
  readonly weight: number;
}
const STOP: Stem = { stem: '', hash: 0, weight: 0 };

let wordWeights: Map<string, number> | null = null;
/**
 * v2's fixed word weight: ln(T / count) / ln(T) over the SUBTLEX-US word counts (T = all
 * words counted), by Porter stem, in hundredths; a stem not in the table (rare words,
 * identifiers, other languages) weighs 1. Fixed data shipped in word-weights.ts, so a
 * text's vector depends on that text alone, never on the other texts embedded with it.
 */
export function wordWeight(stem: string): number {
  if (wordWeights === null) {
    wordWeights = new Map();
    for (const line of WORD_WEIGHTS.split('\n')) {
      const parts = line.split(' ');
      const w = Number(parts[0]) / 100;
      for (let i = 1; i < parts.length; i++) wordWeights.set(parts[i]!, w);
    }
  }
  return wordWeights.get(stem) ?? 1;
}
const STEM_CACHE_LIMIT = 200_000;
const stemCache = new Map<string, Stem>();

function isAsciiLetters(w: string): boolean {
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c < 97 || c > 122) return false;
  }
  return true;
}

function lookupWord(lower: string): Stem {
  let entry = stemCache.get(lower);
  if (entry === undefined) {
    if (STOP_WORDS.has(lower)) {
      entry = STOP;
    } else {
      // Porter is an English stemmer; other scripts and numbers are kept as written.
      const stem = lower.length > 2 && isAsciiLetters(lower) ? stemmer(lower) : lower;
      entry = { stem, hash: featureHash(stem), weight: Math.sqrt(wordWeight(stem)) };
    }
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemCache.set(lower, entry);
  }
  return entry;
}

// ---------------------------------------------------------------------------------------
// Tokenising.

/** What one text yields: stems in order (for unigrams and bigrams) and whole identifiers. */
interface Tokens {
  stems: Stem[];
  /** Lower-cased whole identifiers (only those that were split into more than one part). */
  identifiers: string[];
}

function isUpperAt(text: string, lower: string, i: number): boolean {
  return text.charCodeAt(i) !== lower.charCodeAt(i);
}

function isDigitAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 48 && c <= 57;
}

/**
 * Splits text into stems and identifiers. `text` and `lower` must have equal length, so
 * one index addresses both: case is read from `text`, keys are sliced from `lower`.
 */
function tokenize(text: string, lower: string, out: Tokens): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const k = classAt(text, i);
    if (k !== WORD && k !== UNDERSCORE) {
      i++;
      continue;
    }
    // A token: word characters and underscores, plus dots that sit between word characters.
    const start = i;
    // Most tokens are plain words (no separator, no capital after the first letter); they
    // skip splitToken, which is most of the tokenizer's cost otherwise.
    let plain = true;
    while (i < n) {
      const c = classAt(text, i);
      if (c === WORD) {
        if (plain && i > start && text.charCodeAt(i) !== lower.charCodeAt(i)) plain = false;
        i += text.charCodeAt(i) >= 0xd800 && text.charCodeAt(i) <= 0xdbff ? 2 : 1;
      } else if (c === UNDERSCORE) {
        plain = false;
        i++;
      } else if (c === DOT && i > start && i + 1 < n && classAt(text, i - 1) === WORD && classAt(text, i + 1) === WORD) {
        plain = false;
        i++;
      } else {
        break;
      }
    }
    if (plain) emitWord(lower, start, i, out);
    else splitToken(text, lower, start, i, out);
  }
}

/** Emits the parts of token [start, end) and, when it has several, the whole identifier. */
function splitToken(text: string, lower: string, start: number, end: number, out: Tokens): void {
  let parts = 0;
  let partStart = -1;
  // Trimmed range of the identifier: leading/trailing underscores (__dirname) say nothing.
  let first = -1;
  let last = -1;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 95 || c === 46) {
      if (partStart >= 0) {
        emitWord(lower, partStart, i, out);
        parts++;
        partStart = -1;
      }
      continue;
    }
    if (first < 0) first = i;
    last = i + 1;
    if (partStart < 0) {
      partStart = i;
      continue;
    }
    // Case boundaries: fooBar (lower or digit → upper) and XMLHttp (upper → upper + lower).
    if (c >= 0xdc00 && c <= 0xdfff) continue; // second half of a surrogate pair
    if (isUpperAt(text, lower, i)) {
      const prevUpper = isUpperAt(text, lower, i - 1);
      const boundary =
        !prevUpper ||
        (i + 1 < end && !isUpperAt(text, lower, i + 1) && !isDigitAt(text, i + 1) && text.charCodeAt(i + 1) !== 95 && text.charCodeAt(i + 1) !== 46);
      if (boundary && i > partStart) {
        emitWord(lower, partStart, i, out);
        parts++;
        partStart = i;
      }
    }
  }
  if (partStart >= 0) {
    emitWord(lower, partStart, end, out);
    parts++;
  }
  if (parts > 1) out.identifiers.push(lower.slice(first, last));
}

function emitWord(lower: string, start: number, end: number, out: Tokens): void {
  const entry = lookupWord(lower.slice(start, end));
  if (entry !== STOP) out.stems.push(entry);
}

/** `text` lower-cased with the same length. Only U+0130 (İ) lengthens under toLowerCase. */
function prepare(text: string): { text: string; lower: string } {
  let lower = text.toLowerCase();
  if (lower.length !== text.length) {
    text = text.replaceAll('\u0130', 'I');
    lower = text.toLowerCase();
  }
  return { text, lower };
}

/**
 * The features the local provider sees in a text, as readable strings: stems, whole
 * identifiers prefixed `id:`, and bigrams as `a b`. For tests, docs and debugging; the
 * embedding itself uses the same tokenizer but hashes instead of building strings.
 */
export function lexicalFeatures(input: string): { unigrams: string[]; identifiers: string[]; bigrams: string[] } {
  if (typeof input !== 'string') throw new TypeError(`lexicalFeatures: the text must be a string, got ${input === null ? 'null' : typeof input}`);
  const { text, lower } = prepare(input);
  const tokens: Tokens = { stems: [], identifiers: [] };
  tokenize(text, lower, tokens);
  const unigrams = tokens.stems.map((s) => s.stem);
  const bigrams: string[] = [];
  for (let i = 1; i < unigrams.length; i++) bigrams.push(`${unigrams[i - 1]!} ${unigrams[i]!}`);
  return { unigrams, identifiers: tokens.identifiers.map((id) => `id:${id}`), bigrams };
}

// ---------------------------------------------------------------------------------------
// Embedding.

/** Adds weight * sign(h) at index(h) for each distinct hash, weight = scale * (1 + ln tf). */
function accumulate(hashes: Int32Array, count: number, scale: number, acc: Float64Array): void {
  if (count === 0) return;
  const sorted = hashes.subarray(0, count).sort();
  const d = acc.length;
  let i = 0;
  while (i < count) {
    const h = sorted[i]!;
    let j = i + 1;
    while (j < count && sorted[j] === h) j++;
    const w = scale * (1 + Math.log(j - i));
    const idx = (h & 0x7fffffff) % d;
    acc[idx]! += h < 0 ? -w : w;
    i = j;
  }
}

/** Reusable buffers; grown on demand, never shrunk (one embedder per provider instance). */
class Workspace {
  uni = new Int32Array(1024);
  bi = new Int32Array(1024);
  tokens: Tokens = { stems: [], identifiers: [] };
  features = new FeatureCounts();
  constructor(readonly acc: Float64Array) {}
  ensure(n: number): void {
    if (this.uni.length < n) {
      const size = Math.max(n, this.uni.length * 2);
      this.uni = new Int32Array(size);
      this.bi = new Int32Array(size);
    }
  }
}

/**
 * v2's distinct features of one text, in order of first occurrence: a slot per hash, with
 * its term frequency and weight in parallel arrays (no object per feature).
 */
class FeatureCounts {
  slot = new Map<number, number>();
  hashes = new Int32Array(1024);
  tf = new Int32Array(1024);
  weight = new Float64Array(1024);
  size = 0;
  clear(): void {
    this.slot.clear();
    this.size = 0;
  }
  add(h: number, weight: number): void {
    const s = this.slot.get(h);
    // Two distinct features with one 32-bit hash keep the first one's weight: rare, and still
    // a function of the text alone.
    if (s !== undefined) {
      this.tf[s]!++;
      return;
    }
    if (this.size === this.hashes.length) {
      const grow = <T extends Int32Array | Float64Array>(a: T, b: T): T => (b.set(a), b);
      const n = this.size * 2;
      this.hashes = grow(this.hashes, new Int32Array(n));
      this.tf = grow(this.tf, new Int32Array(n));
      this.weight = grow(this.weight, new Float64Array(n));
    }
    this.slot.set(h, this.size);
    this.hashes[this.size] = h;
    this.tf[this.size] = 1;
    this.weight[this.size] = weight;
    this.size++;
  }
  /** Adds weight * sign(h) * (1 + ln tf) at index(h) for each distinct hash h, in slot order. */
  accumulate(acc: Float64Array): void {
    const d = acc.length;
    for (let i = 0; i < this.size; i++) {
      const h = this.hashes[i]!;
      const w = this.weight[i]! * (1 + Math.log(this.tf[i]!));
      const idx = (h & 0x7fffffff) % d;
      acc[idx]! += h < 0 ? -w : w;
    }
  }
}

function embedOne(input: string, ws: Workspace, version: LocalLexicalVersion): Float32Array {
  const { text, lower } = prepare(input);
  const tokens = ws.tokens;
  tokens.stems.length = 0;
  tokens.identifiers.length = 0;
  tokenize(text, lower, tokens);
  const stems = tokens.stems;
  const ids = tokens.identifiers;
  const acc = ws.acc;
  acc.fill(0);
  const out = new Float32Array(acc.length);
  if (stems.length === 0 && ids.length === 0) return out;

  if (version === 'v1') {
    ws.ensure(stems.length + ids.length);
    let nu = 0;
    for (let i = 0; i < stems.length; i++) ws.uni[nu++] = stems[i]!.hash;
    for (let i = 0; i < ids.length; i++) ws.uni[nu++] = featureHash(ids[i]!);
    let nb = 0;
    for (let i = 1; i < stems.length; i++) ws.bi[nb++] = pairHash(stems[i - 1]!.hash, stems[i]!.hash);
    accumulate(ws.uni, nu, 1, acc);
    accumulate(ws.bi, nb, BIGRAM_WEIGHT, acc);
  } else {
    // v2: each feature weighs its words' rarity in everyday English (wordWeight), so shared
    // common words ("use", "make", "time") count for less than shared specific ones.
    const features = ws.features;
    features.clear();
    for (let i = 0; i < stems.length; i++) features.add(stems[i]!.hash, stems[i]!.weight);
    for (let i = 0; i < ids.length; i++) features.add(featureHash(ids[i]!), 1);
    for (let i = 1; i < stems.length; i++) {
      const a = stems[i - 1]!;
      const b = stems[i]!;
      features.add(pairHash(a.hash, b.hash), BIGRAM_WEIGHT_V2 * ((a.weight + b.weight) / 2));
    }
    features.accumulate(acc);
  }

  let sum = 0;
  for (let i = 0; i < acc.length; i++) sum += acc[i]! * acc[i]!;
  // Features can cancel exactly (opposite signs in one bucket); that is still "no signal".
  if (sum === 0) return out;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < acc.length; i++) out[i] = acc[i]! * inv;
  return out;
}

/** Texts embedded between progress reports and abort checks. */
const LOCAL_BATCH = 256;

export interface LocalProviderOptions {
  /** Algorithm version (default v1); part of the model id. */
  version?: LocalLexicalVersion;
  /** Default: LOCAL_VERSION_DEFAULT_DIMENSIONS of the version. */
  dimensions?: number;
}

/** The offline lexical provider. See the module comment for what it can and cannot do. */
export class LocalLexicalProvider implements EmbeddingProvider {
  readonly provider = 'local' as const;
  readonly model: string;
  readonly dimensions: number;
  readonly version: LocalLexicalVersion;
  readonly #ws: Workspace;

  constructor(options: LocalProviderOptions = {}) {
    const version = options.version ?? LOCAL_LEXICAL_VERSION;
    const d = options.dimensions ?? LOCAL_VERSION_DEFAULT_DIMENSIONS[version];
    if (!Number.isInteger(d) || d < LOCAL_MIN_DIMENSIONS || d > MAX_DIMENSIONS) {
      throw new EmbeddingError(`dimensions must be an integer ${LOCAL_MIN_DIMENSIONS}..${MAX_DIMENSIONS}, got ${String(d)}`, {
        provider: 'local',
        url: null,
        kind: 'config',
        fix: `Set embeddings.dimensions to an integer from ${LOCAL_MIN_DIMENSIONS} to ${MAX_DIMENSIONS} (default ${LOCAL_DEFAULT_DIMENSIONS}).`,
      });
    }
    this.dimensions = d;
    this.version = version;
    this.model = localModelId(d, version);
    this.#ws = new Workspace(new Float64Array(d));
  }

  /** Synchronous core, for callers that do not need the Promise (and for the benchmark). */
  embedSync(texts: readonly string[]): Float32Array[] {
    return texts.map((t) => embedOne(t, this.#ws, this.version));
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const { signal, onProgress } = checkedEmbedInput(texts, options);
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += LOCAL_BATCH) {
      signal?.throwIfAborted();
      const end = Math.min(texts.length, i + LOCAL_BATCH);
      for (let j = i; j < end; j++) out.push(embedOne(texts[j]!, this.#ws, this.version));
      onProgress?.(end, texts.length);
    }
    return out;
  }
}
