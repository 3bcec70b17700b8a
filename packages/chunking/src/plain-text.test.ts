import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { atxHeadingCount, detectHeadings, headingOf, surelyNotHeading, usesHeuristicHeadings } from './plain-text.js';
import type { Block } from './types.js';
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

describe('headingOf against the rules as the seed states them (session 63 shortcuts)', () => {
  // The rules written plainly, as the module had them before it tested a lower-case letter
  // before gathering letters and the first word's case before splitting: any drift of those
  // shortcuts from the rules shows here.
  const reference = (line: string, standalone: boolean): { depth: number; text: string } | null => {
    const text = line.trim();
    if (!text || text.length > 80 || /^[#>|`~\-*+=]/.test(text)) return null;
    if (/^(chapter|section|part|appendix)\s+([0-9]+(?:\.[0-9]+)*|[IVXLC]+|[A-Z])\b[.:]?(\s+\S.*)?$/i.test(text)) return { depth: /^section/i.test(text) ? 2 : 1, text };
    if (/[.,;:!?]$/.test(text)) return null;
    const numbered = /^([0-9]{1,2}(?:\.[0-9]{1,2}){0,4})\.?\s+(\p{Lu}\S*)(\s+\S+){0,11}$/u.exec(text);
    if (numbered) return { depth: Math.min(6, numbered[1]!.split('.').length), text };
    const letters = text.replace(/[^\p{L}]/gu, '');
    if (letters.length >= 2 && !/\p{Ll}/u.test(letters) && /\p{Lu}/u.test(letters)) return { depth: 1, text };
    const small = new Set(['a', 'an', 'and', 'as', 'at', 'but', 'by', 'for', 'from', 'in', 'into', 'of', 'on', 'or', 'the', 'to', 'vs', 'with']);
    const words = text.split(/\s+/);
    const titleCase =
      words.length <= 8 &&
      /^\p{Lu}/u.test(words[0]!) &&
      words.every((w, i) => {
        const bare = w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
        if (!bare) return false;
        if (i > 0 && small.has(bare.toLowerCase())) return true;
        return /^[\p{Lu}\p{N}]/u.test(bare);
      });
    return standalone && titleCase ? { depth: 2, text } : null;
  };
  // Case-less letters (CJK, tatweel), title-case digraphs (ǅ), astral capitals, lone
  // surrogates, dotted and dotless i, NBSP and em spaces beside the pattern words.
  const piece = fc.constantFrom('A', 'b', 'É', 'ß', 'Σ', '\u01c5', '\u{1d400}', '\u{1d41a}', '1', '2.3', '. ', ' ', '  ', '\t', 'Chapter', 'section', 'The', 'of', 'and', '-', '#', '1. ', '!', 'ı', 'İ', '\u00a0', '\u2003', '中', 'ـ', '\ud83d', 'Part IV', 'NOTE');

  it('gives the rules\' answer on generated lines, standalone or not', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), fc.boolean(), (parts, standalone) => {
        const line = parts.join('');
        expect(headingOf(line, standalone)).toEqual(reference(line, standalone));
      }),
      { numRuns: 5000 },
    );
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

  it('counts up to `enough` headings when asked (the rule needs 3, not every one of 200,000)', () => {
    const five = '# A\n# B\n## C\ntext\n# D\n# E\n';
    const blocks = documentBlocks(five, 'fast').blocks;
    expect(atxHeadingCount(five, blocks)).toBe(5);
    expect(atxHeadingCount(five, blocks, 3)).toBe(3);
    expect(atxHeadingCount(five, blocks, 9)).toBe(5);
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

describe('boilerplate removal keeps offsets exact (property)', () => {
  const sentence = fc.array(fc.constantFrom('data', 'the', 'system', 'größe', '日本', 'replica', 'log', 'émoji😀'), { minLength: 3, maxLength: 12 }).map((w) => `${w.join(' ')}.`);
  const page = fc.tuple(fc.array(sentence, { minLength: 1, maxLength: 30 }), fc.boolean()).map(([ss, heading]) => (heading ? `2.${ss.length} Title Here\n` : '') + ss.join(' '));
  const book = fc.tuple(fc.array(page, { minLength: 1, maxLength: 12 }), fc.boolean(), fc.constantFrom('\n', '\r\n')).map(([pages, header, eol]) =>
    pages.map((p, i) => `${header ? 'Running Header Text\n\n' : ''}${p}\n\n${i + 1}\n\f`).join('\n').replace(/\n/g, eol));

  it('holds for every strategy on random paged text', () => {
    fc.assert(
      fc.property(book, fc.constantFrom('semantic' as const, 'token-window' as const, 'hierarchical' as const, 'paginate' as const), (text, strategy) => {
        const r = chunkDocument(text, { sourceFile: 'x.txt', strategy, maxTokens: 128, targetTokens: 100, windowTokens: 64, windowOverlapTokens: 8, singlePieceMaxTokens: 0, snippetMaxTokens: 160, snippetTargetTokens: 60, sectionMaxTokens: 400, sectionTargetTokens: 250, ctxSize: 600, bufSize: 0 }, { recount: true });
        // Seed 003: a line is a running header once it repeats more than 3 times.
        const repeated = text.split('Running Header Text').length - 1 > 3;
        const covered = new Uint8Array(text.length);
        for (const x of r.removed!) covered.fill(1, x.start, x.end);
        for (const c of r.chunks) {
          let kept = '';
          let at = c.sourcePosition.charStart;
          for (const x of c.removed ?? []) {
            kept += text.slice(at, x.start);
            at = x.end;
          }
          expect(kept + text.slice(at, c.sourcePosition.charEnd)).toBe(c.originalText);
          if (repeated) expect(c.originalText).not.toContain('Running Header Text');
          covered.fill(1, c.sourcePosition.charStart, c.sourcePosition.charEnd);
        }
        for (let i = 0; i < text.length; i++) if (!/\s/.test(text[i]!)) expect(covered[i]).toBe(1);
      }),
      { numRuns: 40 },
    );
  });
});

/** detectHeadings as it was (an array of line objects per paragraph, every first line to headingOf): the reference. */
function referenceDetectHeadings(source: string, blocks: Block[]): Block[] {
  const linesIn = (start: number, end: number): { start: number; end: number }[] => {
    const out: { start: number; end: number }[] = [];
    let s = start;
    for (let i = start; i <= end; i++) {
      if (i === end || source.charCodeAt(i) === 10 || source.charCodeAt(i) === 13) {
        if (i > s || i === end) out.push({ start: s, end: i });
        if (source.charCodeAt(i) === 13 && source.charCodeAt(i + 1) === 10) i++;
        s = i + 1;
      }
    }
    return out.filter((l) => l.end > l.start);
  };
  const out: Block[] = [];
  for (const b of blocks) {
    if (b.type === 'list' && b.ordered && b.children?.length === 1 && b.startLine === b.endLine) {
      const text = source.slice(b.start, b.end);
      const guess = headingOf(text, true);
      if (guess && /^([0-9]{1,2}(?:\.[0-9]{1,2}){0,4})\.?\s+(\p{Lu}\S*)(\s+\S+){0,11}$/u.test(text.trim())) {
        out.push({ type: 'heading', start: b.start, end: b.end, startLine: b.startLine, endLine: b.endLine, depth: guess.depth, text: guess.text });
        continue;
      }
    }
    if (b.type !== 'paragraph') {
      out.push(b);
      continue;
    }
    const lines = linesIn(b.start, b.end);
    const first = lines[0];
    const guess = first ? headingOf(source.slice(first.start, first.end), lines.length === 1) : null;
    if (!first || !guess) {
      out.push(b);
      continue;
    }
    out.push({ type: 'heading', start: first.start, end: first.end, startLine: b.startLine, endLine: b.startLine, depth: guess.depth, text: guess.text });
    const rest = lines[1];
    if (rest) {
      let restStart = rest.start;
      while (/\s/.test(source[restStart] ?? '') && restStart < b.end) restStart++;
      out.push({ ...b, start: restStart, startLine: b.startLine + 1 });
    }
  }
  return out;
}

describe('detectHeadings without a slice or an array per paragraph (issue 15)', () => {
  // Words each pattern starts with, in both cases, look-alikes that fold or not (ſ, K, ı),
  // digits, sentence ends, whitespace of every kind, and the characters headingOf turns away.
  const piece = fc.constantFrom(
    'lazy', 'lazy 12', 'chapter', 'Chapter', 'CHAPTER', 'section', 'part', 'appendix', 'apple', 'sun', 'cat', 'pear', 'b', 'z', 'x1',
    'pArT', 'cHAPTER', 'sect', 'chap', 'appendi', 'p', 'c', 's', 'a', 'partial', 'sections', 'p12',
    'Title', 'The', 'of', 'ALL', 'CAPS', 'IV', 'A', '2', '3.1', '12', '.', ',', ':', '!', '?', '#', '>', '-', '*', '=', '|', '`',
    ' ', '  ', '\t', '\u00a0', '\u2003', '\u3000', '\ufeff', 'ſ', 'K', 'ı', 'é', 'Élan', '日本', '😀', '𝐀',
  );
  const line = fc.array(piece, { maxLength: 10 }).map((p) => p.join(''));

  it('rejects a lower-case line unless it starts with a Chapter/Section/Part/Appendix word', () => {
    for (const text of ['p12', 'pear 3', 'apple', 'sun dial', 'cat', '  sect 2', 'chap 1', 'lazy'])
      expect(surelyNotHeading(text, 0, text.length), text).toBe(true);
    for (const text of ['part 2', 'pArT II', 'section 4.1', '  appendix B', 'chapter 3', 'partial', 'P12', '12', ''])
      expect(surelyNotHeading(text, 0, text.length), text).toBe(false);
  });

  it('rejects only lines headingOf rejects', () => {
    fc.assert(
      fc.property(line, (text) => {
        if (surelyNotHeading(text, 0, text.length)) {
          expect(headingOf(text, true), JSON.stringify(text)).toBeNull();
          expect(headingOf(text, false), JSON.stringify(text)).toBeNull();
        }
      }),
      { numRuns: 20000 },
    );
  });

  it('gives the blocks the line-array version gave', () => {
    const doc = fc
      .tuple(fc.array(fc.oneof(line, line, fc.constantFrom('', '1. Intro', '1. lazy', '- item', '> q', '    code', '# h')), { maxLength: 14 }), fc.constantFrom('\n', '\r\n', '\r'))
      .map(([ls, nl]) => ls.join(nl));
    fc.assert(
      fc.property(doc, (text) => {
        const blocks = documentBlocks(text, 'fast').blocks;
        const out = detectHeadings(text, blocks);
        const reference = referenceDetectHeadings(text, blocks);
        expect(out).toEqual(reference);
        // The input itself when nothing changed, else a new array (the input untouched).
        if (reference.every((b, k) => b === blocks[k]) && reference.length === blocks.length) expect(out).toBe(blocks);
        else expect(out).not.toBe(blocks);
      }),
      { numRuns: 4000 },
    );
  });
});
