/**
 * PieceTable: pieces as columns (issue 15). Whatever is pushed, appended or sliced reads back as
 * the Piece objects it stands for, past any capacity and with or without parts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PieceTable, type Piece } from './pieces.js';
import type { Block, BlockType } from './types.js';

const TYPES: readonly (readonly BlockType[])[] = [['heading'], ['paragraph'], ['list', 'listItem', 'paragraph'], ['code']];

/** Pieces over a few shared units: whole ones, and parts (some rebuilt) inside their unit. */
const pieces = fc.array(
  fc.record({
    unit: fc.nat(7),
    tokens: fc.integer({ min: 1, max: 1 << 20 }),
    heading: fc.integer({ min: -1, max: 1000 }),
    types: fc.nat(TYPES.length - 1),
    part: fc.option(fc.record({ offset: fc.nat(40), length: fc.nat(40), rebuilt: fc.option(fc.string({ maxLength: 12 })) }), { freq: 3 }),
  }),
  { maxLength: 120 },
);

const UNIT_TYPES: readonly BlockType[] = ['heading', 'paragraph', 'code', 'table', 'listItem', 'footnoteDefinition'];
const UNITS: Block[] = Array.from({ length: 8 }, (_, k) => ({ type: UNIT_TYPES[k % UNIT_TYPES.length]!, start: k * 100, end: k * 100 + 90, startLine: k, endLine: k }) as Block);

function piecesOf(specs: { unit: number; tokens: number; heading: number; types: number; part: { offset: number; length: number; rebuilt: string | null } | null }[]): Piece[] {
  return specs.map(({ unit, tokens, heading, types, part }) => {
    const block = UNITS[unit]!;
    const start = part === null ? block.start : block.start + part.offset;
    const end = part === null ? block.end : start + part.length;
    return { unit: block, tokens, heading, types: TYPES[types]!, start, end, rebuiltText: part === null ? null : part.rebuilt, splitUnit: part !== null };
  });
}

const plain = (p: Piece) => ({ unit: p.unit, tokens: p.tokens, heading: p.heading, types: p.types, start: p.start, end: p.end, rebuiltText: p.rebuiltText, splitUnit: p.splitUnit });

describe('PieceTable', () => {
  it('reads back every piece pushed, by column and as an object, from any capacity', () => {
    fc.assert(
      fc.property(pieces, fc.integer({ min: 0, max: 8 }), (specs, capacity) => {
        const want = piecesOf(specs);
        const table = new PieceTable(capacity);
        for (const p of want) table.pushPiece(p);
        expect(table.length).toBe(want.length);
        want.forEach((p, i) => {
          expect([table.unit(i), table.tokens(i), table.heading(i), table.types(i), table.start(i), table.end(i), table.rebuiltText(i), table.splitUnit(i)]).toEqual([
            p.unit, p.tokens, p.heading, p.types, p.start, p.end, p.rebuiltText, p.splitUnit,
          ]);
          expect(table.isHeading(i)).toBe(p.unit.type === 'heading' && !p.splitUnit);
          expect(table.isParagraph(i)).toBe(p.unit.type === 'paragraph');
          expect(table.unitType(i)).toBe(p.unit.type);
        });
        expect(table.piecesOf().map(plain)).toEqual(want.map(plain));
        expect(PieceTable.of(want).piecesOf().map(plain)).toEqual(want.map(plain));
      }),
      { numRuns: 300 },
    );
  });

  it('slices and appends ranges as the arrays of its pieces do, and says whether a range holds a part', () => {
    fc.assert(
      fc.property(pieces, pieces, fc.nat(), fc.nat(), (a, b, x, y) => {
        const left = PieceTable.of(piecesOf(a));
        const right = PieceTable.of(piecesOf(b));
        const from = a.length === 0 ? 0 : x % (a.length + 1);
        const to = from + (a.length === 0 ? 0 : y % (a.length - from + 1));
        expect(left.slice(from, to).piecesOf().map(plain)).toEqual(piecesOf(a).slice(from, to).map(plain));
        const joined = left.slice(0);
        joined.append(right);
        expect(joined.piecesOf().map(plain)).toEqual([...piecesOf(a), ...piecesOf(b)].map(plain));
        expect(left.anySplit(from, to)).toBe(a.slice(from, to).some((p) => p.part !== null));
        // The tables sliced from are left as they were.
        expect(left.piecesOf().map(plain)).toEqual(piecesOf(a).map(plain));
      }),
      { numRuns: 300 },
    );
  });

  it('reads back its own pieces from the columns of a large table released before it, made or grown into them', () => {
    // Tables of 4,096 pieces and more take the columns the last large one released (pieces.ts's
    // spare): every column, the starts, ends and unit types among them, must be this table's.
    fc.assert(
      fc.property(pieces, pieces, fc.integer({ min: 4096, max: 9000 }), fc.boolean(), (a, b, size, grow) => {
        const fill = (specs: typeof a, capacity: number): { table: PieceTable; want: Piece[] } => {
          const one = piecesOf(specs.length > 0 ? specs : [{ unit: 1, tokens: 1, heading: -1, types: 1, part: null }]);
          const want = Array.from({ length: size }, (_, k) => one[k % one.length]!);
          const table = new PieceTable(capacity);
          for (const p of want) table.pushPiece(p);
          return { table, want };
        };
        fill(a, size).table.release();
        const { table, want } = fill(b, grow ? 16 : size);
        for (let i = 0; i < want.length; i += 97) {
          const p = want[i]!;
          expect([table.start(i), table.end(i), table.isHeading(i), table.isParagraph(i), table.unitType(i), table.tokens(i), table.unit(i)]).toEqual([
            p.start, p.end, p.unit.type === 'heading' && !p.splitUnit, p.unit.type === 'paragraph', p.unit.type, p.tokens, p.unit,
          ]);
        }
        table.release();
      }),
      { numRuns: 40 },
    );
  });

  it('keeps whole pieces pushed after a part whole (the parts column made late starts all null)', () => {
    const table = new PieceTable(2);
    table.push(UNITS[1]!, 3, -1, TYPES[1]!, null);
    table.push(UNITS[1]!, 2, -1, TYPES[1]!, { start: 101, end: 120, rebuiltText: null, tokens: 2 });
    table.push(UNITS[3]!, 4, 0, TYPES[1]!, null);
    expect([table.splitUnit(0), table.splitUnit(1), table.splitUnit(2)]).toEqual([false, true, false]);
    expect([table.start(1), table.end(1), table.start(2)]).toEqual([101, 120, 300]);
  });
});
