import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { chunkerBlocks, fastBlocks, setDeferItemParagraphsForTests } from './fast-blocks.js';
import { DEFERRED_NESTED, DEFERRED_PARAGRAPH } from './fast-lists.js';
import { chunkDocument } from './index.js';
import { lineTable } from './lines.js';
import { chunkerDocumentBlocks, documentBlocks } from './semantic.js';
import type { Block, ChunkOptions, StrategyName } from './types.js';

/**
 * chunkDocument's blocks hold fast-lists' DEFERRED_PARAGRAPH for a flat list's one-paragraph
 * items (an empty array standing for the paragraph). A stage reading item children that does
 * not know it sees an item with no children: other node types, or an oversized item split by
 * lines instead of by its paragraph's sentences. So the records must be the very records made
 * with every paragraph there, on every strategy, with items far over the caps.
 */

/** Items of flat lists nearly all defer; the words make items from one token to hundreds. */
const words = fc.constantFrom('alpha', 'beta gamma', 'Delta.', 'epsilon zeta eta.', 'One sentence here.', '`code`', '**bold**', 'x', '1.', 'see [a](u).');
const itemText = fc.array(words, { minLength: 1, maxLength: 60 }).map((ws) => ws.join(' '));
const longItemText = fc.array(words, { minLength: 80, maxLength: 240 }).map((ws) => ws.join(' '));
const marker = fc.constantFrom('-', '*', '1.', '2)', '+');
const flatItem = fc.tuple(marker, fc.oneof({ arbitrary: itemText, weight: 5 }, { arbitrary: longItemText, weight: 1 }));
/** Lines of one list: its items (one marker, as a list keeps it), a few with more than a paragraph. */
const list = fc
  .tuple(
    marker,
    fc.array(
      fc.tuple(
        fc.oneof({ arbitrary: itemText, weight: 5 }, { arbitrary: longItemText, weight: 1 }),
        // What follows an item's paragraph: nothing (a deferred item), a nested list, a second
        // paragraph, a lazy line or a code block (token items, not deferred).
        fc.constantFrom('', '', '', '', '\n  - nested item\n  - another one', '\n\n  second paragraph.', '\nlazy continuation', '\n\n  ```\n  code\n  ```', '\n    - deep'),
      ),
      { minLength: 1, maxLength: 12 },
    ),
    fc.boolean(),
  )
  .map(([m, items, loose]) => items.map(([text, after]) => `${m} ${text}${after}`).join(loose ? '\n\n' : '\n'));
const other = fc.constantFrom('# Title', '## Section', '### Sub', 'A paragraph of prose. It has two sentences.', '> a quote', '```\nfenced\n```', '| a | b |\n|---|---|\n| 1 | 2 |', '1. one line numbered');
const documentOf = fc.array(fc.oneof({ arbitrary: list, weight: 3 }, { arbitrary: other, weight: 2 }, { arbitrary: flatItem.map(([m, t]) => `${m} ${t}`), weight: 1 }), { minLength: 1, maxLength: 8 }).map((parts) => `${parts.join('\n\n')}\n`);

/** Every strategy, at its smallest caps (oversized items split) and at its defaults. */
const optionSets: Partial<ChunkOptions>[] = [
  {},
  { minTokens: 0, targetTokens: 4, maxTokens: 16 },
  { minTokens: 8, targetTokens: 12, maxTokens: 16, overlapSentences: 1, breadcrumbMode: 'always' },
  { strategy: 'token-window' as StrategyName, windowTokens: 16, windowOverlapTokens: 4 },
  { strategy: 'token-window' as StrategyName },
  { strategy: 'hierarchical' as StrategyName, sectionTargetTokens: 8, sectionMaxTokens: 128, sectionOverlapTokens: 0, snippetTargetTokens: 4, snippetMaxTokens: 128, snippetOverlapTokens: 0 },
  { strategy: 'hierarchical' as StrategyName },
  { strategy: 'paginate' as StrategyName, ctxSize: 512, bufSize: 0, pageOverlapTokens: 8 },
  { strategy: 'paginate' as StrategyName },
];

function records(source: string, options: Partial<ChunkOptions>, defer: boolean): string {
  setDeferItemParagraphsForTests(defer);
  try {
    return JSON.stringify(chunkDocument(source, { docName: 'd', ...options }, { recount: true }));
  } finally {
    setDeferItemParagraphsForTests(true);
  }
}

function deferredItems(blocks: readonly Block[], sentinel: Block[] = DEFERRED_PARAGRAPH): number {
  let n = 0;
  for (const b of blocks) for (const item of b.children ?? []) if (item.children === sentinel) n++;
  return n;
}

describe('chunkDocument with item paragraphs deferred', () => {
  afterEach(() => setDeferItemParagraphsForTests(true));

  it('gives the records it gives with every paragraph made, on every strategy and cap', () => {
    let deferred = 0;
    let nested = 0;
    fc.assert(
      fc.property(documentOf, fc.constantFrom('d.md', 'd.md', 'd.txt'), fc.constantFrom(...optionSets), fc.constantFrom('\n', '\n', '\r\n'), (text, sourceFile, options, eol) => {
        const source = text.replace(/\n/g, eol);
        const blocks = chunkerBlocks(source, lineTable(source)).blocks;
        deferred += deferredItems(blocks);
        nested += deferredItems(blocks, DEFERRED_NESTED);
        expect(records(source, { ...options, sourceFile }, true)).toBe(records(source, { ...options, sourceFile }, false));
      }),
      { numRuns: 600 },
    );
    // The documents reach deferred items, many of them, and items deferred with their nested lists.
    expect(deferred).toBeGreaterThan(1000);
    expect(nested).toBeGreaterThan(100);
  });

  it('splits an oversized deferred item by its paragraph, as before', () => {
    const long = Array.from({ length: 60 }, (_, k) => `Sentence number ${k} of the item.`).join(' ');
    const source = `# T\n\n- short\n- ${long}\n- ${long}\n  lazy tail\n`;
    expect(deferredItems(chunkerDocumentBlocks(source, 'fast').blocks)).toBe(3);
    for (const options of optionSets) expect(records(source, options, true)).toBe(records(source, options, false));
  });

  it('splits an oversized item deferred with its nested lists by its paragraph and lists, as before (issue 15)', () => {
    const long = Array.from({ length: 60 }, (_, k) => `Sentence number ${k} of the item.`).join(' ');
    const source = `# T\n\n- ${long}\n  - ${long}\n    - ${long}\n  - short\n\n  - ${long}\n- after\n\t- tabbed ${long}\n`;
    expect(deferredItems(chunkerDocumentBlocks(source, 'fast').blocks, DEFERRED_NESTED)).toBe(2);
    for (const options of optionSets) expect(records(source, options, true)).toBe(records(source, options, false));
    // Split by their children (each sentence a part), not kept whole or cut by lines.
    const { chunks } = chunkDocument(source, { docName: 'd', minTokens: 0, targetTokens: 4, maxTokens: 16 });
    expect(chunks.filter((chunk) => chunk.originalText.startsWith('Sentence number')).length).toBeGreaterThan(100);
  });

  it('is off for the blocks a caller sees: fastBlocks, documentBlocks', () => {
    const source = '- a\n- b\n\n1. c\n2. d\n';
    expect(deferredItems(chunkerBlocks(source, lineTable(source)).blocks)).toBe(4);
    expect(deferredItems(fastBlocks(source).blocks)).toBe(0);
    expect(deferredItems(documentBlocks(source, 'fast').blocks)).toBe(0);
    expect(fastBlocks(source).blocks[0]!.children![0]!.children).toEqual([{ type: 'paragraph', start: 0, end: 3, startLine: 0, endLine: 0 }]);
    setDeferItemParagraphsForTests(false);
    expect(deferredItems(chunkerBlocks(source, lineTable(source)).blocks)).toBe(0);
  });
});
