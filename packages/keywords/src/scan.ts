/**
 * Markdown → weighted term occurrences. This is the one place that decides what text counts
 * and how much: `extractKeywords` ranks what it yields and `matchKeywords` uses the same scan,
 * so a keyword found in a topic is found again in that topic's chunks.
 */
import MarkdownIt, { type Env, type Token } from 'markdown-it';
import { usePlainStates } from './markdown-it-states.js';
import { BODY, blockItems, CODE } from './block-items.js';
import { stemmer } from 'stemmer';
import { endsInHangul, KOREAN_STOP_WORDS, stemKorean } from './korean.js';
import { isScriptStopWord, isUnspacedStopWord, STOP_WORDS } from './words.js';
import { yamlStrings } from './yaml-strings.js';

/** Where a term occurred. The weights are in extract.ts. */
export type Context = 'heading' | 'codeSpan' | 'codeBlock' | 'body';

/** One occurrence of a candidate term. */
export interface Occurrence {
  /** Grouping key: `w:` + Porter stems of a phrase's words, or `i:` + a lower-cased identifier. */
  key: string;
  /** The text as it should be shown: a lower-cased phrase, or an identifier in its own casing. */
  surface: string;
  kind: 'phrase' | 'identifier';
  /** Number of words (1 for identifiers). */
  words: number;
  context: Context;
  /** The code block it came from (identifiers in code blocks count once per block). */
  block?: number;
}

/** A phrase holds at most this many words that are not stop words… */
export const MAX_PHRASE_WORDS = 3;
/** …and at most this many stop words inside, each a connector ("properties of derived classes"). */
const MAX_INNER_STOP_WORDS = 1;
/**
 * The stop words a phrase may hold inside: "ahead of time", "serialization and deserialization",
 * not "publishing your app". And traditional Mongolian's genitive endings, written apart from
 * their word as a word of their own ("of"): ᠰᠧᠷᠸᠧᠷ ᠤᠨ ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ᠎ᠠ ("server's configuration").
 */
const CONNECTORS: ReadonlySet<string> = new Set(['and', 'or', 'of', 'for', 'to', 'in', 'on', 'with', 'as', 'by', 'at', 'from', 'ᠤᠨ', 'ᠦᠨ', 'ᠶᠢᠨ']);
/**
 * A phrase of Tibetan syllables joined by tshegs (Word.tsheg) holds at most this many: a
 * syllable is a word of the phrase rules, and Tibetan words are one to four syllables
 * (ཞབས་ཞུ་འཕྲུལ་ཆས "server", སྒྲིག་འགོད་ཡིག་ཆ "configuration file").
 */
const MAX_TIBETAN_SYLLABLES = 6;
/** The longest phrase, in words: MAX_PHRASE_WORDS and the stop words between them, or MAX_TIBETAN_SYLLABLES. */
const MAX_PHRASE_SPAN = Math.max(MAX_PHRASE_WORDS + MAX_INNER_STOP_WORDS, MAX_TIBETAN_SYLLABLES);

// `html: true` so raw HTML becomes html_inline/html_block tokens, which are skipped, instead
// of text; tables on (the default preset); no linkify, no typographer: text stays as written.
const md = new MarkdownIt('default', { html: true, linkify: false, typographer: false });
// parseInline runs per heading and paragraph with inline syntax: plain constructors for its
// states and tokens (see markdown-it-states.ts).
usePlainStates(md);
const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
/** DocFX directives (`:::code …:::`, `:::zone …:::`, `:::image …:::`) reference other files. */
const DOCFX_DIRECTIVE = /^[ \t]*:::.*$/gm;
/** DocFX alert markers (`> [!NOTE]`) are boilerplate, not content. */
const DOCFX_ALERT = /\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]/gi;

/** A generic type parameter by .NET convention (`TValue`, `TKey`): a placeholder, not a name. */
const GENERIC_PARAMETER = /^T[A-Z][a-z]+$/;

/**
 * Identifier shapes. A name part is a letter or `_`, then letters, marks, digits and `_` (C#
 * names may be any letters: `ÜberCache` was cut to the keyword `berCache`); an identifier is one that
 *   - has a lower-case letter followed by a capital (camelCase, PascalCase: `JsonSerializer`),
 *   - starts with two capitals and then a lower-case letter (`IAsyncEnumerable`, `JSONPath`),
 *   - is dotted with a capital somewhere (`System.Text.Json`, `ASP.NET`, `.NET`), or
 *   - carries `#`/`+` (`C#`, `C++`).
 * Plain words in any casing (`object`, `Default`, `JSON`) and generic parameters (`TValue`)
 * are not identifiers.
 */
export function isIdentifier(token: string): boolean {
  if (GENERIC_PARAMETER.test(token)) return false;
  if (/[#+]/.test(token)) return /\p{L}/u.test(token);
  if (/\p{Ll}\p{M}*\p{Lu}/u.test(token) || /^\p{Lu}{2,}\p{Ll}/u.test(token)) return true;
  return token.includes('.') && /\p{Lu}/u.test(token);
}

/** Prose tokens: URLs (dropped), word-like runs (with inner `.`, `'`, `#`, `+`), hyphens, spaces, other characters. */
// A zero-width non-joiner or joiner (U+200C, U+200D) inside a word is part of it (UAX #29: Extend):
// Persian writes "می‌خواهم" with a ZWNJ between its prefix and stem, which cut it in two.
// So is the Mongolian vowel separator (U+180E), before a word's final ᠠ or ᠡ: "ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ᠎ᠠ"
// ("configuration") was the keyword "ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ", its last letter cut off (helper-90 probe).
const TOKEN =
  /(?:https?|ftp|file):\/\/[^\s<>)\]]+|www\.[^\s<>)\]]+|\.?[\p{L}\p{N}_][\p{L}\p{M}\p{N}_\u200c\u200d\u180e]*(?:['’.#+]+[\p{L}\p{N}_][\p{L}\p{M}\p{N}_\u200c\u200d\u180e]*)*[#+]*|[-‐‑]|\s+|[^\s]/gu;

interface Word {
  kind: 'word';
  /** Lower-cased word. */
  text: string;
  stem: string;
  stop: boolean;
  /**
   * Written right after the word before it, with nothing between (a script without spaces
   * between words, cut by Intl.Segmenter: 源代码 then 生成): a phrase shows them joined.
   */
  glued?: true;
  /**
   * A Tibetan syllable after a tsheg (U+0F0B) that ends the syllable before it: a phrase shows
   * them joined by the tsheg, as Tibetan writes every word (སྒྲིག་འགོད), never with a space.
   */
  tsheg?: true;
}

/** A unit of running text: a word, an identifier, or a phrase break (punctuation, a number, a URL). */
export type Lexeme = Word | { kind: 'identifier'; name: string } | { kind: 'break' };

const BREAK: Lexeme = Object.freeze({ kind: 'break' });

/** What a token of TOKEN yields: a lexeme, or nothing (spaces, hyphens). */
type LexResult = Lexeme | null;

/**
 * Lexemes by their raw token, and phrases by their words, for one document's scan (see `lex`
 * and PhraseNode). What a token yields depends on that token alone, so the cache is exact; its
 * lexemes are frozen, as BREAK is, because every occurrence of the token shares one.
 */
export class LexCache {
  /** By raw token. */
  readonly tokens = new Map<string, LexResult>();
  /** The glued form of each word (see Word.glued). */
  readonly glued = new Map<Word, Word>();
  /** The form of each Tibetan syllable after a tsheg (see Word.tsheg). */
  readonly tsheg = new Map<Word, Word>();
  /** The phrases seen so far (see PhraseNode). */
  readonly phrases = new PhraseTrie();
}

/**
 * A phrase by its words, last word first, as Span builds phrases: backwards from the word that
 * ends them. A phrase seen before costs one Map lookup a word; making its key and surface again
 * took five strings and an occurrence object (three phrases, 380 bytes, for each line of a
 * document of tiny lines, issue 15). What a node holds depends only on the words' texts: a
 * word's stem and stop-ness are functions of its text (lexToken).
 */
class PhraseNode {
  /** This phrase with one more word before it, by that word's text. */
  before: Map<string, PhraseNode> | null = null;
  /** The occurrence of this phrase in running text and in a heading, made at its first use. */
  private body: Occurrence | null = null;
  private heading: Occurrence | null = null;

  constructor(
    /** The stems, space-separated: an occurrence's key without `w:`. */
    readonly stems: string,
    readonly surface: string,
    /** What a longer phrase shows between the word before and this one's first word: a space, nothing (Word.glued) or a tsheg (Word.tsheg). */
    readonly firstJoin: string,
    /**
     * Its stems begin as they end ("server server", "peer to peer"), so two uses of its key
     * can overlap (see Span.emitEndingAt). Few phrases are.
     */
    readonly bordered = false,
  ) {}

  /**
   * The occurrence of this phrase in `context`, `words` its words that are not stop words.
   * Shared by every occurrence of the phrase, so frozen: a sink must not change it.
   */
  occurrence(words: number, context: Context): Occurrence {
    if (context === 'body') return (this.body ??= Object.freeze({ key: `w:${this.stems}`, surface: this.surface, kind: 'phrase', words, context }));
    if (context === 'heading') return (this.heading ??= Object.freeze({ key: `w:${this.stems}`, surface: this.surface, kind: 'phrase', words, context }));
    return { key: `w:${this.stems}`, surface: this.surface, kind: 'phrase', words, context };
  }
}

/**
 * The phrases of one scan. At PHRASES_MAX nodes it starts again empty, so memory stays bounded
 * on a document whose phrases are all different (each then costs what it cost before the trie).
 */
class PhraseTrie {
  readonly root = new PhraseNode('', '', ' ');
  private size = 0;
  /**
   * Where the last counted use of each bordered phrase key ended, as a WORDS_SEEN count (see
   * Span.emitEndingAt). By key, not node: "תצורה תצורה" pointed or not, or "servers server", is
   * one key written two ways.
   */
  readonly lastEnd = new Map<string, number>();

  /** The phrase `word` followed by the phrase of `node` (the root: none). */
  extend(node: PhraseNode, word: Word): PhraseNode {
    // A glued word makes other phrases (shown without a space), under a key of its own.
    const at = word.glued ? `\u0000${word.text}` : word.tsheg ? `\u0001${word.text}` : word.text;
    let next = node.before?.get(at);
    if (next === undefined) {
      // Emptied only when a phrase starts, never under a phrase being built.
      if (this.size >= PHRASES_MAX && node === this.root) {
        this.root.before = null;
        this.lastEnd.clear();
        this.size = 0;
      }
      const join = word.glued ? '' : word.tsheg ? TSHEG : ' ';
      if (node === this.root) next = new PhraseNode(word.stem, word.text, join);
      else {
        const stems = `${word.stem} ${node.stems}`;
        next = new PhraseNode(stems, `${word.text}${node.firstJoin}${node.surface}`, join, hasBorder(stems.split(' ')));
      }
      (node.before ??= new Map()).set(at, next);
      this.size++;
    }
    return next;
  }
}
const PHRASES_MAX = 200_000;

/** Whether a proper prefix of `stems` is also its suffix (["server", "server"], ["peer", "to", "peer"]). */
function hasBorder(stems: readonly string[]): boolean {
  for (let k = 1; k < stems.length; k++) {
    let same = true;
    for (let i = 0; i < k && same; i++) same = stems[i] === stems[stems.length - k + i];
    if (same) return true;
  }
  return false;
}
/**
 * Longer tokens are lexed each time: rarely repeated, and V8 makes a match of 13 characters or
 * more a slice of the source, which as a key would keep the whole source alive.
 */
const LEX_CACHE_MAX_TOKEN = 12;
const LEX_CACHE_MAX_ENTRIES = 100_000;

function lexToken(raw: string): LexResult {
  if (/^\s+$/.test(raw) || /^[-‐‑]$/.test(raw)) return null;
  if (raw.includes('://') || raw.startsWith('www.') || !/[\p{L}\p{N}_]/u.test(raw)) return BREAK;
  // NFC: "café" typed precomposed or as "e" and a combining accent is one word, one keyword.
  let t = withoutTrailing(raw.normalize('NFC').replace(/’/g, "'").replace(/'s$/i, ''), "'");
  // A joiner at a word's end joins nothing and shows as nothing.
  if (/[\u200c\u200d]$/.test(t)) t = withoutTrailing(withoutTrailing(t, '\u200c'), '\u200d');
  if (t.endsWith('\u180e')) t = withoutTrailing(t, '\u180e');
  if (isIdentifier(t)) return Object.freeze({ kind: 'identifier', name: t });
  // Numbers and versions ("9.0"), lower-case dotted tokens ("e.g", "appsettings.json")
  // and single letters end a phrase: they are never part of a keyword.
  // (A single character of a script without spaces is a word: 源 of 源代码, 化 of 序列化.)
  // (Nor a word of Hangul fillers only, letters that show as a blank: "ㅤㅤ" was a keyword.)
  // (Nor is a Tibetan syllable of one letter, ལ, ང, ཀ of ལས་ཀ: a syllable is a word, see lexTibetan.)
  if (!VISIBLE_LETTER.test(t) || t.includes('.') || (t.length < 2 && !UNSPACED.test(t) && !TIBETAN.test(t))) return BREAK;
  let lower = lowerCase(t);
  // A Korean word without its particle or 하다 ending, shown so: 서버는 and 서버를 are 서버.
  const korean = endsInHangul(lower);
  if (korean) {
    lower = stemKorean(lower);
    // What is left of a number or a letter with its particle (8080에서, a를) is no word either.
    if (!/\p{L}/u.test(lower) || (lower.length < 2 && !UNSPACED.test(lower))) return BREAK;
  }
  // A ZWNJ is spelling, not a letter: Persian typed with it (می‌خواهم) and without is one keyword.
  // So are Hebrew points and Arabic harakat and tatweel, which most documents leave out:
  // "בְּרֵאשִׁית" is "בראשית", "الخادمُ" and "الخــادم" are "الخادم".
  let stem = stemmer(lower);
  if (SPELLING_ONLY.test(stem)) {
    stem = stem.replace(SPELLING_ONLY_ALL, '');
    // A run of tatweel (ـــــ, which stretches a line, a letter by its category) is no word:
    // it was the keyword "ـــــ ـــــ ـــــ" of an Arabic page that drew a rule with it.
    if (!/\p{L}/u.test(stem)) return BREAK;
  }
  return Object.freeze({
    kind: 'word',
    text: lower,
    stem,
    stop: STOP_WORDS.has(lower) || isUnspacedStopWord(lower) || (korean && KOREAN_STOP_WORDS.has(lower)) || (!korean && isScriptStopWord(lower)),
  });
}

/**
 * What a word's stem leaves out: the zero-width non-joiner, Hebrew points (niqqud and cantillation,
 * U+0591–U+05C7 but the punctuation among them, which no word holds), Arabic harakat (U+064B–U+065F,
 * U+0670) and tatweel (U+0640, which stretches a word to justify a line).
 */
/** A letter but the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), which show as a blank or nothing (helper-90 probe). */
const VISIBLE_LETTER = /(?![\u115f\u1160\u3164\uffa0])\p{L}/u;

const SPELLING_ONLY = /[\u200c\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0640\u064b-\u065f\u0670]/;
const SPELLING_ONLY_ALL = new RegExp(SPELLING_ONLY.source, 'g');

const TURKIC = /[\u0130\u0131\u011e\u011f]/;

/**
 * Lower case without the combining dot above that toLowerCase leaves after a capital İ
 * ("İstanbul" gave "i̇stanbul", a keyword apart from "istanbul" and shown with a stray dot).
 */
function lowerCase(s: string): string {
  // A word holding a letter only Turkish and Azerbaijani write (dotless ı, dotted İ, ğ) takes
  // their casing, where I is the capital of ı: "Işık" lower-cased to "işık", a misspelling
  // shown as the keyword, apart from "ışık" written in lower case.
  if (TURKIC.test(s) && s.includes('I')) s = s.replace(/I/g, '\u0131');
  let lower = s.toLowerCase();
  // Cherokee is written in its capitals (U+13A0–U+13F5); the small letters Unicode added since
  // (U+AB70–U+ABBF, U+13F8–U+13FD) are a typographic variant few fonts have, and were every
  // Cherokee keyword as shown: "ᎠᏍᎦᏯ" became "ꭰꮝꭶꮿ" (helper-90 probe). Cherokee folds to capitals.
  if (CHEROKEE_SMALL.test(lower)) lower = lower.replace(CHEROKEE_SMALL_ALL, (c) => c.toUpperCase());
  return lower.includes('i\u0307') ? lower.replace(/i\u0307/g, 'i') : lower;
}
const CHEROKEE_SMALL = /[\uab70-\uabbf\u13f8-\u13fd]/;
const CHEROKEE_SMALL_ALL = new RegExp(CHEROKEE_SMALL.source, 'g');

/**
 * Splits running text into lexemes. Hyphens join ("source-generation" = "source generation").
 * With a `cache`, a token seen before is not lexed and stemmed again (a document repeats its
 * words; a heading or a line of one word is a call of its own).
 */
export function lex(text: string, cache?: LexCache): Lexeme[] {
  const out: Lexeme[] = [];
  lexInto(text, cache, out);
  return out;
}

/** `lex`, writing the lexemes to `out[0, n)` and returning n (what `out` held past n stays). */
function lexInto(text: string, cache: LexCache | undefined, out: Lexeme[]): number {
  let n = 0;
  // DOCFX_ALERT needs a `[`; most texts have none.
  let source = text.includes('[') ? text.replace(DOCFX_ALERT, ' ') : text;
  if (NOT_ASCII.test(source)) {
    // A soft hyphen, a word joiner or U+FEFF sits inside a word and shows as nothing: each cut
    // the word in two, so "config<U+00AD>uration" gave the keywords "config" and "uration",
    // and the table's "configuration" did not match it (s58 probe).
    if (IN_WORD_INVISIBLE.test(source)) source = source.replace(IN_WORD_INVISIBLES, '');
    if (TIBETAN.test(source)) {
      n = lexTibetan(source, cache, out, n);
    } else if (UNSPACED.test(source)) {
      for (const m of source.matchAll(TOKEN)) n = UNSPACED.test(m[0]) ? addUnspaced(m[0], cache, out, n) : addLexeme(m[0], cache, out, n);
    } else {
      for (const m of source.matchAll(TOKEN)) n = addLexeme(m[0], cache, out, n);
    }
  } else {
    for (let i = 0; i < source.length; ) {
      const end = asciiTokenEnd(source, i);
      // What lexToken gives a token without a letter, known from its first character: spaces
      // and a hyphen nothing, anything else (a number, `_`, punctuation) a break. Numbers were
      // most of a long list's tokens, each new to the cache (issue 15).
      if (hasAsciiLetter(source, i, end)) n = addLexeme(source.slice(i, end), cache, out, n);
      else {
        const c = source.charCodeAt(i);
        if (c !== 45 && !isAsciiSpace(c)) out[n++] = BREAK;
      }
      i = end;
    }
  }
  return n;
}

function hasAsciiLetter(s: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k) | 32;
    if (c >= 97 && c <= 122) return true;
  }
  return false;
}

/** Writes what the token `raw` yields to out[n], through the cache when it is short; returns the new n. */
function addLexeme(raw: string, cache: LexCache | undefined, out: Lexeme[], n: number): number {
  let l: LexResult | undefined;
  if (cache !== undefined && raw.length <= LEX_CACHE_MAX_TOKEN) {
    l = cache.tokens.get(raw);
    if (l === undefined) {
      l = lexToken(raw);
      if (cache.tokens.size >= LEX_CACHE_MAX_ENTRIES) cache.tokens.clear();
      cache.tokens.set(raw, l);
    }
  } else {
    l = lexToken(raw);
  }
  if (l !== null) out[n++] = l;
  return n;
}

const NOT_ASCII = /[^\0-\x7f]/;

/**
 * Letters of the scripts written without spaces between words: Han, Hiragana, Katakana (their
 * marks such as ー and 々 by Script_Extensions), Thai, Lao, Khmer, Myanmar. A run of them was
 * one "word", so a Chinese, Japanese or Thai line was one keyword or none. Such a run is cut
 * into words by Intl.Segmenter (ICU's dictionaries, in Node 20 with no download).
 */
const UNSPACED_LETTERS = '\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}\\p{scx=Thai}\\p{scx=Lao}\\p{scx=Khmer}\\p{scx=Myanmar}';
/** A letter of UNSPACED_LETTERS: a combining mark of their scripts' extensions (U+0303 lists Thai) is not one, nor in a Latin word. */
const UNSPACED = new RegExp(`(?=\\p{L})[${UNSPACED_LETTERS}]`, 'u');
/** A token's runs of UNSPACED letters (with the marks after them), and its other runs. */
const UNSPACED_RUNS = new RegExp(`(?=\\p{L})[${UNSPACED_LETTERS}][${UNSPACED_LETTERS}\\p{M}]*|(?:(?!(?=\\p{L})[${UNSPACED_LETTERS}])[\\s\\S])+`, 'gu');
/** A fixed locale: the word breaks of these scripts come from ICU's dictionaries, the same in every locale. */
let segmenter: Intl.Segmenter | undefined;

/**
 * Writes the lexemes of a token holding UNSPACED letters: its other runs as tokens of their
 * own (`Node.js`, `API`), its UNSPACED runs cut into words. A word written right after the
 * one before it is glued to it (`Word.glued`), so that a phrase shows them as written.
 */
function addUnspaced(token: string, cache: LexCache | undefined, out: Lexeme[], n: number): number {
  segmenter ??= new Intl.Segmenter('en', { granularity: 'word' });
  /** The piece before, in this token, gave a word: the next word is glued to it. */
  let afterWord = false;
  for (const run of token.matchAll(UNSPACED_RUNS)) {
    const pieces = UNSPACED.test(run[0]) ? segmentWords(run[0]) : [run[0]];
    for (const piece of pieces) {
      const at = n;
      n = addLexeme(piece, cache, out, n);
      const word = n > at && out[at]!.kind === 'word';
      if (word && afterWord) out[at] = gluedWord(out[at] as Word, cache);
      afterWord = word;
    }
  }
  return n;
}

/**
 * Intl.Segmenter's words of `run`, a window of SEGMENT_WINDOW code units at a time: over one
 * long run it was superlinear (80,000 Han characters without punctuation took 6 s, 1 MB
 * minutes). Each window's last segment, which the window's end may cut, is taken again at
 * the start of the next one.
 */
function segmentWords(run: string): string[] {
  const words: string[] = [];
  let from = 0;
  while (run.length - from > SEGMENT_WINDOW) {
    let end = from + SEGMENT_WINDOW;
    if (/[\ud800-\udbff]/.test(run[end - 1]!)) end--; // not half a pair
    const pieces = Array.from(segmenter!.segment(run.slice(from, end)));
    if (pieces.length === 1) {
      // One word as long as the window: cut it there.
      words.push(pieces[0]!.segment);
      from = end;
      continue;
    }
    for (let k = 0; k < pieces.length - 1; k++) words.push(pieces[k]!.segment);
    from += pieces.at(-1)!.index;
  }
  for (const piece of segmenter!.segment(run.slice(from))) words.push(piece.segment);
  return words;
}
const SEGMENT_WINDOW = 256;

const TSHEG = '\u0f0b';
/** A Tibetan letter (U+0F40–U+0F6C; the subjoined ones are marks): the text may have tshegs to join syllables. */
const TIBETAN = /[\u0f40-\u0f6c]/;
/** A tsheg, or the non-breaking tsheg (U+0F0C), as a token of TOKEN. */
const TSHEG_TOKEN = /^[\u0f0b\u0f0c]$/;

/**
 * lexInto's loop for a text holding Tibetan. Tibetan writes no spaces: a tsheg ends every
 * syllable, and words (སྒྲིག་འགོད "configuration", ཞབས་ཞུ "service") are one to four syllables
 * with no mark between words. Intl.Segmenter has no Tibetan dictionary (Node 20, ICU 78: it cuts
 * at every tsheg), so a syllable is a word, and a tsheg between two syllables joins them as
 * written (Word.tsheg), as two words of Thai or Chinese are joined: a phrase of syllables, shown
 * with its tshegs. The tsheg was punctuation, so every keyword was one syllable, half a word.
 * A tsheg not followed by a syllable (before a number, a shad, a Latin word) ends the phrase;
 * spaces and a line break after it do not (a hard-wrapped line ends after a tsheg).
 */
function lexTibetan(source: string, cache: LexCache | undefined, out: Lexeme[], n: number): number {
  /** A tsheg ended the Tibetan syllable out[n - 1]. */
  let afterTsheg = false;
  for (const m of source.matchAll(TOKEN)) {
    const raw = m[0];
    if (TSHEG_TOKEN.test(raw)) {
      const before: Lexeme | undefined = afterTsheg || n === 0 ? undefined : out[n - 1];
      afterTsheg = before?.kind === 'word' && TIBETAN.test(before.text);
      if (!afterTsheg) out[n++] = BREAK;
      continue;
    }
    const at = n;
    if (afterTsheg) {
      // A line break (a hard-wrapped paragraph) or a space after a tsheg: the next syllable follows it.
      if (/^\s+$/.test(raw)) continue;
      afterTsheg = false;
      // A number, a shad or another script after the tsheg: it ended the phrase.
      if (!TIBETAN.test(raw[0] ?? '')) out[n++] = BREAK;
      else {
        n = addLexeme(raw, cache, out, n);
        const first = n > at ? out[at]! : undefined;
        if (first?.kind === 'word') out[at] = tshegWord(first, cache);
        continue;
      }
    }
    n = UNSPACED.test(raw) ? addUnspaced(raw, cache, out, n) : addLexeme(raw, cache, out, n);
  }
  if (afterTsheg) out[n++] = BREAK;
  return n;
}

/** `word` after a tsheg that joins it to the syllable before (Word.tsheg), one object per word through the cache. */
function tshegWord(word: Word, cache: LexCache | undefined): Word {
  let g = cache?.tsheg.get(word);
  if (g === undefined) {
    g = Object.freeze({ ...word, tsheg: true as const });
    if (cache !== undefined) {
      if (cache.tsheg.size >= LEX_CACHE_MAX_ENTRIES) cache.tsheg.clear();
      cache.tsheg.set(word, g);
    }
  }
  return g;
}

/** `word` glued to the word before it, one object per word through the cache. */
function gluedWord(word: Word, cache: LexCache | undefined): Word {
  let g = cache?.glued.get(word);
  if (g === undefined) {
    g = Object.freeze({ ...word, glued: true as const });
    if (cache !== undefined) {
      if (cache.glued.size >= LEX_CACHE_MAX_ENTRIES) cache.glued.clear();
      cache.glued.set(word, g);
    }
  }
  return g;
}
/** Characters that join or show as nothing inside a word (UAX #29 Format, as Unicode word breaking reads them): soft hyphen, word joiner, U+FEFF. */
const IN_WORD_INVISIBLE = /[\u00ad\u2060\ufeff]/;
const IN_WORD_INVISIBLES = /[\u00ad\u2060\ufeff]/g;

/**
 * Where TOKEN's match at `i` ends, in an ASCII text: the same alternatives in the same order,
 * without a match object and a regular expression run per token (a third of a keywords pass
 * over a long list, issue 15). The property test in scan-cache.test.ts holds it to TOKEN.
 */
function asciiTokenEnd(s: string, i: number): number {
  const n = s.length;
  const c = s.charCodeAt(i);
  if (c === 104 || c === 102 || c === 119) {
    // (?:https?|ftp|file):\/\/[^\s<>)\]]+ and www\.[^\s<>)\]]+
    const prefix = s.startsWith('http://', i) ? 7 : s.startsWith('https://', i) ? 8 : s.startsWith('ftp://', i) ? 6 : s.startsWith('file://', i) ? 7 : s.startsWith('www.', i) ? 4 : 0;
    if (prefix > 0) {
      let j = i + prefix;
      while (j < n && !isUrlStop(s.charCodeAt(j))) j++;
      if (j > i + prefix) return j;
    }
  }
  // \.?[\p{L}\p{N}_]+(?:['’.#+]+[\p{L}\p{N}_]+)*[#+]*
  if (isWordUnit(c) || (c === 46 && i + 1 < n && isWordUnit(s.charCodeAt(i + 1)))) {
    let j = c === 46 ? i + 2 : i + 1;
    while (j < n && isWordUnit(s.charCodeAt(j))) j++;
    for (;;) {
      let k = j;
      while (k < n && isJoiner(s.charCodeAt(k))) k++;
      if (k === j || k === n || !isWordUnit(s.charCodeAt(k))) break;
      j = k + 1;
      while (j < n && isWordUnit(s.charCodeAt(j))) j++;
    }
    while (j < n && (s.charCodeAt(j) === 35 || s.charCodeAt(j) === 43)) j++;
    return j;
  }
  // \s+ (ASCII: tab, line feed, vertical tab, form feed, carriage return, space)
  if (isAsciiSpace(c)) {
    let j = i + 1;
    while (j < n && isAsciiSpace(s.charCodeAt(j))) j++;
    return j;
  }
  // [-‐‑] and [^\s]: one character.
  return i + 1;
}

/** The raw tokens of an ASCII text as asciiTokenEnd cuts it. For the test against TOKEN. */
export function asciiTokensForTests(text: string): string[] {
  const tokens: string[] = [];
  for (let i = 0; i < text.length; ) {
    const end = asciiTokenEnd(text, i);
    tokens.push(text.slice(i, end));
    i = end;
  }
  return tokens;
}

function isWordUnit(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/** ['’.#+] in ASCII. */
function isJoiner(c: number): boolean {
  return c === 39 || c === 46 || c === 35 || c === 43;
}

function isAsciiSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** [\s<>)\]] in ASCII. */
function isUrlStop(c: number): boolean {
  return isAsciiSpace(c) || c === 60 || c === 62 || c === 41 || c === 93;
}

/**
 * The grouping key a keyword name would get from the scan: `i:` for an identifier, `w:` and
 * stems for a phrase the scan can produce. Null for any other name (more than
 * MAX_PHRASE_WORDS words, a stop word at an edge, punctuation, several identifiers).
 */
export function termKey(name: string): string | null {
  const lexemes = lex(name.trim());
  const first = lexemes[0];
  if (lexemes.length === 1 && first?.kind === 'identifier') return `i:${first.name.toLowerCase()}`;
  if (lexemes.length === 0 || !lexemes.every((l): l is Word => l.kind === 'word')) return null;
  const out: Occurrence[] = [];
  const span = new Span(out, 'body');
  span.text(name);
  const surface = lexemes.map((w, k) => (k === 0 || w.glued ? w.text : w.tsheg ? `${TSHEG}${w.text}` : ` ${w.text}`)).join('');
  const whole = out.find((o) => o.surface === surface);
  return whole?.key ?? null;
}

/** Span.text's lexemes (Span.text is never reentered: nothing it calls lexes). */
const LEXEMES: Lexeme[] = [];

/**
 * Lets go of the last text's lexemes, at the end of a scan: their words are slices of the
 * document, which V8 keeps as views of the whole string, so the scratch array kept the last
 * document scanned alive in a long-running host (an 8 MB document after chunkyard's
 * hierarchical strategy had scanned it; session 62).
 */
function releaseLexemes(): void {
  LEXEMES.length = 0;
}

/**
 * Words fed to any Span so far: the position of a word, by which a phrase's uses are told
 * apart (PhraseTrie.lastEnd). Only ever grows, so a use in an earlier run or scan never
 * overlaps one in the current run.
 */
let WORDS_SEEN = 0;

/** Collects occurrences from one span of text (a heading, a paragraph, a table cell). */
class Span {
  /**
   * The words a phrase ending at the next word may start from: run[0, runLength). One array
   * kept for the span's life: a new one after every break took a fresh backing store at its
   * first push (30 MB a pass over 1 MB of tiny headings, a break at every heading).
   */
  private readonly run: Word[] = [];
  private runLength = 0;
  private readonly phrases: PhraseTrie;

  constructor(
    private readonly out: OccurrenceSink,
    private readonly context: Context,
    private readonly cache?: LexCache,
  ) {
    this.phrases = cache?.phrases ?? new PhraseTrie();
  }

  /** Feeds running text; phrases continue across calls until `breakRun`. */
  text(text: string): void {
    // Into one scratch array, read at once: an array per call (a text per line of tiny lines,
    // each a new array, or a frozen one cached by text) was a fifth of a long list's allocation.
    const lexemes = LEXEMES;
    const n = lexInto(text, this.cache, lexemes);
    for (let k = 0; k < n; k++) {
      const l = lexemes[k]!;
      if (l.kind === 'word') {
        WORDS_SEEN++;
        this.run[this.runLength++] = l;
        // Phrases ending at this word only look back, so they are complete now.
        this.emitEndingAt(this.runLength - 1);
        if (this.runLength >= MAX_PHRASE_SPAN) {
          for (let j = 1; j < this.runLength; j++) this.run[j - 1] = this.run[j]!;
          this.runLength--;
        }
      } else {
        this.breakRun();
        if (l.kind === 'identifier') this.identifier(l.name);
      }
    }
  }

  /** An identifier; inside a heading it counts as heading text, otherwise as `context`. */
  identifier(name: string, context: Context = this.context, block?: number): void {
    const occurrence: Occurrence = {
      key: `i:${name.toLowerCase()}`,
      surface: name,
      kind: 'identifier',
      words: 1,
      context: this.context === 'heading' ? 'heading' : context,
    };
    if (block !== undefined) occurrence.block = block;
    this.out.push(occurrence);
  }

  /** Ends the current phrase run (punctuation, code, an identifier, the end of the span). */
  breakRun(): void {
    this.runLength = 0;
  }

  /** Whether run[from..to] each follow a tsheg (Word.tsheg), joining run[from - 1..to] into one run of syllables. */
  private tshegJoined(from: number, to: number): boolean {
    for (let k = from; k <= to; k++) if (!this.run[k]!.tsheg) return false;
    return true;
  }

  /**
   * Emits every phrase ending at run[end] that has no stop word at either edge, 1..MAX_PHRASE_WORDS
   * other words, and at most MAX_INNER_STOP_WORDS connectors inside ("properties of derived classes").
   * A use that overlaps the last counted use of the same phrase is not counted, as a phrase is
   * counted in any text: "server server server" holds "server server" once. Counted twice (words
   * 1-2 and 2-3), it seemed to hold "server" four times, every use on the page "# Server" with that
   * line, so "server" was dropped as never outside a longer phrase and the page had no keyword.
   */
  private emitEndingAt(end: number): void {
    const last = this.run[end]!;
    if (last.stop) return;
    let content = 0;
    let inner = 0;
    // The phrase run[start..end], built backwards a word at a time (stop words inside included).
    const { phrases } = this;
    let phrase = phrases.root;
    for (let start = end; start >= 0 && end - start < MAX_PHRASE_SPAN; start--) {
      const first = this.run[start]!;
      phrase = phrases.extend(phrase, first);
      if (first.stop) {
        if (!CONNECTORS.has(first.text) || ++inner > MAX_INNER_STOP_WORDS) break;
        continue;
      }
      // Past MAX_PHRASE_WORDS only a phrase of tsheg-joined syllables goes on (run[start + 1..end] are joined to the word before each).
      if (++content > MAX_PHRASE_WORDS && (content > MAX_TIBETAN_SYLLABLES || !this.tshegJoined(start + 1, end))) break;
      if (phrase.bordered) {
        // run[start] is the word WORDS_SEEN - (end - start): WORDS_SEEN counts run[end].
        if ((phrases.lastEnd.get(phrase.stems) ?? -1) >= WORDS_SEEN - (end - start)) continue;
        phrases.lastEnd.set(phrase.stems, WORDS_SEEN);
      }
      this.out.push(phrase.occurrence(content, this.context));
    }
  }
}

/**
 * The identifier named by a DocFX cross-reference `<xref:UID?displayProperty=…>`, as DocFX
 * shows it: the last name part by default, `Type.Member` for `nameWithType`, the whole UID
 * for `fullName`. Generic arity (`%601`), overload markers (`%2A`) and parameter lists go.
 */
export function xrefName(target: string): string | null {
  const [uidPart = '', query = ''] = target.replace(/^xref:/i, '').split('?');
  const uid = cutOnLastLine(cutOnLastLine(decodeURIComponentSafe(uidPart), '(').replace(/`+\d*|\*+/g, ''), '#');
  const parts = uid.split('.').filter(Boolean);
  if (parts.length === 0) return null;
  const display = /displayProperty=(\w+)/.exec(query)?.[1];
  const name = display === 'fullName' ? parts.join('.') : display === 'nameWithType' ? parts.slice(-2).join('.') : parts[parts.length - 1]!;
  return /^[\p{L}_][\p{L}\p{M}\p{N}_.]*$/u.test(name) ? name.normalize('NFC') : null;
}

/** `s` without the `char`s it ends with: `s.replace(/'+$/, '')` for `'`, in linear time (see cutOnLastLine). */
export function withoutTrailing(s: string, char: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === char) end--;
  return s.slice(0, end);
}

/**
 * `s` cut at the first `char` on its last line: `s.replace(/\(.*$/, '')` for `(`, and
 * `/#.*$/` for `#` (`.` matches no line terminator, so the match starts past the last one).
 * In linear time: those patterns backtracked quadratically over a run of the character
 * followed by a line break (a `%0A` in an `<xref:…>`), as `/'+$/` did over a word's run of
 * apostrophes (`a''''…''b`, no line break needed); issue 15.
 */
export function cutOnLastLine(s: string, char: string): string {
  const lastBreak = Math.max(s.lastIndexOf('\n'), s.lastIndexOf('\r'), s.lastIndexOf('\u2028'), s.lastIndexOf('\u2029'));
  const at = s.indexOf(char, lastBreak + 1);
  return at < 0 ? s : s.slice(0, at);
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Identifier-shaped name parts of a code span or a code line. */
const CODE_NAME = /\.?[\p{L}_][\p{L}\p{M}\p{N}_]*(?:\.[\p{L}_][\p{L}\p{M}\p{N}_]*)*[#+]*/gu;
/** `using X.Y;`, `import x.y`, `namespace X.Y`, `Imports X.Y` (VB), `open X.Y` (F#): dotted names kept whole. */
const NAMESPACE_LINE = /^\s*(?:global\s+)?(?:using|import|imports|namespace|open|package)\s+(?:static\s+)?([\p{L}_][\p{L}\p{M}\p{N}_.]*)/iu;

/** Identifiers in a code span: dotted names stay whole (`JsonSourceGenerationOptionsAttribute.WriteIndented`). */
function codeSpanIdentifiers(code: string): string[] {
  return [...code.matchAll(CODE_NAME)].map((m) => m[0].normalize('NFC')).filter(isIdentifier);
}

/**
 * Identifiers in a code block. Dotted chains in code are mostly member access
 * (`options.TypeInfoResolverChain.Add`), so they are split into their parts; only namespace
 * imports and declarations keep the dotted name (`using System.Text.Json.Serialization;`).
 */
function codeBlockIdentifiers(code: string): string[] {
  const names: string[] = [];
  for (const line of code.split('\n')) {
    const ns = NAMESPACE_LINE.exec(line)?.[1]?.normalize('NFC');
    if (ns && isIdentifier(ns)) names.push(ns);
    for (const m of line.matchAll(CODE_NAME)) {
      for (const part of m[0].normalize('NFC').split('.')) if (part && part !== ns && isIdentifier(part)) names.push(part);
    }
  }
  return names;
}

/**
 * The characters at which an inline rule of `md` other than plain text can act (markdown-it
 * 15 with html on, linkify off: newline, escape, backticks, strikethrough, emphasis, links,
 * images, autolinks and HTML, entities), and those its normalize step rewrites (CR, NUL).
 */
const INLINE_SYNTAX = /[\0\r\\`*_~[\]!<&]/;

/**
 * Scans one inline content (a heading's, a paragraph's, a table cell's) as
 * `scanInline(md.parseInline(content, env)[0].children, span)` does. A content holding no
 * INLINE_SYNTAX character parses to its lines as text tokens between soft (or hard) breaks,
 * with the spaces around each break dropped; the scan reads a break as a space, and spaces
 * only separate words, so the whole content is fed to the span as it is: no parse state and
 * no tokens per content (a flat list of 125,000 one-line items made a million tokens, whose
 * garbage was 40% of the scan). `scan-cache.test.ts` holds it to the parse.
 */
function scanInlineContent(content: string, env: Env, span: Span): void {
  if (INLINE_SYNTAX.test(content)) {
    scanInline(md.parseInline(content, env)[0]?.children ?? [], span);
    return;
  }
  span.text(content);
  span.breakRun();
}

/** Walks the inline children of a heading, paragraph or table cell. */
function scanInline(children: readonly Token[], span: Span): void {
  let autolink: 'xref' | 'other' | null = null;
  for (const child of children) {
    switch (child.type) {
      case 'text':
        if (autolink === 'xref') {
          const name = xrefName(child.content);
          if (name) span.identifier(name, 'codeSpan');
        } else if (autolink === null) {
          span.text(child.content);
        }
        break;
      case 'softbreak':
      case 'hardbreak':
        span.text(' ');
        break;
      case 'code_inline':
        span.breakRun();
        for (const name of codeSpanIdentifiers(child.content)) span.identifier(name, 'codeSpan');
        break;
      case 'link_open':
        if (child.markup === 'autolink') {
          span.breakRun();
          autolink = /^xref:/i.test(String(child.attrGet('href') ?? '')) ? 'xref' : 'other';
        }
        break;
      case 'link_close':
        if (autolink) span.breakRun();
        autolink = null;
        break;
      case 'image':
      case 'html_inline':
        span.breakRun();
        break;
      default:
        // em/strong/s open and close: formatting inside running text.
        break;
    }
  }
  span.breakRun();
}

/** Front matter values that count as headings; every other key is ignored. */
const FRONT_MATTER_HEADING_KEYS = ['title', 'description'];

/**
 * Every candidate occurrence in one markdown document, in document order.
 * Front matter `title`/`description` count as headings; DocFX `:::` directive lines, HTML,
 * images and URLs are skipped; link text counts, link targets do not.
 *
 * With a `memo`, the same occurrences come from cached scans of the document's inline contents
 * and code blocks (see ScanMemo), and what this scan finds is cached there for later calls.
 */
export function scanMarkdown(source: string, memo?: ScanMemo): Occurrence[] {
  const out: Occurrence[] = [];
  scanMarkdownInto(source, out, memo);
  return out;
}

/** Where a scan puts its occurrences, in document order: an array, or a consumer that keeps none. */
export interface OccurrenceSink {
  push(o: Occurrence): unknown;
}

/**
 * `scanMarkdown`, handing each occurrence to `out` as it is found: a consumer that only
 * counts them (extractKeywords) keeps no array of millions of short-lived objects.
 */
export function scanMarkdownInto(source: string, out: OccurrenceSink, memo?: ScanMemo): void {
  const cache = new LexCache();
  let text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  const fm = FRONT_MATTER.exec(text);
  if (fm) {
    text = text.slice(fm[0].length);
    for (const value of frontMatterHeadings(fm[1] ?? '')) {
      const span = new Span(out, 'heading', cache);
      span.text(value);
      span.breakRun();
    }
  }
  text = text.replace(DOCFX_DIRECTIVE, '');
  if (memo) {
    memo.scan(text, out);
    return;
  }

  // Block tokens, then each inline content on its own (as ScanMemo does): most contents are
  // plain text, which needs no inline parse at all (scanInlineContent).
  const env: Env = {};
  const { kinds, contents } = blockItems(text, env);
  let block = 0;
  // One span per context, not one per content: a span holds nothing from one content to the
  // next (each scan ends with breakRun), and a document of tiny headings has 200,000 a MB.
  const bodySpan = new Span(out, 'body', cache);
  const headingSpan = new Span(out, 'heading', cache);
  for (let k = 0; k < kinds.length; k++) {
    const kind = kinds[k]!;
    if (kind !== CODE) scanInlineContent(contents[k]!, env, kind === BODY ? bodySpan : headingSpan);
    else {
      const span = new Span(out, 'codeBlock');
      block++;
      for (const name of codeBlockIdentifiers(contents[k]!)) span.identifier(name, 'codeBlock', block);
    }
  }
  releaseLexemes();
}

/** What one inline content yields when scanned as body text: its occurrences and their distinct keys. */
interface InlineScan {
  occurrences: readonly Occurrence[];
  keys: readonly string[];
  /** The occurrences as a heading's Span makes them (every one marked 'heading'), made at the content's first use in a heading. */
  inHeading: readonly Occurrence[] | null;
}

/**
 * Scans of inline contents (a heading's, a paragraph's, a table cell's text) and code block
 * contents, by their text, for scanning many overlapping pieces of one document (a document
 * and then each of its chunks): a paragraph that several chunks share is lexed and stemmed once.
 *
 * Exact because what a content yields depends only on that content and, for a content holding
 * `[`, on the link references the markdown defines (`[text][label]` is a link only if `label`
 * is defined; markdown-it's link and image rules are the only inline rules that read them).
 * So a content with `[` is cached per set of references, any other content once. Holds
 * everything it has seen: make one per document.
 */
export class ScanMemo {
  /** By references signature ('' for none or not consulted), then content. */
  private readonly inline = new Map<string, Map<string, InlineScan>>();
  private readonly code = new Map<string, readonly string[]>();
  private readonly lexCache = new LexCache();

  /** Appends the occurrences of `text` (front matter and directive lines already removed) to `out`; returns their keys. */
  scan(text: string, out?: OccurrenceSink): Set<string> {
    const keys = new Set<string>();
    const env: Env = {};
    // The block parse's inline contents and code blocks only; each inline content is parsed
    // below, on a miss, by md.parseInline with the same env, which runs the inline rules
    // md.parse would run on it.
    const { kinds, contents } = blockItems(text, env);
    // markdown-it's block parse sets env.references when the markdown defines a link reference.
    const refs = env.references !== undefined && Object.keys(env.references).length > 0 ? JSON.stringify(env.references) : '';
    let block = 0;
    for (let k = 0; k < kinds.length; k++) {
      const kind = kinds[k]!;
      const content = contents[k]!;
      if (kind !== CODE) {
        const found = this.inlineScan(content, refs !== '' && content.includes('[') ? refs : '', env);
        // Indexed loops: a document of tiny headings or lines has a content a line, and a
        // `for…of` made an iterator result per element until optimized.
        const foundKeys = found.keys;
        for (let i = 0; i < foundKeys.length; i++) keys.add(foundKeys[i]!);
        if (!out) continue;
        // A heading's Span marks every occurrence 'heading' and changes nothing else: made
        // once per content, shared (frozen) by its every use in a heading.
        // A loop, not push(...): a paragraph of 100,000s of occurrences would overflow the stack.
        const occurrences = kind === BODY ? found.occurrences : (found.inHeading ??= found.occurrences.map((o) => Object.freeze({ ...o, context: 'heading' })));
        for (let i = 0; i < occurrences.length; i++) out.push(occurrences[i]!);
      } else {
        block++;
        let names = this.code.get(content);
        if (!names) {
          names = codeBlockIdentifiers(content);
          this.code.set(content, names);
        }
        const span = out ? new Span(out, 'codeBlock') : undefined;
        for (const name of names) {
          keys.add(`i:${name.toLowerCase()}`);
          span?.identifier(name, 'codeBlock', block);
        }
      }
    }
    releaseLexemes();
    return keys;
  }

  private inlineScan(content: string, refs: string, env: Env): InlineScan {
    let byContent = this.inline.get(refs);
    if (!byContent) {
      byContent = new Map();
      this.inline.set(refs, byContent);
    }
    let found = byContent.get(content);
    if (!found) {
      const occurrences: Occurrence[] = [];
      scanInlineContent(content, env, new Span(occurrences, 'body', this.lexCache));
      found = { occurrences, keys: [...new Set(occurrences.map((o) => o.key))], inHeading: null };
      byContent.set(content, found);
    }
    return found;
  }
}

/** The set of keys of `scanMarkdown(source)`, through a memo (see ScanMemo). */
export function scanKeys(source: string, memo: ScanMemo): Set<string> {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  // Front matter is rare in a chunk; scanMarkdown reads it (and uses the memo for the rest).
  if (FRONT_MATTER.test(text)) return new Set(scanMarkdown(source, memo).map((o) => o.key));
  return memo.scan(text.replace(DOCFX_DIRECTIVE, ''));
}

function frontMatterHeadings(yamlText: string): string[] {
  // Broken front matter (or nested past the parser's safe depth) holds nothing we can trust; the body still counts.
  return (yamlStrings(yamlText, FRONT_MATTER_HEADING_KEYS) ?? []).filter((v): v is string => v !== undefined);
}
