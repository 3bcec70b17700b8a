import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { findBoilerplate, isIndexWord, mayBeGapToc, mayBeIndexWithPages, mayBeLeaderToc, mayBePageNumber, OffsetMap, PATTERNS } from './boilerplate.js';
import type { Block, RemovedSpan, SourceRange } from './types.js';
import { documentBlocks } from './semantic.js';
import { referenceLineSplit } from './test-helpers.js';

// The linear-scan definitions the binary searches replaced.
function refRemovedUpTo(spans: SourceRange[], p: number, inclusive: boolean): number {
  let removed = 0;
  let n = 0;
  for (const s of spans) {
    const at = s.start - removed;
    removed += s.end - s.start;
    if (at < p || (inclusive && at === p)) n = removed;
    else break;
  }
  return n;
}

describe('OffsetMap', () => {
  it('maps like a scan of every span', () => {
    const spans = fc.array(fc.tuple(fc.nat(5), fc.integer({ min: 1, max: 5 })), { maxLength: 12 }).map((gaps) => {
      const out: SourceRange[] = [];
      let at = 0;
      for (const [gap, len] of gaps) {
        out.push({ start: at + gap, end: at + gap + len });
        at += gap + len;
      }
      return out;
    });
    fc.assert(
      fc.property(spans, fc.nat(80), fc.nat(80), (ss, p, q) => {
        const map = new OffsetMap(ss);
        expect(map.start(p)).toBe(p + refRemovedUpTo(ss, p, true));
        expect(map.end(p)).toBe(p + refRemovedUpTo(ss, p, false));
        const [a, b] = p <= q ? [p, q] : [q, p];
        expect(map.within(a, b)).toEqual(ss.filter((s) => s.start >= a && s.end <= b));
      }),
    );
  });
});

describe('findBoilerplate', () => {
  it('still finds headers and footers next to page numbers, and a trailing index', () => {
    const page = (n: number) => `Running Header\n\nBody text about ${['alpha', 'beta', 'gamma', 'delta', 'epsilon'][n - 1]} says things.\n\n${n}\n\n`;
    const index = ['Index', 'apple, 3', 'banana, 4', 'cherry, 5', 'date, 6', 'elder, 7', 'fig, 8', 'grape, 9', 'honey, 10'].join('\n\n');
    const source = Array.from({ length: 5 }, (_, i) => page(i + 1)).join('') + index + '\n';
    const reasons = findBoilerplate(source, documentBlocks(source, 'fast').blocks, 0).map((s) => s.reason);
    expect(reasons.filter((r) => r === 'header-footer').length).toBe(5);
    expect(reasons.filter((r) => r === 'page-number').length).toBe(5);
    expect(reasons.at(-1)).toBe('index');
  });
});

describe('findBoilerplate trailing index', () => {
  // The trailing-index rule as written before entries kept their INDEX_WITH_PAGES result and
  // equal first letters skipped ICU: every test repeated, every neighbour pair compared.
  const WITH_PAGES = /^\p{L}[\p{L}\p{N}'’\-–(). ]{0,60}(?:,\s*[0-9]{1,4}(?:\s*[-–]\s*[0-9]{1,4})?)+$/u;
  const WORD = /^\p{L}[\p{L}\p{N}'’\-]{0,30}$/u;
  function refIndexLine(texts: string[]): number | null {
    const entries: number[] = [];
    let i = texts.length - 1;
    for (; i >= 0; i--) {
      const t = texts[i]!;
      if (/^index$/i.test(t)) break;
      if (WITH_PAGES.test(t) || WORD.test(t)) entries.unshift(i);
      else break;
    }
    if (entries.length < 8) return null;
    const firsts = entries.map((e) => texts[e]![0]!.toLowerCase());
    for (let k = 1; k < firsts.length; k++) if (firsts[k]!.localeCompare(firsts[k - 1]!, 'en') < 0) return null;
    const withPages = entries.some((e) => WITH_PAGES.test(texts[e]!) && /[0-9]/.test(texts[e]!));
    const allWords = entries.every((e) => WORD.test(texts[e]!));
    if (!withPages && !allWords) return null;
    let start = entries[0]!;
    if (start > 0 && /^index$/i.test(texts[start - 1]!)) start--;
    return start;
  }

  it('finds the same index as the rule written plainly', () => {
    const entry = fc.tuple(fc.constantFrom('a', 'A', 'b', 'é', 'E', 'e', 'z', 'Z', 'ß'), fc.constantFrom('pple', 'nt', '', 'x9'), fc.constantFrom('', ', 3', ', 4-7', ' tree', '!'));
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.array(entry, { minLength: 6, maxLength: 14 }), (title, sorted, entries) => {
        // Sorted by first letter half the time, so that both answers are common.
        if (sorted) entries.sort((x, y) => x[0].toLowerCase().localeCompare(y[0].toLowerCase(), 'en'));
        const texts = ['Body text says things here.', ...(title ? ['Index'] : []), ...entries.map(([a, b, c]) => a + b + c)];
        const source = texts.join('\n\n') + '\n';
        const spans = findBoilerplate(source, documentBlocks(source, 'fast').blocks, 0);
        const index = spans.find((s) => s.reason === 'index');
        const line = refIndexLine(texts);
        const starts = texts.map((_, k) => texts.slice(0, k).reduce((n, t) => n + t.length + 2, 0));
        expect(index?.start ?? null).toBe(line === null ? null : starts[line]);
      }),
      { numRuns: 400 },
    );
  });
});

describe('the cheap checks before each boilerplate pattern', () => {
  const checks: [RegExp, (t: string) => boolean][] = [
    [PATTERNS.PAGE_NUMBER, mayBePageNumber],
    [PATTERNS.TOC_LEADERS, mayBeLeaderToc],
    [PATTERNS.TOC_GAP, mayBeGapToc],
    [PATTERNS.INDEX_WITH_PAGES, mayBeIndexWithPages],
    [PATTERNS.INDEX_WORD, isIndexWord],
  ];
  // What the patterns are made of, and characters that fold or look alike (ſ, ı, K, NBSP, full stops).
  const piece = fc.constantFrom(
    ...'0123456789pPaAgGeEoOfF-–—/ \t.…,ivxlcIVXLCmMzZ\'’()é日ſıK\u00a0\u2003\u3000_@[`{~'.split(''),
    'page ', 'Page', 'PAGE', 'pag', 'PaGe\t', 'page\u00a0', 'p12', ' of ', '...', '. . . ', '   ', '\t\t', ', 12', '–3', 'xiv', 'Chapter ', '😀',
  );
  const line = fc.array(piece, { maxLength: 24 }).map((parts) => parts.join('').trim());

  it('hold whenever their pattern matches (a trimmed line)', () => {
    fc.assert(
      fc.property(line, (text) => {
        for (const [pattern, check] of checks) if (pattern.test(text)) expect(check(text), `${pattern} on ${JSON.stringify(text)}`).toBe(true);
        // isIndexWord decides ASCII words without the pattern: it must agree both ways.
        expect(isIndexWord(text), JSON.stringify(text)).toBe(PATTERNS.INDEX_WORD.test(text));
      }),
      { numRuns: 20000 },
    );
  });

  it('turn away a line starting with p or P but not `page` and whitespace', () => {
    for (const text of ['p12', 'pear', 'Pages 3', 'pag 1', 'P 12']) expect(mayBePageNumber(text), text).toBe(false);
    for (const text of ['page 3', 'PAGE\t4', 'Page\u00a05', '12', '- 3 -']) expect(mayBePageNumber(text), text).toBe(true);
  });

  it('hold on lines each pattern is there for', () => {
    const samples: [RegExp, string][] = [
      [PATTERNS.PAGE_NUMBER, 'Page 12 of 40'],
      [PATTERNS.PAGE_NUMBER, '– 7 –'],
      [PATTERNS.TOC_LEADERS, 'Chapter 3 ........ 47'],
      [PATTERNS.TOC_LEADERS, 'Preface …… xiv'],
      [PATTERNS.TOC_GAP, 'Introduction     9'],
      [PATTERNS.TOC_GAP, 'Appendix\tIV'],
      // The longest page references: mayBeGapToc looks for the gap among the last seven characters only.
      [PATTERNS.TOC_GAP, 'Preface   xxxiii'],
      [PATTERNS.TOC_GAP, 'Contents\tlxxvii'],
      [PATTERNS.TOC_GAP, 'Index    1234'],
      [PATTERNS.INDEX_WITH_PAGES, 'apples, 12-14, 20'],
      [PATTERNS.INDEX_WORD, 'Zürich'],
    ];
    for (const [pattern, text] of samples) {
      expect(pattern.test(text), text).toBe(true);
      const check = checks.find(([p]) => p === pattern)![1];
      expect(check(text), text).toBe(true);
    }
  });
});

describe('PAGE_NUMBER (issue 15 probe: cubic on runs of whitespace)', () => {
  // The pattern as it was: each run of whitespace could be split between `page\s+` and `\s*`, or
  // between the `\s*` on either side of an optional dash.
  const BEFORE = /^(?:page\s+)?[-–—]?\s*[0-9]{1,4}\s*[-–—]?(?:\s*(?:of|\/)\s*[0-9]{1,4})?$/i;
  const piece = fc.constantFrom('page', 'Page', 'PAGE', 'pag', ' ', '  ', '\t', '\u00a0', '-', '–', '—', '1', '12', '12345', 'of', 'OF', '/', 'x', '.');
  const line = fc.array(piece, { maxLength: 14 }).map((parts) => parts.join('').trim());

  it('accepts exactly the lines it accepted', () => {
    fc.assert(
      fc.property(line, (text) => {
        expect(PATTERNS.PAGE_NUMBER.test(text), JSON.stringify(text)).toBe(BEFORE.test(text));
      }),
      { numRuns: 20000 },
    );
  });

  it('gives each run of whitespace one place: a line of page, tabs, a digit, tabs and / is refused at once', () => {
    // Three minutes with 4,000 tabs on each side before; the old pattern already takes 0.1 s on 500.
    const text = `page ${'\t'.repeat(4000)}0${'\t'.repeat(4000)}/`;
    expect(PATTERNS.PAGE_NUMBER.test(text)).toBe(false);
    const source = `Intro text here.\n\n${text}\n\nMore text.\n`;
    expect(findBoilerplate(source, documentBlocks(source, 'fast').blocks, 0)).toEqual([]);
  });
});

// findBoilerplate as it was before the columnar rewrite: an object per line and every line's
// trimmed text sliced, each rule's pattern run plainly (with the rule that an index needs a
// kept line before it).
interface RefLine {
  start: number;
  next: number;
  text: string;
  candidate: boolean;
}
function refFindBoilerplate(source: string, blocks: Block[], bodyStart: number): RemovedSpan[] {
  const { PAGE_NUMBER, TOC_LEADERS, TOC_GAP, INDEX_WITH_PAGES, INDEX_WORD } = PATTERNS;
  const { starts, ends } = referenceLineSplit(source);
  const candidate = new Set<number>();
  for (const b of blocks) if (b.type === 'paragraph') for (let l = b.startLine; l <= b.endLine && l < starts.length; l++) if (starts[l]! >= bodyStart) candidate.add(l);
  const lines: RefLine[] = starts.map((start, i) => ({ start, next: starts[i + 1] ?? source.length, text: source.slice(start, ends[i]).trim(), candidate: candidate.has(i) }));
  const removed = new Map<number, RemovedSpan['reason']>();
  lines.forEach((l, i) => {
    if (l.candidate && PAGE_NUMBER.test(l.text)) removed.set(i, 'page-number');
  });
  const breaks: number[] = [];
  lines.forEach((l, i) => {
    if (source.slice(l.start, l.next).includes('\f') || removed.get(i) === 'page-number') breaks.push(i);
  });
  if (breaks.length) {
    breaks.push(-1, lines.length);
    breaks.sort((a, b) => a - b);
    const counts = new Map<string, number[]>();
    lines.forEach((l, i) => {
      if (!l.candidate || removed.has(i) || l.text.length < 3 || l.text.length > 100 || !/\p{L}/u.test(l.text)) return;
      const key = l.text.replace(/[0-9]+/g, '#').replace(/\s+/g, ' ');
      counts.set(key, [...(counts.get(key) ?? []), i]);
    });
    // The distance to a break in non-blank lines, counted line by line.
    const distance = (a: number, b: number): number => {
      let n = 0;
      for (let k = Math.min(a, b) + 1; k <= Math.max(a, b) && k < lines.length; k++) if (k >= 0 && lines[k]!.text) n++;
      return n;
    };
    for (const at of counts.values()) {
      if (at.length < 4) continue;
      const near = at.filter((i) => breaks.some((b) => distance(i, b) <= 2));
      if (near.length >= 4) for (const i of near) removed.set(i, 'header-footer');
    }
  }
  const gapToc = lines.filter((l) => l.candidate && TOC_GAP.test(l.text)).length >= 3;
  lines.forEach((l, i) => {
    if (l.candidate && !removed.has(i) && (TOC_LEADERS.test(l.text) || (gapToc && TOC_GAP.test(l.text)))) removed.set(i, 'toc');
  });
  let index: number | null = null;
  const entries: number[] = [];
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!;
    if (!l.text) continue;
    if (!l.candidate || /^index$/i.test(l.text)) break;
    if (INDEX_WITH_PAGES.test(l.text) || INDEX_WORD.test(l.text)) entries.unshift(i);
    else break;
  }
  const texts = entries.map((e) => lines[e]!.text);
  const sorted = texts.every((t, k) => k === 0 || t[0]!.toLowerCase().localeCompare(texts[k - 1]![0]!.toLowerCase(), 'en') >= 0);
  if (entries.length >= 8 && sorted && (texts.some((t) => INDEX_WITH_PAGES.test(t) && /[0-9]/.test(t)) || texts.every((t) => INDEX_WORD.test(t)))) {
    index = entries[0]!;
    const title = lines.slice(0, index).findLastIndex((l) => l.text !== '');
    if (title >= 0 && lines[title]!.candidate && /^index$/i.test(lines[title]!.text)) index = title;
    if (!lines.some((l, k) => k < index! && l.start >= bodyStart && l.text && !removed.has(k))) index = null;
  }
  const spans: RemovedSpan[] = [];
  lines.forEach((l, i) => {
    const reason = removed.get(i);
    if (reason && (index === null || i < index)) spans.push({ start: l.start, end: l.next, reason });
  });
  if (index !== null) spans.push({ start: lines[index]!.start, end: source.length, reason: 'index' });
  const out: RemovedSpan[] = [];
  for (const s of spans.sort((a, b) => a.start - b.start)) {
    const last = out.at(-1);
    if (last && s.start <= last.end && last.reason === s.reason) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

describe('findBoilerplate against the line-object reference', () => {
  // Lines of every kind the rules look at, and of the kinds they must leave alone (lists,
  // quotes, code, headings), with blank lines of JS whitespace that markdown does not count as blank.
  const LINES = [
    '- item 1', '1. first', '* star', 'Page 3', '3', '- 4 -', '12 of 40', '\f', 'x\fy', '\fRunning Header', 'Running Header', 'Running Header 2',
    'Chapter 3 ..... 47', 'Chapter 4 . . . . xiv', 'Intro   12', 'Setup\tiv', 'Index', 'INDEX', 'apple, 3', 'banana, 4-5', 'cherry', 'Date', 'x1', 'x2',
    "o'neil", 'Zürich', 'émile', '9lives', '_x', '', '   ', ' \t ', '\u00a0', '\u3000 \ufeff', '\v', 'a\u2028',
    '> quoted 3', '```', '    code 5', '# Heading', '[d]: /u', 'Body text says things.', '  indented 7',
  ];
  it('finds the same spans on hostile documents', () => {
    // Pages (a header, a body, a page number, sometimes a form feed), runs of index entries
    // and of tiny lines, among lines of any kind: the rules find something in most documents.
    const piece = fc.oneof(
      fc.constantFrom(...LINES).map((line) => [line]),
      fc
        .tuple(fc.constantFrom('Running Header', 'Footer 2', '\fRunning Header'), fc.array(fc.constantFrom(...LINES), { maxLength: 3 }), fc.nat(99), fc.boolean())
        .map(([head, mid, n, ff]) => [head, '', ...mid.flatMap((line) => [line, '']), String(n) + (ff ? '\f' : ''), '']),
      fc.tuple(fc.constantFrom('apple, 3', 'banana, 4', 'cherry', 'Date', 'elder, 7', 'x1', 'fig'), fc.constantFrom('', '- item', '    code', '\u00a0', '> q', ' ')).map(([entry, gap]) => ['', gap, '', entry]),
      // A contents page: gap lines count only when three are, leader lines always.
      fc
        .tuple(fc.array(fc.constantFrom('Intro   12', 'Setup\tiv', 'Usage      30', 'Chapter 3 ..... 47', 'Body text says things.', '7'), { minLength: 1, maxLength: 5 }), fc.boolean())
        .map(([lines, tight]) => lines.flatMap((line) => (tight ? [line] : [line, '']))),
      fc
        .tuple(fc.array(fc.constantFrom('x1', 'x2', 'y', 'Index', 'zeta', 'alpha, 2', 'Beta'), { minLength: 8, maxLength: 12 }), fc.boolean(), fc.boolean())
        .map(([words, sorted, tight]) => (sorted ? words.sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase(), 'en')) : words).flatMap((w) => (tight ? [w] : [w, '']))),
    );
    // Short documents too, where a run of words is often all there is (no index then).
    const doc = fc.tuple(fc.oneof(fc.array(piece, { maxLength: 30 }), fc.array(piece, { maxLength: 3 })), fc.constantFrom('\n', '\r\n', '\r'), fc.nat(40));
    fc.assert(
      fc.property(doc, ([pieces, eol, bodyAt]) => {
        const source = pieces.flat().join(eol) + eol;
        const blocks = documentBlocks(source, 'fast').blocks;
        const bodyStart = Math.min(bodyAt, source.length);
        expect(findBoilerplate(source, blocks, bodyStart)).toEqual(refFindBoilerplate(source, blocks, bodyStart));
      }),
      { numRuns: 1500 },
    );
  });

  it('removes contents lines with a gap only when three are, and with leaders always', () => {
    const spansOf = (lines: string[]): string[] => {
      const source = `${lines.join('\n\n')}\n`;
      return findBoilerplate(source, documentBlocks(source, 'fast').blocks, 0).map((span) => `${span.reason}:${source.slice(span.start, span.end).trim()}`);
    };
    expect(spansOf(['Contents', 'Intro   12', 'Setup\tiv', 'Usage   30', 'Body text says things.'])).toEqual(['toc:Intro   12', 'toc:Setup\tiv', 'toc:Usage   30']);
    expect(spansOf(['Contents', 'Intro   12', 'Setup\tiv', 'Body text says things.'])).toEqual([]);
    expect(spansOf(['Contents', 'Chapter 3 ..... 47', 'Body text says things.'])).toEqual(['toc:Chapter 3 ..... 47']);
  });

  it('removes page headers where nothing else is removed (pages broken by form feeds, no page numbers)', () => {
    const source = `${['Running Header', 'Text one.', '\f', 'Running Header', 'Text two.', '\f', 'Running Header', 'Three.', '\f', 'Running Header', 'Four.'].join('\n\n')}\n`;
    const spans = findBoilerplate(source, documentBlocks(source, 'fast').blocks, 0);
    expect(spans.map((span) => `${span.reason}:${source.slice(span.start, span.end)}`)).toEqual(Array(4).fill('header-footer:Running Header\n'));
  });

  it('removes something in generated documents (the property above is not vacuous)', () => {
    const source = ['Running Header', '', 'Text one.', '', '1', '', 'Running Header', '', 'Text two.', '', '2', '', 'Running Header', '', 'Three.', '', '3', '', 'Running Header', '', 'Four.', '', '4', '', '- a list', '- of items', ''].join('\n');
    expect(findBoilerplate(source, documentBlocks(source, 'fast').blocks, 0).length).toBeGreaterThan(0);
    expect(refFindBoilerplate(source, documentBlocks(source, 'fast').blocks, 0)).toEqual(findBoilerplate(source, documentBlocks(source, 'fast').blocks, 0));
  });
});

describe('a document that is nothing but short word lines', () => {
  it('keeps all its text: no trailing index without text before it', () => {
    const words = Array.from({ length: 40 }, (_, i) => `x${i}`);
    for (const source of [words.join('\n\n') + '\n', words.join('\n') + '\n', 'Index\n\n' + words.join('\n\n') + '\n', ['apple', 'banana', 'cherry', 'date', 'elder', 'fig', 'grape', 'honey', 'iris'].join('\n\n') + '\n']) {
      const { chunks, removed } = chunkDocument(source, { docName: 'g' });
      expect(removed).toEqual([]);
      const kept = chunks.map((c) => c.originalText).join('\n');
      for (const line of source.split('\n')) expect(kept).toContain(line);
    }
  });

  it('a book with body text, then "Index" and sorted entries, still loses the index', () => {
    const entries = ['apple', 'banana', 'cherry', 'date', 'elder', 'fig', 'grape', 'honey', 'iris'];
    const source = 'The body of the book says things at length.\n\nIndex\n\n' + entries.join('\n\n') + '\n';
    const { chunks, removed } = chunkDocument(source, { docName: 'b' });
    expect(removed).toEqual([{ start: source.indexOf('Index'), end: source.length, reason: 'index' }]);
    expect(chunks.map((c) => c.originalText).join('\n')).not.toContain('banana');
  });
});
