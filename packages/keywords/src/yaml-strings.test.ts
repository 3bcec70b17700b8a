import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAlias, isMap, isScalar, parseDocument } from 'yaml';
import { yamlStrings } from './yaml-strings.js';

/**
 * What `yaml` itself says, with its own duplicate-key check (`uniqueKeys` left on): the reading
 * yamlStrings must agree with on every text within the depth bound.
 */
function reference(yamlText: string, keys: readonly string[]): (string | undefined)[] | null {
  const doc = parseDocument(yamlText, { logLevel: 'error' });
  if (doc.errors.length > 0 || !isMap(doc.contents)) return null;
  const { contents } = doc;
  return keys.map((key) => {
    let node: unknown = contents.get(key, true);
    if (isAlias(node)) node = node.resolve(doc);
    return isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
  });
}

/** Predicate calls made by `Array.prototype.some` while `run` runs: how `yaml` compares keys. */
function someCallsDuring(run: () => void): number {
  const some = Array.prototype.some;
  let calls = 0;
  Array.prototype.some = function <T>(this: T[], predicate: (value: T, index: number, array: T[]) => unknown): boolean {
    return some.call(this, (value: T, index: number, array: T[]) => {
      calls++;
      return predicate(value, index, array);
    });
  };
  try {
    run();
  } finally {
    Array.prototype.some = some;
  }
  return calls;
}

/** n flat keys under a quoted `"title"` key, which sends the text to the whole-text parse. */
const flatKeys = (n: number, title = '"title": "Quoted: title"\n'): string =>
  title + Array.from({ length: n }, (_, i) => `key${i}: value ${i}\n`).join('');

describe('yamlStrings', () => {
  it('reads the string values asked for', () => {
    expect(yamlStrings('title: "A: b"\nn: 3\nd: |\n  x\n', ['title', 'n', 'd', 'gone'])).toEqual(['A: b', undefined, 'x\n', undefined]);
    expect(yamlStrings('a: &t T\ntitle: *t\n', ['title'])).toEqual(['T']);
  });

  it('gives null for duplicate keys at any depth of what it parses, as yaml does', () => {
    expect(yamlStrings('title: a\ntitle: b\n', ['title'])).toBeNull();
    expect(yamlStrings('title:\n  k: 1\n  k: 2\n', ['title'])).toBeNull();
    // Read whole (a flow mapping, an explicit key, a quoted key):
    expect(yamlStrings('{title: a, x: {k: 1, k: 2}}\n', ['title'])).toBeNull();
    expect(yamlStrings('? {k: 1, k: 2}\n: v\ntitle: a\n', ['title'])).toBeNull();
    expect(yamlStrings('"t": a\n~: 1\nnull: 2\ntitle: a\n', ['title'])).toBeNull();
    expect(yamlStrings('"t": a\n1: x\n0x1: y\ntitle: a\n', ['title'])).toBeNull();
  });

  it('keeps keys yaml does not call equal', () => {
    expect(yamlStrings('title: a\n1: x\n"1": y\n', ['title'])).toEqual(['a']);
    expect(yamlStrings('title: a\n.nan: x\n.NaN: y\n', ['title'])).toEqual(['a']);
    expect(yamlStrings('title: a\n[k]: x\n[k]: y\n', ['title'])).toEqual(['a']);
    expect(yamlStrings('title: a\nx: {k: 1}\ny: {k: 2}\n', ['title'])).toEqual(['a']);
  });

  it('compares keys in time linear in their number (yaml compared each with all before it)', () => {
    // Before: 2,001 keys took 2.0 M comparisons and 8,001 keys 32 M (16×); 14.5 s for 1 MB.
    const calls = [2000, 8000].map((n) => someCallsDuring(() => expect(yamlStrings(flatKeys(n), ['title'])).toEqual(['Quoted: title'])));
    expect(calls[1]!).toBeLessThanOrEqual(5 * Math.max(calls[0]!, 1000));
  });

  it('reads an entry of block-style front matter on its own, so a broken line elsewhere hides nothing', () => {
    // Before, any error anywhere in the YAML made every key null.
    expect(yamlStrings('title: Good\ntags: [a, b\n', ['title'])).toEqual(['Good']);
    expect(yamlStrings('tags:\n- a\n- b\n# c\ntitle: >\n  folded\n  text\nog:title: x\n', ['title', 'og:title'])).toEqual(['folded text\n', 'x']);
    expect(yamlStrings('title: "A"\r\ndescription: B\r\n', ['title', 'description'])).toEqual(['A', 'B']);
    const huge = 'title: "Quoted: title"\nitems:\n' + Array.from({ length: 20000 }, (_, i) => `  - name: item${i}\n    tags: [a, {b: c${i}}]\n`).join('') + 'broken: [\n';
    expect(yamlStrings(huge, ['title'])).toEqual(['Quoted: title']);
  });

  it('still gives null for a top-level key written twice, or an entry that does not parse', () => {
    expect(yamlStrings('title: a\nx: 1\nx: 2\n', ['title'])).toBeNull();
    expect(yamlStrings('title: [a\nx: 1\n', ['title'])).toBeNull();
    expect(yamlStrings('title: a\ndescription: "b\n', ['title', 'description'])).toBeNull();
  });

  it('reads the whole text when an entry may name an anchor of another, or the form is another', () => {
    expect(yamlStrings('base: &b Base\ntitle: *b\n', ['title'])).toEqual(['Base']);
    expect(yamlStrings('{title: Flow, a: 1}\n', ['title'])).toEqual(['Flow']);
    expect(yamlStrings('"title": Quoted\n', ['title'])).toEqual(['Quoted']);
    expect(yamlStrings('  title: Indented\n  a: 1\n', ['title'])).toEqual(['Indented']);
    expect(yamlStrings('? title\n: Explicit\n', ['title'])).toEqual(['Explicit']);
    expect(yamlStrings('- title: x\n', ['title'])).toBeNull();
  });

  it('agrees with yaml wherever yaml reads the whole text without an error', () => {
    const key = fc.constantFrom('title', 'description', 'a', 'b', '"a"', "'title'", '1', '"1"', '01', '1.0', '.nan', '~', 'null', 'true', '"true"', '', 'og:title', 'a b', '? title\n', '&k title', '!!str title', '<<');
    const scalar = fc.constantFrom('x', '"q: x"', "'s'", '1', '~', '.inf', '&r y', '*r', '!!str 2', '[a, b]', '{a: 1, a: 2}', '{k: v}', '|\n  lit', '>-\n  fold\n\n  ed', '"multi\n  line"', 'plain\n  continued', '# only a comment', '"a\\nb"');
    const entry = fc.oneof(
      fc.tuple(key, scalar).map(([k, v]) => `${k}: ${v}\n`),
      fc.tuple(key, fc.array(fc.tuple(key, scalar), { maxLength: 4 })).map(([k, inner]) => `${k}:\n${inner.map(([ik, iv]) => `  ${ik}: ${iv.replace(/\n/g, '\n  ')}\n`).join('')}`),
      fc.tuple(key, fc.array(scalar, { maxLength: 3 }), fc.boolean()).map(([k, items, indent]) => `${k}:\n${items.map((i) => `${indent ? '  ' : ''}- ${i.replace(/\n/g, '\n    ')}\n`).join('')}`),
      fc.tuple(key, fc.array(key, { maxLength: 4 })).map(([k, items]) => `${k}: {${items.map((i) => `${i}: 1`).join(', ')}}\n`),
      fc.constantFrom('# comment\n', '\n', '   \n', '- stray\n', '  indented: x\n', '{a: 1}\n', '%YAML 1.2\n', 'plain line\n'),
    );
    let compared = 0;
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), fc.boolean(), (entries, crlf) => {
        let text = entries.join('');
        if (crlf) text = text.replace(/\n/g, '\r\n');
        const keys = ['title', 'description'];
        const whole = reference(text, keys);
        if (whole === null) return;
        compared++;
        expect(yamlStrings(text, keys)).toEqual(whole);
      }),
      { numRuns: 4000 },
    );
    expect(compared).toBeGreaterThan(400);
  });
});
