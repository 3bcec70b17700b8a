/**
 * From the flattened block list to packing units: top-level blocks, with each
 * top-level list replaced by its items (an item is kept whole whenever it fits,
 * but a list may be cut between items). Each unit gets the heading path in
 * effect at it, with GitHub-style slugs (github-slugger's, unique per document).
 */
import { headingLabel } from './heading-label.js';
import { Headings, NO_HEADING } from './headings.js';
import type { HeadingRef } from './pieces.js';
import { anchor } from './shape-anchor.js';
import { HeadingSlugger } from './slugs.js';
import type { Block, BlockType } from './types.js';

export interface Unit {
  block: Block;
  path: HeadingRef[];
  /** The path as an index in the document's Headings (its innermost heading; NO_HEADING: none). */
  heading: number;
  /** Block types inside the unit (the unit's own first; `list` for items). Shared: never mutated. */
  types: readonly BlockType[];
}

/** Where toUnits resumes when a document comes in sections (stream.ts): its slugs, headings and heading path so far. */
export interface UnitsState {
  slugger: HeadingSlugger;
  headings: Headings;
  /** The heading path in effect: an index in `headings`. */
  heading: number;
}

export function toUnits(blocks: Block[], state: UnitsState = newUnitsState()): Unit[] {
  const units: Unit[] = [];
  const { headings } = state;
  visitUnits(blocks, state, (block, heading, types) => {
    units.push({ block, path: headings.refs(heading), heading, types });
  });
  return units;
}

export function newUnitsState(): UnitsState {
  return { slugger: new HeadingSlugger(), headings: new Headings(), heading: NO_HEADING };
}

/**
 * toUnits without the Unit objects: `visit` gets each unit's fields in order, its heading path
 * as an index in `state.headings`. splitOversizedBlocks makes pieces from them directly: on a
 * document of tiny headings a Unit per heading, kept until the pieces were made, was a fifth
 * of toUnits' allocation, and a path array, a HeadingRef and a slug string per heading most of
 * the rest (issue 15).
 */
export function visitUnits(blocks: Block[], state: UnitsState, visit: (block: Block, heading: number, types: readonly BlockType[]) => void): void {
  const { slugger, headings } = state;
  anchor('slugger', slugger); // see shape-anchor.ts
  let heading = state.heading;
  // At most one heading per block (list items are never headings).
  headings.reserve(headings.count + blocks.length);
  // Indexed loops: a `for…of` here allocated an iterator result per block (a fifth of the
  // allocation on a document of tiny headings, issue 15).
  for (let b = 0; b < blocks.length; b++) {
    const block = blocks[b]!;
    if (block.type === 'heading') {
      const depth = block.depth ?? 1;
      // Records repeat a heading's label, not its text: see heading-label.ts.
      const text = headingLabel(block.text ?? '');
      // The path's depths strictly increase: a heading is nested in the innermost heading
      // of the path in effect whose depth is below its own.
      let parent = heading;
      while (parent !== NO_HEADING && headings.depth(parent) >= depth) parent = headings.parent(parent);
      const n = slugger.slugNumber(text);
      heading = headings.add(text, depth, parent, slugger.base, n);
      visit(block, heading, HEADING_ONLY);
    } else if (block.type === 'list' && block.children?.length) {
      const items = block.children;
      for (let k = 0; k < items.length; k++) {
        const item = items[k]!;
        visit(item, heading, item.children?.length || item.type !== 'listItem' ? ['list', ...typesIn(item)] : LIST_ITEM);
      }
    } else {
      visit(block, heading, typesIn(block));
    }
  }
  state.heading = heading;
}

function typesIn(block: Block): readonly BlockType[] {
  if (!block.children?.length) return onlyType(block.type); // most blocks: no Set needed
  // A handful of types: an array searched linearly keeps a Set's first-appearance order
  // without a Set, a closure and a spread per block.
  const seen: BlockType[] = [block.type];
  addTypesBelow(block, seen);
  return seen;
}

/** The types of `block`'s descendants, depth first, each appended to `seen` once. */
function addTypesBelow(block: Block, seen: BlockType[]): void {
  const children = block.children;
  if (children === undefined) return;
  for (const c of children) {
    if (!seen.includes(c.type)) seen.push(c.type);
    addTypesBelow(c, seen);
  }
}

// Most units have one type (or are childless list items): one frozen array per
// type instead of a new one per unit.
const LIST_ITEM: readonly BlockType[] = Object.freeze(['list', 'listItem']);
const ONLY_TYPE = new Map<BlockType, readonly BlockType[]>();

function onlyType(type: BlockType): readonly BlockType[] {
  let types = ONLY_TYPE.get(type);
  if (types === undefined) {
    types = Object.freeze([type]);
    ONLY_TYPE.set(type, types);
  }
  return types;
}

/** A heading unit's types, looked up once: a document of tiny headings has one unit per line. */
const HEADING_ONLY = onlyType('heading');
