import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { blankOut, findFrontMatter, simpleTitle } from './front-matter.js';

/** What the YAML parser makes of the title, as findFrontMatter's slow path reads it. */
function yamlTitle(text: string): string | null {
  try {
    const data: unknown = parseYaml(text);
    if (data && typeof data === 'object' && 'title' in data) {
      const t = (data as { title: unknown }).title;
      if (typeof t === 'string' && t.trim()) return t.trim();
    }
  } catch {
    return null;
  }
  return null;
}

describe('simpleTitle (front matter without the YAML parser)', () => {
  it('reads flat key: value front matter', () => {
    expect(simpleTitle('title: npm-access\nsection: 1\ndescription: Set access level on published packages\n')).toBe('npm-access');
    expect(simpleTitle('section: 1\n')).toBeNull();
    expect(simpleTitle('title:\n')).toBeNull();
    expect(findFrontMatter('---\ntitle: Hello world\n---\n# Body\n')).toEqual({ start: 0, end: 27, title: 'Hello world' });
  });

  it('leaves anything else to the YAML parser', () => {
    for (const t of ['title: "quoted"', 'title: [a, b]', 'title: 12', 'title: true', 'tags:\n  - a', 'title: a: b', 'title: x # c', 'title: |\n  block', '  title: indented'])
      expect(simpleTitle(t)).toBeUndefined();
  });

  it('agrees with the YAML parser whenever it answers', () => {
    const key = fc.constantFrom('title', 'section', 'description', 'slug', 'a_b', 'x-y');
    const value = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'B', ' ', ':', '#', '-', '"', "'", '[', '1', '.', 'é', '\t', '~', '?', '|', '>', '!', '*', '&', ','), maxLength: 12 }),
      fc.constantFrom('true', 'null', 'NaN', '.inf', '-.5', '0x1F', 'yes', 'on', 'Hello: world', 'a #b', 'a#b', 'x:'),
    );
    const line = fc.oneof(fc.tuple(key, value).map(([k, v]) => `${k}: ${v}`), key.map((k) => `${k}:`), fc.constant(''), value);
    fc.assert(
      fc.property(fc.array(line, { maxLength: 6 }), fc.boolean(), (lines, crlf) => {
        const text = lines.join(crlf ? '\r\n' : '\n');
        const quick = simpleTitle(text);
        if (quick !== undefined) expect(quick).toBe(yamlTitle(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('blankOut', () => {
  const reference = (s: string, start: number, end: number): string =>
    s.slice(0, start) + s.slice(start, end).replace(/[^\r\n]/g, ' ') + s.slice(end);
  // Line breaks of every kind (CRLF, lone CR, runs of them), tabs, surrogate pairs and lone halves.
  const unit = fc.constantFrom('a', ' ', '\t', '\n', '\r', '\r\n', '\n\n', '-', '😀', '\ud800', '\udc00', 'é', '\u2028', '\0');
  const text = fc.array(unit, { maxLength: 40 }).map((a) => a.join(''));

  it('replaces every code unit of the range but CR and LF by a space, as the regex replace did', () => {
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (s, x, y) => {
        const start = x % (s.length + 1);
        const end = start + (y % (s.length - start + 1));
        const out = blankOut(s, { start, end });
        expect(out).toBe(reference(s, start, end));
        expect(out.length).toBe(s.length);
      }),
      { numRuns: 3000 },
    );
    expect(blankOut('---\r\nt: x\r\n---\rbody', { start: 0, end: 15 })).toBe('   \r\n    \r\n   \rbody');
    expect(blankOut('abc', null)).toBe('abc');
  });
});
