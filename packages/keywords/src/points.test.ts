// Hebrew written with its vowel points (niqqud) and Arabic with its short vowels (harakat) or a
// tatweel stretching a word (الخــادم) are the same words as written without them, which most
// documents do: "בְּרֵאשִׁית" and "בראשית" were two keywords, and a table's "בראשית" matched no
// chunk that points it (helper-85 probe).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractKeywords, matchKeywords } from './index.js';

const names = (text: string) => extractKeywords([{ name: 'g.md', text }], { max: 20 }).map((e) => e.name);

describe('Hebrew points, Arabic harakat and tatweel', () => {
  it('group a word written with and without them, shown as written most often', () => {
    expect(names('# בְּרֵאשִׁית\n\nבראשית ברא. בראשית ברא. בראשית. בְּרֵאשִׁית בָּרָא.\n')).toEqual(['בראשית', 'בראשית ברא']);
    expect(names('# الخادمُ\n\nالخادم يعمل. الخادم يعمل. الخــادم يعمل.\n').sort()).toEqual(['الخادم', 'الخادم يعمل']);
  });

  it('match a table entry in text written either way', () => {
    expect(matchKeywords([{ name: 'בראשית', score: 5 }], 'בְּרֵאשִׁית בָּרָא')).toEqual([{ name: 'בראשית', score: 5 }]);
    expect(matchKeywords([{ name: 'الخادمُ', score: 5 }], 'يعمل الخادم هنا')).toEqual([{ name: 'الخادمُ', score: 5 }]);
  });

  it('never change which words are apart (property: pointing a text changes no keyword but its shown form)', () => {
    const words = ['שרת', 'קובץ', 'תצורה', 'خادم', 'منفذ', 'تكوين'];
    // One pointed spelling of each: a mark after each letter.
    const pointed = (w: string) => [...w].map((c, i) => c + (/[\u0590-\u05ff]/.test(c) ? ['\u05b0', '\u05b4', '\u05b8', '\u05bc'][i % 4] : ['\u064e', '\u0650', '\u064f', '\u0651'][i % 4])).join('');
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...words), fc.boolean()), { minLength: 2, maxLength: 30 }), (picked) => {
        const plain = picked.map(([w]) => w);
        const mixed = picked.map(([w, p]) => (p ? pointed(w) : w));
        const text = (ws: string[]) => `# ${ws[0]}\n\n${ws.join(' ')}\n`;
        const strip = (s: string) => s.replace(/[\u0591-\u05c7\u064b-\u065f\u0670\u0640]/g, '');
        // As a set: ties are ordered by the shown name, which may keep a point.
        expect(names(text(mixed)).map(strip).sort()).toEqual(names(text(plain)).sort());
      }),
      { numRuns: 200 },
    );
  });
});
