import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentBlocks } from './semantic.js';
import type { Block, BlockType } from './types.js';
import { newUnitsState, toUnits } from './units.js';

/** A unit's types as toUnits made them before they were shared: a new array per unit, `list` spread in front of an item's. */
function referenceTypes(blocks: Block[]): BlockType[][] {
  const typesIn = (block: Block): BlockType[] => {
    const seen = new Set<BlockType>([block.type]);
    const walk = (b: Block): void => {
      for (const c of b.children ?? []) {
        seen.add(c.type);
        walk(c);
      }
    };
    walk(block);
    return [...seen];
  };
  const out: BlockType[][] = [];
  for (const b of blocks) {
    if (b.type === 'heading') out.push(['heading']);
    else if (b.type === 'list' && b.children?.length) {
      for (const item of b.children) out.push(item.children?.length || item.type !== 'listItem' ? ['list', ...typesIn(item)] : ['list', 'listItem']);
    } else out.push(typesIn(b));
  }
  return out;
}

const TYPES: BlockType[] = ['heading', 'paragraph', 'code', 'table', 'list', 'listItem', 'blockquote', 'html', 'thematicBreak', 'definition', 'footnoteDefinition'];

/** Any tree of blocks (types the parser would not nest so included), for the types alone. */
const block: fc.Arbitrary<Block> = fc.letrec<{ block: Block }>((tie) => ({
  block: fc.record({
    type: fc.constantFrom(...TYPES),
    children: fc.option(fc.array(tie('block'), { maxLength: 4 }), { nil: undefined, depthSize: 'small' }),
  }).map(({ type, children }) => ({ type, start: 0, end: 1, startLine: 0, endLine: 0, ...(type === 'heading' ? { depth: 2, text: 'h' } : {}), ...(children ? { children } : {}) })),
})).block;

// Markdown whose units have nested types: lists of items holding code, quotes, nested lists, tables.
const part = fc.constantFrom('- a\n- b', '- a\n\n  ```\n  x\n  ```', '- a\n  - b\n    > q', '1. x\n\n   | a |\n   |---|\n   | 1 |', '> q\n> - l', '# H', 'Text.', '- [ ] t\n-\n- c');
const source = fc.array(part, { minLength: 1, maxLength: 30 }).map((p) => `${p.join('\n\n')}\n`);

describe('toUnits types', () => {
  it('are the lists a new array per unit gave, on any block tree (an item that names `list` again included)', () => {
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 20 }), (blocks) => {
        expect(toUnits(blocks, newUnitsState()).map((u) => [...u.types])).toEqual(referenceTypes(blocks));
      }),
      { numRuns: 500 },
    );
  });

  it('are the reference lists on the items looked up without a walk (no children, one paragraph), and near them', () => {
    const b = (type: BlockType, children?: Block[]): Block => ({ type, start: 0, end: 1, startLine: 0, endLine: 0, ...(children ? { children } : {}) });
    const items = [
      b('listItem', [b('paragraph')]),
      b('listItem'),
      b('listItem', []),
      b('listItem', [b('paragraph', [])]),
      b('listItem', [b('paragraph', [b('code')])]),
      b('listItem', [b('code')]),
      b('listItem', [b('paragraph'), b('paragraph')]),
      b('listItem', [b('paragraph'), b('list', [b('listItem', [b('paragraph')])])]),
      b('paragraph'),
      b('paragraph', [b('paragraph')]),
      b('listItem', [b('paragraph')]),
    ];
    const blocks = [b('list', items)];
    const units = toUnits(blocks, newUnitsState());
    expect(units.map((u) => [...u.types])).toEqual(referenceTypes(blocks));
    // One frozen array for every item of one paragraph, the one a walk finds for that list.
    const walked = toUnits([b('list', [b('listItem', [b('paragraph'), b('paragraph')])])], newUnitsState())[0]!.types;
    expect(units[0]!.types).toBe(units[10]!.types);
    expect(units[0]!.types).toBe(units[3]!.types);
    expect(units[0]!.types).toBe(walked);
    expect(Object.isFrozen(units[0]!.types)).toBe(true);
  });

  it('are the reference lists on parsed markdown, one frozen array per distinct list', () => {
    fc.assert(
      fc.property(source, (text) => {
        const { blocks } = documentBlocks(text, 'fast');
        const units = toUnits(blocks, newUnitsState());
        expect(units.map((u) => [...u.types])).toEqual(referenceTypes(blocks));
        const byKey = new Map<string, readonly BlockType[]>();
        for (const u of units) {
          expect(Object.isFrozen(u.types)).toBe(true);
          const key = u.types.join();
          expect(byKey.get(key) ?? u.types).toBe(u.types);
          byKey.set(key, u.types);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('the heading columns visitUnits reserves', () => {
  const blocksOf = (source: string): Block[] => documentBlocks(source, 'fast').blocks;

  it('have room for the headings ahead, not a slot per block', () => {
    // 12,000 blocks (quotes each ended by a lazy line), not one a heading of the path.
    const quotes = blocksOf(Array.from({ length: 6000 }, (_, i) => `> # h${i % 100}\nlazy ${i}\n`).join(''));
    expect(quotes.length).toBe(12_000);
    const state = newUnitsState();
    toUnits(quotes, state);
    expect(state.headings.capacity).toBeLessThan(100);
  });

  it('reserve them at once on a document of many headings, and again for a later section', () => {
    const headings = blocksOf(Array.from({ length: 9000 }, (_, i) => `# h${i % 100}\n${i % 3 ? '' : 'text\n'}`).join(''));
    const state = newUnitsState();
    const units = toUnits(headings, state);
    expect(state.headings.count).toBe(9000);
    expect(state.headings.capacity).toBe(9000);
    expect(units.at(-1)!.path.map((r) => r.text)).toEqual(['h99']);
    // A second section (stream.ts) reserves past the headings so far.
    const later = headings.slice(0, 5000);
    const more = later.filter((b) => b.type === 'heading').length;
    toUnits(later, state);
    expect(state.headings.count).toBe(9000 + more);
    expect(state.headings.capacity).toBeGreaterThanOrEqual(9000 + more);
  });
});
