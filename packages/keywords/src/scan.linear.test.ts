// Issue 15: every stage runs in linear time. A word's trailing apostrophes and an xref's
// parameter list and anchor were cut with /'+$/, /\(.*$/ and /#.*$/, each quadratic in a run
// of its character not at the end; the loops that replace them give the same results.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractKeywords } from './extract.js';
import { cutOnLastLine, withoutTrailing, xrefName } from './scan.js';

const chars = (...c: string[]) => fc.string({ unit: fc.constantFrom(...c), maxLength: 40 });

describe('the linear cuts hold to the patterns they replace', () => {
  it("withoutTrailing(s, \"'\") is s.replace(/'+$/, '')", () => {
    fc.assert(
      fc.property(chars("'", 'a', 's', '\n', ' '), (s) => {
        expect(withoutTrailing(s, "'")).toBe(s.replace(/'+$/, ''));
      }),
      { numRuns: 5_000 },
    );
  });

  it("cutOnLastLine(s, '(') is s.replace(/\\(.*$/, ''), and '#' /#.*$/", () => {
    const s = chars('(', '#', 'a', '\n', '\r', '\u2028', '\u2029', '\u0085', ' ');
    fc.assert(
      fc.property(s, (t) => {
        expect(cutOnLastLine(t, '(')).toBe(t.replace(/\(.*$/, ''));
        expect(cutOnLastLine(t, '#')).toBe(t.replace(/#.*$/, ''));
      }),
      { numRuns: 10_000 },
    );
  });
});

describe('hostile documents take linear time', () => {
  it("a word holding 600,000 apostrophes (a''…''b)", () => {
    extractKeywords([{ name: 'golden-reference.md', text: `# Title\n\nSome a${"'".repeat(600_000)}b words here.\n` }]);
  });

  it('an <xref:…> of 400,000 parentheses or hashes before an encoded line break', () => {
    for (const c of ['(', '#']) {
      expect(xrefName(`xref:${c.repeat(400_000)}%0A${c}`)).toBeNull();
      extractKeywords([{ name: 'golden-reference.md', text: `# Title\n\nSee <xref:Foo.Bar${c.repeat(400_000)}%0A${c}> here.\n` }]);
    }
    expect(xrefName('xref:System.Foo.Bar(System.Int32)#overload')).toBe('Bar');
  });
});
