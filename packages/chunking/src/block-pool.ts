/**
 * Block objects kept from one chunkDocument call for the next.
 *
 * A block-dense document (a rule, a heading or a paragraph per line: 170,000–250,000 blocks per
 * MB) makes an object per block that lives until the call's records are made. Each was made in
 * the young generation, copied by a scavenge while the parse went on and copied again to the old
 * generation: a fifth to a quarter of a pass over 1 MB of `***` rules or tiny paragraphs was the
 * collector (issue 15). The blocks that direct-blocks makes (paragraphs, thematic breaks, HTML
 * blocks, headings of plain text) are instead taken from a pool whose objects are already old
 * and are filled in place; a call hands the pool back once nothing reads its blocks.
 *
 * What a host holds between calls is this pool's objects (64 bytes a block, at most POOLED_MOST
 * of each kind), with no string of the document (heading texts are cleared when it is handed
 * back), and only weakly: the next full collection frees it, as it frees the rest of a call's
 * garbage (retention.test.ts).
 *
 * A pool is taken by one call at a time: a call made while another holds it (a stream consumed
 * between calls makes its blocks without one) gets a pool of its own, and a call that throws
 * never hands its pool back, so no block of it is ever refilled while something may read it.
 */
import type { Block, BlockType } from './types.js';

/** The most objects of each kind a pool keeps: the blocks of about 1 MB of `***` rules. */
const POOLED_MOST = 1 << 18;

export class BlockPool {
  /** Five-field blocks (paragraph, thematicBreak, html), in the order they were first made. */
  private readonly leaves: Block[] = [];
  private leavesUsed = 0;
  /** Seven-field blocks (heading), likewise. */
  private readonly headings: Block[] = [];
  private headingsUsed = 0;

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
      return block;
    }
    const block: Block = { type: 'heading', start, end, startLine, endLine, depth, text };
    if (k < POOLED_MOST) {
      headings.push(block);
      this.headingsUsed = k + 1;
    }
    return block;
  }

  /** Blocks refilled so far by this pool over its life (for tests). */
  reused = 0;

  /** Makes every object free to be refilled; heading texts let go of the document's strings. */
  clear(): void {
    const { headings } = this;
    for (let k = 0; k < this.headingsUsed; k++) headings[k]!.text = '';
    this.reused += Math.min(this.leavesUsed, this.leaves.length) + Math.min(this.headingsUsed, this.headings.length);
    this.leavesUsed = 0;
    this.headingsUsed = 0;
  }
}

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
