import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstParagraph } from './paginate.js';
import { contentHintOf, RangeContexts, type RangeContext } from './range-context.js';
import { documentBlocks } from './semantic.js';
import { splitOversizedBlocks } from './split-oversized.js';
import { TokenIndex } from './tokens.js';
import type { Block, BlockType } from './types.js';
import { newUnitsState, toUnits, type Unit } from './units.js';

/** RangeContexts.of as it was written over a Unit list (an array of the units in range, a Set of types). */
function referenceOf(units: Unit[], start: number, end: number): RangeContext {
  const starts = units.map((u) => u.block.start);
  const lastAtOrBefore = (offset: number): number => {
    let i = -1;
    while (i + 1 < starts.length && starts[i + 1]! <= offset) i++;
    return i;
  };
  let i = lastAtOrBefore(start);
  if (i >= 0 && units[i]!.block.end <= start) i++;
  if (i < 0) i = 0;
  const inRange: Unit[] = [];
  for (let k = i; k < units.length && units[k]!.block.start < end; k++) inRange.push(units[k]!);
  const heading = inRange.find((u) => u.block.type === 'heading' && u.block.start >= start);
  const before = lastAtOrBefore(start);
  const path = heading?.path ?? inRange[0]?.path ?? (before >= 0 ? units[before]!.path : []);
  const types = new Set<BlockType>();
  const tableColumns: number[] = [];
  const tableHeaders: string[][] = [];
  for (const u of inRange) {
    for (const t of u.types) types.add(t);
    if (u.block.type === 'table') {
      tableColumns.push(u.block.header?.length ?? 0);
      tableHeaders.push(u.block.header ?? []);
    }
  }
  return { path, nodeTypes: [...types], contentHints: contentHintOf(inRange.map((u) => u.block.type)), tableColumns, tableHeaders };
}

// Hostile mixes: runs of tiny headings (a path per line), tables, nested lists, quotes, long
// paragraphs that get split into several pieces, blank-line gaps between units.
const part = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 6 }), fc.constantFrom('a', 'B c', 'Intro', 'a')).map(([d, t]) => `${'#'.repeat(d)} ${t}\n`),
  fc.constantFrom('| a | b |\n| - | - |\n| 1 | 2 |\n', '- one\n- two\n  - deep\n', '1. x\n\n   para\n2. y\n', '> quote\n> more\n', '```js\nx\n```\n', '***\n'),
  fc.integer({ min: 1, max: 60 }).map((n) => `${'word and more words. '.repeat(n)}\n`),
  fc.constantFrom('\n', '\n\n\n', 'text\n', 'Setext\n---\n'),
);
const doc = fc.array(part, { maxLength: 30 }).map((parts) => parts.join('\n'));

describe('RangeContexts over pieces', () => {
  it('answers every range as the Unit-list reference does, for both parsers', () => {
    fc.assert(
      fc.property(doc, fc.constantFrom('fast' as const, 'remark' as const), fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 8 }), (source, parser, ranges) => {
        const { blocks, lines } = documentBlocks(source, parser);
        const units = toUnits(blocks);
        const state = newUnitsState();
        const tokens = new TokenIndex(source);
        // A small budget, so that long paragraphs become several pieces of one unit.
        const pieces = splitOversizedBlocks(blocks, { source, lines, tokens, target: 12, budget: () => 16 }, state);
        const fromPieces = new RangeContexts(pieces, state.headings);
        const fromUnits = new RangeContexts(units);
        for (const [a, b] of ranges) {
          const start = a % (source.length + 1);
          const end = Math.min(source.length, start + (b % 200));
          const want = referenceOf(units, start, end);
          expect(fromPieces.of(start, end)).toEqual(want);
          expect(fromUnits.of(start, end)).toEqual(want);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('firstParagraph', () => {
  it("is the first top-level paragraph overlapping the range, as a search from the document's start finds it", () => {
    fc.assert(
      fc.property(doc, fc.constantFrom('fast' as const, 'remark' as const), fc.nat(), fc.nat(), (source, parser, a, b) => {
        const { blocks } = documentBlocks(source, parser);
        const start = a % (source.length + 1);
        const end = Math.min(source.length, start + (b % 300));
        const want = blocks.find((x: Block) => x.type === 'paragraph' && x.end > start && x.start < end) ?? null;
        expect(firstParagraph(blocks, start, end)).toBe(want);
      }),
      { numRuns: 200 },
    );
  });
});
