/**
 * A stage's large scratch kept from one chunkDocument call for the next.
 *
 * A block-dense document makes columns of an entry per block, piece or heading (2,000,000 of
 * them in 10 MB of tiny paragraphs), and each made fresh is memory the machine faults in again
 * every call: this VM charges about 2.7 ms per MB on first touch. Kept, a column costs the host
 * what it holds between calls, so a stage keeps one strongly only up to `strongMost` entries
 * (what any real document needs) and, up to `most`, only weakly, as block-pool.ts keeps its
 * blocks: the next full collection frees it, as it frees the rest of a call's garbage. Past
 * `most` nothing is kept.
 */
import type { Column } from './pieces.js';

export class Spare<T extends object> {
  private strong: T | null = null;
  private weak: WeakRef<T> | null = null;

  /** `strongMost`: the most entries held strongly; `most`: the most held at all. */
  constructor(
    private readonly strongMost: number,
    private readonly most: number,
  ) {}

  /** Keeps `value`, of `size` entries, in place of what was kept (or keeps nothing when it is larger than `most`). */
  keep(value: T, size: number): void {
    this.strong = size <= this.strongMost ? value : null;
    this.weak = size > this.strongMost && size <= this.most ? new WeakRef(value) : null;
  }

  /** What is kept (still kept), or null: nothing kept, or collected since. */
  peek(): T | null {
    return this.strong ?? this.weak?.deref() ?? null;
  }

  /** What is kept, no longer kept (a caller takes it to fill), or null. */
  take(): T | null {
    const value = this.peek();
    this.clear();
    return value;
  }

  /** Keeps nothing. */
  clear(): void {
    this.strong = null;
    this.weak = null;
  }
}

/** The most entries a stage holds strongly between calls: the pieces of about 1.5 MB of tiny headings, and of any real document. */
export const STRONG_MOST = 1 << 18;
/** The most entries held at all (weakly past STRONG_MOST): as many as block-pool.ts's POOLED_MOST. */
export const SPARE_MOST = 1 << 22;

/**
 * Typed columns of a stage, one Spare per slot, each handed out again to the next call: only for
 * a stage that runs to its end before it returns, whose columns nothing reads after (pack's,
 * boilerplate's). A column much larger than a call needs is let go, so that one huge document
 * does not hold its columns for every small one after it.
 */
export class SpareColumns {
  private readonly spares: Spare<Column>[] = [];

  /** `slots` spares, each held strongly up to `strongMost` entries and weakly up to `most` (Spare). */
  constructor(slots: number, strongMost = STRONG_MOST, most = SPARE_MOST) {
    for (let slot = 0; slot < slots; slot++) this.spares.push(new Spare<Column>(strongMost, most));
  }

  /**
   * Slot `slot`'s column (of `Type`, the slot's own) with room for at least `n` entries, its
   * contents unspecified; a new one when the kept one is too small or larger than `most`.
   */
  room<T extends Column>(slot: number, Type: new (length: number) => T, n: number, most = 4 * n + 4096): T {
    const spare = this.spares[slot]!;
    const kept = spare.peek() as T | null;
    if (kept !== null && kept.length >= n && kept.length <= most) return kept;
    const made = new Type(n);
    spare.keep(made, n);
    return made;
  }

  /** room(slot, Type, n) as a column of exactly `n` entries (a view of the kept one), its contents unspecified. */
  column<T extends Column>(slot: number, Type: new (length: number) => T, n: number): T {
    const kept = this.room(slot, Type, n);
    return kept.length === n ? kept : (kept.subarray(0, n) as T);
  }

  /** column(slot, Type, n), every entry 0 (as a new column's). */
  zeroed<T extends Column>(slot: number, Type: new (length: number) => T, n: number): T {
    const column = this.column(slot, Type, n);
    column.fill(0);
    return column;
  }

  /** `column` as slot `slot`'s from now on (kept if it is not too long to keep); returns it. */
  keep<T extends Column>(slot: number, column: T): T {
    this.spares[slot]!.keep(column, column.length);
    return column;
  }
}
