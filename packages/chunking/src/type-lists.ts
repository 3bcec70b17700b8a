/**
 * One frozen array per distinct list of block types, shared by every unit (units.ts) and every
 * record (metadata.ts) whose list it is: a list item or a record of tiny headings made its own
 * copy of the same few lists tens of thousands of times per MB (issue 15).
 */
import type { BlockType } from './types.js';

/** A node of the trie of lists: the frozen list of the types on the way to it. */
interface TypesNode {
  types: readonly BlockType[] | null;
  next: Map<BlockType, TypesNode> | null;
}
// Module-wide: there are 11 block types, and a list is some of them in order of first appearance.
const TYPES_ROOT: TypesNode = { types: null, next: null };
let lastShared: readonly BlockType[] = [];

/** The frozen array of the types seen[0, n), the same array for the same list every time. */
export function sharedTypeList(seen: readonly BlockType[], n: number): readonly BlockType[] {
  // Neighbours mostly have the same list (the items of a list, the records of a section).
  const last = lastShared;
  if (last.length === n) {
    let k = 0;
    while (k < n && last[k] === seen[k]) k++;
    if (k === n) return last;
  }
  let node = TYPES_ROOT;
  for (let k = 0; k < n; k++) {
    const type = seen[k]!;
    let next = node.next?.get(type);
    if (next === undefined) {
      next = { types: null, next: null };
      (node.next ??= new Map()).set(type, next);
    }
    node = next;
  }
  lastShared = node.types ??= Object.freeze(seen.slice(0, n));
  return lastShared;
}
