// Arabic and Hebrew write their one-letter prepositions, conjunctions and article as part of the
// next word (الخادم, والخادم, بالخادم, للخادم; השרת, והשרת, בשרת, מהשרת), so a page about a server
// split the word's count across its forms: an Arabic page listed المنفذ and والمنفذ both, and a
// word written once in each of four forms was no keyword at all (helper-100 probe).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractKeywords, KeywordMatcher, matchKeywords } from './index.js';
import { MIN_REMAINDER, procliticBase, procliticRemainders, writtenInArabic } from './proclitics.js';
import { ARABIC_SERVER_PAGE } from './test-pages.js';
import { isScriptStopWord } from './words.js';

const table = (text: string, max = 40) => extractKeywords([{ name: 'g.md', text }], { max });
const names = (text: string, max = 40) => table(text, max).map((e) => e.name);

const AR = ARABIC_SERVER_PAGE;

const HE = `# הגדרת השרת

השרת מקבל בקשות מהדפדפן. כאשר מפעילים את השרת בפעם הראשונה, השרת קורא את קובץ ההגדרות.
אפשר להתחבר לשרת דרך הפורט 8080. והשרת כותב יומנים לתיקיית היומנים.
אם השרת נעצר, הפעילו מחדש את השרת מלוח הבקרה. בשרת יש מטמון, ומהשרת נשלחות תגובות.

## קובץ ההגדרות

קובץ ההגדרות מכיל את כתובת השרת ואת הפורט. בהגדרות ברירת המחדל השרת פועל מקומית.
ההגדרות נשמרות בקובץ טקסט. שרת חדש דורש קובץ הגדרות משלו, והפורט ברור מתוך ההגדרות.
`;

describe('Arabic and Hebrew proclitics', () => {
  it('a word in several forms is one keyword, shown in its most frequent form', () => {
    const ar = names(AR);
    expect(ar).toContain('الخادم');
    expect(ar).toContain('المنفذ');
    for (const form of ['والمنفذ', 'بالخادم', 'والخادم', 'للخادم', 'خادم', 'بالإعدادات']) expect(ar).not.toContain(form);
    expect(ar[0]).toBe('الخادم');
    const he = names(HE);
    expect(he).toContain('השרת');
    for (const form of ['שרת', 'בשרת', 'לשרת', 'והשרת', 'מהשרת', 'בהגדרות']) expect(he).not.toContain(form);
    expect(he[0]).toBe('השרת');
  });

  it('counts the forms together: four forms written once each are one word written four times', () => {
    const ar = '# دليل\n\nيعمل الخادم هنا. اتصل بالخادم الآن. والخادم سريع جدا. للخادم ذاكرة كبيرة.\n';
    expect(names(ar)).toContain('الخادم');
    const he = '# מדריך\n\nהשרת עובד היטב. התחבר לשרת עכשיו. בשרת יש זיכרון. ומהשרת יוצאות תשובות.\n';
    expect(names(he)).toContain('השרת');
    // Scored as the same word written four times.
    const score = (text: string, name: string) => table(text).find((e) => e.name === name)?.score;
    expect(score(ar, 'الخادم')).toBe(score('# دليل\n\nيعمل الخادم هنا. اتصل الخادم الآن. الخادم سريع جدا. الخادم ذاكرة كبيرة.\n', 'الخادم'));
  });

  it('groups a phrase whose words carry proclitics with the phrase written without them', () => {
    const got = names('# تشغيل الخادم\n\nيمكنك تشغيل الخادم الآن. وتشغيل الخادم سهل. وتشغيل الخادم سريع. لتشغيل الخادم اضغط الزر.\n');
    expect(got).toContain('تشغيل الخادم');
    expect(got.filter((n) => n.includes('تشغيل'))).toEqual(['تشغيل الخادم']);
  });

  it('does not cut a word whose rest is not a word of the document, or is shorter than three letters', () => {
    // ברור ("clear") is not ב + רור; לחם ("bread") is not ל + חם ("hot") though the page writes
    // חם; מים ("water") is not מ + ים ("sea"); بيت ("house") is not ب + يت, ولد ("boy") not و + لد.
    const he = names('# ברור\n\nהמצב ברור. ברור מאוד. לחם חם. לחם טרי וחם מאוד. חם לחם. מים קרים. ים גדול. מים חמים. ים כחול.\n');
    for (const w of ['ברור', 'לחם', 'חם', 'מים', 'ים']) expect(he).toContain(w);
    const ar = names('# بيت\n\nبيت كبير. بيت صغير. ولد صغير. ولد كبير. لد لد. يت يت.\n');
    for (const w of ['بيت', 'ولد']) expect(ar).toContain(w);
    // برنامج ("program") stays whole: رنامج is no word of the page.
    expect(names('# برنامج\n\nبرنامج جديد. برنامج قديم.\n')).toContain('برنامج');
    expect(procliticBase('ברור', new Set(['ברור', 'מצב', 'מאוד']))).toBe('ברור');
    expect(procliticBase('לחם', new Set(['חם']))).toBe('לחם');
    expect(procliticBase('بيت', new Set(['يت']))).toBe('بيت');
  });

  it('keeps a word on a page that never writes it without its proclitic', () => {
    expect(names('# الخادم\n\nالخادم يعمل. الخادم يعمل.\n')).toContain('الخادم');
    expect(procliticBase('بالخادم', new Set(['الخادم']))).toBe('الخادم');
    expect(procliticBase('بالخادم', new Set(['الخادم', 'خادم']))).toBe('خادم');
    expect(procliticBase('للخادم', new Set(['خادم']))).toBe('خادم');
    expect(procliticBase('וכשהשרת', new Set(['שרת']))).toBe('שרת');
    expect(procliticBase('בשרת', new Set())).toBe('בשרת');
  });

  it('matches a table entry in a chunk that writes the word with other proclitics, not a short look-alike', () => {
    const entries = [
      { name: 'الخادم', score: 9 },
      { name: 'השרת', score: 8 },
      { name: 'לחם', score: 3 },
      { name: 'מחשב', score: 2 },
      { name: 'ليت', score: 2 },
    ];
    for (const [chunk, want] of [
      ['اتصل بالخادم الآن', ['الخادم']],
      ['خادم جديد', ['الخادم']],
      ['התחבר לשרת', ['השרת']],
      ['שרת חדש', ['השרת']],
      ['ומהשרת יוצאות', ['השרת']],
      ['מים חם', []],
      ['לחם טרי', ['לחם']],
      ['לחשב את הסכום', []],
      ['במחשב', ['מחשב']],
      ['ברור', []],
      ['קובץ התצורה', []],
      ['بيت', []],
    ] as const) {
      const got = matchKeywords(entries, chunk).map((e) => e.name);
      expect(got, chunk).toEqual(want);
      expect(new KeywordMatcher(entries).match(chunk).map((e) => e.name), chunk).toEqual(want);
    }
  });
});

const AR_PROCLITIC_FIRST = 'وفبكلا';
const HE_PROCLITIC_FIRST = 'והבכלמש';
const AR_LETTERS = 'ءآأؤإئابةتثجحخدذرزسشصضطظعغفقكلمنهوي';
const HE_LETTERS = 'אבגדהוזחטיכלמנסעפצקרשת';
const AR_SEQUENCES = ['و', 'ف', 'ب', 'ك', 'ل', 'ال', 'وال', 'بال', 'فال', 'كال', 'لل', 'ولل', 'وب', 'فب', 'ول', 'فل', 'وبال', 'فبال', 'وكال'];
// Not מ alone: it is taken off only before the article (מהשרת), as the Hebrew מ tests below check.
const HE_SEQUENCES = ['ו', 'ה', 'ב', 'כ', 'ל', 'ש', 'וה', 'וב', 'ול', 'מה', 'שב', 'שה', 'וש', 'ושב', 'כש', 'וכשה', 'ומה', 'משה', 'שמה'];

const word = (letters: string, minLength: number) => fc.array(fc.constantFrom(...letters), { minLength, maxLength: 7 }).map((cs) => cs.join(''));
/** A word of either script that starts with no proclitic letter. */
const bareWord = fc.oneof(
  word(AR_LETTERS, 3).filter((w) => !AR_PROCLITIC_FIRST.includes(w[0]!)),
  word(HE_LETTERS, 3).filter((w) => !HE_PROCLITIC_FIRST.includes(w[0]!)),
);

describe('procliticRemainders (property)', () => {
  it('never leaves an empty or one-letter word, only proper suffixes', () => {
    fc.assert(
      fc.property(fc.oneof(word(AR_LETTERS, 0), word(HE_LETTERS, 0), fc.tuple(fc.constantFrom(...AR_SEQUENCES, ...HE_SEQUENCES), word(AR_LETTERS + HE_LETTERS, 0)).map(([p, w]) => p + w)), (w) => {
        for (const rest of procliticRemainders(w)) {
          expect(rest.length).toBeGreaterThanOrEqual(Math.max(2, MIN_REMAINDER));
          expect(rest.length).toBeLessThan(w.length);
          expect(w.endsWith(rest)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never changes a word that starts with no proclitic, whatever the document writes', () => {
    fc.assert(
      fc.property(bareWord, fc.array(fc.oneof(bareWord, word(AR_LETTERS + HE_LETTERS, 1)), { maxLength: 20 }), (w, others) => {
        const lexicon = new Set([...others, ...others.map((o) => o.slice(1)), w.slice(1), w.slice(2)]);
        expect(procliticRemainders(w)).toEqual([]);
        expect(procliticBase(w, lexicon)).toBe(w);
      }),
      { numRuns: 500 },
    );
  });

  it('takes every proclitic sequence off a word the document also writes bare', () => {
    fc.assert(
      fc.property(bareWord, (w) => {
        const sequences = /[\u0590-\u05ff]/.test(w) ? HE_SEQUENCES : AR_SEQUENCES;
        for (const p of sequences) expect(procliticBase(p + w, new Set([w]))).toBe(w);
      }),
      { numRuns: 300 },
    );
  });
});

describe('extraction with proclitics (property)', () => {
  it('scores a page whose words carry proclitics as the page written bare, word for word', () => {
    // Sentences of distinct words (a sentence repeating a word counts its repeated phrases
    // without overlap, which only the bare page would see as one key), each word written bare
    // in the first sentence, and elsewhere with or without a proclitic.
    const script = fc.constantFrom<'ar' | 'he'>('ar', 'he');
    const doc = script.chain((s) => {
      const letters = s === 'ar' ? AR_LETTERS : HE_LETTERS;
      const first = s === 'ar' ? AR_PROCLITIC_FIRST : HE_PROCLITIC_FIRST;
      const vocabulary = fc.uniqueArray(word(letters, 3).filter((w) => !first.includes(w[0]!) && !isScriptStopWord(w)), { minLength: 3, maxLength: 6 });
      const sequences = s === 'ar' ? AR_SEQUENCES : HE_SEQUENCES;
      return vocabulary.chain((vocab) =>
        fc.tuple(
          fc.constant(vocab),
          fc.array(fc.uniqueArray(fc.tuple(fc.nat(vocab.length - 1), fc.option(fc.constantFrom(...sequences), { nil: undefined })), { selector: ([i]) => i, minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 12 }),
        ),
      );
    });
    fc.assert(
      fc.property(doc, ([vocab, sentences]) => {
        const prefixed = sentences.flatMap((ws) => ws.map(([i, p]) => (p ?? '') + vocab[i]!));
        // A proclitic form that is a function word (لذلك) would be no word at all.
        fc.pre(!prefixed.some(isScriptStopWord));
        const bare = `# ${vocab.join(' ')}\n\n${sentences.map((ws) => ws.map(([i]) => vocab[i]!).join(' ')).join('. ')}.\n`;
        const withProclitics = `# ${vocab.join(' ')}\n\n${sentences.map((ws) => ws.map(([i, p]) => (p ?? '') + vocab[i]!).join(' ')).join('. ')}.\n`;
        const lexicon = new Set(vocab);
        const base = (name: string) => name.split(' ').map((w) => procliticBase(w, lexicon)).join(' ');
        const scored = (t: string) =>
          table(t, 1000)
            .map((e) => `${base(e.name)}=${e.score}`)
            .sort();
        expect(scored(withProclitics)).toEqual(scored(bare));
      }),
      { numRuns: 150 },
    );
  });
});

describe('matching with proclitics (property)', () => {
  it('KeywordMatcher finds what matchKeywords finds, and a bare table entry in every form of its word', () => {
    const script = fc.constantFrom<'ar' | 'he'>('ar', 'he');
    const input = script.chain((s) => {
      const letters = s === 'ar' ? AR_LETTERS : HE_LETTERS;
      const sequences = s === 'ar' ? AR_SEQUENCES : HE_SEQUENCES;
      const w = word(letters, 3);
      const written = fc.tuple(fc.option(fc.constantFrom(...sequences), { nil: undefined }), w).map(([p, x]) => (p ?? '') + x);
      return fc.tuple(fc.uniqueArray(written, { minLength: 1, maxLength: 6 }), fc.array(written, { minLength: 1, maxLength: 10 }), bareWord.filter((x) => (s === 'ar') === /[\u0600-\u06ff]/.test(x)), fc.constantFrom(...sequences));
    });
    fc.assert(
      fc.property(input, ([names, chunkWords, bare, p]) => {
        const entries = [...new Set([...names, bare])].filter((n) => !isScriptStopWord(n)).map((name, i) => ({ name, score: (i % 10) + 1 }));
        const chunk = chunkWords.join(' ');
        expect(new KeywordMatcher(entries).match(chunk)).toEqual(matchKeywords(entries, chunk));
        // A bare entry is in a chunk that writes it with a proclitic, but not in one that writes only what follows its first letter.
        const entry = entries.find((e) => e.name === bare);
        if (entry && !isScriptStopWord(p + bare)) {
          expect(matchKeywords([entry], `${p}${bare} ${chunk}`)).toEqual([entry]);
          if (!chunkWords.some((x) => x.endsWith(bare))) expect(matchKeywords([entry], `${p}${bare.slice(1)} ${chunk}`)).toEqual([]);
        }
      }),
      { numRuns: 200 },
    );
  });
});

// Persian is written in Arabic letters but has no Arabic proclitics. Persian writes و and به as
// separate words, and its words begin with و, ب or ف as part of the stem. On a Persian page, بروز
// ("occurrence") took in روز ("day"), وب‌سایت ("website") took in سایت ("site"), and سرور
// ("server") took in وب‌سرور ("web server"), so روز, سایت and وب‌سرور were no keywords.
const FA = `# راه‌اندازی وب‌سایت

برای راه‌اندازی وب‌سایت، ابتدا سرور را پیکربندی کنید. وب‌سایت روی پورت ۸۰ اجرا می‌شود و سایت پس از ورود کاربر صفحه اصلی را نشان می‌دهد.
در صورت بروز خطا، گزارش خطا در فایل لاگ ثبت می‌شود. هر روز یک فایل لاگ جدید ساخته می‌شود و گزارش‌های روز قبل حذف می‌شوند.
اگر سایت در دسترس نیست، پس از بروز خطا وب‌سرور را دوباره راه‌اندازی کنید. وب‌سرور و سرور پایگاه داده روی یک ماشین اجرا می‌شوند.
فرمان زیر وبلاگ را می‌سازد و هر لاگ را در پوشه ذخیره می‌کند. رمان و رود و سیار و ایل فقط مثال هستند؛ ورود و بسیار و فایل هم.
`;
/** A page's words, as extraction keys them (without the zero-width non-joiner). */
const wordsOf = (text: string) => new Set(text.replace(/\u200c/g, '').match(/[\u0590-\u06ff]+/g) ?? []);
/** Persian words that begin with و, ب or ف as part of the stem, and the word that follows that letter. */
const PERSIAN_PAIRS = [
  ['بروز', 'روز'],
  ['وبسایت', 'سایت'],
  ['وبسرور', 'سرور'],
  ['وبلاگ', 'لاگ'],
  ['ورود', 'رود'],
  ['فرمان', 'رمان'],
  ['بسیار', 'سیار'],
  ['فایل', 'ایل'],
] as const;
const FA_LETTERS = 'ابپتثجچحخدذرزژسشصضطظعغفقکگلمنوهی';

describe('Persian is not Arabic', () => {
  it('a real page: words that begin with و, ب or ف keep apart from the word after that letter', () => {
    const got = names(FA);
    for (const w of ['روز', 'سایت', 'وب‌سرور', 'سرور', 'وب‌سایت', 'بروز خطا']) expect(got).toContain(w);
    const lexicon = wordsOf(FA);
    expect(writtenInArabic(lexicon)).toBe(false);
    for (const [w, rest] of PERSIAN_PAIRS) {
      expect(lexicon.has(w) && lexicon.has(rest), w).toBe(true);
      expect(procliticBase(w, lexicon), w).toBe(w);
    }
  });

  it('tells a Persian page from an Arabic one that quotes a Persian word', () => {
    expect(writtenInArabic(wordsOf(AR))).toBe(true);
    // Persian typed with Arabic's ي and ك still has گ, پ, چ in enough of its words.
    expect(writtenInArabic(wordsOf(FA.replace(/ی/g, 'ي').replace(/ک/g, 'ك')))).toBe(false);
    // An Arabic page that names Google as Persian writes it still groups its forms.
    const ar = `${AR}\nيمكن البحث عن الخادم في گوگل.\n`;
    expect(writtenInArabic(wordsOf(ar))).toBe(true);
    const got = names(ar);
    expect(got[0]).toBe('الخادم');
    for (const form of ['والمنفذ', 'بالخادم', 'والخادم', 'للخادم']) expect(got).not.toContain(form);
    expect(writtenInArabic(new Set())).toBe(true);
  });

  it('no Arabic proclitic comes off a word of a Persian page, or a word with a letter Arabic lacks (property)', () => {
    const faWord = fc.array(fc.constantFrom(...FA_LETTERS), { minLength: 3, maxLength: 7 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(faWord, fc.constantFrom(...AR_SEQUENCES), fc.array(faWord, { maxLength: 10 }), (w, p, others) => {
        // Any word, in a Persian page's words that also has the word bare.
        const lexicon = new Set([...wordsOf(FA), ...others, w, p + w]);
        expect(procliticBase(p + w, lexicon)).toBe(p + w);
        // A word with پ, چ, ژ, گ or Persian ک, ی has no remainders wherever it is written.
        if (/[پچژگکی]/.test(p + w)) expect(procliticRemainders(p + w)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

// Hebrew מ ("from") starts more words than any other proclitic: the participles of three verb
// patterns and a pattern of nouns. A technical page writes many of them next to their remainder,
// and they were grouped under it: מחדש ("anew") under חדש ("new"), מערך ("array") under ערך
// ("value"), מפתח ("key") under פתח ("open").
const HE_FROM = `# מערך של מפתחות

כל מערך מכיל ערך אחד או יותר. אם ערך חסר, המערך מחזיר שגיאה. ערך ריק אינו מותר במערך.
לכל רשומה יש מפתח ייחודי. פתח את קובץ ההגדרות והוסף מפתח חדש. מפתח חדש נוצר בכל הפעלה, ופתח את הקובץ שוב.
אם המידע השתנה, הפעילו מחדש את השרת. השרת קורא מחדש את קובץ ההגדרות ויוצר מערך חדש מהשרת.
`;
/** Words that begin with מ as part of the stem, and their remainder, a word too. */
const HEBREW_FROM_PAIRS = [
  ['מחדש', 'חדש'],
  ['מערך', 'ערך'],
  ['מפתח', 'פתח'],
  ['מידע', 'ידע'],
  ['מספר', 'ספר'],
  ['מזהה', 'זהה'],
  ['מפעיל', 'פעיל'],
  ['מאפשר', 'אפשר'],
  ['מעדכן', 'עדכן'],
  ['מסוף', 'סוף'],
  ['מערכת', 'ערכת'],
  ['מחשב', 'חשב'],
  ['מבנה', 'בנה'],
  ['מחזיר', 'חזיר'],
] as const;

describe('Hebrew מ', () => {
  it('a real page: מחדש, מערך and מפתח are not חדש, ערך and פתח; מהשרת is השרת', () => {
    const got = names(HE_FROM);
    for (const w of ['מחדש', 'חדש', 'מערך', 'ערך', 'השרת']) expect(got).toContain(w);
    expect(got).not.toContain('מהשרת');
    expect(got).not.toContain('במערך');
  });

  it.each(HEBREW_FROM_PAIRS)('%s stays apart from %s, in extraction and in matching', (word, rest) => {
    expect(procliticRemainders(word)).not.toContain(rest);
    expect(procliticBase(word, new Set([word, rest]))).toBe(word);
    expect(matchKeywords([{ name: rest, score: 1 }], `${word} `)).toEqual([]);
    expect(matchKeywords([{ name: word, score: 1 }], `${rest} `)).toEqual([]);
    // With a proclitic that is one, the word is still found.
    expect(matchKeywords([{ name: word, score: 1 }], `ב${word}`)).toEqual([{ name: word, score: 1 }]);
  });

  it('takes מ off before the article: מהשרת, ומהקובץ, משהשרת', () => {
    const lexicon = new Set(['השרת', 'הקובץ']);
    expect(procliticBase('מהשרת', lexicon)).toBe('השרת');
    expect(procliticBase('ומהקובץ', lexicon)).toBe('הקובץ');
    expect(procliticBase('מהשרת', new Set(['שרת']))).toBe('שרת');
    expect(procliticBase('משהשרת', new Set(['שרת']))).toBe('שרת');
    expect(matchKeywords([{ name: 'השרת', score: 1 }], 'ומהשרת')).toEqual([{ name: 'השרת', score: 1 }]);
  });

  it('takes a sequence with מ off only before the article (property)', () => {
    const heWord = word(HE_LETTERS, 3).filter((w) => !HE_PROCLITIC_FIRST.includes(w[0]!));
    fc.assert(
      fc.property(heWord, fc.constantFrom('מ', 'ומ', 'שמ', 'כשמ', 'ושמ', 'מש', 'ומש'), (w, p) => {
        expect(procliticBase(p + w, new Set([w]))).toBe(p + w);
        expect(procliticRemainders(p + w)).not.toContain(w);
        expect(procliticBase(`${p}ה${w}`, new Set([w]))).toBe(w);
        expect(procliticBase(`${p}ה${w}`, new Set([`ה${w}`]))).toBe(`ה${w}`);
      }),
      { numRuns: 300 },
    );
  });
});
