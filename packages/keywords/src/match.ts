/**
 * Which keywords of a table occur in a piece of markdown (a chunk), by the same rules that
 * extracted them: "source generator" in a chunk matches the keyword "source generation"
 * (same Porter stems), an identifier matches case-insensitively, and text inside DocFX
 * `<xref:…>` links, code spans and code blocks counts as it did for extraction.
 */
import type { KeywordEntry } from './extract.js';
import { argumentError } from './quote.js';
import { arabicByCount, hasNonArabicLetter, isArabicScriptWord, procliticVariants } from './proclitics.js';
import { ScanMemo, scanKeys, termKey } from './scan.js';

/**
 * The entries of `table` that occur in `markdown`, in table order. A name the scan cannot
 * produce as one term (a hand-written keyword of more than three words, say) matches when it
 * occurs as text, case-insensitively and with runs of whitespace treated as one space.
 */
export function matchKeywords(table: readonly KeywordEntry[], markdown: string): KeywordEntry[] {
  checkTable('matchKeywords: table', table);
  if (typeof markdown !== 'string') throw argumentError('matchKeywords: markdown', 'a string', markdown);
  // One set of matching rules: the matcher's, made for this one piece (its own memo). The two
  // kept their rules side by side, and the Arabic and Hebrew proclitic forms were written twice.
  return new KeywordMatcher(table).match(markdown);
}

/** A table as the matchers read it: entries with a string name (a JavaScript caller's null failed on `forEach`). */
function checkTable(where: string, table: unknown): void {
  if (!Array.isArray(table)) throw argumentError(where, 'an array of { name, score }', table);
  for (const [i, entry] of table.entries()) {
    if (typeof entry !== 'object' || entry === null || typeof (entry as { name?: unknown }).name !== 'string') {
      throw argumentError(`${where}[${i}]`, 'an object { name, score } with a string name', entry);
    }
  }
}

/**
 * `matchKeywords` for many pieces of one document (the chunks of a chunker) against one table:
 * `new KeywordMatcher(table).match(markdown)` returns exactly `matchKeywords(table, markdown)`,
 * but each entry's term key is worked out once, and the term keys of a paragraph, heading,
 * table cell or code block are scanned once per distinct content and then remembered
 * (ScanMemo), so text that several chunks share is lexed and stemmed once. It holds what it
 * has scanned, so make one per document and let it go with the document.
 */
export class KeywordMatcher {
  /** Term key → the table indices of the entries with that key. */
  private readonly byKey = new Map<string, number[]>();
  /**
   * An entry's key with proclitics taken off its Arabic or Hebrew words (procliticVariants) →
   * the table indices of those entries: the table's "الخادم" is in a chunk that writes خادم.
   */
  private readonly byStripped = new Map<string, number[]>();
  /**
   * An entry's key with only the article taken off (ال, ה) → its table indices: the table's
   * "השרת" is in a chunk that writes לשרת ("to the server": ל takes the place of ה), a word
   * with another proclitic on the same remainder.
   */
  private readonly byArticleless = new Map<string, number[]>();
  /** Table indices of the entries matched as plain text (no term key). */
  private readonly plain: number[] = [];
  /** Each entry's term key (null for one matched as plain text), by table index. */
  private readonly keys: (string | null)[] = [];
  /** The distinct Arabic-script words of the table's keys, and how many of them have a letter Arabic lacks. */
  private readonly tableArabicWords = new Set<string>();
  private tableNonArabic = 0;
  /** The table has an entry of Arabic or Hebrew words. */
  private readonly semitic: boolean;
  constructor(
    private readonly table: readonly KeywordEntry[],
    /** Shared with the extraction of `table` (ExtractOptions.memo), the chunks of a document start with its scans. */
    private readonly memo: ScanMemo = new ScanMemo(),
  ) {
    checkTable('KeywordMatcher: table', table);
    table.forEach((entry, i) => {
      const key = termKey(entry.name);
      this.keys.push(key);
      if (key === null) this.plain.push(i);
      else {
        if (ARABIC_KEY.test(key)) {
          for (const w of key.slice(2).split(' ')) {
            if (!isArabicScriptWord(w) || this.tableArabicWords.has(w)) continue;
            this.tableArabicWords.add(w);
            if (hasNonArabicLetter(w)) this.tableNonArabic++;
          }
        }
        const at = this.byKey.get(key);
        if (at) at.push(i);
        else this.byKey.set(key, [i]);
        for (const v of procliticVariants(key)) {
          const to = this.byStripped.get(v);
          if (to) to.push(i);
          else this.byStripped.set(v, [i]);
        }
        for (const v of procliticVariants(key, true)) {
          const to = this.byArticleless.get(v);
          if (to) to.push(i);
          else this.byArticleless.set(v, [i]);
        }
      }
    });
    this.semitic = this.byStripped.size > 0 || [...this.byKey.keys()].some((k) => SEMITIC_KEY.test(k));
  }

  /** Number of entries in the table. */
  get size(): number {
    return this.table.length;
  }

  /** The entries of the table that occur in `markdown`, in table order. */
  match(markdown: string): KeywordEntry[] {
    if (typeof markdown !== 'string') throw argumentError('KeywordMatcher.match: markdown', 'a string', markdown);
    // matchKeywords scans even for an empty table, but its answer is [] whatever it finds.
    if (this.table.length === 0) return [];
    const found = scanKeys(markdown, this.memo);
    // From the smaller side: a chunk's keys, or the table's. Walking the whole table for each
    // chunk made a long hand-written table times many chunks (100,000 keywords and 56 chunks
    // took topic-spec 42 s).
    const hits: number[] = [];
    if (found.size < this.byKey.size) {
      for (const key of found) {
        const at = this.byKey.get(key);
        if (at) for (const i of at) hits.push(i);
      }
    } else {
      for (const [key, at] of this.byKey) if (found.has(key)) for (const i of at) hits.push(i);
    }
    // An Arabic or Hebrew word written with proclitics the table's entry has not (بالخادم for
    // الخادم: the entry's word is the remainder), without those it has (خادم for الخادم), or
    // with others in place of the entry's article (לשרת for השרת): the same word, as extraction
    // groups it when the document writes both (proclitics.ts). Not two words that only end
    // alike: מחשב ("computer") is not in a chunk that writes לחשב ("to calculate").
    // Arabic proclitics only in Arabic: not in a Persian, Urdu, ... chunk (بروز "occurrence" is
    // not ب + روز "day"), judged as extraction judges a document (writtenInArabic), on the
    // chunk's Arabic-script words together with the table's (arabicChunk).
    if (this.semitic) {
      let arabic: boolean | undefined;
      for (const key of found) {
        if (!SEMITIC_KEY.test(key)) continue;
        if (!ARABIC_KEY.test(key) || (arabic ??= this.arabicChunk(found))) {
          for (const i of this.byStripped.get(key) ?? []) hits.push(i);
          for (const v of procliticVariants(key)) {
            for (const i of this.byKey.get(v) ?? []) hits.push(i);
            for (const i of this.byArticleless.get(v) ?? []) hits.push(i);
          }
          continue;
        }
        // The maps hold every script's variants: keep a hit whose Arabic-script words keep their letters.
        for (const i of this.byStripped.get(key) ?? []) if (procliticVariants(this.keys[i]!, false, false).includes(key)) hits.push(i);
        for (const v of procliticVariants(key, false, false)) {
          for (const i of this.byKey.get(v) ?? []) hits.push(i);
          for (const i of this.byArticleless.get(v) ?? []) if (procliticVariants(this.keys[i]!, true, false).includes(v)) hits.push(i);
        }
      }
    }
    if (this.plain.length > 0) {
      const flat = plainText(markdown);
      for (const i of this.plain) if (flat.includes(plainText(this.table[i]!.name.trim()))) hits.push(i);
    }
    return [...new Set(hits)].sort((a, b) => a - b).map((i) => this.table[i]!);
  }

  /**
   * Whether the Arabic-script words of a chunk (its term keys `found`) are Arabic, and may carry
   * Arabic proclitics: writtenInArabic's rule (fewer than one in ten with a letter Arabic lacks)
   * on the distinct Arabic-script words of the chunk and of the table together. A chunk alone is
   * often a heading or a sentence of a few words, too few for a share: a Persian heading بروز خطا
   * has no letter Arabic lacks, and a short Arabic one that quotes گوگل may have one in three. The
   * table is most often the keywords of the chunk's own document (the chunker extracts it from
   * the document), so together they are judged as extraction judged that document.
   */
  private arabicChunk(found: ReadonlySet<string>): boolean {
    let script = this.tableArabicWords.size;
    let other = this.tableNonArabic;
    const seen = new Set<string>();
    for (const key of found) {
      if (!ARABIC_KEY.test(key)) continue;
      for (const w of key.slice(2).split(' ')) {
        if (!isArabicScriptWord(w) || this.tableArabicWords.has(w) || seen.has(w)) continue;
        seen.add(w);
        script++;
        if (hasNonArabicLetter(w)) other++;
      }
    }
    return arabicByCount(script, other);
  }
}

const SEMITIC_KEY = /^w:.*[\u0590-\u06ff]/;
const ARABIC_KEY = /^w:.*[\u0600-\u06ff]/;

/**
 * Text as a plain-text match compares it: NFC (a name typed with precomposed accents matches a
 * chunk written with combining ones), lower case, runs of whitespace as one space.
 */
function plainText(s: string): string {
  return s.replace(/[\u00ad\u2060\ufeff]/g, '').normalize('NFC').toLowerCase().replace(/\s+/g, ' ');
}
