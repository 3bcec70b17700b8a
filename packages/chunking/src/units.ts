/**
 * From the flattened block list to packing units: top-level blocks, with each
 * top-level list replaced by its items (an item is kept whole whenever it fits,
 * but a list may be cut between items). Each unit gets the heading path in
 * effect at it, with GitHub-style slugs (github-slugger's, unique per document).
 */
import type { HeadingRef } from './pieces.js';
import { anchor } from './shape-anchor.js';
import { HeadingSlugger } from './slugs.js';
import type { Block, BlockType } from './types.js';

export interface Unit {
  block: Block;
  path: HeadingRef[];
  /** Block types inside the unit (the unit's own first; `list` for items). */
  types: BlockType[];
}

export function toUnits(blocks: Block[]): Unit[] {
  const slugger = new HeadingSlugger();
  anchor('slugger', slugger); // see shape-anchor.ts
  const units: Unit[] = [];
  let path: HeadingRef[] = [];
  for (const block of blocks) {
    if (block.type === 'heading') {
      const depth = block.depth ?? 1;
      const text = block.text ?? '';
      path = [...path.filter((h) => h.depth < depth), { text, depth, slug: slugger.slug(text) }];
      units.push({ block, path, types: ['heading'] });
    } else if (block.type === 'list' && block.children?.length) {
      for (const item of block.children) units.push({ block: item, path, types: ['list', ...typesIn(item)] });
    } else {
      units.push({ block, path, types: typesIn(block) });
    }
  }
  return units;
}

function typesIn(block: Block): BlockType[] {
  if (!block.children?.length) return [block.type]; // most blocks: no Set needed
  const seen = new Set<BlockType>([block.type]);
  const walk = (b: Block): void => {
    for (const c of b.children ?? []) {
      seen.add(c.type);
      walk(c);
    }
  };
  walk(block);
  return [...seen];
}
