import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BlockPool } from './block-pool.js';
import { columnAt, lineTable } from './lines.js';
import { referenceLineSplit } from './test-helpers.js';


describe('lineTable', () => {
  it("takes a pool's spare columns, whatever they hold, and lends them back", () => {
    // Line tables of more than 8,192 lines (the pool's least spare), each made in a pool whose
    // spares are full of garbage: longer than the table needs, or shorter (then grown into).
    const lineOf = fc.constantFrom('a', '', '  b c', 'é😀', 'x'.repeat(70));
    // A first line of 600,000 characters makes the first guess (a line per 64) a spare's too.
    const source = fc
      .tuple(fc.array(lineOf, { minLength: 8200, maxLength: 30000 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean())
      .map(([lines, brk, long]) => (long ? ['w'.repeat(600_000), ...lines] : lines).join(brk));
    const spareLengths = fc.array(fc.integer({ min: 8193, max: 70000 }), { minLength: 1, maxLength: 4 });
    let reused = 0;
    fc.assert(
      fc.property(source, spareLengths, fc.integer(), (t, lengths, garbage) => {
        const pool = new BlockPool();
        for (const length of lengths) pool.lendColumn(new Int32Array(length).fill(garbage));
        pool.clear();
        const table = lineTable(t, pool);
        expect({ starts: [...table.starts], ends: [...table.ends] }).toEqual(referenceLineSplit(t));
        reused += pool.reusedArrays;
        // The table's columns are the next call's spares once the pool is handed back.
        pool.clear();
        expect(pool.spareColumn(table.starts.length)).not.toBeNull();
      }),
      { numRuns: 12 },
    );
    expect(reused).toBeGreaterThan(0);
  });

  it('splits at \\n, \\r\\n and lone \\r, with or without \\r in the text', () => {
    const text = fc.array(fc.constantFrom('a', ' ', '\n', '\r', '\r\n', 'é', '😀', '\n\n'), { maxLength: 40 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text, (t) => {
        const table = lineTable(t);
        expect({ starts: [...table.starts], ends: [...table.ends] }).toEqual(referenceLineSplit(t));
      }),
      { numRuns: 3000 },
    );
    expect(lineTable('')).toEqual({ starts: Int32Array.of(0), ends: Int32Array.of(0) });
    expect(lineTable('a\n')).toEqual({ starts: Int32Array.of(0, 2), ends: Int32Array.of(1, 2) });
  });

  it('grows its buffers past the first guess (a line per 64 characters) on tiny lines, with either break style', () => {
    for (const sep of ['\n', '\r\n', '\r']) {
      const text = Array.from({ length: 20_000 }, (_, i) => `x${i % 10}`).join(sep);
      const table = lineTable(text);
      expect(table.starts.length).toBe(20_000);
      expect({ starts: [...table.starts], ends: [...table.ends] }).toEqual(referenceLineSplit(text));
    }
  });

  it('grows past an extrapolation that falls short: long lines first, then tiny ones, or the other way', () => {
    const run = fc.tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 3000 }));
    fc.assert(
      fc.property(fc.array(run, { minLength: 1, maxLength: 4 }), fc.constantFrom('\n', '\r\n', '\r'), (runs, sep) => {
        const text = runs.map(([width, count]) => Array.from({ length: count }, () => 'y'.repeat(width)).join(sep)).join(sep);
        const table = lineTable(text);
        expect({ starts: [...table.starts], ends: [...table.ends] }).toEqual(referenceLineSplit(text));
      }),
      { numRuns: 60 },
    );
  });
});

describe('columnAt', () => {
  it('is the width of the line before the offset with each tab expanded to the next multiple of four', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('\t', ' ', 'a', '>', '\u00e9') }), fc.string({ unit: fc.constantFrom('x', '\n') }), (line, before) => {
        const source = `${before}\n${line}`;
        const lineStart = before.length + 1;
        let expanded = '';
        for (const ch of line) expanded += ch === '\t' ? ' '.repeat(4 - (expanded.length % 4)) : ch;
        expect(columnAt(source, lineStart, source.length)).toBe(expanded.length);
      }),
    );
    expect(columnAt('> \t- a', 0, 3)).toBe(4);
    expect(columnAt('>\t\tb', 0, 3)).toBe(8);
  });
});
