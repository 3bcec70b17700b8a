import { describe, expect, it } from 'vitest';
import { Headings, NO_HEADING } from './headings.js';
import { PieceTable } from './pieces.js';
import { SPARE_MOST, Spare, STRONG_MOST } from './spare.js';
import { collectFully } from './test-helpers.js';
import type { Block } from './types.js';

/** A WeakRef to what `make` returns, made in a frame of its own so that no local holds it. */
function weakly<T extends object>(make: () => T): WeakRef<T> {
  return new WeakRef(make());
}

describe('Spare', () => {
  it('keeps a value of up to strongMost entries through full collections', async () => {
    const spare = new Spare<number[]>(100, 1000);
    const ref = weakly(() => {
      const value = [1, 2, 3];
      spare.keep(value, 100);
      return value;
    });
    await collectFully();
    expect(ref.deref()).toBeDefined();
    expect(spare.peek()).toBe(ref.deref());
  });

  it('keeps a larger value only weakly: while something else holds it, and not past a full collection', async () => {
    const spare = new Spare<number[]>(100, 1000);
    const held = [4, 5, 6];
    spare.keep(held, 101);
    await collectFully();
    expect(spare.peek()).toBe(held);
    const ref = weakly(() => {
      const value = [7, 8, 9];
      spare.keep(value, 1000);
      return value;
    });
    expect(spare.peek()).toBe(ref.deref());
    await collectFully();
    expect(ref.deref()).toBeUndefined();
    expect(spare.peek()).toBeNull();
  });

  it('keeps nothing past most, and take hands the value over once', () => {
    const spare = new Spare<number[]>(100, 1000);
    spare.keep([1], 1001);
    expect(spare.peek()).toBeNull();
    const value = [2];
    spare.keep(value, 10);
    expect(spare.take()).toBe(value);
    expect(spare.peek()).toBeNull();
    expect(spare.take()).toBeNull();
  });
});

// Private columns, read to see what a released table keeps between documents.
type PieceColumns = { tokenCounts: Int32Array };
type HeadingColumns = { depths: Int32Array };
const BLOCK: Block = { type: 'paragraph', start: 0, end: 1, startLine: 0, endLine: 1 };

describe('a released table past STRONG_MOST entries', () => {
  const LARGE = STRONG_MOST + 1000;

  it('hands its piece columns to the next table of its size, and holds them only weakly', async () => {
    expect(LARGE).toBeLessThanOrEqual(SPARE_MOST);
    // In a frame of its own, so that no local holds the columns once both tables are released.
    const ref = weakly(() => {
      const first = new PieceTable(LARGE);
      for (let i = 0; i < LARGE; i++) first.push(BLOCK, 1, NO_HEADING, [], null);
      const counts = (first as unknown as PieceColumns).tokenCounts;
      first.release();
      // Past 2^18 pieces (10 MB of tiny paragraphs is 2,000,000) the columns were made fresh every call.
      const second = new PieceTable(LARGE);
      expect((second as unknown as PieceColumns).tokenCounts === counts).toBe(true);
      second.release();
      return counts;
    });
    await collectFully();
    expect(ref.deref()).toBeUndefined();
  });

  it('hands its heading columns to the next table of its size, and holds them only weakly', async () => {
    const ref = weakly(() => {
      const first = new Headings();
      first.reserve(LARGE);
      for (let i = 0; i < LARGE; i++) first.add(`H${i}`, 1, NO_HEADING, `h${i}`, 0);
      const depths = (first as unknown as HeadingColumns).depths;
      first.release();
      const second = new Headings();
      second.reserve(LARGE);
      expect((second as unknown as HeadingColumns).depths === depths).toBe(true);
      second.release();
      return depths;
    });
    await collectFully();
    expect(ref.deref()).toBeUndefined();
  });

  it('keeps a table of STRONG_MOST entries or fewer through full collections, as before', async () => {
    const ref = weakly(() => {
      const table = new PieceTable(STRONG_MOST);
      const columns = (table as unknown as PieceColumns).tokenCounts;
      table.release();
      return columns;
    });
    await collectFully();
    expect(ref.deref()).toBeDefined();
    expect((new PieceTable(STRONG_MOST) as unknown as PieceColumns).tokenCounts === ref.deref()).toBe(true);
  });
});
