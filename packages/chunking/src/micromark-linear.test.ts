/**
 * The remark route's linear EditMap consume (micromark-linear.ts): installed on the class
 * micromark really uses, the same result as the consume it replaces on any edits, the same
 * mdast on documents of many containers, and work that grows with the document, not its square.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeConsumeLinear, micromarkEditMap, replacedConsume, type EditMapClass } from './micromark-linear.js';
import { parse } from './parse.js';
import { pushedDuring } from './test-helpers.js';

/** The real class, after the remark route has loaded (and, with the fix, changed) it. */
function loadedEditMap(): EditMapClass & (new () => { add(at: number, remove: number, add: unknown[]): void; addBefore(at: number, remove: number, add: unknown[]): void; consume(events: unknown[]): void }) {
  parse('');
  const editMap = micromarkEditMap();
  if (!editMap) throw new Error('micromark-util-edit-map does not resolve from remark-parse');
  return editMap as ReturnType<typeof loadedEditMap>;
}

const quotes = (n: number) => Array.from({ length: n }, (_, i) => `> quote ${i}\n`).join('\n');

describe('the remark route', () => {
  it('installs the linear consume on the EditMap micromark parses with', () => {
    const EditMap = loadedEditMap();
    expect(replacedConsume(EditMap)).toBeTypeOf('function');
    // The class changed is the one micromark's document tokenizer calls (not a second copy).
    const installed = EditMap.prototype.consume;
    let calls = 0;
    EditMap.prototype.consume = function (this: ThisParameterType<typeof installed>, events: unknown[]) {
      calls++;
      installed.call(this, events);
    };
    try {
      parse('> a\n\n> b\n');
    } finally {
      EditMap.prototype.consume = installed;
    }
    expect(calls).toBeGreaterThan(0);
  });

  it('does work in proportion to the number of top-level quotes, not its square', () => {
    // Counted, not timed: the quadratic consume pushed every earlier event back at each quote's close.
    const small = pushedDuring(() => parse(quotes(500)));
    const large = pushedDuring(() => parse(quotes(2000)));
    expect(large / small).toBeLessThan(6);
  });

  it('parses documents of many containers to the same tree as the consume it replaced', () => {
    const EditMap = loadedEditMap();
    const linear = EditMap.prototype.consume;
    const quadratic = replacedConsume(EditMap)!;
    const line = fc.constantFrom('> q', '>', '- item', '  continued', 'lazy', '', '1. one', '> - nested', '> > deeper', '   > indented', '```', 'code', '---', '[^n]: note', '[d]: /u', '| a | b |', '| - | - |');
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), (lines) => {
        const text = lines.join('\n');
        const withLinear = parse(text).tree;
        EditMap.prototype.consume = quadratic;
        try {
          expect(withLinear).toStrictEqual(parse(text).tree);
        } finally {
          EditMap.prototype.consume = linear;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('makeConsumeLinear', () => {
  it('gives the events the replaced consume gives, for any edits', () => {
    const EditMap = loadedEditMap();
    const quadratic = replacedConsume(EditMap)!;
    const edit = fc.record({ at: fc.nat(24), remove: fc.nat(4), add: fc.array(fc.nat(), { maxLength: 3 }), before: fc.boolean() });
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 20 }), fc.array(edit, { maxLength: 6 }), (start, edits) => {
        const run = (consume: typeof quadratic) => {
          const map = new EditMap();
          for (const e of edits) (e.before ? map.addBefore : map.add).call(map, e.at, e.remove, [...e.add]);
          const events = [...start];
          consume.call(map as unknown as ThisParameterType<typeof quadratic>, events);
          return events;
        };
        expect(run(EditMap.prototype.consume)).toStrictEqual(run(quadratic));
      }),
      { numRuns: 1000 },
    );
  });

  it('leaves a consume it does not know alone', () => {
    const consume = function consume(this: unknown, events: unknown[]): void {
      events.reverse();
    };
    const Unknown = { prototype: { consume } } as unknown as EditMapClass;
    expect(makeConsumeLinear(Unknown)).toBe(false);
    expect(Unknown.prototype.consume).toBe(consume);
    expect(replacedConsume(Unknown)).toBeUndefined();
  });

  it('installs once', () => {
    const EditMap = loadedEditMap();
    const installed = EditMap.prototype.consume;
    expect(makeConsumeLinear(EditMap)).toBe(true);
    expect(EditMap.prototype.consume).toBe(installed);
  });
});
