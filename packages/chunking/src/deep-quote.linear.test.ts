/**
 * A quote nested thousands deep is split by its children level by level (split-oversized.ts'
 * splitChildrenInto). Each level once returned its parts for the level above to copy, so a
 * part deep down was copied once per level above it: quadratic (d1d6a83, issue 15). Timing
 * would not tell that apart on a shared machine; the copies do: the elements pushed onto
 * arrays during the split grow in proportion to the depth, not to its square.
 */
import { describe, expect, it } from 'vitest';
import { lineTable } from './lines.js';
import { splitOversizedBlocks } from './split-oversized.js';
import { pushedDuring } from './test-helpers.js';
import { TokenIndex } from './tokens.js';
import type { Block } from './types.js';

/**
 * A quote `depth` levels deep, a paragraph at each level: the deep-quote shape's blocks, made
 * directly (without markdown-it's nesting limit) over lines of one length (the shape's lines
 * grow a `>` a level, which makes its text, and the work of counting its tokens, quadratic in
 * the depth by themselves).
 */
function deepQuote(depth: number): { source: string; blocks: Block[] } {
  const source = Array.from({ length: depth }, (_, i) => `> quoted line ${i} of the nest\n`).join('');
  const lines = lineTable(source);
  let inner: Block | null = null;
  for (let i = depth - 1; i >= 0; i--) {
    const start = lines.starts[i]!;
    const end = lines.ends[depth - 1]!;
    const paragraph: Block = { type: 'paragraph', start: start + 2, end: lines.ends[i]!, startLine: i, endLine: i };
    const quote: Block = { type: 'blockquote', start, end, startLine: i, endLine: depth - 1, children: inner ? [paragraph, inner] : [paragraph] };
    inner = quote;
  }
  return { source, blocks: [inner!] };
}

describe('splitting a quote nested thousands deep', () => {
  it('pushes elements in proportion to the depth (parts are not copied level by level)', () => {
    const pushes = [400, 800, 1600].map((depth) => {
      const { source, blocks } = deepQuote(depth);
      const ctx = { source, lines: lineTable(source), tokens: new TokenIndex(source), target: 40, budget: () => 60 };
      let pieces = 0;
      const pushed = pushedDuring(() => {
        pieces = splitOversizedBlocks(blocks, ctx).length;
      });
      // Split into many pieces, from every level (else the test would prove nothing).
      expect(pieces).toBeGreaterThanOrEqual(depth / 5);
      return pushed;
    });
    // Linear: doubling the depth doubles the pushes (a little more or less); quadratic: four times.
    expect(pushes[1]! / pushes[0]!).toBeLessThan(2.6);
    expect(pushes[2]! / pushes[1]!).toBeLessThan(2.6);
  });
});
