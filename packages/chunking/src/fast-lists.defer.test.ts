import fc from 'fast-check';
import MarkdownIt, { type StateBlock } from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { childrenOf } from './fast-blocks.js';
import { BlockArray, DEFERRED_NESTED, DEFERRED_PARAGRAPH, deferredParagraph, directList, type ListTarget } from './fast-lists.js';
import { lineTable, type LineTable } from './lines.js';
import type { Block } from './types.js';

type Rule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

/**
 * The top-level lists directList makes of `text` (`\n` breaks only, so markdown-it's lines are
 * the table's), deferring item paragraphs or not, through a markdown-it of its own whose list
 * rule calls directList as fast-blocks' does. Token items (what fast-blocks' tokenItem makes
 * of them) are not looked at here: they stand as null.
 */
function directLists(text: string, defer: boolean): { lists: Block[]; lines: LineTable } {
  const md = new MarkdownIt();
  const ruler = md.block.ruler as unknown as { __rules__: { name: string; fn: Rule }[] };
  const stockList = ruler.__rules__.find((r) => r.name === 'list')!.fn;
  const lines = lineTable(text);
  const lists: Block[] = [];
  const target: ListTarget = {
    source: text,
    lines,
    blocks: {
      push: (block: Block) => void lists.push(block),
    } as unknown as BlockArray,
    addTokenItem: (_node, items, at) => void (items[at] = null as unknown as Block),
    deferItemParagraphs: defer,
  };
  const interrupts = (state: StateBlock, line: number, endLine: number, rules: Rule[]): boolean => rules.some((rule) => rule(state, line, endLine, true));
  // fast-blocks' tokenItem, less its tree: the list rule's tokens of one item.
  const tokenItem = (state: StateBlock, line: number, endLine: number, emptyItem: boolean): unknown => {
    const level = state.level;
    state.level = 1;
    state.push('list_item_open', 'li', 1);
    if (emptyItem) state.line = Math.min(state.line + 2, endLine);
    else state.md.block.tokenize(state, line, endLine);
    state.push('list_item_close', 'li', -1);
    state.level = level;
    return null;
  };
  md.block.ruler.at(
    'list',
    (state: StateBlock, startLine: number, endLine: number, silent: boolean) =>
      (!silent && state.level === 0 && directList(state, startLine, endLine, target, interrupts as never, tokenItem)) || stockList(state, startLine, endLine, silent),
    { alt: ['paragraph', 'reference', 'blockquote'] },
  );
  md.parse(text, {});
  return { lists, lines };
}

/** `text`'s direct lists made with deferred paragraphs, each given back by deferredParagraph, as JSON (field order too). */
function expectDeferredGiveBack(text: string): number {
  const made = directLists(text, false).lists;
  const { lists, lines } = directLists(text, true);
  let deferred = 0;
  const restored = lists.map((list) => ({
    ...list,
    children: list.children!.map((item, k) => {
      if (item === null) return item;
      if (item.children === DEFERRED_NESTED) {
        // Made again by parsing the item's lines alone (fast-blocks' own parser).
        deferred++;
        const children = childrenOf(item, text, lines);
        expect(children).toEqual(made[lists.indexOf(list)]!.children![k]!.children);
        return { ...item, children };
      }
      if (item.children !== DEFERRED_PARAGRAPH) return item;
      deferred++;
      expect(childrenOf(item, text, lines)).toEqual([deferredParagraph(item, lines)]);
      return { ...item, children: [deferredParagraph(item, lines)] };
    }),
  }));
  expect(JSON.stringify(restored)).toBe(JSON.stringify(made));
  return deferred;
}

describe('direct list items made with their paragraph deferred', () => {
  const indent = fc.constantFrom('', '', ' ', '  ', '   ');
  const marker = fc.constantFrom('-', '*', '+', '1.', '2)', '10.');
  const gap = fc.constantFrom(' ', ' ', '  ', '\t', '    ', '     ', '');
  const body = fc.constantFrom('item', 'two words', 'x  ', '**b** c', '`x`', '\f', '\v', ' \f', '\u00a0', '# h', '> q', '```', '---', '- n', '<div>', '[d]: /u', '', '|a|b|');
  const item = fc.tuple(indent, marker, gap, body).map(([a, m, g, b]) => a + m + g + b);
  const other = fc.constantFrom('', '', 'lazy', '  cont', '     deep', '\f', '  \v', '  - n', '---', '===', '|-|', 'para', '# h');
  const line = fc.oneof({ arbitrary: item, weight: 4 }, { arbitrary: other, weight: 1 });

  it('give back the very blocks directList makes without deferring', () => {
    let deferred = 0;
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 20 }), (ls) => {
        deferred += expectDeferredGiveBack(ls.join('\n'));
      }),
      { numRuns: 3000 },
    );
    // The inputs reach deferred items, not only token ones.
    expect(deferred).toBeGreaterThan(3000);
  });

  it('give back the items of a paragraph and nested lists, made again from their lines alone (issue 15)', () => {
    // Nested items at their content columns and off them, with lazy and blank lines, items
    // holding nothing, and lines that leave an item to markdown-it.
    const nestedIndent = fc.constantFrom('', '  ', '    ', '      ', '   ', '     ', ' ', '\t');
    const nestedBody = fc.constantFrom('a', 'two words', 'x  ', '', '\f', '```', '# h', '- n');
    const nestedLine = fc.oneof(
      { arbitrary: fc.tuple(nestedIndent, marker, gap, nestedBody).map(([a, m, g, b]) => a + m + g + b), weight: 6 },
      { arbitrary: fc.constantFrom('', 'lazy', '  cont', '    cont', '\f'), weight: 1 },
    );
    let deferred = 0;
    fc.assert(
      fc.property(fc.array(nestedLine, { minLength: 1, maxLength: 20 }), (ls) => {
        deferred += expectDeferredGiveBack(ls.join('\n'));
      }),
      { numRuns: 3000 },
    );
    expect(deferred).toBeGreaterThan(1500);
    const text = '- a\n  - b\n    - c\n- d\n  1. e\n\n  2. f\n- g\n';
    const items = directLists(text, true).lists[0]!.children!;
    expect(items.map((item) => item.children === DEFERRED_NESTED)).toEqual([true, true, false]);
    expect(Object.isFrozen(DEFERRED_NESTED)).toBe(true);
    expect(expectDeferredGiveBack(text)).toBe(3);
  });

  it('share one frozen empty array as their children, token items keeping theirs', () => {
    const text = '- a\n- \f\n- b\n  c\n-\n  x\n';
    const items = directLists(text, true).lists[0]!.children!;
    expect(items.map((item) => item === null || item.children === DEFERRED_PARAGRAPH)).toEqual([true, true, true, true]);
    expect(items[3]).toBeNull();
    expect(Object.isFrozen(DEFERRED_PARAGRAPH)).toBe(true);
    expect(DEFERRED_PARAGRAPH).toHaveLength(0);
    expect(expectDeferredGiveBack(text)).toBe(3);
    const plain = directLists(text, false);
    for (const item of plain.lists[0]!.children!) if (item !== null) expect(childrenOf(item, text, plain.lines)).toBe(item.children);
  });
});
