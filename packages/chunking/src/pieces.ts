/**
 * Internal data between splitOversized, pack, overlap and normalize.
 */
import type { Block, BlockType } from './types.js';

/** A heading in effect at some point of the document. */
export interface HeadingRef {
  text: string;
  depth: number;
  slug: string;
}

/**
 * A packable piece: a whole unit (top-level block or list item) that fits, or
 * one part of a unit that did not.
 */
export interface Piece {
  readonly start: number;
  readonly end: number;
  /** The piece's text when it is rebuilt (fence re-opened, table header repeated); null when it is `source.slice(start, end)`. */
  readonly rebuiltText: string | null;
  /** Exact token count of the piece on its own. */
  readonly tokens: number;
  /** The unit this piece comes from. */
  readonly unit: Block;
  /** Part of a unit larger than the cap. */
  readonly splitUnit: boolean;
  /**
   * The headings in effect at this piece (a heading piece includes itself): an index in the
   * document's Headings, whose parent chain is the path (NO_HEADING: none). An index, not an
   * array of HeadingRefs: a document of tiny headings has a path per heading (issue 15).
   */
  readonly heading: number;
  /** Block types in this piece, nested ones included (shared between pieces: never mutated). */
  readonly types: readonly BlockType[];
}

/** A part of a unit split to fit: its range, its text when rebuilt, its exact tokens. */
export interface UnitPart {
  start: number;
  end: number;
  rebuiltText: string | null;
  tokens: number;
}

/**
 * The Piece splitOversized makes: four fields and the part, not eight fields, the range of a
 * whole unit being its block's. A document of tiny headings has a piece per line (170,000 per
 * MB), all alive until the records are made; each piece's 88 bytes were a fifth of what a pass
 * allocated, and on this VM every MB allocated per pass costs its page faults (issue 15).
 * One class for both kinds, so that every read of a piece sees one hidden class.
 */
export class UnitPiece implements Piece {
  constructor(
    readonly unit: Block,
    readonly tokens: number,
    readonly heading: number,
    readonly types: readonly BlockType[],
    /** The part of the unit this piece is, or null for the whole unit. */
    readonly part: UnitPart | null,
  ) {}

  get start(): number {
    const { part } = this;
    return part === null ? this.unit.start : part.start;
  }

  get end(): number {
    const { part } = this;
    return part === null ? this.unit.end : part.end;
  }

  get rebuiltText(): string | null {
    const { part } = this;
    return part === null ? null : part.rebuiltText;
  }

  get splitUnit(): boolean {
    return this.part !== null;
  }
}

/** A chunk before metadata: a run of pieces, possibly extended backwards by overlap. */
export interface DraftChunk {
  pieces: Piece[];
  /** Where `originalText` starts: the first piece's start, or earlier when overlap was added. */
  start: number;
  end: number;
  /** Exact tokens of the chunk's originalText. */
  tokens: number;
  /** Characters at the start that repeat the previous chunk. */
  overlapChars: number;
  overlapTokens: number;
  /**
   * The chunk's text (normalize.ts sets it; '' before): `source.slice(start, end)`, or the
   * pieces' own texts when one is rebuilt. A field from the start, so that normalize fills the
   * draft in place and no second object per chunk is made (issue 15).
   */
  text: string;
  /** `text === source.slice(start, end)` (normalize.ts sets it; false before). */
  exact: boolean;
}

/** A typed-array column of the stages' tables (pack's runs, the headings). */
export type Column = Int32Array | Float64Array | Uint8Array;

/** `column` copied into a new zeroed one of the same type and `size` elements (at least its length): columns grow by it. */
export function grown<T extends Column>(column: T, size: number): T {
  const bigger = new (column.constructor as new (length: number) => T)(size);
  (bigger as Column).set(column);
  return bigger;
}
