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
