import fc from 'fast-check';
import { Document, parse as parseYaml, Parser } from 'yaml';
import { describe, expect, it, vi } from 'vitest';
import { YAML_MAX_DEPTH, yamlDepthBound } from '@chunkyard/keywords';
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

describe('simpleTitle on a run of spaces (issue 15 probe: quadratic)', () => {
  // The line pattern as it was: a lazy value before `[ ]*$`, tried against the line as it is.
  const V = '[\\x20-\\x7e\\u00a0-\\ud7ff\\ue000-\\ufffc]';
  const BEFORE = new RegExp(`^([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+((?![-?:,\\[\\]{}#&*!|>'"%@\\x60 ])${V}(?:(?![ ]#|:(?:[ ]|$))${V})*?))?[ ]*$`);
  const before = (yaml: string): string | null | undefined => {
    const keys = new Set<string>();
    let title: string | null = null;
    for (let line of yaml.split('\n')) {
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.trim() === '') continue;
      const m = BEFORE.exec(line);
      if (!m) return undefined;
      if (keys.has(m[1]!)) return null;
      keys.add(m[1]!);
      if (m[1] === 'title') {
        if (m[2] === undefined) title = null;
        else if (/^(?:[-+.]?[0-9]|[-+]?\.(?:inf|Inf|INF)$|\.(?:nan|NaN|NAN)$|(?:null|Null|NULL|true|True|TRUE|false|False|FALSE|~)$)/.test(m[2])) return undefined;
        else title = m[2].trim() || null;
      }
    }
    return title;
  };

  it('answers as it did on lines of spaces, colons, hashes and tabs', () => {
    const unit = fc.constantFrom('title', 'x', ':', ' ', '  ', '#', '\t', 'a', '-', '1', 'é', '\r', '"');
    const line = fc.array(unit, { maxLength: 10 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 4 }), (lines) => {
        const text = lines.join('\n');
        expect(simpleTitle(text), JSON.stringify(text)).toBe(before(text));
      }),
      { numRuns: 20000 },
    );
  });

  it('refuses a line of 400,000 spaces and a tab at once', () => {
    // The old pattern took 1.6 s on 40,000 spaces; this one, past the tests' 60 s limit.
    expect(simpleTitle(`title: a${' '.repeat(400_000)}\t\n`)).toBeUndefined();
    expect(simpleTitle(`title: a${' '.repeat(400_000)}\n`)).toBe('a');
  });
});

describe('findFrontMatter', () => {
  // s41 fuzz (seed 100000 batch): YAML the parser reads with a warning (a mapping key that is
  // itself a mapping, as a `{{template}}` line makes; an unknown tag) made every chunking of the
  // document print a Node warning to stderr: chunking is pure, a document is no reason to log.
  it.each(['{{tmpl}}: x', 'title: T\n{{tmpl}}: y', 'x: !unknown-tag 1\ntitle: T'])('reads %j without a process warning', (yaml) => {
    const emit = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const fm = findFrontMatter(`---\n${yaml}\n---\nbody\n`);
      expect(fm?.end).toBe(yaml.length + 9);
      expect(emit).not.toHaveBeenCalled();
    } finally {
      emit.mockRestore();
    }
  });
});

describe('front matter YAML that is deep or slow to convert (s41 fuzz)', () => {
  const fm = (yaml: string): string => `---\ntitle: Guide\n${yaml}\n---\n# Body\n`;
  // Each nested a thousand deep: chunked a few times in one process, V8 aborted the process
  // inside the YAML parser ("FATAL ERROR: RegExpCompiler Allocation failed"), past any catch.
  const deep = [`x: ${'['.repeat(1000)}${']'.repeat(1000)}`, `x: ${'{a: '.repeat(1000)}1${'}'.repeat(1000)}`, `x:\n${'- '.repeat(1000)}1`, `${'? '.repeat(1000)}x`,
    Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')];

  it.each(deep.map((y) => [y.slice(0, 12), y]))('never hands YAML nested past the bound to the parser (%j…)', (_, yaml) => {
    expect(yamlDepthBound(yaml)).toBeGreaterThan(YAML_MAX_DEPTH);
    const parse = vi.spyOn(Parser.prototype, 'parse');
    try {
      // Under its own `title:` entry the title is read from that entry alone (since session 42);
      // top-level `? ` keys are read whole, and that YAML is too deep to read: null.
      expect(findFrontMatter(fm(yaml))?.title).toBe(yaml.startsWith('?') ? null : 'Guide');
      expect(parse.mock.calls.every(([src]) => String(src).length < 20)).toBe(true);
      // The deep YAML as the title's own value: null, and no parse at all.
      parse.mockClear();
      expect(findFrontMatter(`---\ntitle:\n${yaml.replace(/^/gm, '  ')}\n---\n# Body\n`)?.title).toBeNull();
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it('bounds the depth from above: flow brackets open, block indentation and compact indicators', () => {
    expect(yamlDepthBound('title: Guide\ntags: [a, b]')).toBe(1);
    expect(yamlDepthBound('a:\n  b:\n    - [c, {d: e}]')).toBe(7);
    expect(yamlDepthBound('- - ? x')).toBe(3);
    expect(yamlDepthBound('x: "]]]" [[')).toBe(2);
    expect(yamlDepthBound(deep[4]!)).toBe(999); // k999 is indented 999 spaces
  });

  it('reads the title without converting the whole YAML to JavaScript (nested keys took 1.7 s for 12 KB)', () => {
    // Sixty keys, each a mapping nested 100 deep as keys: converting them to JavaScript made
    // each key a string of the ones inside it, super-linear in the depth (300 deep took 15 s).
    const yaml = Array.from({ length: 60 }, (_, i) => `${'? '.repeat(100)}x${i}`).join('\n');
    expect(yamlDepthBound(yaml)).toBeLessThanOrEqual(YAML_MAX_DEPTH);
    const toJS = vi.spyOn(Document.prototype, 'toJS');
    try {
      expect(findFrontMatter(fm(yaml))?.title).toBe('Guide');
      expect(toJS).not.toHaveBeenCalled();
    } finally {
      toJS.mockRestore();
    }
  });

  it('gives the title the YAML parser gives: aliases, quoted keys, non-strings, duplicates, errors', () => {
    const cases = ['a: &t Aliased\ntitle: *t', '"title": Quoted key', '? title\n: Explicit', 'title: 2024', 'title: [a]', 'title: a\ntitle: b', 'title: "unclosed',
      'title: !!str 12', '- title: in a list', 'title: >\n  Folded\n  text', 'other: 1\ntitle:   spaced  ', 'title: ""', 'title: x\n  bad: indent'];
    for (const yaml of cases) expect({ yaml, title: findFrontMatter(`---\n${yaml}\n---\n`)?.title }).toEqual({ yaml, title: yamlTitle(yaml) });
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
