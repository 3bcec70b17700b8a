/**
 * Arabic and Hebrew write their one-letter prepositions, conjunctions and article as part of
 * the word that follows: Arabic الخادم "the server", والخادم "and the server", بالخادم "with the
 * server", للخادم "for the server"; Hebrew השרת, והשרת, בשרת, לשרת, מהשרת. Each form was a keyword
 * of its own, so a page about a server split the word's count across four forms and listed
 * two of them (helper-100 probe).
 *
 * There is no dictionary, and the same letters begin many words (Hebrew ברור "clear", לחם
 * "bread", מחשב "computer"; Arabic بيت "house", ولد "boy", برنامج "program"), so a proclitic is
 * taken off only where what remains is itself a word of the same document, at least
 * MIN_REMAINDER letters long: بالخادم is الخادم's or خادم's form only on a page that writes
 * الخادم or خادم too. A remainder of two letters is too often a word of its own inside a longer
 * one (לחם is ל + חם "hot", מים "water" is מ + ים "sea"), so two-letter words keep their forms apart.
 *
 * The proclitics, in the order they are written:
 *   - Arabic: و or ف ("and"), then ب, ك or ل ("with", "as", "for"), then the article ال; ل with
 *     the article is written لل (للخادم).
 *   - Hebrew: ו ("and"), then ש, כש or מש ("that", "when"), then ב, כ, ל or מ ("in", "as", "to",
 *     "from"), then the article ה.
 * Any of them may be left out; the sequence must not be empty.
 *
 * Hebrew מ ("from") and מש ("since") are taken off only before the article ה, which Hebrew
 * keeps after them: מהשרת is "from the server", but מ begins more Hebrew words than any other
 * proclitic letter. Every participle of three verb patterns starts with it, and so does a common
 * pattern of nouns, and many of those words have an ordinary word for a remainder, the kind a
 * technical page writes next to them: מערך "array" and ערך "value", מפתח "key" and פתח "open",
 * מידע "information" and ידע "knowledge", מספר "number" and ספר "book", מזהה "identifier"
 * and זהה "identical", מפעיל "runs" and פעיל "active", מאפשר "allows" and אפשר "possible",
 * מעדכן "updates" and עדכן "update!", מסוף "terminal" and סוף "end", מחדש "anew" and חדש "new",
 * מערכת "system" and ערכת "kit". Because the pattern is productive, a list of exceptions could
 * not cover these words. Before ה, the remainder of such a word is rarely a word (מהיר "fast" is
 * מ + היר). So מקובץ ("from a file") now stays apart from קובץ, as every form did before
 * proclitics were grouped, and מהקובץ joins הקובץ.
 *
 * Persian, Urdu, Pashto and Kurdish are written in Arabic letters, but they have none of these
 * proclitics. Persian writes و "and" and به "to" as words of their own, and many of its words
 * begin with و, ب or ف as part of the stem, with another word for a remainder: بروز "occurrence"
 * and روز "day", ورود "login" and رود "river", فرمان "command" and رمان "novel", وب‌سرور "web
 * server" and سرور "server", وبلاگ "blog" and لاگ "log". A word is Arabic only in a document
 * written in Arabic (writtenInArabic). Such a document rarely has a word with a letter that
 * Arabic lacks (پ چ ژ گ, Persian ک and ی, Urdu ٹ ڈ ڑ ں ہ ے, ...). A Persian one has many:
 * 24 of the 39 distinct words of persian-verbs.test.ts's page, and still 7 of them (گ, پ, چ)
 * when it is typed with Arabic ي and ك. An Arabic page that quotes one Persian name has one in
 * 60 or more. A word that has such a letter is never Arabic.
 *
 * Matching a table against a chunk judges the chunk's words by the same rule, on its
 * Arabic-script words together with the table's (KeywordMatcher): a chunk is often a heading
 * or a sentence, too few words for a share (the Persian heading بروز خطا has no letter Arabic
 * lacks), and the table is most often its own document's keywords.
 */

/** The fewest letters a proclitic may leave of a word. */
export const MIN_REMAINDER = 3;

function sequences(parts: readonly (readonly string[])[]): string[] {
  let out = [''];
  for (const options of parts) out = out.flatMap((before) => ['', ...options].map((p) => before + p));
  return out;
}

const ARABIC_PROCLITICS = [
  ...new Set(
    sequences([['و', 'ف'], ['ب', 'ك', 'ل'], ['ال']])
      // ل + ال is written لل.
      .map((p) => p.replace('لال', 'لل')),
  ),
];
const HEBREW_PROCLITICS = [...new Set(sequences([['ו'], ['ש', 'כש', 'מש'], ['ב', 'כ', 'ל', 'מ'], ['ה']]))];

/** Shortest first, so that the remainders of a word come out longest first. */
const PROCLITICS: ReadonlyMap<string, readonly string[]> = new Map([
  ['arabic', ARABIC_PROCLITICS.filter(Boolean).sort((a, b) => a.length - b.length)],
  ['hebrew', HEBREW_PROCLITICS.filter(Boolean).sort((a, b) => a.length - b.length)],
]);

/** The articles alone: Hebrew drops its ה after ב, כ and ל (לשרת is "to the server"). */
const ARTICLES = ['ال', 'ה'];

/** The letters a proclitic starts with: a word that starts with none has no remainders. */
const FIRST = /^[وفبكلاוהבכלמש]/;
const ARABIC_LETTER = /[\u0600-\u06ff]/;
const ARABIC_WORD = /^[\u0600-\u06ff]/;
const LETTERS = /\p{L}/gu;
/**
 * Letters of Persian (پ چ ژ گ ک ی), Urdu (ٹ ڈ ڑ ں ہ ے), Pashto (ټ ډ ړ ږ ښ ګ ځ څ ې ۍ) and Sorani
 * Kurdish (ڵ ڕ ۆ ێ ە) that Arabic's alphabet lacks. This leaves out those that Arabic pages write:
 * ڤ for "v", the Maghreb's ڨ and ڭ, and ھ, which some Arabic text encodes in place of ه.
 */
const NON_ARABIC_LETTER = /[پچژگکیٹڈڑںہےټډړږښګځڅېۍڵڕۆێە]/;
/** The share of a document's Arabic-script words that may have a NON_ARABIC_LETTER for its words to be Arabic. */
const NON_ARABIC_SHARE = 1 / 10;

/** A Hebrew proclitic sequence with מ ("from", "since") that the article ה does not end. */
const HEBREW_FROM_BARE = /מ[^ה]*$/;

const written = new WeakMap<ReadonlySet<string>, { size: number; arabic: boolean }>();

/**
 * Whether the Arabic-script words of a document (its words, as procliticBase's lexicon) are
 * Arabic, and not Persian, Urdu, Pashto or Kurdish. They are Arabic when fewer than one in ten
 * has a letter that Arabic lacks (NON_ARABIC_LETTER; see the top of this file). True for a document
 * with no Arabic-script words. The answer is remembered for the set, and worked out again if the
 * set's size changes.
 */
export function writtenInArabic(words: ReadonlySet<string>): boolean {
  const known = written.get(words);
  if (known && known.size === words.size) return known.arabic;
  let script = 0;
  let other = 0;
  for (const w of words) {
    if (!isArabicScriptWord(w)) continue;
    script++;
    if (hasNonArabicLetter(w)) other++;
  }
  const arabic = arabicByCount(script, other);
  written.set(words, { size: words.size, arabic });
  return arabic;
}

/** Whether a word is written in Arabic letters (Arabic, Persian, Urdu, ...): the words writtenInArabic counts. */
export function isArabicScriptWord(word: string): boolean {
  return ARABIC_WORD.test(word);
}

/** Whether a word has a letter that Arabic lacks (Persian, Urdu, Pashto, Kurdish): it is never Arabic. */
export function hasNonArabicLetter(word: string): boolean {
  return NON_ARABIC_LETTER.test(word);
}

/**
 * writtenInArabic's rule on counts: `script` distinct Arabic-script words, `other` of them with a
 * letter Arabic lacks, are Arabic when `other` is under one in ten of `script` (or none).
 */
export function arabicByCount(script: number, other: number): boolean {
  return other === 0 || other < script * NON_ARABIC_SHARE;
}

/**
 * What `word` (a lower-cased stem without marks) may be with a proclitic sequence taken off,
 * longest first: each remainder at least MIN_REMAINDER letters. Empty for a word of another
 * script or one that starts with no proclitic. With `articleOnly`, only the article (ال, ה).
 * With `arabicText` false (the word's text is not writtenInArabic), empty for an Arabic-script word.
 */
export function procliticRemainders(word: string, articleOnly = false, arabicText = true): string[] {
  if (!FIRST.test(word)) return [];
  const arabic = ARABIC_LETTER.test(word[0]!);
  // A word of a Persian, Urdu, ... text (writtenInArabic) has no Arabic proclitics.
  if (arabic && !arabicText) return [];
  // A word with a letter that Arabic lacks is Persian, Urdu, ...: it has no proclitics.
  if (arabic && NON_ARABIC_LETTER.test(word)) return [];
  const list = articleOnly ? ARTICLES : PROCLITICS.get(arabic ? 'arabic' : 'hebrew')!;
  const out: string[] = [];
  for (const p of list) {
    if (!word.startsWith(p)) continue;
    const rest = word.slice(p.length);
    // מ and מש only before the article: מהשרת, not מערך (an array, not "from a value").
    if (!arabic && HEBREW_FROM_BARE.test(p) && !rest.startsWith('ה')) continue;
    if ((rest.match(LETTERS)?.length ?? 0) >= MIN_REMAINDER && !out.includes(rest)) out.push(rest);
  }
  return out;
}

/**
 * The form `word` is grouped under in a document whose words are `lexicon`: the shortest
 * remainder (procliticRemainders) that the document also writes as a word, or `word` itself.
 * The remainders of a remainder are remainders of the word (و + ال is a sequence too), so
 * every form of one word reaches the same one: والخادم, بالخادم and الخادم are خادم on a page
 * that writes خادم, and الخادم on one that does not. An Arabic-script word of a document
 * that is not written in Arabic (writtenInArabic: Persian, Urdu, ...) is itself.
 */
export function procliticBase(word: string, lexicon: ReadonlySet<string>): string {
  if (ARABIC_WORD.test(word) && !writtenInArabic(lexicon)) return word;
  const remainders = procliticRemainders(word);
  for (let k = remainders.length - 1; k >= 0; k--) if (lexicon.has(remainders[k]!)) return remainders[k]!;
  return word;
}

/**
 * The other keys a phrase key (`w:` and stems) may stand for with proclitics taken off its
 * words: every combination of each word or one of its remainders, but the key itself. Empty
 * for a key none of whose words has a remainder (every key outside Arabic and Hebrew). With
 * `articleOnly`, only the article is taken off. With `arabicText` false (a Persian, Urdu, ...
 * text), its Arabic-script words keep their letters; only Hebrew words lose proclitics.
 */
export function procliticVariants(key: string, articleOnly = false, arabicText = true): string[] {
  if (!key.startsWith('w:') || !/[\u0590-\u06ff]/.test(key)) return [];
  const words = key.slice(2).split(' ');
  const options = words.map((w) => [w, ...procliticRemainders(w, articleOnly, arabicText)]);
  if (options.every((o) => o.length === 1)) return [];
  let keys = [''];
  for (const [i, o] of options.entries()) keys = keys.flatMap((k) => o.map((w) => (i === 0 ? w : `${k} ${w}`)));
  return keys.slice(1).map((k) => `w:${k}`);
}
