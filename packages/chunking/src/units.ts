/**
 * From the flattened block list to packing units: top-level blocks, with each
 * top-level list replaced by its items (an item is kept whole whenever it fits,
 * but a list may be cut between items). Each unit gets the heading path in
 * effect at it, with GitHub-style slugs (github-slugger's, unique per document).
 */
import { DEFERRED_HEADING, DEFERRED_NESTED, DEFERRED_PARAGRAPH } from './fast-lists.js';
import { headingLabel } from './heading-label.js';
import { Headings, NO_HEADING } from './headings.js';
import type { HeadingRef } from './pieces.js';
import { anchorEmpty } from './shape-anchor.js';
import { HeadingSlugger } from './slugs.js';
import type { Block, BlockType } from './types.js';
import { sharedTypeList } from './type-lists.js';

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
 * the rest (issue 15). `headingsAhead`: how many of `blocks` are headings (headingsIn), for a
 * caller that counts them in a pass of its own over the blocks.
 */
export function visitUnits(
  blocks: Block[],
  state: UnitsState,
  visit: (block: Block, heading: number, types: readonly BlockType[]) => void,
  headingsAhead = headingsIn(blocks),
): void {
  const { slugger, headings } = state;
  // The state, not only its slugger: its own map (an object literal's, held weakly) died at a
  // full GC between documents, and the store of `state.heading` after the loop then found its
  // feedback cleared and deoptimized visitUnits in every pass (see shape-anchor.ts). An empty
  // one: this document's holds its headings and slugs.
  anchorEmpty('units state', newUnitsState);
  let heading = state.heading;
  // Room for the headings ahead, counted: reserving a slot per block (at most one heading each)
  // made five typed columns and a texts array a slot per block on documents with few headings or
  // none (quotes each ended by a lazy line: 96,000 slots a megabyte, ~2.7 MB a pass, the texts
  // array's ~0.8 MB touched fresh by its fill; pathBudget sizes its column to the same room).
  headings.reserve(headings.count + headingsAhead);
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
        visit(item, heading, item.type !== 'listItem' ? itemTypes(item) : listItemTypes(item));
      }
    } else {
      visit(block, heading, typesIn(block));
    }
  }
  state.heading = heading;
}

/** How many of `blocks` are headings (visitUnits' `headingsAhead`). */
function headingsIn(blocks: Block[]): number {
  let n = 0;
  for (let b = 0; b < blocks.length; b++) if (blocks[b]!.type === 'heading') n++;
  return n;
}

function typesIn(block: Block): readonly BlockType[] {
  const children = block.children;
  // Before the length test: the sentinel is an empty array standing for a quote's one heading.
  if (children === DEFERRED_HEADING) return QUOTE_HEADING;
  if (!children?.length) return onlyType(block.type); // most blocks: no Set needed
  SCRATCH[0] = block.type;
  return sharedTypeList(SCRATCH, addTypesBelow(block, 1, 0));
}

/**
 * A list item's types: `list`, then the item's own types as typesIn gives them (a nested list
 * inside the item names `list` again: the item's types are told apart only among themselves).
 */
function itemTypes(item: Block): readonly BlockType[] {
  SCRATCH[0] = 'list';
  SCRATCH[1] = item.type;
  return sharedTypeList(SCRATCH, addTypesBelow(item, 2, 1));
}

/**
 * The types of `block`'s descendants, depth first, each appended to SCRATCH[0, n) unless in
 * SCRATCH[from, n) already; returns the new length. A handful of types: a linear search keeps a
 * Set's first-appearance order.
 */
function addTypesBelow(block: Block, n: number, from: number): number {
  const children = block.children;
  if (children === undefined) return n;
  if (children === DEFERRED_PARAGRAPH) {
    // An item's one paragraph, not made (fast-lists' deferItemParagraphs); it has no children.
    let j = from;
    while (j < n && SCRATCH[j] !== 'paragraph') j++;
    if (j === n) SCRATCH[n++] = 'paragraph';
    return n;
  }
  if (children === DEFERRED_HEADING) {
    // A quote's one heading, not made (fast-blocks' directQuote, top-level quotes only); it has no children.
    let j = from;
    while (j < n && SCRATCH[j] !== 'heading') j++;
    if (j === n) SCRATCH[n++] = 'heading';
    return n;
  }
  if (children === DEFERRED_NESTED) {
    // An item's paragraph and nested list, not made (fast-lists' DEFERRED_NESTED): depth first
    // they name a paragraph, a list, its items, and below them only those three again.
    for (let t = 0; t < NESTED_TYPES.length; t++) {
      let j = from;
      while (j < n && SCRATCH[j] !== NESTED_TYPES[t]) j++;
      if (j === n) SCRATCH[n++] = NESTED_TYPES[t]!;
    }
    return n;
  }
  for (let k = 0; k < children.length; k++) {
    const c = children[k]!;
    let j = from;
    while (j < n && SCRATCH[j] !== c.type) j++;
    if (j === n) SCRATCH[n++] = c.type;
    n = addTypesBelow(c, n, from);
  }
  return n;
}

/**
 * A list item's types as itemTypes gives them, with the two lists nearly every item has (no
 * children; one paragraph, every item of a flat list: 90,000 a megabyte) looked up once.
 */
function listItemTypes(item: Block): readonly BlockType[] {
  const children = item.children;
  // Before the length test: the sentinel is an empty array standing for one paragraph.
  if (children === DEFERRED_PARAGRAPH) return LIST_ITEM_PARAGRAPH;
  if (children === DEFERRED_NESTED) return LIST_ITEM_NESTED;
  if (children === undefined || children.length === 0) return LIST_ITEM;
  if (children.length === 1) {
    const only = children[0]!;
    if (only.type === 'paragraph' && !only.children?.length) return LIST_ITEM_PARAGRAPH;
  }
  return itemTypes(item);
}

/**
 * The types are gathered in one scratch array (its length never set back: that would drop its
 * store) and looked up in a trie of the lists seen so far, so every unit with the same list
 * shares one frozen array. A list item made two arrays (its types, then `list` spread in front
 * of them), kept alive with its piece until the records were made: two fifths of a flat list's
 * allocation (issue 15). Room for every type, and `list` once more before an item's own.
 */
const SCRATCH: BlockType[] = new Array<BlockType>(16).fill('list');


// Most units have one type (or are childless list items): one frozen array per
// type instead of a new one per unit.
const LIST_ITEM: readonly BlockType[] = Object.freeze(['list', 'listItem']);
const ONLY_TYPE = new Map<BlockType, readonly BlockType[]>();
// The trie's own array (sharedTypeList's lists live as long as the module), as itemTypes returns it.
const LIST_ITEM_PARAGRAPH = sharedTypeList(['list', 'listItem', 'paragraph'], 3);
/** The types below a DEFERRED_NESTED item, in the order addTypesBelow meets them. */
const NESTED_TYPES: readonly BlockType[] = ['paragraph', 'list', 'listItem'];
/** A DEFERRED_NESTED item's types, as itemTypes gives them for its paragraph and nested list. */
const LIST_ITEM_NESTED = sharedTypeList(['list', 'listItem', 'paragraph', 'list'], 4);

function onlyType(type: BlockType): readonly BlockType[] {
  // Runs of one type are the rule (200,000 one-line paragraphs per MB): the last answer is kept
  // rather than the map asked for each (issue 15).
  if (type === lastOnlyType) return lastOnlyTypes;
  let types = ONLY_TYPE.get(type);
  if (types === undefined) {
    types = Object.freeze([type]);
    ONLY_TYPE.set(type, types);
  }
  lastOnlyType = type;
  lastOnlyTypes = types;
  return types;
}
let lastOnlyType: BlockType | null = null;
let lastOnlyTypes: readonly BlockType[] = [];

/** A deferred quote heading's quote, as typesIn gives a quote holding a heading (the trie's own array). */
const QUOTE_HEADING = sharedTypeList(['blockquote', 'heading'], 2);

/** A heading unit's types, looked up once: a document of tiny headings has one unit per line. */
const HEADING_ONLY = onlyType('heading');
