/**
 * Stage 6 trims a draft's range; its token count must follow the range it keeps (s36 probe:
 * a part cut inside a run of spaces kept the count of its untrimmed range, and `validate`
 * with a recount threw "tokens 6 recorded, 5 counted" on valid markdown).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { normalize } from './normalize.js';
import { PieceTable, type DraftChunk } from './pieces.js';
import { countTokens, TokenIndex } from './tokens.js';
import type { Block } from './types.js';

const unit = { type: 'paragraph', start: 0, end: 0, startLine: 0, endLine: 0 } as unknown as Block;

function draftOf(start: number, end: number, tokens: TokenIndex): DraftChunk {
  const table = new PieceTable(1);
  table.push(unit, tokens.count(start, end), -1, [], { start, end, rebuiltText: null, tokens: tokens.count(start, end) });
  return { table, from: 0, to: 1, start, end, tokens: tokens.count(start, end), overlapChars: 0, overlapTokens: 0, text: '', exact: false };
}

describe('normalize', () => {
  it('recounts a draft whose range it trims', () => {
    const source = 'word1.5   \t  \nmore';
    const tokens = new TokenIndex(source);
    const [chunk] = normalize([draftOf(0, 13, tokens)], source, tokens);
    expect(chunk!.text).toBe('word1.5');
    expect(chunk!.tokens).toBe(countTokens('word1.5'));
  });

  it('keeps every chunk\'s count equal to its text\'s, whatever whitespace its range starts or ends in', () => {
    const ws = fc.constantFrom(' ', '  ', '\t', '\n', '\u00a0', ' \u00a0 ', '\r\n');
    const word = fc.constantFrom('1.5', 'word', 'x', '|', 'İ', 'nés', '数据');
    const text = fc.array(fc.oneof(ws, word), { minLength: 1, maxLength: 40 }).map((p) => p.join(''));
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (source, a, b) => {
        const start = a % (source.length + 1);
        const end = start + (b % (source.length - start + 1));
        const tokens = new TokenIndex(source);
        for (const chunk of normalize([draftOf(start, end, tokens)], source, tokens)) expect(chunk.tokens).toBe(countTokens(chunk.text));
      }),
      { numRuns: 300 },
    );
  });

  it('chunks a line of spaces and no-break spaces cut to a tiny target with exact counts (the probe\'s document)', () => {
    const source = '1.5  \u00a0  \u00a0|  |İ| \u00a0nés|!!';
    expect(() => chunkDocument(source, { docName: 'd', maxTokens: 16, targetTokens: 6, minTokens: 1, breadcrumbMode: 'none', overlapSentences: 3 }, { recount: true })).not.toThrow();
  });
});

describe('a document or a block of nothing but whitespace outside ASCII', () => {
  // markdown-it makes a paragraph of a line holding only a no-break space (it is not a blank
  // line), and the chunk of it was "empty" to validate, which reads whitespace as JS does.
  const strategies = ['semantic', 'token-window', 'hierarchical', 'paginate'] as const;
  it.each(['\u00a0', '\ufeff', '\ufeff\n', '\u3000\u2028', ' \u00a0 \n\n\u2003\n'])('%j makes no chunk, in every strategy', (source) => {
    for (const strategy of strategies) {
      for (const sourceFile of ['d.md', 'd.txt']) {
        expect(chunkDocument(source, { docName: 'd', strategy, sourceFile }, { recount: true }).chunks, `${strategy} ${sourceFile}`).toEqual([]);
      }
    }
  });

  it('a paragraph of no-break spaces between two others is left out, not a chunk of its own', () => {
    const source = `# Title\n\n${'First paragraph words. '.repeat(30)}\n\n\u00a0\u00a0\n\n${'Second paragraph words. '.repeat(30)}\n`;
    const chunks = chunkDocument(source, { docName: 'd', maxTokens: 64, targetTokens: 48, minTokens: 0 }, { recount: true }).chunks;
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.originalText.trim()).not.toBe('');
  });
});
