import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findBoilerplate, OffsetMap } from './boilerplate.js';
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
