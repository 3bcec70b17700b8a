import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { sentenceStartOffsets, sentenceStarts, sentenceStartsInScratch } from './sentences.js';

/** ICU on the whole text at once: the definition (and what sentenceStarts did before). */
function reference(text: string): number[] {
  const starts = [...new Intl.Segmenter('en', { granularity: 'sentence' }).segment(text)].map((s) => s.index);
  return starts.length ? starts : [0];
}

describe('sentenceStarts', () => {
  it('equals ICU on the whole text', () => {
    const piece = fc.constantFrom('Hello world', '. ', '! ', '? ', '\n', '\r\n', '\n\n', 'e.g. ', 'Mr. Smith', ' lower', ' Upper', '"', ')', '1.5', '…', '  ', '\u2029', '\u0085', 'x');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(sentenceStarts(text)).toEqual(reference(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('equals ICU on any ASCII text and on lines with and without terminators (the path that skips ICU)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), maxLength: 300 }), (text) => {
        expect(sentenceStarts(text)).toEqual(reference(text));
      }),
      { numRuns: 2000 },
    );
    const line = fc.oneof(
      fc.constantFrom('x0', '# h1', '- item', '  ', '', 'A b c', 'tab\there', 'form\ffeed', 'v\vt'),
      fc.constantFrom('end.', 'Why?', 'No!', 'a.b', 'cr\r', '\u2029', '\u0085', 'déjà vu', '。', '\u2024', 'x\u00a0y', '"Quote."', '(x.)'),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 200 }), fc.constantFrom('\n', '\r\n', '\n\n'), (lines, sep) => {
        const text = lines.join(sep);
        expect(sentenceStarts(text)).toEqual(reference(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('equals ICU on lines longer than its window, and on many short lines', () => {
    let s = 3;
    const rnd = (): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const W = ['the', 'parser', 'Returns', 'a', 'value', 'e.g.', 'Node.js', 'v1.2', '(see', 'below)'];
    const sentence = (): string => `${Array.from({ length: 4 + Math.floor(rnd() * 12) }, () => W[Math.floor(rnd() * W.length)]).join(' ')}${['.', '!', '?', '.)', '."'][Math.floor(rnd() * 5)]}`;
    const long = Array.from({ length: 3000 }, sentence).join(' ');
    expect(long.length).toBeGreaterThan(50_000);
    expect(sentenceStarts(long)).toEqual(reference(long));
    const lines = Array.from({ length: 3000 }, (_, i) => `x${i % 10}`).join('\n');
    expect(sentenceStarts(lines)).toEqual(reference(lines));
    expect(sentenceStarts('')).toEqual([0]);
  });
});

describe('sentenceStarts on lines ended by a lone CR', () => {
  it('equals ICU without asking it, across window edges and CR LF pairs split by them', () => {
    // Such text is one line to the line grouping (it splits at line feeds), so it is read in
    // windows of WINDOW characters: lines of every length near the window put a CR, or a CR LF
    // pair, at and across each window's edge.
    const line = fc.oneof(fc.constantFrom('x0', '', 'ab cd', '# h'), fc.integer({ min: 0, max: 9000 }).map((n) => 'ab cd'.repeat(Math.ceil(n / 5)).slice(0, n)));
    fc.assert(
      fc.property(fc.array(fc.tuple(line, fc.constantFrom('\r', '\r', '\r\n', '\n')), { maxLength: 12 }), (parts) => {
        const text = parts.map(([l, br]) => l + br).join('');
        expect(sentenceStarts(text)).toEqual(reference(text));
      }),
      { numRuns: 150 },
    );
    // Before: ICU segmented these a window at a time, at a fixed cost per segment (a line): 1 MB
    // of tiny CR lines took 4 s.
    const segment = vi.spyOn(Intl.Segmenter.prototype, 'segment');
    try {
      const text = Array.from({ length: 30_000 }, (_, i) => `x${i % 10}\r`).join('');
      const starts = sentenceStarts(text);
      expect(segment).not.toHaveBeenCalled();
      // ICU's answer (a boundary after each CR), written out: ICU on the whole text is slow.
      expect(starts).toEqual(Array.from({ length: 30_000 }, (_, i) => 3 * i));
    } finally {
      segment.mockRestore();
    }
  });
});

describe('sentenceStarts, line groups read a character at a time', () => {
  it('equals ICU on the whole text for groups around GROUP (256) and WINDOW (8192) characters', () => {
    // Plain lines (no terminator: no ICU) and lines with one, of lengths that put group ends just
    // before, at and after the limits; and texts ending with and without a line feed.
    const plain = (n: number): string => 'ab cd'.repeat(Math.ceil(n / 5)).slice(0, n);
    const line = fc.oneof(
      fc.constantFrom(0, 1, 2, 250, 254, 255, 256, 257, 511, 8190, 8191, 8192, 8193, 9000).map(plain),
      fc.constantFrom(1, 255, 8191, 8300).map((n) => `${plain(n)} Next one. Here`),
      fc.constantFrom('x0', 'é', 'a\rb', 'Why? No'),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.boolean(), (lines, trailing) => {
        const text = lines.join('\n') + (trailing ? '\n' : '');
        expect(sentenceStarts(text)).toEqual(reference(text));
      }),
      { numRuns: 300 },
    );
  });

  it('gives a fresh array each call (the starts are gathered in one buffer kept between calls)', () => {
    const a = sentenceStarts('One.\nTwo.\n');
    const b = sentenceStarts('x\ny\nz');
    expect(a).toEqual([0, 5]);
    expect(b).toEqual([0, 2, 4]);
    expect(sentenceStarts(Array.from({ length: 5000 }, () => 'x').join('\n')).length).toBe(5000);
  });
});

describe('sentenceStartOffsets', () => {
  it('gives sentenceStarts as a fresh typed array, on tiny lines, long lines and terminators', () => {
    const line = fc.oneof(
      fc.constantFrom('x0', 'x9', '', 'é', 'a\rb', 'Why? No', 'One. Two! Three?'),
      fc.constantFrom(255, 256, 8191, 8193).map((n) => 'ab cd'.repeat(Math.ceil(n / 5)).slice(0, n)),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 400 }), fc.boolean(), (lines, trailing) => {
        const text = lines.join('\n') + (trailing ? '\n' : '');
        const offsets = sentenceStartOffsets(text);
        const kept = Array.from(offsets);
        sentenceStartOffsets('x\ny\nz'); // the buffer is reused: the first result must not change
        expect(Array.from(offsets)).toEqual(kept);
        expect(kept).toEqual(sentenceStarts(text));
      }),
      { numRuns: 200 },
    );
  });
});

describe('sentenceStartsInScratch', () => {
  it('gives sentenceStarts, also once the scratch has grown past its strong hold (2^18 starts) and been let go', () => {
    // The first index where the scratch's starts differ from sentenceStarts' (-1: none); a
    // mismatch of 300,000 entries printed whole took minutes.
    const mismatch = (text: string): number => {
      const got = sentenceStartsInScratch(text);
      const want = sentenceStarts(text);
      if (got.length !== want.length) return Math.min(got.length, want.length);
      return want.findIndex((start, k) => got[k] !== start);
    };
    const line = fc.constantFrom('x0', '', 'é', 'Why? No', 'One. Two! Three?');
    // A million tiny lines first: the scratch grows past 2^18 starts, then is held weakly.
    const huge = 'a\n'.repeat(300_000);
    expect(mismatch(huge)).toBe(-1);
    fc.assert(
      fc.property(fc.array(line, { maxLength: 400 }), (lines) => {
        const text = lines.join('\n');
        expect(mismatch(text)).toBe(-1);
      }),
      { numRuns: 100 },
    );
    // A second text as large takes the let-go scratch back, the starts found before it copied in.
    const other = 'bb\n'.repeat(300_000);
    expect(mismatch(other)).toBe(-1);
  });
});

describe('sentenceStarts on text with terminators', () => {
  it('equals ICU without asking it, in long lines and in groups of short ones', () => {
    // Before session 58 each such group or window went to ICU, at a microsecond and more per
    // sentence: 1 MB of `A. B. C. ` took 1.5 s.
    const segment = vi.spyOn(Intl.Segmenter.prototype, 'segment');
    const long = 'A. B. C. e.g. i.e. 3.14 (x.) "y?" '.repeat(2_000);
    const short = Array.from({ length: 3_000 }, (_, i) => `Line ${i}. Ends here!`).join('\n');
    let got: number[][];
    try {
      got = [sentenceStarts(long), sentenceStarts(short)];
      expect(segment).not.toHaveBeenCalled();
    } finally {
      segment.mockRestore();
    }
    expect(got[0]).toEqual(reference(long));
    expect(got[1]).toEqual(reference(short));
  });

  it('leaves a slice with a character sentence-rules.ts has no class for to ICU, with the same answer', () => {
    const segment = vi.spyOn(Intl.Segmenter.prototype, 'segment');
    const cjk = '日本語のテキスト。「引用」です！ Café. Next.';
    const arabic = 'مرحبا. Next. e\u0301. \u{1f600}. End.';
    let got: number[][];
    try {
      got = [sentenceStarts(cjk)];
      expect(segment).not.toHaveBeenCalled();
      got.push(sentenceStarts(arabic));
      expect(segment).toHaveBeenCalled();
    } finally {
      segment.mockRestore();
    }
    expect(got[0]).toEqual(reference(cjk));
    expect(got[1]).toEqual(reference(arabic));
  });
});
