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

const flatKeys = (n: number, title = 'title: "Quoted: title"\n'): string =>
  title + Array.from({ length: n }, (_, i) => `key${i}: value ${i}\n`).join('');

describe('yamlStrings', () => {
  it('reads the string values asked for', () => {
    expect(yamlStrings('title: "A: b"\nn: 3\nd: |\n  x\n', ['title', 'n', 'd', 'gone'])).toEqual(['A: b', undefined, 'x\n', undefined]);
    expect(yamlStrings('a: &t T\ntitle: *t\n', ['title'])).toEqual(['T']);
  });

  it('gives null for duplicate keys at any depth, as yaml does', () => {
    expect(yamlStrings('title: a\ntitle: b\n', ['title'])).toBeNull();
    expect(yamlStrings('title: a\nx:\n  k: 1\n  k: 2\n', ['title'])).toBeNull();
    expect(yamlStrings('title: a\nx: {k: 1, k: 2}\n', ['title'])).toBeNull();
    expect(yamlStrings('title: a\n? {k: 1, k: 2}\n: v\n', ['title'])).toBeNull();
    expect(yamlStrings('title: a\n~: 1\nnull: 2\n', ['title'])).toBeNull();
    expect(yamlStrings('title: a\n1: x\n0x1: y\n', ['title'])).toBeNull();
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

  it('agrees with yaml on mappings with repeated, numeric, null and nested keys', () => {
    const key = fc.constantFrom('title', 'a', 'b', '"a"', "'title'", '1', '"1"', '01', '1.0', '0x1', '.nan', '~', 'null', 'true', 'True', '"true"', '');
    const scalar = fc.constantFrom('x', '"q: x"', "'s'", '1', '~', '.inf', '&r y', '*r', '!!str 2', '[a, b]', '{a: 1, a: 2}', '{k: v}', '|\n  lit');
    const entry = fc.oneof(
      fc.tuple(key, scalar).map(([k, v]) => `${k}: ${v}\n`),
      fc.tuple(key, fc.array(fc.tuple(key, scalar), { maxLength: 4 })).map(([k, inner]) => `${k}:\n${inner.map(([ik, iv]) => `  ${ik}: ${iv.replace(/\n/g, '\n  ')}\n`).join('')}`),
      fc.tuple(key, fc.array(key, { maxLength: 4 })).map(([k, items]) => `${k}: {${items.map((i) => `${i}: 1`).join(', ')}}\n`),
      fc.constant('# comment\n'),
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), (entries) => {
        const text = entries.join('');
        const keys = ['title', 'a', 'b'];
        expect(yamlStrings(text, keys)).toEqual(reference(text, keys));
      }),
      { numRuns: 3000 },
    );
  });
});
