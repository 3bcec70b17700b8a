// Armenian writes its question mark ՞ (U+055E) over the stressed vowel of the word asked about,
// inside the sentence, not at its end: "Ինչպե՞ս տեղադրել" ("How to install?"). Every Armenian
// question heading was refused, "must end with "?"" (s61 probe, helper 90). Its exclamation ՜
// (U+055C) and comma ՝ (U+055D) are written the same way and are no question.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQaPairs, QaPairsError } from './index.js';

const questions = (heading: string): string[] => parseQaPairs(`## ${heading}\n\nՊատասխան։\n`, 'qa.md').map((p) => p.question);

describe('Armenian questions', () => {
  it.each([
    ['on the first word', 'Ինչպե՞ս տեղադրել սերվերը'],
    ['on a later word, then the Armenian full stop', 'Սերվերը ո՞ր պորտն է լսում։'],
    ['on a one-letter word', 'Ի՞նչ է կոնֆիգուրացիան'],
    ['at the end, as some write it', 'Ինչպես տեղադրել՞'],
    ['on a capital', 'ԻՆՉՊԵ՞Ս ՏԵՂԱԴՐԵԼ'],
  ])('%s: a question, kept as written', (_, heading) => {
    expect(questions(heading)).toEqual([heading]);
  });

  it.each([
    ['exclamation ՜', 'Ինչ լա՜վ է'],
    ['comma ՝', 'Սերվերը՝ պորտով'],
    ['emphasis ՛ and full stop ։', 'Սերվե՛րը լսում է։'],
    ['՞ after no Armenian letter', 'How to install՞'],
    ['՞ alone', '՞ սերվեր'],
  ])('%s: no question', (_, heading) => {
    expect(() => questions(heading)).toThrow('must end with "?"');
  });
});

/** Every question mark of every script, with Greek's `;` (a question only in Greek text). */
const QUESTION_MARKS = /[?\uff1f\ufe56\u061f\u1367\u203d\u2047-\u2049\u055e;\u037e\u00bf\u2e2e\u2cfa\u2cfb\ua60f\u1945\u0700-\u0709]/;

describe('the question detector over words of many scripts (property)', () => {
  const letters = fc.constantFrom(
    ...'abcXYZéßçабвгдДЖαβγΩἀաբգդեզԱԲԳאבגשתابتثپچیकखगहกขคงกำ中文字のアイ한국ሀለሐაბგ'.split(''),
  );
  // Marks and punctuation that are no question mark: Armenian's exclamation, comma, emphasis,
  // apostrophe, abbreviation mark and full stop, combining marks, joiners, bidi marks, and others.
  const marks = fc.constantFrom('\u055c', '\u055d', '\u055b', '\u055a', '\u055f', '\u0589', '\u0301', '\u0308', '\u0651', '\u05b8', '\u0e31', '\u200c', '\u200d', '\u200e', '\u200f', '\u061c', '!', '.', ',', '¡', '։', '、', '。', '٫', '؛', '،', '፡', '።');
  const word = fc.array(fc.oneof({ weight: 3, arbitrary: letters }, { weight: 1, arbitrary: marks }), { minLength: 1, maxLength: 8 }).map((cs) => cs.join(''));
  const heading = fc.array(word, { minLength: 1, maxLength: 6 }).map((ws) => ws.join(' '));

  it('a heading without any question mark of any script is never a question', () => {
    fc.assert(
      fc.property(heading, (h) => {
        expect(QUESTION_MARKS.test(h)).toBe(false);
        expect(() => questions(h)).toThrow(QaPairsError);
      }),
      { numRuns: 1000 },
    );
  });

  it('՞ on an Armenian letter anywhere in such a heading makes it a question; after any other, it does not', () => {
    const armenian = fc.constantFrom(...'աբգդեզէըթժիլխծկհձղճմյնշոչպջռսվտրցւփքօֆԱԲԳԴԵ'.split(''));
    const other = fc.constantFrom(...'aéбαאبकก中ሀა'.split(''));
    fc.assert(
      fc.property(heading, fc.nat(), armenian, other, (h, at, letter, not) => {
        const i = at % (h.length + 1);
        const withArmenian = `${h.slice(0, i)}${letter}\u055e${h.slice(i)}`;
        expect(questions(withArmenian)).toEqual([withArmenian.trim()]);
        const withOther = `${h.slice(0, i)}${not}\u055e${h.slice(i)}`;
        expect(() => questions(withOther)).toThrow(QaPairsError);
      }),
      { numRuns: 1000 },
    );
  });

  it('throws nothing but a QaPairsError on any heading of any characters, marks anywhere', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom('\u055e', '\u055c', '\u055d', '?', '\u200f', '\u0301', 'ա', 'Ա'), fc.string({ unit: 'grapheme', maxLength: 1 })) }), (h) => {
        try {
          questions(h);
        } catch (e) {
          expect(e).toBeInstanceOf(QaPairsError);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
