/**
 * One document's headings, in document order, as a table: a heading path is the index of its
 * innermost heading (-1: no heading), whose parent chain is the path. A document of tiny
 * headings made, per heading, a path array, a HeadingRef object and a numbered slug string,
 * all kept alive with the pieces until the records were made and copied by every scavenge in
 * between (issue 15). Here a heading is a few typed-array slots and two references to strings
 * that exist anyway (its text and its slug's base); a numbered slug is built only when a record
 * asks for it.
 */
import { grown, grownArray, type HeadingRef } from './pieces.js';
import { SPARE_MOST, STRONG_MOST, Spare } from './spare.js';

/** The index of no heading: the path before the first heading. */
export const NO_HEADING = -1;

export class Headings {
  /** Headings in the table. */
  count = 0;
  /**
   * Sized with the columns (grow), written by index: a `push` per heading into an array of
   * a hundred thousand grew it in steps and cost ~300 ns a heading on tiny headings (issue 15).
   */
  private texts: string[] = new Array<string>(16);
  /**
   * Slug as github-slugger numbers it: its base, then `-n` when `slugNumbers[h]` is n > 0. The
   * base is the heading's text when `slugBaseAt[h]` is -1 (a text that is a slug already, such
   * as `h5`), else `slugBases[slugBaseAt[h]]`: only bases that differ from their text are held,
   * each store of a new string into this table (in the old generation once it is large) being a
   * write barrier's slow path (4% of a pass over a document of tiny headings, issue 15). Its
   * first `slugBaseCount` slots are used; sized with the columns, not grown by `push`: every
   * growth past 128 KB was fresh memory (1 MB of headings of a code span made it six times).
   */
  private slugBases: string[] = new Array<string>(16);
  private slugBaseCount = 0;
  private slugBaseAt: Int32Array = new Int32Array(16);
  private depths: Int32Array = new Int32Array(16);
  private parents: Int32Array = new Int32Array(16);
  /** Headings in the path a heading ends (itself included). */
  private lengths: Int32Array = new Int32Array(16);
  private slugNumbers: Int32Array = new Int32Array(16);
  // One materialised path and slug at a time: the units and records of a section are consecutive.
  private refsCache: (HeadingRef[] | undefined)[] = [];
  private lastSlugOf = NO_HEADING;
  private lastSlug = '';

  /** Appends a heading under `parent` (NO_HEADING for a top-level path); returns its index. */
  add(text: string, depth: number, parent: number, slugBase: string, slugNumber: number): number {
    const h = this.count++;
    if (h === this.depths.length) this.grow();
    this.texts[h] = text;
    if (slugBase === text) this.slugBaseAt[h] = -1;
    else {
      const at = this.slugBaseCount++;
      this.slugBaseAt[h] = at;
      this.slugBases[at] = slugBase;
    }
    this.depths[h] = depth;
    this.parents[h] = parent;
    this.lengths[h] = parent < 0 ? 1 : this.lengths[parent]! + 1;
    this.slugNumbers[h] = slugNumber;
    return h;
  }

  /**
   * Room for `n` headings in all, made at once: visitUnits asks for its blocks' count ahead, so
   * that a document of tiny headings does not grow the columns a dozen times over (each time a
   * zeroed copy of every column: 2% of a pass, issue 15).
   */
  reserve(n: number): void {
    // Only for many blocks: a small document's columns stay small typed arrays on the heap
    // (one of more than 64 bytes has an ArrayBuffer of its own, costly per document).
    if (n > RESERVE_FROM && n > this.depths.length) {
      const columns = this.count === 0 ? spare.peek() : null;
      if (columns !== null && columns.depths.length >= n && columns.depths.length <= 4 * n) {
        spare.clear();
        this.texts = columns.texts;
        this.slugBases = columns.slugBases;
        this.slugBaseAt = columns.slugBaseAt;
        this.depths = columns.depths;
        this.parents = columns.parents;
        this.lengths = columns.lengths;
        this.slugNumbers = columns.slugNumbers;
      } else this.grow(Math.max(n, this.depths.length * 2));
    }
  }

  /**
   * Empties the table and hands its columns, cleared of the document's texts, to the next
   * table that reserves as many: only for a table nothing reads any more (chunkSemantic's and
   * paginate's, once their records are made). Six columns of 170,000 headings (1 MB of tiny
   * headings) were made fresh in every pass, each page faulted in (issue 15).
   */
  release(): void {
    const size = this.depths.length;
    if (size > RESERVE_FROM && size <= SPARE_MOST) {
      this.texts.fill('', 0, this.count);
      this.slugBases.fill('', 0, this.slugBaseCount);
      spare.keep({ texts: this.texts, slugBases: this.slugBases, slugBaseAt: this.slugBaseAt, depths: this.depths, parents: this.parents, lengths: this.lengths, slugNumbers: this.slugNumbers }, size);
    }
    this.count = 0;
    this.texts = new Array<string>(16);
    this.slugBases = new Array<string>(16);
    this.slugBaseCount = 0;
    this.slugBaseAt = new Int32Array(16);
    this.depths = new Int32Array(16);
    this.parents = new Int32Array(16);
    this.lengths = new Int32Array(16);
    this.slugNumbers = new Int32Array(16);
    this.refsCache = [];
    this.lastSlugOf = NO_HEADING;
    this.lastSlug = '';
  }

  private grow(size = this.depths.length * 2): void {
    this.depths = grown(this.depths, size);
    this.parents = grown(this.parents, size);
    this.lengths = grown(this.lengths, size);
    this.slugNumbers = grown(this.slugNumbers, size);
    this.slugBaseAt = grown(this.slugBaseAt, size);
    this.texts = grownArray(this.texts, size, '');
    // At most one base a heading: the count of headings bounds it.
    this.slugBases = grownArray(this.slugBases, size, '');
  }

  /** Headings the columns have room for (reserve's, at least `count`). */
  get capacity(): number {
    return this.depths.length;
  }

  private slugBase(h: number): string {
    const at = this.slugBaseAt[h]!;
    return at < 0 ? this.texts[h]! : this.slugBases[at]!;
  }

  text(h: number): string {
    return this.texts[h]!;
  }

  depth(h: number): number {
    return this.depths[h]!;
  }

  /** The heading `h` is nested in (NO_HEADING at the top). */
  parent(h: number): number {
    return this.parents[h]!;
  }

  /** Headings in the path `h` ends: 0 for NO_HEADING. */
  pathLength(h: number): number {
    return h < 0 ? 0 : this.lengths[h]!;
  }

  /** The path's heading at `i` (0: outermost) of the path `h` ends. */
  at(h: number, i: number): number {
    let k = h;
    for (let up = this.lengths[h]! - 1 - i; up > 0; up--) k = this.parents[k]!;
    return k;
  }

  slug(h: number): string {
    const n = this.slugNumbers[h]!;
    if (n === 0) return this.slugBase(h);
    if (h !== this.lastSlugOf) {
      this.lastSlugOf = h;
      this.lastSlug = `${this.slugBase(h)}-${n}`;
    }
    return this.lastSlug;
  }

  /**
   * The path `h` ends as HeadingRef objects, outermost first (the form toUnits' callers read);
   * one array per heading, shared by every call, and the parent's objects reused.
   */
  refs(h: number): HeadingRef[] {
    if (h < 0) return EMPTY_PATH;
    let path = this.refsCache[h];
    if (path === undefined) {
      const parent = this.parents[h]!;
      const above = parent < 0 ? EMPTY_PATH : this.refs(parent);
      path = above.slice();
      path.push({ text: this.texts[h]!, depth: this.depths[h]!, slug: this.slug(h) });
      this.refsCache[h] = path;
    }
    return path;
  }
}

/** Headings.reserve acts on more blocks than this. */
const RESERVE_FROM = 4096;
/**
 * The columns of the last table released (Headings.release): strongly up to STRONG_MOST headings
 * (at most 8 MiB between calls), weakly up to SPARE_MOST (spare.ts).
 */
const spare = new Spare<{ texts: string[]; slugBases: string[]; slugBaseAt: Int32Array; depths: Int32Array; parents: Int32Array; lengths: Int32Array; slugNumbers: Int32Array }>(STRONG_MOST, SPARE_MOST);

// Never mutated: every consumer of a path only reads it.
const EMPTY_PATH: HeadingRef[] = [];
