import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { fastBlocks } from './fast-blocks.js';
import { flatten, MAX_BLOCK_DEPTH } from './flatten.js';
import { parse } from './parse.js';
import type { Block } from './types.js';

/** How deep the block tree goes (0: no block has children), and the innermost last block. */
function deepest(blocks: Block[]): { depth: number; block: Block } {
  let block = blocks[blocks.length - 1]!;
  let depth = 0;
  while (block.children && block.children.length > 0) {
    block = block.children[block.children.length - 1]!;
    depth++;
  }
  return { depth, block };
}

describe('flatten (the remark parser\'s blocks)', () => {
  const quote = (depth: number): string => `# T\n\n${'> '.repeat(depth)}x\n`;
  const list = (depth: number): string => `# T\n\n${Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- x`).join('\n')}\n`;

  it('stops containers where the fast parser does (markdown-it nests 100 deep), covering the same text', () => {
    for (const source of [quote(150), list(150)]) {
      const remark = deepest(flatten(parse(source)));
      const fast = deepest(fastBlocks(source).blocks);
      expect(remark.depth).toBe(MAX_BLOCK_DEPTH);
      expect(remark).toEqual(fast);
    }
  });

  it('chunks a quote thousands deep under remark without overflowing the stack (s42 fuzz, seed 711823)', () => {
    // Before: RangeError: Maximum call stack size exceeded, in convert.
    const source = quote(5000);
    const options = { docName: 'deep', maxTokens: 40, targetTokens: 26, minTokens: 23 };
    const viaRemark = chunkDocument(source, { ...options, parser: 'remark' });
    const viaFast = chunkDocument(source, options);
    expect(viaRemark.chunks.map((c) => c.originalText)).toEqual(viaFast.chunks.map((c) => c.originalText));
    expect(viaRemark.chunks.length).toBeGreaterThan(100);
  });

  it("parses quotes 10,000 deep under remark: remark-gfm's transforms walk a pruned tree (s43 fuzz, seed 1103028)", () => {
    // Before: RangeError: Maximum call stack size exceeded, in remark-gfm's autolink-literal
    // transform (unist-util-visit-parents recurses once per level), before flatten ran.
    for (const source of [quote(10_000), `# T\n\n${'>'.repeat(10_000)} www.example.com\n`]) {
      const tree = parse(source).tree;
      expect(flatten({ source, frontMatter: null, tree })).toEqual(fastBlocks(source).blocks);
    }
    const source = quote(10_000);
    const options = { docName: 'deep', strategy: 'paginate' as const };
    expect(chunkDocument(source, { ...options, parser: 'remark' }).chunks.map((c) => c.originalText)).toEqual(chunkDocument(source, options).chunks.map((c) => c.originalText));
  });

  it('ends a list item with its last child, as the fast parser does (s42 fuzz, seed 817473)', () => {
    // micromark's item for `- <script>` ended past the next item's marker, and the next began
    // after its fence opened: the cut between them split the fence (an invariant violation).
    const source = '-     Indented code in an item.\n- <script>\n-  ```xml\n- 1. Publish the app `dotnet publish -r <RID>`.';
    expect(flatten(parse(source))).toEqual(fastBlocks(source).blocks);
    const options = { docName: 'seed', maxTokens: 64, targetTokens: 61, minTokens: 48, overlapSentences: 2 };
    expect(chunkDocument(source, { ...options, parser: 'remark' }).chunks.map((c) => c.originalText)).toEqual(chunkDocument(source, options).chunks.map((c) => c.originalText));
  });

  it('gives list items the ranges the fast parser gives, whatever block ends them', () => {
    const content = fc.constantFrom('x', '    code', '<script>', '<div>', '```', '```xml', '~~~', '> q', '1. n', '# h', 'x\n  y', 'x\n\n  y');
    const item = fc.tuple(fc.constantFrom('- ', '-  ', '* ', '1. ', '  - '), content).map(([m, c]) => m + c);
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 6 }), (items) => {
        const source = items.join('\n');
        const ranges = (blocks: Block[]): unknown[] => blocks.map((b) => [b.type, b.start, b.end, b.children ? ranges(b.children.filter((c) => c.type === 'listItem' || c.type === 'list')) : null]);
        expect(ranges(flatten(parse(source)))).toEqual(ranges(fastBlocks(source).blocks));
      }),
      { numRuns: 1500 },
    );
  });
});

