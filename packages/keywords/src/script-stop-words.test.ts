// Arabic, Persian, Hebrew and Hindi documents had their function words as keywords: an Arabic
// page about a server listed في ("in"), من ("from") and هذا ("this"), a Hindi one है ("is"),
// की and का ("of"), a Hebrew one את (the object marker), a Persian one را and کنید, and phrases
// that began or ended with them ("सर्वर का", "فایل پیکربندی را", "את קובץ התצורה"), as "the"
// and "of" would be in English without STOP_WORDS (s61 probe, helper 85).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractKeywords } from './index.js';
import { isScriptStopWord } from './words.js';

const names = (text: string, max = 40) => extractKeywords([{ name: 'golden-reference.md', text }], { max }).map((e) => e.name);

const AR = `---
title: إنشاء الخادم وتكوينه
---
# إنشاء الخادم

يمكنك إنشاء الخادم في بيئة التطوير. يعمل الخادم على المنفذ 8080 من خلال ملف التكوين.
يجب أن تقوم بتكوين الخادم قبل التشغيل. في هذا المثال، نستخدم ملف التكوين لتحديد المنفذ.

## تكوين المنفذ

يتم تكوين المنفذ في ملف التكوين. إذا كان المنفذ مستخدما، فإن الخادم لا يبدأ.
هذا هو الخادم الذي يستخدم التكوين من الملف على المنفذ.
`;

const HE = `# הגדרת השרת

השרת מאזין ליציאה 8080. כדי להגדיר את השרת, יש לערוך את קובץ התצורה.
קובץ התצורה של השרת נמצא בתיקייה. אם השרת לא עולה, בדקו את קובץ התצורה.
`;

const HI = `# सर्वर का विन्यास

सर्वर पोर्ट 8080 पर सुनता है। सर्वर को कॉन्फ़िगर करने के लिए आपको विन्यास फ़ाइल संपादित करनी होगी।
विन्यास फ़ाइल में सर्वर की सेटिंग्स हैं। यदि सर्वर शुरू नहीं होता है, तो विन्यास फ़ाइल की जाँच करें।
यह सर्वर का एक उदाहरण है और यह फ़ाइल में है।
`;

const FA = `# پیکربندی سرور

سرور روی پورت ۸۰۸۰ گوش می‌دهد. برای پیکربندی سرور، فایل پیکربندی را ویرایش کنید.
فایل پیکربندی سرور در پوشه است. اگر سرور شروع نمی‌شود، فایل پیکربندی را بررسی کنید.
این فایل را باز کنید و سرور را اجرا کنید. این سرور می‌شود و میشود.
`;

describe('function words of Arabic, Persian, Hebrew and Hindi', () => {
  it.each([
    ['Arabic', AR, ['في', 'من', 'هذا', 'على المنفذ'], ['الخادم', 'المنفذ', 'ملف التكوين', 'تكوين المنفذ']],
    ['Hebrew', HE, ['את', 'את קובץ התצורה'], ['השרת', 'קובץ התצורה', 'הגדרת השרת']],
    ['Hindi', HI, ['है', 'की', 'का', 'यह', 'में', 'सर्वर का', 'फ़ाइल में'], ['सर्वर', 'विन्यास', 'विन्यास फ़ाइल']],
    ['Persian', FA, ['را', 'کنید', 'فایل پیکربندی را', 'این', 'می‌شود', 'میشود'], ['سرور', 'پیکربندی', 'فایل پیکربندی', 'پیکربندی سرور']],
  ])('%s: no function word is a keyword or a phrase\'s first or last word', (_, text, absent, present) => {
    const got = names(text);
    for (const name of absent) expect(got).not.toContain(name.normalize('NFC'));
    for (const name of present) expect(got).toContain(name.normalize('NFC'));
  });

  it('knows the words in either Persian spelling, with or without the zero-width non-joiner', () => {
    expect(isScriptStopWord('می‌شود')).toBe(true);
    expect(isScriptStopWord('میشود')).toBe(true);
    // Arabic's ي and ك are Persian's ی and ک in other documents: either spelling is the word.
    expect(isScriptStopWord('في')).toBe(true);
    expect(isScriptStopWord('اين')).toBe(true);
    expect(isScriptStopWord('این')).toBe(true);
    expect(isScriptStopWord('الخادم')).toBe(false);
    expect(isScriptStopWord('the')).toBe(false); // English has its own list
  });

  it('never lets a function word start or end a keyword, whatever the text around it (property)', () => {
    const stops = ['في', 'من', 'على', 'هذا', 'את', 'של', 'है', 'की', 'का', 'में', 'را', 'کنید', 'این', 'می‌شود'];
    const content = ['الخادم', 'المنفذ', 'التكوين', 'השרת', 'התצורה', 'सर्वर', 'फ़ाइल', 'سرور', 'پیکربندی'];
    const word = fc.constantFrom(...stops, ...content);
    const line = fc.array(word, { minLength: 1, maxLength: 8 }).map((ws) => ws.join(' '));
    const doc = fc.tuple(line, fc.array(line, { minLength: 1, maxLength: 12 })).map(([h, body]) => `# ${h}\n\n${body.join('\n\n')}\n`);
    fc.assert(
      fc.property(doc, (text) => {
        for (const name of names(text, 100)) {
          const words = name.split(' ');
          expect(isScriptStopWord(words[0]!), name).toBe(false);
          expect(isScriptStopWord(words[words.length - 1]!), name).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });
});

// A Chinese page that asks the reader to do things (请配置…, 请检查…) had 请 ("please") as a
// keyword, and 您 ("you", polite) likewise (helper-85 probe).
describe('Chinese polite function words', () => {
  it('请 and 您 are no keywords', () => {
    const got = names('# 配置服务器\n\n请配置服务器。请检查配置文件。您可以配置服务器。您需要检查配置文件。\n');
    expect(got).not.toContain('请');
    expect(got).not.toContain('您');
    expect(got).toContain('配置服务器');
    expect(got).toContain('配置');
  });
});
