import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asciiSentenceBreaks, isAsciiRange } from './sentence-rules.js';

const icu = new Intl.Segmenter('en', { granularity: 'sentence' });

/** ICU's boundaries strictly inside `text`: the definition. */
function icuBreaks(text: string): number[] {
  return [...icu.segment(text)].map((s) => s.index).filter((at) => at > 0);
}

function breaks(text: string, from = 0, to = text.length): number[] {
  const out: number[] = [];
  asciiSentenceBreaks(text, from, to, (at) => out.push(at));
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

describe('asciiSentenceBreaks', () => {
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

describe('isAsciiRange', () => {
  it('is false exactly when the range holds a character from U+0080', () => {
    expect(isAsciiRange('abc\u00e9', 0, 3)).toBe(true);
    expect(isAsciiRange('abc\u00e9', 0, 4)).toBe(false);
    expect(isAsciiRange('\u0080', 0, 1)).toBe(false);
    expect(isAsciiRange('\u007f', 0, 1)).toBe(true);
  });
});
