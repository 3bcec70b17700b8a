// Scripts not tried before (s61 probe, helper 90), each fed to the extractor as a page of its own.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractKeywords } from './index.js';

const names = (text: string, max = 40) => extractKeywords([{ name: 'golden-reference.md', text }], { max }).map((e) => e.name);

// An Arabic page that stretched its words with tatweel (U+0640, a justification stroke of the
// category Lm) and drew a rule with a run of it had the keyword "ـــــ ـــــ ـــــ": a word of
// no letter that shows as a line.
describe('Arabic tatweel', () => {
  const AR = '# إنشـــــاء الخـــــادم\n\nالخـــــادم يعمل على المنفـــذ. الخـــــادم ـــــ ـــــ ـــــ. ملف التكـــوين ملف التكوين ــ ـ\n\nـــــ ـــــ ـــــ\n';

  it('a run of it is no word, and a word stretched with it is the word', () => {
    const got = names(AR);
    for (const name of got) expect(name.replace(/[\u0640\s]/g, ''), JSON.stringify(got)).not.toBe('');
    expect(got.map((n) => n.replace(/\u0640/g, ''))).toEqual(expect.arrayContaining(['الخادم', 'ملف التكوين']));
  });

  it('no keyword is tatweel, harakat and spaces only, whatever the text (property)', () => {
    const spelling = fc.constantFrom('\u0640', '\u0640\u0640\u0640', '\u064e', '\u0651', '\u0670');
    const word = fc.oneof(fc.constantFrom('الخادم', 'المنفذ', 'ملف'), fc.array(spelling, { minLength: 1, maxLength: 4 }).map((s) => s.join('')));
    const line = fc.array(word, { minLength: 1, maxLength: 6 }).map((ws) => ws.join(' '));
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), (lines) => {
        const text = `# ${lines[0]}\n\n${lines.join('\n\n')}\n`;
        for (const name of names(text, 100)) expect(name.replace(/[\u0640\u064b-\u065f\u0670\s]/g, ''), name).not.toBe('');
      }),
      { numRuns: 200 },
    );
  });
});

// Mongolian writes a vowel separator (U+180E, a format character) before the final ᠠ or ᠡ of
// many words: "ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ᠎ᠠ" ("configuration") was the keyword "ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ", its last letter
// cut off, and a phrase ended there.
describe('the Mongolian vowel separator', () => {
  const MN = '# ᠰᠧᠷᠸᠧᠷ ᠤᠨ ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ᠎ᠠ\n\nᠰᠧᠷᠸᠧᠷ ᠨᠢ 8080 ᠫᠣᠷᠲ ᠢ ᠰᠣᠨᠣᠰᠤᠨ᠎ᠠ᠃ ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ᠎ᠠ ᠶᠢᠨ ᠹᠠᠶᠢᠯ ᠨᠢ ᠬᠠᠪᠲᠠᠰ ᠲᠤ ᠪᠠᠶᠢᠨ᠎ᠠ᠃ ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ᠎ᠠ ᠶᠢᠨ ᠹᠠᠶᠢᠯ ᠢ ᠰᠢᠯᠭᠠ᠃\n';

  it('is inside the word: the keyword is the whole word, as written', () => {
    const got = names(MN);
    expect(got).toContain('ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ᠎ᠠ');
    expect(got).toContain('ᠰᠧᠷᠸᠧᠷ ᠤᠨ ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ᠎ᠠ');
    expect(got).not.toContain('ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ');
  });

  it('no keyword ends just before a separator the text had there (property)', () => {
    const stem = fc.constantFrom('ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ', 'ᠰᠣᠨᠣᠰᠤᠨ', 'ᠪᠠᠶᠢᠨ', 'ᠬᠡᠷᠡᠭᠯᠡᠭᠡ');
    const word = fc.tuple(stem, fc.constantFrom('', '\u180e\u1820', '\u180e\u1821')).map(([w, end]) => w + end);
    const line = fc.array(word, { minLength: 1, maxLength: 5 }).map((ws) => ws.join(' '));
    fc.assert(
      fc.property(fc.array(line, { minLength: 2, maxLength: 6 }), (lines) => {
        const text = `# ${lines[0]}\n\n${lines.slice(1).join('᠃ ')}᠃\n`;
        const written = new Set(text.split(/[\s#᠃]+/).filter(Boolean));
        for (const name of names(text, 100)) for (const w of name.split(' ')) expect(written.has(w), `${name} in ${text}`).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('a Mongolian vowel separator at the end of a word', () => {
  it('separates nothing and is dropped, as a joiner there is', () => {
    expect(names('# ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ\u180e\n\nᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ\u180e ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ\n')).toEqual(['ᠲᠣᠬᠢᠷᠠᠭᠤᠯᠭ']);
  });
});

// Cherokee is written in its capitals; lower-casing turned every Cherokee keyword into the small
// letters Unicode added in 2015 (U+AB70–U+ABBF), which few fonts draw: "ᎠᏍᎦᏯ" was "ꭰꮝꭶꮿ".
describe('Cherokee', () => {
  const CHR = '# ᎠᏍᎦᏯ ᏗᏕᎶᏆᏍᏗ\n\nᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ ᏗᏕᎶᏆᏍᏗ. ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ ᎠᏍᎦᏯ. ᏗᏕᎶᏆᏍᏗ ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ.\n';

  it('keywords are shown in the capitals the page is written in, and either case is one keyword', () => {
    const got = names(CHR);
    expect(got).toEqual(expect.arrayContaining(['ᎠᏍᎦᏯ ᏗᏕᎶᏆᏍᏗ', 'ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ']));
    for (const name of got) expect(name, name).not.toMatch(/[\uab70-\uabbf\u13f8-\u13fd]/);
    expect(names('# ꮳꮃꭹ\n\nᏣᎳᎩ. ꮳꮃꭹ.\n')).toEqual(['ᏣᎳᎩ']);
  });
});

// The Hangul fillers (U+3164, U+FFA0, U+115F, U+1160) are letters by category that show as a
// blank or as nothing: "ㅤㅤ" was a page's top keyword, a blank row of the table.
describe('Hangul fillers', () => {
  it.each([
    ['# ㅤㅤ\n\nㅤㅤ server. ㅤㅤ server.\n', ['server']],
    ['# ﾠﾠﾠ config\n\nﾠﾠﾠ config\n', ['config']],
    ['# \u115f\u1160\n\n\u115f\u1160 \u115f\u1160\n', []],
  ])('a word of them only is no word: %j', (text, expected) => {
    expect(names(text)).toEqual(expected);
  });

  it('a Korean word is still one (property: no keyword is fillers, marks and spaces only)', () => {
    expect(names('# 서버\n\n서버 설정. 서버 설정.\n')).toEqual(expect.arrayContaining(['서버']));
    const piece = fc.constantFrom('\u3164', '\uffa0', '\u115f', '\u1160', '\u0301', 'server', '서버');
    const word = fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join(''));
    const line = fc.array(word, { minLength: 1, maxLength: 5 }).map((ws) => ws.join(' '));
    fc.assert(
      fc.property(fc.array(line, { minLength: 2, maxLength: 6 }), (lines) => {
        const text = `# ${lines[0]}\n\n${lines.join('. ')}.\n`;
        for (const name of names(text, 100)) for (const w of name.split(' ')) expect(w.replace(/[\u3164\uffa0\u115f\u1160\p{M}]/gu, ''), name).not.toBe('');
      }),
      { numRuns: 200 },
    );
  });
});
