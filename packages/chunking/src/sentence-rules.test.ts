import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTabledRange, LETTER_BLOCKS, sentenceBreaks, TABLED_BLOCKS } from './sentence-rules.js';

const icu = new Intl.Segmenter('en', { granularity: 'sentence' });

/** ICU's boundaries strictly inside `text`: the definition. */
function icuBreaks(text: string): number[] {
  return [...icu.segment(text)].map((s) => s.index).filter((at) => at > 0);
}

function breaks(text: string, from = 0, to = text.length): number[] {
  const out: number[] = [];
  sentenceBreaks(text, from, to, (at) => out.push(at));
  return out;
}

// Every ASCII class of the rules, weighted toward the terminators and what follows them.
const asciiChar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('.', '!', '?', ' ', '\n', '\r', '"', "'", ')', '(', ']', '}', ',', '-', ':', ';', 'a', 'z', 'A', 'Z', '1', '0', '\t', '\v', '\f') },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) },
);
const asciiPiece = fc.oneof(
  asciiChar,
  fc.constantFrom('e.g. ', 'Mr. Smith', 'U.S.A. ', '3.14', 'end.) ', 'Why?" he', '... ', '.\r\n', ' lower', ' Upper', 'v1.2.3', 'a.b', '?!', '."\'  x', '. 1 b', '. ( a'),
);

// Text of the tabled blocks beyond ASCII: CJK and its punctuation, fullwidth forms, Latin with
// diacritics, Greek, Cyrillic, typographic quotes and dashes, the separators.
const unicodePiece = fc.oneof(
  fc.constantFrom('日本語', 'テキスト', 'ひらがな', '한국어', '中文', '。', '、', '「', '」', '『', '』', '（', '）', '！', '？', '．', '，', '：', '\u3000', 'ＡＢ', 'ａｂ', '１２'),
  fc.constantFrom('é', 'É', 'ß', 'ǅ', 'Ω', 'ω', 'Я', 'я', '«', '»', '\u2018', '\u2019', '\u201c', '\u201d', '\u2013', '\u2014', '\u2024', '\u2026', '\u00a0', '\u2028', '\u2029', '\u0085', '¿', '¡', '\u037e'),
  fc.integer({ min: 0, max: TABLED_BLOCKS.length + LETTER_BLOCKS.length - 1 }).chain((b) => {
    const [lo, hi] = [...TABLED_BLOCKS, ...LETTER_BLOCKS][b]!;
    return fc.integer({ min: lo, max: hi }).map((c) => String.fromCharCode(c));
  }),
);

describe('sentenceBreaks', () => {
  it('equals ICU on any ASCII text', () => {
    fc.assert(
      fc.property(fc.array(asciiPiece, { maxLength: 60 }), (parts) => {
        const text = parts.join('');
        expect(breaks(text)).toEqual(icuBreaks(text));
      }),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), maxLength: 200 }), (text) => {
        expect(breaks(text)).toEqual(icuBreaks(text));
      }),
      { numRuns: 5_000 },
    );
  });

  it('equals ICU on text of every tabled block, mixed with ASCII', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(asciiPiece, unicodePiece), { maxLength: 50 }), (parts) => {
        const text = parts.join('');
        fc.pre(isTabledRange(text, 0, text.length));
        expect(breaks(text)).toEqual(icuBreaks(text));
      }),
      { numRuns: 10_000 },
    );
  });

  it("gives every tabled code point ICU's class: the same boundaries in contexts that tell the classes apart", () => {
    // Each context puts the character where two classes would break differently: after a
    // terminator and a space (Lower or not, SB8), right after `.` (Numeric SB6, Upper SB7,
    // terminators SB8a), at the end (Sp and Close, SB10), and so on.
    const contexts = ['a{}b', 'A. {}', 'a. {}x', 'a.{}', 'a. {}a', '{}. a', '{}. A', 'x{} b', '{}{}', 'a? {} b', 'a.{} b', '1{}2', '{}.A', 'a{}.A', '{}.a', 'a.{}a', 'a. ({}a', 'a. {} a', 'a!{} A', 'a. 1{}a', '\n{}', '{}\n', '{}. {}', 'a.{}{}', 'a. {}. b', 'A.{}', '\r{}\n'];
    const differing: string[] = [];
    let tabled = 0;
    for (const [from, to] of [...TABLED_BLOCKS, ...LETTER_BLOCKS]) {
      for (let c = from; c <= to; c++) {
        const ch = String.fromCharCode(c);
        if (!isTabledRange(ch, 0, 1)) continue;
        tabled++;
        const text = contexts.map((ctx) => ctx.split('{}').join(ch)).find((t) => JSON.stringify(breaks(t)) !== JSON.stringify(icuBreaks(t)));
        if (text !== undefined) differing.push(`U+${c.toString(16)} in ${JSON.stringify(text)}`);
      }
    }
    expect(differing).toEqual([]);
    // Extend and Format (SB5) and the surrogates are left to ICU; the rest of the blocks is tabled.
    expect(tabled).toBeGreaterThan(35_000);
  });

  it('reads a slice as ICU reads that slice alone, whatever lies around it', () => {
    fc.assert(
      fc.property(fc.array(asciiPiece, { maxLength: 40 }), fc.nat(), fc.nat(), (parts, x, y) => {
        const text = parts.join('');
        const from = text.length ? x % (text.length + 1) : 0;
        const to = from + (text.length - from ? y % (text.length - from + 1) : 0);
        expect(breaks(text, from, to)).toEqual(icuBreaks(text.slice(from, to)).map((at) => at + from));
      }),
      { numRuns: 5_000 },
    );
  });

  it('agrees with ICU on the rules one at a time', () => {
    const cases = [
      'Pi is 3.14 here.', // SB6
      'See e.g.Upper and U.S.A. Then', // SB7
      'He said. (and then) lower', // SB8 over Close and Sp
      'Stop. 12 lower', // SB8 over digits
      'Stop. 12 Upper', // SB11
      'Wait!, then; go', // SB8a
      'Done.)  \nNext', // SB9, SB10, SB4
      'a\r\nb\rc\nd', // SB3, SB4
      'End?"\' Next',
      'x.',
      '.',
      '',
    ];
    for (const text of cases) expect(breaks(text), JSON.stringify(text)).toEqual(icuBreaks(text));
  });

  it("equals ICU where each terminator's SB8 look-ahead runs to the next one, and one runs long", () => {
    const text = `${'. 1'.repeat(3_000)} a. ${'1 ) '.repeat(2_000)}b`;
    expect(breaks(text)).toEqual(icuBreaks(text));
  });
});

describe('isTabledRange', () => {
  it('leaves Extend, Format, surrogates and untabled blocks to ICU', () => {
    expect(isTabledRange('abc\u00e9日本。', 0, 7)).toBe(true);
    expect(isTabledRange('e\u0301', 0, 2)).toBe(false); // a combining mark (Extend)
    expect(isTabledRange('a\u200bb', 0, 3)).toBe(false); // a zero-width space (Format)
    expect(isTabledRange('\u{1f600}', 0, 2)).toBe(false); // an astral character
    expect(isTabledRange('\u0627', 0, 1)).toBe(false); // Arabic, not tabled
    expect(isTabledRange('\u0627', 0, 0)).toBe(true);
  });
});
