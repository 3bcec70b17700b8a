import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findBoilerplate, mayBeGapToc, setBoilerplateShortcutsForTests, mayBeIndexWithPages, mayBeIndexWord, mayBeLeaderToc, mayBePageNumber, OffsetMap, PATTERNS } from './boilerplate.js';
import { documentBlocks } from './semantic.js';
import type { SourceRange } from './types.js';

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
    [PATTERNS.INDEX_WORD, mayBeIndexWord],
  ];
  // What the patterns are made of, and characters that fold or look alike (ſ, ı, K, NBSP, full stops).
  const piece = fc.constantFrom(
    ...'0123456789pPaAgGeEoOfF-–—/ \t.…,ivxlcIVXLCmMzZ\'’()é日ſıK\u00a0\u2003\u3000'.split(''),
    'page ', 'Page', 'PAGE', ' of ', '...', '. . . ', '   ', '\t\t', ', 12', '–3', 'xiv', 'Chapter ', '😀',
  );
  const line = fc.array(piece, { maxLength: 24 }).map((parts) => parts.join('').trim());

  it('hold whenever their pattern matches (a trimmed line)', () => {
    fc.assert(
      fc.property(line, (text) => {
        for (const [pattern, check] of checks) if (pattern.test(text)) expect(check(text), `${pattern} on ${JSON.stringify(text)}`).toBe(true);
      }),
      { numRuns: 20000 },
    );
  });

  it('hold on lines each pattern is there for', () => {
    const samples: [RegExp, string][] = [
      [PATTERNS.PAGE_NUMBER, 'Page 12 of 40'],
      [PATTERNS.PAGE_NUMBER, '– 7 –'],
      [PATTERNS.TOC_LEADERS, 'Chapter 3 ........ 47'],
      [PATTERNS.TOC_LEADERS, 'Preface …… xiv'],
      [PATTERNS.TOC_GAP, 'Introduction     9'],
      [PATTERNS.TOC_GAP, 'Appendix\tIV'],
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

describe('findBoilerplate shortcuts', () => {
  // Lines of every kind the rules look at, and of the kinds they must leave alone (lists,
  // quotes, code, headings), with blank lines of JS whitespace that markdown does not count as blank.
  const LINES = [
    '- item 1', '1. first', '* star', 'Page 3', '3', '- 4 -', '12 of 40', '\f', 'x\fy', 'Running Header', 'Running Header 2',
    'Chapter 3 ..... 47', 'Intro   12', 'Setup\tiv', 'Index', 'apple, 3', 'banana, 4-5', 'cherry', 'Date', '', '   ', '\u00a0', '\u3000 \ufeff',
    '> quoted 3', '```', '    code 5', '# Heading', '[d]: /u', 'Body text says things.', '  indented 7',
  ];
  it('finds the spans that slicing every line finds, with and without paragraphs', () => {
    // Pages (a header, a body, a page number) and index entries, among lines of any kind: the
    // rules find something in most documents, and the lines between tell blank from not blank.
    const piece = fc.oneof(
      fc.constantFrom(...LINES).map((line) => [line]),
      fc
        .tuple(fc.constantFrom('Running Header', 'Footer 2'), fc.array(fc.constantFrom(...LINES), { maxLength: 3 }), fc.nat(99))
        .map(([head, mid, n]) => [head, '', ...mid.flatMap((line) => [line, '']), String(n), '']),
      fc.tuple(fc.constantFrom('apple, 3', 'banana, 4', 'cherry', 'Date', 'elder, 7'), fc.constantFrom('', '- item', '    code', '\u00a0', '> q')).map(([entry, gap]) => ['', gap, '', entry]),
    );
    const doc = fc.tuple(fc.array(piece, { maxLength: 30 }), fc.constantFrom('\n', '\r\n', '\r'), fc.nat(40));
    fc.assert(
      fc.property(doc, ([pieces, eol, bodyAt]) => {
        const source = pieces.flat().join(eol) + eol;
        const blocks = documentBlocks(source, 'fast').blocks;
        const bodyStart = Math.min(bodyAt, source.length);
        const fast = findBoilerplate(source, blocks, bodyStart);
        setBoilerplateShortcutsForTests(false);
        try {
          expect(fast).toEqual(findBoilerplate(source, blocks, bodyStart));
        } finally {
          setBoilerplateShortcutsForTests(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('removes something in generated documents (the property above is not vacuous)', () => {
    const source = ['Running Header', '', 'Text one.', '', '1', '', 'Running Header', '', 'Text two.', '', '2', '', 'Running Header', '', 'Three.', '', '3', '', 'Running Header', '', 'Four.', '', '4', '', '- a list', '- of items', ''].join('\n');
    expect(findBoilerplate(source, documentBlocks(source, 'fast').blocks, 0).length).toBeGreaterThan(0);
  });
});
