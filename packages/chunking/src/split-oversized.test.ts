import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NO_HEADING } from './headings.js';
import { lineTable } from './lines.js';
import { documentBlocks } from './semantic.js';
import { splitOversized, splitOversizedBlocks, whitespaceRunEnds } from './split-oversized.js';
import { unspacedRun as unspacedRunOf } from './test-helpers.js';
import { countTokens, TokenIndex } from './tokens.js';
import { chunkDocument } from './index.js';
import type { Block } from './types.js';
import { newUnitsState, toUnits, type UnitsState } from './units.js';

const unspacedRun = unspacedRunOf(4000);

/** splitOversized on the paragraph `source.slice(start)`, with the cap as target and budget. */
function splitAt(source: string, start: number, cap: number) {
  const block: Block = { type: 'paragraph', start, end: source.length, startLine: 0, endLine: 0 };
  return splitOversized([{ block, path: [], heading: NO_HEADING, types: ['paragraph'] }], {
    source,
    lines: lineTable(source),
    tokens: new TokenIndex(source),
    target: cap,
    budget: () => cap,
  }).piecesOf();
}

const split = (source: string, cap: number) => splitAt(source, 0, cap);

describe('splitOversized on one huge unspaced run', () => {
  it('cuts it into pieces of at most the cap (exact count) that make up the run', () => {
    fc.assert(
      fc.property(unspacedRun, fc.integer({ min: 4, max: 40 }), (run, cap) => {
        // (A character is up to 4 tokens, one per UTF-8 byte: no cap below that can hold every one.)
        const pieces = split(run, cap);
        expect(pieces.map((p) => run.slice(p.start, p.end)).join('')).toBe(run);
        for (const p of pieces) {
          const n = countTokens(run.slice(p.start, p.end));
          expect(p.tokens).toBe(n);
          expect(n).toBeLessThanOrEqual(cap);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('gives a run of 50,000 letters parts near the cap, not single tokens', () => {
    const [run] = fc.sample(unspacedRun.map((r) => r.repeat(20)), { numRuns: 1, seed: 7 });
    const pieces = split(run!, 100);
    expect(pieces.map((p) => run!.slice(p.start, p.end)).join('')).toBe(run);
    const total = countTokens(run!);
    expect(pieces.length).toBeLessThanOrEqual(Math.ceil(total / 90) + 1);
  });
});

describe('whitespaceRunEnds', () => {
  it('cuts where the regex /\\s+/g ends a run, inside the range', () => {
    // Every character JS's \s matches, and its neighbours and look-alikes that it does not
    // (U+0085, U+180E, U+200B, U+2060...), so a hand-written test of the code points is checked
    // against the regex itself.
    const spaces = ['\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2000', '\u2005', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];
    const nearMisses = ['\u0008', '\u000e', '\u001f', '!', '\u0085', '\u009f', '\u00a1', '\u167f', '\u1681', '\u180e', '\u1fff', '\u200b', '\u2027', '\u202a', '\u202e', '\u2030', '\u205e', '\u2060', '\u2fff', '\u3001', '\ufefe', '\ufeff\ufeff', '\uffff'];
    const piece = fc.constantFrom('a', 'bc', '  ', '\r\n', '\ud83d', '\ude00', '😀', '|', 'é', ...spaces, ...nearMisses);
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.nat(), fc.nat(), (parts, x, y) => {
        const source = parts.join('');
        const start = x % (source.length + 1);
        const end = start + (y % (source.length - start + 1));
        const re = /\s+/g;
        const text = source.slice(start, end);
        const expected: number[] = [];
        for (let m = re.exec(text); m; m = re.exec(text)) expected.push(start + m.index + m[0].length);
        expect([...whitespaceRunEnds(source, start, end)]).toEqual(expected.filter((c) => c > start && c < end));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('whitespaceRunEnds past its first buffer', () => {
  it('finds every run end of thousands of words, whatever the spaces between them', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 5000 }), fc.constantFrom(' ', '\u3000', '\t\n', '\ufeff'), (words, space) => {
        const source = Array.from({ length: words }, (_, k) => `w${k}`).join(space);
        const cuts = whitespaceRunEnds(source, 0, source.length);
        expect(cuts.length).toBe(words - 1);
        for (let k = 0; k < cuts.length; k++) expect(source.slice(cuts[k]!, cuts[k]! + 2)).toBe(`w${k + 1}`.slice(0, 2));
      }),
      { numRuns: 20 },
    );
  });
});

describe('a split table, whatever its line breaks', () => {
  const cell = fc.array(fc.constantFrom('a', 'bb', 'x y', '1', '\\|', '`c`', 'é', '-', 'longword'), { maxLength: 6 }).map((w) => ` ${w.join(' ')} `);
  const table = fc.integer({ min: 1, max: 4 }).chain((cols) =>
    fc.tuple(fc.array(fc.array(cell, { minLength: cols, maxLength: cols }), { minLength: 2, maxLength: 14 }), fc.constant(cols)),
  );

  it('records the exact count of every part (the first, verbatim, keeps a lone CR or CRLF)', async () => {
    const { chunkDocument } = await import('./index.js');
    fc.assert(
      fc.property(table, fc.constantFrom('\n', '\r', '\r\n'), fc.boolean(), fc.integer({ min: 24, max: 100 }), ([rows, cols], eol, heading, maxTokens) => {
        const lines = rows.map((r) => `|${r.join('|')}|`);
        lines.splice(1, 0, `|${Array(cols).fill('---').join('|')}|`);
        const text = `${heading ? `# T${eol}${eol}` : ''}${lines.join(eol)}${eol}`;
        // recount: the validate stage counts every chunk again from its text and throws on a difference.
        const { chunks } = chunkDocument(text, { minTokens: 0, targetTokens: Math.min(40, maxTokens), maxTokens }, { recount: true });
        for (const c of chunks) expect(c.tokenStats.tokens).toBe(countTokens(c.originalText));
      }),
      { seed: 1123, numRuns: 300 },
    );
  });
});

describe('splitOversized on prose that does not start the source', () => {
  // splitProse hands packAt sentence starts relative to the paragraph, which packAt shifts:
  // the parts of a paragraph after other text are the parts of the paragraph alone, moved.
  const sentence = fc.constantFrom('A b c.', 'Tiny.', 'x1', 'x2', 'Is it? Yes!', 'word word word word', 'ΩΩΩ.', '😀 ok.', 'aVeryLongTokenWithoutSpacesAtAllReallyLong.');
  const joint = fc.constantFrom(' ', '\n', '  ');
  const paragraph = fc
    .array(fc.tuple(sentence, joint), { minLength: 1, maxLength: 60 })
    .map((xs) => xs.map(([s, j]) => s + j).join('').trimEnd())
    .filter((p) => p.length > 0);
  const prefix = fc.constantFrom('', '# T\n\n', 'Some text before.\n\n', 'é\n\n');

  it('cuts it where it cuts the paragraph alone, each part within the cap', () => {
    fc.assert(
      fc.property(paragraph, prefix, fc.integer({ min: 4, max: 24 }), (para, pre, cap) => {
        const alone = splitAt(para, 0, cap).map((p) => [p.start, p.end, p.tokens]);
        const after = splitAt(pre + para, pre.length, cap).map((p) => [p.start - pre.length, p.end - pre.length, p.tokens]);
        expect(after).toEqual(alone);
        for (const [s, e, n] of alone) {
          expect(n).toBe(countTokens(para.slice(s, e)));
          expect(n).toBeLessThanOrEqual(cap);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('splitOversizedBlocks', () => {
  const word = fc.constantFrom('alpha', 'beta', 'Reference', 'x', 'fn()', 'data');
  const part = fc.oneof(
    fc.nat(99).map((n) => `# h${n}`),
    fc.tuple(fc.integer({ min: 1, max: 4 }), fc.array(word, { minLength: 1, maxLength: 30 })).map(([d, w]) => `${'#'.repeat(d)} ${w.join(' ')}`),
    fc.array(word, { minLength: 1, maxLength: 80 }).map((w) => `${w.join(' ')}.`),
    fc.array(word, { minLength: 1, maxLength: 80 }).map((w) => `\`\`\`\n${w.join(' ')}\n\`\`\``),
    fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.map((x) => `- ${x}\n  > ${x} ${x}`).join('\n')),
    fc.integer({ min: 2, max: 40 }).map((n) => `| ${Array.from({ length: n }, (_, c) => `c${c}`).join(' | ')} |\n|${' --- |'.repeat(n)}\n| ${'v | '.repeat(n)}`),
    fc.integer({ min: 20, max: 600 }).map((n) => 'q'.repeat(n)),
  );
  it('gives what splitOversized gives on toUnits, pieces and heading state alike, down to tiny caps', () => {
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 60 }), fc.integer({ min: 4, max: 120 }), (parts, cap) => {
        const source = `${parts.join('\n\n')}\n`;
        const { blocks, lines } = documentBlocks(source, 'fast');
        const tokens = new TokenIndex(source);
        // Each side's budget reads its own heading table (a budget by path length).
        const ctxOf = (state: UnitsState) => ({ source, lines, tokens, target: cap, budget: (h: number): number => Math.max(4, cap - (state.headings.pathLength(h) % 3)), wholeCap: cap + 8 });
        const state = newUnitsState();
        const expectedState = newUnitsState();
        expect(splitOversizedBlocks(blocks, ctxOf(state), state).piecesOf()).toEqual(splitOversized(toUnits(blocks, expectedState), ctxOf(expectedState)).piecesOf());
        expect(state.heading).toBe(expectedState.heading);
        expect(state.headings.refs(state.heading)).toEqual(expectedState.headings.refs(expectedState.heading));
      }),
      { numRuns: 150 },
    );
  });
});

describe('rebuilt parts and the token index', () => {
  /** A TokenIndex that keeps the notes split-oversized hands it. */
  class NotingIndex extends TokenIndex {
    notes: { text: string; at: number; start: number; end: number }[] = [];
    override noteWrapped(text: string, at: number, start: number, end: number): void {
      this.notes.push({ text, at, start, end });
      super.noteWrapped(text, at, start, end);
    }
  }

  it('says where each re-fenced code part and repeated-header table part holds its source range, short ones too', () => {
    const minified = Array.from({ length: 400 }, (_, i) => `function f${i}(a,b){return a*${i}+b};`).join('');
    const lines = Array.from({ length: 300 }, (_, i) => `const v${i} = compute(${i}, "value ${i}");`).join('\n');
    const rows = Array.from({ length: 200 }, (_, i) => `| ${i} | cell ${i} | more ${i} |`).join('\n');
    const source = `# Code\n\n\`\`\`js\n${minified}\n\`\`\`\n\n\`\`\`ts\n${lines}\n\`\`\`\n\n| a | b | c |\n|---|---|---|\n${rows}\n`;
    const { blocks } = documentBlocks(source, 'fast');
    const tokens = new NotingIndex(source);
    const pieces = splitOversizedBlocks(blocks, { source, lines: lineTable(source), tokens, target: 80, budget: () => 100 }).piecesOf();
    const rebuilt = pieces.filter((p) => p.rebuiltText !== null);
    expect(rebuilt.length).toBeGreaterThan(20);
    // Every rebuilt part is noted, and every note is true: the text holds that source range there.
    for (const p of rebuilt) expect(tokens.notes.some((n) => n.text === p.rebuiltText), p.rebuiltText!).toBe(true);
    for (const n of tokens.notes) expect(n.text.slice(n.at, n.at + n.end - n.start)).toBe(source.slice(n.start, n.end));
    // And each part's count is the exact count of its text.
    for (const p of rebuilt) expect(p.tokens).toBe(countTokens(p.rebuiltText!));
  });
});

describe('pieces as a PieceTable (issue 15: columns, not an object a piece)', () => {
  it('read as the eight-field piece did: a whole unit its block, a split one its part', () => {
    const source = ['# Title', '', 'Short prose.', '', 'A long paragraph. '.repeat(60), '', '```js', ...Array.from({ length: 80 }, (_, i) => `line(${i});`), '```'].join('\n');
    const { blocks, lines } = documentBlocks(source, 'fast');
    const state = newUnitsState();
    const pieces = splitOversizedBlocks(blocks, { source, lines, tokens: new TokenIndex(source), target: 40, budget: () => 60, wholeCap: 80 }, state);
    const plain = Array.from({ length: pieces.length }, (_, i) => ({ start: pieces.start(i), end: pieces.end(i), rebuiltText: pieces.rebuiltText(i), tokens: pieces.tokens(i), unit: pieces.unit(i), splitUnit: pieces.splitUnit(i) }));
    // The objects pieceAt makes read the same.
    expect(pieces.piecesOf().map((p) => ({ start: p.start, end: p.end, rebuiltText: p.rebuiltText, tokens: p.tokens, unit: p.unit, splitUnit: p.splitUnit }))).toEqual(plain);
    expect(plain.some((p) => p.splitUnit && p.rebuiltText !== null)).toBe(true);
    expect(plain.some((p) => p.splitUnit && p.rebuiltText === null)).toBe(true);
    for (const p of plain) {
      if (!p.splitUnit) {
        expect([p.start, p.end, p.rebuiltText]).toEqual([p.unit.start, p.unit.end, null]);
      } else {
        expect(p.start).toBeGreaterThanOrEqual(p.unit.start);
        expect(p.end).toBeLessThanOrEqual(p.unit.end);
      }
      expect(p.tokens).toBe(countTokens(p.rebuiltText ?? source.slice(p.start, p.end)));
    }
  });
});

describe('a fenced code block whose fences take half the cap or more', () => {
  // A fuzzed document: an open fence of 12,000 backticks. Each part was wrapped again in both
  // fences (24,000 characters) around a token or so of code and counted afresh, then dropped:
  // time of the fence's length per part, 221 ms for 24 KB under the default options.
  const sourceOf = (width: number, lines: number, closed: boolean) => {
    const fence = '`'.repeat(width);
    const body = Array.from({ length: lines }, (_, i) => `let value${i} = compute(${i}, "${'x'.repeat(i % 40)}");`).join('\n');
    return `# Code\n\n${fence}\n${body}\n${closed ? `${fence}\n` : ''}`;
  };
  afterEach(() => vi.restoreAllMocks());

  it('is split as lines of source: what is counted is about the source, not a fence per part', () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 4000 }), fc.integer({ min: 20, max: 120 }), fc.boolean(), fc.constantFrom(32, 64, 100, 512), (width, lines, closed, cap) => {
        const source = sourceOf(width, lines, closed);
        let counted = 0;
        const countJoined = TokenIndex.prototype.countJoined;
        vi.spyOn(TokenIndex.prototype, 'countJoined').mockImplementation(function (this: TokenIndex, joined, parts) {
          counted += joined.length;
          return countJoined.call(this, joined, parts);
        });
        const { chunks } = chunkDocument(source, { docName: 'fence', maxTokens: cap, targetTokens: Math.floor(cap * 0.75), minTokens: 1 });
        vi.restoreAllMocks();
        expect(counted).toBeLessThanOrEqual(4 * source.length);
        expect(chunks.every((c) => c.tokenStats.tokens <= cap)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('keeps wrapping parts in their fences when the fences are short', () => {
    const source = sourceOf(3, 200, true);
    const code = chunkDocument(source, { docName: 'fence', maxTokens: 64, targetTokens: 48, minTokens: 1 }).chunks.filter((c) => c.splitUnit);
    expect(code.length).toBeGreaterThan(1);
    // Each part opens and closes its fence (the first after the heading it is packed with).
    for (const c of code) expect(/(^|\n)```\n/.test(c.originalText) && c.originalText.trimEnd().endsWith('```')).toBe(true);
  });
});

describe('a part whose leading whitespace held its count down', () => {
  // BPE counts are not monotone: ` donnée` is two tokens, `donnée` three. A part cut at a line
  // or word start was counted with its leading space and trimmed after, so it could be over the
  // cap as it stood (a fuzzed document, seed 3901: `chunk 1: 17 tokens > max 16`).
  it('is split again so that it fits as it stands (the fuzzed document)', () => {
    const source = '`````````````````````\n donnée \t|\r-:|:--\r  |ﬁ';
    const { chunks } = chunkDocument(source, { docName: 'x', maxTokens: 16, targetTokens: 16, minTokens: 12, breadcrumbMode: 'none' }, { recount: true });
    for (const c of chunks) expect(countTokens(c.originalText)).toBeLessThanOrEqual(16);
    expect(chunks.map((c) => c.originalText).join('')).toBe('`````````````````````donnée \t|\r-:|:--|ﬁ');
  });

  it('never leaves a chunk over the cap, on lines that start with a space before a word that counts more without it', () => {
    // Words that take more tokens without the space before them than with it.
    const word = fc.constantFrom('donnée', 'naïve', 'ſoft', 'Überblick', 'résumé', 'ﬁle', 'über', 'façade', '|ﬁ', 'été');
    const line = fc.array(word, { minLength: 1, maxLength: 3 }).map((ws) => ` ${ws.join(' ')}`);
    const eol = fc.constantFrom('\n', '\r', '\r\n');
    const text = fc.tuple(fc.array(line, { minLength: 2, maxLength: 40 }), eol).map(([ls, e]) => ls.join(e));
    const shape = fc.constantFrom(
      (t: string) => `x${t}`, // a paragraph (its first line not indented): split by sentences, then lines
      (t: string) => `${'`'.repeat(21)}\n${t}\n${'`'.repeat(21)}`, // fences over half a small cap: split as lines
      (t: string) => `\`\`\`\n${t}\n\`\`\``,
    );
    fc.assert(
      fc.property(text, shape, fc.integer({ min: 16, max: 24 }), (t, wrap, cap) => {
        const { chunks } = chunkDocument(wrap(t), { docName: 'x', maxTokens: cap, targetTokens: cap, minTokens: 0, breadcrumbMode: 'none' }, { recount: true });
        for (const c of chunks) expect(countTokens(c.originalText)).toBeLessThanOrEqual(cap);
      }),
      { numRuns: 400 },
    );
  });
});
