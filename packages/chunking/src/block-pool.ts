/**
 * Block objects kept from one chunkDocument call for the next.
 *
 * A block-dense document (a rule, a heading or a paragraph per line: 170,000–250,000 blocks per
 * MB) makes an object per block that lives until the call's records are made. Each was made in
 * the young generation, copied by a scavenge while the parse went on and copied again to the old
 * generation: a fifth to a quarter of a pass over 1 MB of `***` rules or tiny paragraphs was the
 * collector (issue 15). The blocks that direct-blocks makes (paragraphs, thematic breaks, HTML
 * blocks, headings), fast-lists' top-level lists and one-paragraph items, and top-level quotes of
 * one heading (fast-blocks' directQuote) are instead taken from a pool whose objects are already
 * old and are filled in place; a call hands the pool back once nothing reads its blocks.
 *
 * The pool also keeps the call's large block arrays (fast-lists' BlockArray past 8,192 blocks: a
 * document's top-level blocks, a long list's items) as spares for the next call's: each was made
 * from fresh memory in V8's large-object space (550 page faults a pass over 1 MB of `***` rules,
 * none with the spares; with POOLED_MOST's larger cap, 10 MB of rules went from 0.18–0.25 to
 * 0.12–0.13 s per MB in the scaling bench, session 65).
 *
 * What a host holds between calls is this pool's objects (64 bytes a block, at most POOLED_MOST
 * of each kind) and at most SPARES_KEPT arrays (8 bytes a slot): never more than the largest call
 * made live, with no string or block of the document (heading texts, lists' items and the
 * arrays' slots are let go when it is handed back), and only weakly: the next full collection
 * frees it, as it frees the rest of a call's garbage (retention.test.ts). The anchors of
 * shape-anchor.ts may hold some of its objects, refilled by the next call: what they keep is a
 * hidden class, as before.
 *
 * A pool is taken by one call at a time: a call made while another holds it (a stream consumed
 * between calls makes its blocks without one) gets a pool of its own, and a call that throws
 * never hands its pool back, so no block of it is ever refilled while something may read it.
 */
import type { Block, BlockType } from './types.js';

/**
 * The most objects of each kind a pool keeps: the blocks of about 16 MB of `***` rules. Past the
 * pool, blocks are made fresh and their old-generation pages faulted in again every call: with
 * 2^18 (session 64) a pass over 10 MB of rules took 54,000 page faults, 14,000 with 2^22.
 */
const POOLED_MOST = 1 << 22;

/**
 * One method and one array per kind of block, each filling its fields by name: a kind is a hidden
 * class of its own (the literals the parse made before), and one generic fill would make every
 * store to a block polymorphic.
 */
export class BlockPool {
  /** Five-field blocks (paragraph, thematicBreak, html), in the order they were first made. */
  private readonly leaves: Block[] = [];
  private leavesUsed = 0;

  /** A block of one of the five-field kinds: a pooled one refilled, or a new one. */
  leaf(type: BlockType, start: number, end: number, startLine: number, endLine: number): Block {
    const { leaves } = this;
    const k = this.leavesUsed;
    if (k < leaves.length) {
      const block = leaves[k]!;
      block.type = type;
      block.start = start;
      block.end = end;
      block.startLine = startLine;
      block.endLine = endLine;
      this.leavesUsed = k + 1;
      this.refilled++;
      return block;
    }
    // The same literal as direct-blocks' own (one hidden class for every leaf block).
    const block: Block = { type, start, end, startLine, endLine };
    if (k < POOLED_MOST) {
      leaves.push(block);
      this.leavesUsed = k + 1;
    }
    return block;
  }

  /**
   * Seven-field blocks (heading), likewise. A heading's text is a fresh string, stored into an old
   * object (a slot for every scavenge to visit): at 1 MB of tiny headings pooled and fresh
   * headings measure the same (session 64); at 10 MB the pool saves 40% of the page faults
   * (80,000 → 47,000 a pass: the old generation's pages are not faulted in again for 1.7 million
   * new headings), and the scaling bench read 0.17 → 0.14 and 0.15 → 0.11 s per MB in two A/B
   * runs, 0.20 both in a third (session 65).
   */
  private readonly headings: Block[] = [];
  private headingsUsed = 0;

  /** A heading block: a pooled one refilled, or a new one. */
  heading(start: number, end: number, startLine: number, endLine: number, depth: number, text: string): Block {
    const { headings } = this;
    const k = this.headingsUsed;
    if (k < headings.length) {
      const block = headings[k]!;
      block.start = start;
      block.end = end;
      block.startLine = startLine;
      block.endLine = endLine;
      block.depth = depth;
      block.text = text;
      this.headingsUsed = k + 1;
      this.refilled++;
      return block;
    }
    // direct-blocks' headingBlock literal, field for field.
    const block: Block = { type: 'heading', start, end, startLine, endLine, depth, text };
    if (k < POOLED_MOST) {
      headings.push(block);
      this.headingsUsed = k + 1;
    }
    return block;
  }

  /** Top-level lists made directly (fast-lists' directList), each with its children array. */
  private readonly lists: Block[] = [];
  private listsUsed = 0;
  /** Top-level items of one deferred paragraph (fast-lists' itemBlock). */
  private readonly items: Block[] = [];
  private itemsUsed = 0;

  /**
   * A top-level list block of `items` (copied into the pooled block's own children array, so
   * that `items`, made fresh by the parse, is garbage at once and not a survivor).
   */
  list(start: number, end: number, startLine: number, endLine: number, ordered: boolean, items: readonly Block[]): Block {
    const { lists } = this;
    const k = this.listsUsed;
    if (k < lists.length) {
      const block = lists[k]!;
      block.start = start;
      block.end = end;
      block.startLine = startLine;
      block.endLine = endLine;
      block.ordered = ordered;
      const children = block.children!;
      if (children.length === items.length) for (let i = 0; i < items.length; i++) children[i] = items[i]!;
      else block.children = this.ownArray(items);
      this.listsUsed = k + 1;
      this.refilled++;
      return block;
    }
    // fast-lists' literal, field for field (one hidden class for every list).
    const block: Block = { type: 'list', start, end, startLine, endLine, ordered, children: this.ownArray(items) };
    if (k < POOLED_MOST) {
      lists.push(block);
      this.listsUsed = k + 1;
    }
    return block;
  }

  /**
   * `items` as a list's children: a copy, or `items` itself when it is an array lent to this
   * call (a long list's, already in the large-object space: a copy would be fresh memory again).
   */
  private ownArray(items: readonly Block[]): Block[] {
    return items.length > KEPT_CHILDREN && this.lent.includes(items as Block[]) ? (items as Block[]) : items.slice();
  }

  /** A list item whose children are `children` (a shared sentinel: fast-lists' DEFERRED_PARAGRAPH). */
  item(start: number, end: number, startLine: number, endLine: number, children: Block[], ordered: boolean): Block {
    const { items } = this;
    const k = this.itemsUsed;
    if (k < items.length) {
      const block = items[k]!;
      block.start = start;
      block.end = end;
      block.startLine = startLine;
      block.endLine = endLine;
      block.children = children;
      block.ordered = ordered;
      this.itemsUsed = k + 1;
      this.refilled++;
      return block;
    }
    const block: Block = { type: 'listItem', start, end, startLine, endLine, children, ordered };
    if (k < POOLED_MOST) {
      items.push(block);
      this.itemsUsed = k + 1;
    }
    return block;
  }

  /** Top-level quotes of one deferred heading (fast-blocks' directQuote). */
  private readonly quotes: Block[] = [];
  private quotesUsed = 0;

  /** A quote whose children are `children` (a shared sentinel: fast-lists' DEFERRED_HEADING). */
  quote(start: number, end: number, startLine: number, endLine: number, children: Block[]): Block {
    const { quotes } = this;
    const k = this.quotesUsed;
    if (k < quotes.length) {
      const block = quotes[k]!;
      block.start = start;
      block.end = end;
      block.startLine = startLine;
      block.endLine = endLine;
      block.children = children;
      this.quotesUsed = k + 1;
      this.refilled++;
      return block;
    }
    // fast-blocks' quoteBlock literal, field for field.
    const block: Block = { type: 'blockquote', start, end, startLine, endLine, children };
    if (k < POOLED_MOST) {
      quotes.push(block);
      this.quotesUsed = k + 1;
    }
    return block;
  }

  /** BlockArray's arrays past PUSHED_BLOCKS made or taken by the call holding this pool. */
  private lent: Block[][] = [];
  /** The last call's lent arrays, emptied (LET_GO), longest first. */
  private spares: Block[][] = [];

  /**
   * A spare array of at least `length` slots (to be filled by index from 0 and trimmed by its
   * taker), or null. Arrays past 128 KB live in V8's large-object space, each made from fresh
   * memory: over 1 MB of `***` rules the top-level array took 550 page faults a pass (issue 15).
   */
  spareArray(length: number): Block[] | null {
    // A short array is young and cheap, and a spare cut to its length would be of no use to
    // the next long document.
    if (length <= SPARE_FROM) return null;
    return this.taken(shortestFitting(this.spares, length));
  }

  /** Records `array` (BlockArray's, past PUSHED_BLOCKS) as this call's, a spare for the next. */
  lend(array: Block[]): void {
    if (array.length > SPARE_FROM && array.length <= SPARE_LONGEST) this.lent.push(array);
  }

  /** Int32Arrays past SPARE_FROM entries the call holding this pool made or took (its line tables). */
  private lentColumns: Int32Array<ArrayBuffer>[] = [];
  /** The last call's, longest first. */
  private spareColumns: Int32Array<ArrayBuffer>[] = [];

  /**
   * A spare Int32Array of at least `length` entries, its contents unspecified, or null. A line
   * table of 10 MB of tiny paragraphs is two columns of 4,000,000 lines: made fresh, 32 MB that
   * every call faulted in again (issue 15).
   */
  spareColumn(length: number): Int32Array<ArrayBuffer> | null {
    if (length <= SPARE_FROM) return null;
    return this.taken(shortestFitting(this.spareColumns, length));
  }

  /** `spare` (or null), counted as reused. */
  private taken<T>(spare: T | null): T | null {
    if (spare !== null) this.reusedArrays++;
    return spare;
  }

  /** Records `column` as this call's, a spare for the next once the pool is handed back. */
  lendColumn(column: Int32Array<ArrayBuffer>): void {
    if (column.length > SPARE_FROM && column.length <= COLUMN_LONGEST) this.lentColumns.push(column);
  }

  /** Spare arrays and columns taken so far by the calls holding this pool (for tests). */
  reusedArrays = 0;

  /** Blocks refilled so far by this pool over its life (for tests). */
  refilled = 0;

  /** Makes every object free to be refilled; headings and lists let go of the document's texts and items. */
  clear(): void {
    const { lists } = this;
    // A list's children may be the parse's blocks (items made from tokens, their strings the
    // document's): let go. A short array is kept at its length (emptied, V8 would drop its
    // store); a long one is dropped, as the anchors (shape-anchor.ts) may hold this very block
    // and must not reach a document's worth of slots through it.
    for (let k = 0; k < this.listsUsed; k++) {
      const list = lists[k]!;
      if (list.children!.length > KEPT_CHILDREN) list.children = NO_CHILDREN;
      else list.children!.fill(LET_GO);
    }
    // The lent arrays held the document's blocks (headings with their text among them): let go,
    // keeping each array's length, so its slots stay allocated for the next parse.
    const { lent } = this;
    for (let k = 0; k < lent.length; k++) lent[k]!.fill(LET_GO);
    this.spares = longestKept(lent);
    this.lent = [];
    // Numbers only, nothing of the document: kept as they are.
    this.spareColumns = longestKept(this.lentColumns);
    this.lentColumns = [];
    // Headings let go of the document's texts.
    const { headings } = this;
    for (let k = 0; k < this.headingsUsed; k++) headings[k]!.text = '';
    this.headingsUsed = 0;
    this.leavesUsed = 0;
    this.listsUsed = 0;
    this.itemsUsed = 0;
    this.quotesUsed = 0;
  }
}

/**
 * The shortest of `spares` with at least `length` slots, taken out of it, or null: a call that
 * makes two long arrays (the definitions of a page of them, then the blocks they are merged
 * into) takes back the one each had.
 */
function shortestFitting<T extends { length: number }>(spares: T[], length: number): T | null {
  let best = -1;
  for (let k = 0; k < spares.length; k++) if (spares[k]!.length >= length && (best < 0 || spares[k]!.length < spares[best]!.length)) best = k;
  return best < 0 ? null : spares.splice(best, 1)[0]!;
}

/** The SPARES_KEPT longest of a call's lent arrays, longest first (`lent` sorted in place). */
function longestKept<T extends { length: number }>(lent: T[]): T[] {
  lent.sort((a, b) => b.length - a.length);
  return lent.length > SPARES_KEPT ? lent.slice(0, SPARES_KEPT) : lent;
}

/** Arrays up to this long are neither lent nor taken (BlockArray's own threshold, PUSHED_BLOCKS). */
const SPARE_FROM = 8192;
/** The longest array kept as a spare (32 MB of slots, as many as POOLED_MOST; a longer one is made fresh each call). */
const SPARE_LONGEST = 1 << 22;
/** The longest Int32Array kept as a spare: 32 MB, as many bytes as SPARE_LONGEST's slots (a line table of 10 MB of tiny paragraphs is 4,100,000 lines). */
const COLUMN_LONGEST = 1 << 23;
/** The most spare arrays kept (a document's top-level blocks, a long list's items, a quote's). */
const SPARES_KEPT = 4;

/** The most children a handed-back list keeps its array for (most lists of block-dense documents hold one to three items). */
const KEPT_CHILDREN = 8;
/** A handed-back long list's children: none (its next fill makes an array of its own). */
const NO_CHILDREN: Block[] = Object.freeze([]) as unknown as Block[];

/** What a handed-back list holds in place of its items. */
const LET_GO: Block = Object.freeze({ type: 'paragraph', start: 0, end: 0, startLine: 0, endLine: 0 }) as Block;

/** The pool no call holds, weakly (see the module comment), or null. */
let idle: WeakRef<BlockPool> | null = null;
/** Off only in tests that compare pooled blocks with fresh ones. */
let pooling = true;

/** A pool for one call: the idle one, or a new one when another call holds it or it was collected. */
export function takeBlockPool(): BlockPool | null {
  if (!pooling) return null;
  const pool = idle?.deref() ?? new BlockPool();
  idle = null;
  return pool;
}

/** Hands `pool` back: call only once nothing reads any block it made (records are made, validated). */
export function handBackBlockPool(pool: BlockPool | null): void {
  if (pool === null) return;
  pool.clear();
  idle = new WeakRef(pool);
}

/** For tests: turns pooling off (`on` false) or on; the idle pool is dropped either way. */
export function setBlockPoolingForTests(on: boolean): void {
  pooling = on;
  idle = null;
}

/** For tests: the idle pool, if any is left. */
export function idleBlockPoolForTests(): BlockPool | null {
  return idle?.deref() ?? null;
}
