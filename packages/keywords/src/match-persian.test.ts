// Matching takes no Arabic proclitics off a Persian (Urdu, Pashto, Kurdish) chunk, as extraction
// takes none off a Persian document's words (proclitics.ts, writtenInArabic). Matching stripped
// them by the word's script alone, so a table's روز ("day") was found in a Persian chunk that
// writes بروز ("occurrence"), رود ("river") in one that writes ورود ("login"), رمان ("novel")
// in one that writes فرمان ("command"), and, the other way, a table's بروز in a chunk that writes
// روز. Whether a chunk's words are Arabic is judged on its Arabic-script words together with the
// table's, so a short chunk (a heading) of a Persian page is judged with its page's keywords.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractKeywords, KeywordMatcher, matchKeywords, type KeywordEntry } from './index.js';
import { ARABIC_SERVER_PAGE } from './test-pages.js';
import { isScriptStopWord } from './words.js';

const both = (entries: readonly KeywordEntry[], chunk: string): string[] => {
  const got = matchKeywords(entries, chunk).map((e) => e.name);
  expect(new KeywordMatcher(entries).match(chunk).map((e) => e.name), chunk).toEqual(got);
  return got;
};
const entries = (...names: string[]): KeywordEntry[] => names.map((name, i) => ({ name, score: 10 - i }));

// A Persian page (the one proclitics.test.ts extracts from), chunked by paragraph below.
const FA = `# راه‌اندازی وب‌سایت

برای راه‌اندازی وب‌سایت، ابتدا سرور را پیکربندی کنید. وب‌سایت روی پورت ۸۰ اجرا می‌شود و سایت پس از ورود کاربر صفحه اصلی را نشان می‌دهد.

## بروز خطا

در صورت بروز خطا، گزارش خطا در فایل لاگ ثبت می‌شود. هر روز یک فایل لاگ جدید ساخته می‌شود و گزارش‌های روز قبل حذف می‌شوند.

اگر سایت در دسترس نیست، پس از بروز خطا وب‌سرور را دوباره راه‌اندازی کنید. وب‌سرور و سرور پایگاه داده روی یک ماشین اجرا می‌شوند.

فرمان زیر وبلاگ را می‌سازد و هر لاگ را در پوشه ذخیره می‌کند. رمان و رود فقط مثال هستند.
`;

const AR = ARABIC_SERVER_PAGE;

describe('matching a Persian chunk', () => {
  it('does not find روز in بروز, رود in ورود, رمان in فرمان, لاگ in وبلاگ, or the other way', () => {
    const bare = entries('روز', 'رود', 'رمان', 'لاگ');
    expect(both(bare, 'در صورت بروز خطا، پیام خطا در گزارش ثبت می‌شود.')).toEqual([]);
    expect(both(bare, 'پس از ورود کاربر، صفحه اصلی نمایش داده می‌شود.')).toEqual([]);
    expect(both(bare, 'فرمان زیر را در ترمینال اجرا کنید.')).toEqual([]);
    expect(both(bare, 'مطالب وبلاگ را هر هفته می‌خوانیم.')).toEqual([]);
    // The words themselves are found.
    expect(both(bare, 'هر روز یک فایل لاگ جدید ساخته می‌شود.')).toEqual(['روز', 'لاگ']);
    const long = entries('بروز', 'ورود', 'فرمان', 'وبلاگ');
    expect(both(long, 'هر روز یک فایل جدید ساخته می‌شود.')).toEqual([]);
    expect(both(long, 'این رمان را دیروز کنار رود خواندیم.')).toEqual([]);
    expect(both(long, 'پس از ورود کاربر، فرمان زیر اجرا می‌شود.')).toEqual(['ورود', 'فرمان']);
  });

  it('judges a short chunk with its page: a table extracted from a Persian page finds no روز under a heading بروز خطا', () => {
    const table = extractKeywords([{ name: 'fa.md', text: FA }], { max: 40 });
    const names = table.map((e) => e.name);
    // Extraction kept them apart (proclitics.test.ts 'Persian is not Arabic').
    for (const w of ['روز', 'بروز خطا']) expect(names).toContain(w);
    // The heading alone has no letter Arabic lacks; the table has many.
    const heading = both(table, '## بروز خطا');
    expect(heading).toContain('بروز خطا');
    expect(heading).not.toContain('روز');
    const matcher = new KeywordMatcher(table);
    for (const chunk of FA.split(/\n\n+/)) {
      const got = matcher.match(chunk).map((e) => e.name);
      const words = new Set(chunk.replace(/\u200c/g, '').match(/[\u0600-\u06ff]+/g) ?? []);
      // Every single-word keyword found is written in the chunk as it is (no proclitic taken off).
      for (const name of got) if (!name.includes(' ')) expect(words.has(name.replace(/\u200c/g, '')), `${name} in ${chunk}`).toBe(true);
    }
    expect(matcher.match(FA.split(/\n\n+/)[2]!).map((e) => e.name)).not.toContain('رود');
  });
});

describe('matching an Arabic chunk', () => {
  it('still finds a table entry in its forms with proclitics', () => {
    const table = entries('الخادم', 'المنفذ', 'الإعدادات');
    expect(both(table, 'والخادم يكتب السجلات')).toEqual(['الخادم']);
    expect(both(table, 'اتصل بالخادم عبر المنفذ')).toEqual(['الخادم', 'المنفذ']);
    expect(both(table, 'للخادم قاعدة بيانات، وبالإعدادات الجديدة')).toEqual(['الخادم', 'الإعدادات']);
    expect(both(entries('خادم'), 'وللخادم ذاكرة')).toEqual(['خادم']);
  });

  it('judges a short chunk that quotes a Persian name with its page: an Arabic table still merges', () => {
    const table = extractKeywords([{ name: 'ar.md', text: AR }], { max: 40 });
    expect(table[0]!.name).toBe('الخادم');
    // گوگل is one of the sentence's six Arabic-script words (more than one in ten), but the page's keywords have no such word.
    const chunk = 'وللخادم صفحة رسمية تجدها عبر البحث في گوگل.';
    expect(both(table, chunk)).toEqual(['الخادم']);
    // Judged alone, the sentence would not be Arabic.
    expect(both([{ name: 'خادم', score: 1 }], chunk)).toEqual([]);
  });
});

const FA_LETTERS = 'ابپتثجچحخدذرزژسشصضطظعغفقکگلمنوهی';
const AR_SEQUENCES = ['و', 'ف', 'ب', 'ك', 'ل', 'ال', 'وال', 'بال', 'فال', 'لل', 'وب', 'فب', 'ول', 'وبال'];
const faWord = fc.array(fc.constantFrom(...FA_LETTERS), { minLength: 3, maxLength: 7 }).map((cs) => cs.join(''));

describe('matching a Persian chunk (property)', () => {
  it('finds a one-word entry exactly where the chunk writes it, never under an Arabic proclitic', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(faWord, { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(fc.option(fc.constantFrom(...AR_SEQUENCES), { nil: undefined }), faWord), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 5 }),
        (names, written, pick) => {
          const words = written.map(([p, w]) => (p ?? '') + w);
          // A Persian sentence: its last three words have letters Arabic lacks, one in ten of its words and the table's or more.
          const chunk = `${words.join(' ')} پیکربندی گزارش پوشه`;
          const table = entries(...names.filter((n) => !isScriptStopWord(n)));
          // A bare table word written with an Arabic proclitic: the same letters, another Persian word.
          const bare = names[pick % names.length]!;
          const withProclitic = `${chunk} و${bare}`;
          for (const text of [chunk, withProclitic]) {
            const inText = new Set(text.split(' '));
            const got = both(table, text);
            expect(got).toEqual(table.map((e) => e.name).filter((n) => inText.has(n)));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
