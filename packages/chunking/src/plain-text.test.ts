import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { atxHeadingCount, detectHeadings, headingOf, usesHeuristicHeadings } from './plain-text.js';
import { documentBlocks } from './semantic.js';
import { para } from './test-helpers.js';

describe('headingOf: seed 003 line patterns', () => {
  it.each([
    ['CHAPTER 3', 1],
    ['Chapter 12: The Network', 1],
    ['Section 2.1 Setup', 2],
    ['Appendix B', 1],
    ['2 Background', 1],
    ['3.1 Design Goals', 2],
    ['4.2.7 Retry budget', 3],
    ['INTRODUCTION', 1],
    ['GETTING STARTED WITH X', 1],
  ])('%s is a heading of depth %i', (line, depth) => {
    expect(headingOf(line, false)).toEqual({ depth, text: line });
  });

  it('takes Title Case only for a line that is a paragraph of its own', () => {
    expect(headingOf('Designing for Failure', true)).toEqual({ depth: 2, text: 'Designing for Failure' });
    expect(headingOf('Designing for Failure', false)).toBeNull();
  });

  it.each([
    'This is an ordinary sentence.',
    'The service starts when the host boots and stays up',
    'HELLO WORLD.',
    '42',
    '# Already markdown',
    '| a | b |',
    'x'.repeat(81),
    'Designing for failure',
    '2 apples and 3 oranges',
  ])('%s is not a heading', (line) => {
    expect(headingOf(line, true)).toBeNull();
  });
});

describe('when heuristics apply', () => {
  it('uses them for .txt and for markdown with fewer than 3 # headings', () => {
    const three = '# A\n\ntext\n\n## B\n\ntext\n\n## C\n\ntext\n';
    const two = '# A\n\ntext\n\n## B\n\ntext\n\nSetext\n------\n';
    expect(atxHeadingCount(three, documentBlocks(three, 'fast').blocks)).toBe(3);
    expect(usesHeuristicHeadings(three, documentBlocks(three, 'fast').blocks, 'x.md')).toBe(false);
    expect(usesHeuristicHeadings(three, documentBlocks(three, 'fast').blocks, 'x.txt')).toBe(true);
    expect(usesHeuristicHeadings(two, documentBlocks(two, 'fast').blocks, 'x.md')).toBe(true);
    expect(chunkDocument(three).headingDetection).toBe('markdown');
    expect(chunkDocument(two).headingDetection).toBe('heuristic');
  });
});

const BOOK = [
  'DESIGNING DATA SYSTEMS',
  '',
  'Contents',
  '',
  'Chapter 1 Reliability ........ 1',
  'Chapter 2 Scalability ........ 9',
  'Chapter 3 Storage ............ 17',
  '',
  'CHAPTER 1',
  '',
  para(14, 1),
  '',
  '1.1 Faults and Failures',
  para(10, 2),
  '',
  'Designing Data Systems',
  '12',
  '\f',
  'Designing Data Systems',
  '',
  para(12, 3),
  '',
  '13',
  '\f',
  'Designing Data Systems',
  '',
  'CHAPTER 2',
  '',
  para(14, 4),
  '',
  '14',
  '\f',
  'Designing Data Systems',
  '',
  '2.1 Describing Load',
  '',
  para(12, 5),
  '',
  '15',
  '\f',
  'Designing Data Systems',
  '',
  para(8, 6),
  '',
  'Index',
  '',
  'availability, 3, 17',
  'batch processing, 9',
  'caching, 12-14',
  'durability, 18',
  'faults, 2',
  'latency, 10',
  'load, 11',
  'replication, 20',
  'scalability, 9-15',
  'throughput, 11',
  '',
].join('\n');

describe('plain text through chunkDocument', () => {
  const result = chunkDocument(BOOK, { docName: 'book', sourceFile: 'book.txt', targetTokens: 150, maxTokens: 200 }, { recount: true });
  const kept = (c: { sourcePosition: { charStart: number; charEnd: number }; removed?: { start: number; end: number }[] }): string => {
    let text = '';
    let at = c.sourcePosition.charStart;
    for (const r of c.removed ?? []) {
      text += BOOK.slice(at, r.start);
      at = r.end;
    }
    return text + BOOK.slice(at, c.sourcePosition.charEnd);
  };

  it('finds headings by pattern and uses them for the heading path', () => {
    expect(result.headingDetection).toBe('heuristic');
    expect(result.fileTitle).toBe('DESIGNING DATA SYSTEMS');
    const paths = result.chunks.map((c) => c.headerPath.join(' > '));
    expect(paths).toContain('CHAPTER 1 > 1.1 Faults and Failures');
    expect(paths).toContain('CHAPTER 2 > 2.1 Describing Load');
  });

  it('removes page numbers, running headers, the table of contents and the index, and reports them', () => {
    const removed = result.removed!;
    const text = (r: { start: number; end: number }) => BOOK.slice(r.start, r.end);
    const byReason = (reason: string) => removed.filter((r) => r.reason === reason).map(text).join('');
    expect(byReason('page-number')).toMatch(/12\n[\s\S]*13\n[\s\S]*14\n[\s\S]*15\n/);
    expect(byReason('header-footer').match(/Designing Data Systems/g)).toHaveLength(5);
    expect(byReason('toc')).toContain('Chapter 2 Scalability ........ 9');
    expect(byReason('index').startsWith('Index\n')).toBe(true);
    expect(byReason('index')).toContain('throughput, 11');
    for (const c of result.chunks) {
      expect(c.originalText).not.toMatch(/Designing Data Systems|\.{4}|^1[2-5]$|throughput, 11/m);
    }
  });

  it('keeps offsets exact for what is kept and covers every kept character', () => {
    const covered = new Uint8Array(BOOK.length);
    for (const r of result.removed!) covered.fill(1, r.start, r.end);
    for (const c of result.chunks) {
      expect(kept(c)).toBe(c.originalText);
      covered.fill(1, c.sourcePosition.charStart, c.sourcePosition.charEnd);
    }
    for (let i = 0; i < BOOK.length; i++) if (!/\s/.test(BOOK[i]!)) expect(covered[i], `char ${i}`).toBe(1);
  });

  it('works for every strategy', () => {
    for (const strategy of ['token-window', 'hierarchical', 'paginate'] as const) {
      const r = chunkDocument(BOOK, { sourceFile: 'book.txt', strategy, windowTokens: 100, windowOverlapTokens: 10, singlePieceMaxTokens: 0, ctxSize: 600, bufSize: 0 }, { recount: true });
      expect(r.removed).toEqual(result.removed);
      for (const c of r.chunks) expect(kept(c)).toBe(c.originalText);
    }
  });

  it('leaves markdown with headings alone', () => {
    const md = `# Guide\n\n## One\n\n${para(3)}\n\n12\n\n## Two\n\n${para(3)}\n`;
    const r = chunkDocument(md);
    expect(r.headingDetection).toBe('markdown');
    expect(r.removed).toEqual([]);
  });
});

describe('detectHeadings', () => {
  it('splits a heading line off the paragraph it opens and keeps the rest', () => {
    const text = '3.1 Design Goals\nThe system must stay up.\nIt must also scale.\n';
    const blocks = detectHeadings(text, documentBlocks(text, 'fast').blocks);
    expect(blocks.map((b) => [b.type, text.slice(b.start, b.end)])).toEqual([
      ['heading', '3.1 Design Goals'],
      ['paragraph', 'The system must stay up.\nIt must also scale.'],
    ]);
  });

  it('reads "1. Introduction" (a one-item markdown list) as a numbered heading', () => {
    const text = '1. Introduction\n\nSome text here.\n';
    const blocks = detectHeadings(text, documentBlocks(text, 'fast').blocks);
    expect(blocks[0]).toMatchObject({ type: 'heading', depth: 1, text: '1. Introduction' });
  });
});
