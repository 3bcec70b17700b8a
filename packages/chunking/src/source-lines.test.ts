// Seed 002's `source { filePath, startLine, endLine }` on every record of every
// strategy, checked against lines found independently (a split on the source's
// line breaks), on random documents with mixed line endings and on real docs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { lineOf } from './lines.js';
import { attachSourceLines, lineNear } from './source-lines.js';
import { realDocuments } from './test-corpus.js';
import type { ChunkOptions, ChunkRecord, StrategyName } from './types.js';

/** The source's lines, each with its line break (`\n`, `\r\n` or a lone `\r`), as editors number them. */
const linesOf = (source: string): string[] => source.match(/[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g) ?? [];

/** Checks one record; returns the text of its lines. */
function check(source: string, lines: string[], starts: number[], c: ChunkRecord, sourceFile: string): string {
  const s = c.source!;
  expect(s.filePath).toBe(sourceFile);
  expect(Number.isInteger(s.startLine) && Number.isInteger(s.endLine)).toBe(true);
  expect(1 <= s.startLine && s.startLine <= s.endLine && s.endLine <= Math.max(1, lines.length)).toBe(true);
  const { charStart, charEnd } = c.sourcePosition;
  // Exactly the lines the range covers: charStart on the first, the last character on the last.
  expect(starts[s.startLine - 1]! <= charStart && (s.startLine === lines.length || charStart < starts[s.startLine]!)).toBe(true);
  if (charEnd > charStart) expect(starts[s.endLine - 1]! <= charEnd - 1 && charEnd - 1 < (starts[s.endLine] ?? source.length)).toBe(true);
  const slice = lines.slice(s.startLine - 1, s.endLine).join('');
  expect(slice.includes(source.slice(charStart, charEnd))).toBe(true);
  return slice;
}

function checkAll(source: string, options: Partial<ChunkOptions>, sourceFile = 'doc.md'): ChunkRecord[] {
  const lines = linesOf(source);
  const starts: number[] = [];
  lines.reduce((at, l) => (starts.push(at), at + l.length), 0);
  if (starts.length === 0) starts.push(0);
  const { chunks } = chunkDocument(source, { ...options, sourceFile });
  for (const c of chunks) {
    const slice = check(source, lines, starts, c, sourceFile);
    // The property seed 002's field promises: the chunk's text is in those lines.
    if (!c.splitUnit && !c.removed) expect(slice.includes(c.originalText)).toBe(true);
  }
  return chunks;
}

const STRATEGIES: StrategyName[] = ['semantic', 'token-window', 'hierarchical', 'paginate'];
const SMALL: Record<StrategyName, Partial<ChunkOptions>> = {
  semantic: { minTokens: 16, targetTokens: 60, maxTokens: 96 },
  'token-window': { windowTokens: 48, windowOverlapTokens: 8, singlePieceMaxTokens: 64 },
  hierarchical: { sectionTargetTokens: 150, sectionMaxTokens: 200, sectionOverlapTokens: 20, snippetTargetTokens: 50, snippetMaxTokens: 128, snippetOverlapTokens: 10 },
  paginate: { ctxSize: 600, bufSize: 0, pageOverlapTokens: 20 },
};

describe('source lines (seed 002)', () => {
  it('names the 1-based lines of a chunk, for an example', () => {
    const source = '# Guide\n\nIntro line one.\nIntro line two.\n\n## Install\n\nRun the installer.\n';
    const { chunks } = chunkDocument(source, { minTokens: 1, targetTokens: 8, maxTokens: 16, overlapSentences: 0, sourceFile: 'guide.md' });
    expect(chunks.map((c) => c.source)).toEqual([
      { filePath: 'guide.md', startLine: 1, endLine: 4 },
      { filePath: 'guide.md', startLine: 6, endLine: 8 },
    ]);
  });

  it('holds for every strategy on random documents with \\n, \\r\\n and lone \\r line breaks (property)', () => {
    const word = fc.constantFrom('data', 'JSON', 'the', 'options', 'naïve', '日本語', 'émoji😀', '`code`', 'value', '42');
    const sentence = fc.array(word, { minLength: 2, maxLength: 12 }).map((w) => `${w.join(' ')}.`);
    const paragraph = fc.array(sentence, { minLength: 1, maxLength: 12 }).map((s) => s.join(' '));
    const heading = fc.tuple(fc.integer({ min: 1, max: 3 }), word).map(([d, w]) => `${'#'.repeat(d)} ${w}`);
    const code = fc.array(fc.array(word, { maxLength: 6 }).map((w) => w.join(' ')), { minLength: 1, maxLength: 40 }).map((ls) => `\`\`\`\n${ls.join('\n')}\n\`\`\``);
    const list = fc.array(sentence, { minLength: 1, maxLength: 8 }).map((items) => items.map((i) => `- ${i}`).join('\n'));
    const blocks = fc.array(fc.oneof({ weight: 3, arbitrary: paragraph }, { weight: 2, arbitrary: heading }, code, list), { minLength: 1, maxLength: 20 });
    const eol = fc.constantFrom('\n', '\r\n', '\r');
    fc.assert(
      fc.property(blocks, eol, fc.constantFrom(...STRATEGIES), fc.constantFrom('', '\n', '\n\n\n'), (bs, nl, strategy, trailing) => {
        const source = `${bs.join('\n\n')}${trailing}`.replace(/\n/g, nl);
        checkAll(source, { strategy, ...SMALL[strategy] });
      }),
      { numRuns: 120 },
    );
  });

  it('holds on every real document of the sample docs and corpora, with each strategy', () => {
    const docs = realDocuments();
    expect(docs.length).toBeGreaterThan(5);
    for (const [path, text] of docs.slice(0, 40)) {
      for (const strategy of STRATEGIES) {
        const chunks = checkAll(text, { strategy });
        expect(chunks.length, path).toBeGreaterThan(0);
      }
    }
  });

  it('counts lines of the original file when boilerplate is cut from plain text', () => {
    const page = (n: number) => `Field Guide\n\n${'The reader learns one more thing about the field on this page. '.repeat(6)}\n\n${n}\n\f`;
    const source = `INTRODUCTION\n\n${[1, 2, 3, 4, 5].map(page).join('\n')}\n`;
    const chunks = checkAll(source, { minTokens: 8, targetTokens: 60, maxTokens: 96 }, 'notes.txt');
    expect(chunks.some((c) => c.removed)).toBe(true);
    // The last chunk ends on the last page's text (its page number and form feed were cut), line 29 of the file.
    const lastText = linesOf(source).map((l, i) => (l.startsWith('The reader') ? i + 1 : 0)).reduce((a, b) => Math.max(a, b));
    expect(lastText).toBe(29);
    expect(chunks[chunks.length - 1]!.source!.endLine).toBe(lastText);
  });
});

describe('lineNear', () => {
  it('is lineOf whatever line it starts from (property)', () => {
    // Line starts as a table holds them: 0 first, then increasing (empty lines are one apart).
    const table = fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 300 }).map((gaps) => {
      const starts = new Int32Array(gaps.length + 1);
      for (let i = 0; i < gaps.length; i++) starts[i + 1] = starts[i]! + gaps[i]!;
      return starts;
    });
    fc.assert(
      fc.property(table, fc.nat(400), fc.integer({ min: -5, max: 13000 }), (starts, from, offset) => {
        expect(lineNear(starts, from % (starts.length + 2), offset)).toBe(lineOf({ starts, ends: starts }, offset));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives attachSourceLines lineOf\'s lines for records out of order and overlapping', () => {
    const source = 'a\nbb\n\nccc\r\nd\re\n'.repeat(50);
    const starts = [0];
    for (let i = 0; i < source.length; i++) {
      const c = source[i];
      if (c === '\n' || (c === '\r' && source[i + 1] !== '\n')) starts.push(i + 1);
    }
    const table = { starts: Int32Array.from(starts), ends: Int32Array.from(starts) };
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(source.length - 1), fc.nat(60)), { minLength: 1, maxLength: 40 }), (ranges) => {
        const records = ranges.map(([a, len]) => ({ sourcePosition: { charStart: a, charEnd: Math.min(source.length, a + len), totalChars: source.length } }) as ChunkRecord);
        attachSourceLines(records, source, 'x.md', table);
        for (const r of records) {
          const { charStart, charEnd } = r.sourcePosition;
          const startLine = lineOf(table, charStart) + 1;
          expect(r.source).toEqual({ filePath: 'x.md', startLine, endLine: charEnd > charStart ? lineOf(table, charEnd - 1) + 1 : startLine });
        }
      }),
    );
  });
});
