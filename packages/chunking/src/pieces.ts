/**
 * Internal data between splitOversized, pack, overlap and normalize.
 */
import { SPARE_MOST, STRONG_MOST, Spare } from './spare.js';
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
 * A piece of a PieceTable as an object (PieceTable.pieceAt), for tests and the few readers that
 * keep one: the stages read the table's columns, and make none (see PieceTable).
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

/**
 * The pieces of a document (or of a section), in order, as columns: piece `i` is `unit(i)`,
 * `tokens(i)`, `heading(i)`, `types(i)` and `part(i)`. A document of tiny headings has a piece
 * per line (170,000 per MB), all alive until the records are made: as an object each (64
 * bytes), they took a pass over 16 MB of fresh objects, so that the young generation was
 * scavenged with every block and piece alive, copied, and promoted to fresh pages (issue 15:
 * half the time of a pass over 1 MB of quotes ended by lazy lines). Here a piece is 33 bytes
 * in seven columns, and a chunk is a range of them (DraftChunk), not an array of its own.
 */
export class PieceTable {
  /** Pieces in the table. */
  length = 0;
  private units: Block[];
  private tokenCounts: Int32Array;
  private headingAt: Int32Array;
  private typeLists: (readonly BlockType[])[];
  /**
   * Each piece's start and end (its part's, or its unit's) and its unit's type (an index in
   * BLOCK_TYPES), written as it is pushed, where its block is at hand: pack and the records read
   * them for every piece, and a document of one-line paragraphs has 200,000 blocks per MB, each
   * a pointer away (issue 15: a sixth of pack's time was reading `type` off them).
   */
  private startAt: Int32Array;
  private endAt: Int32Array;
  private typeCodes: Uint8Array;
  /** Each piece's part, or null for a whole unit; null until the first part (most pieces are whole units). */
  private parts: (UnitPart | null)[] | null = null;

  /** `capacity`: the pieces expected (the columns grow past it). */
  constructor(capacity = 16) {
    const size = Math.max(1, capacity);
    const columns = takeSpare(size);
    if (columns !== null) {
      this.units = columns.units;
      this.tokenCounts = columns.tokenCounts;
      this.headingAt = columns.headingAt;
      this.typeLists = columns.typeLists;
      this.startAt = columns.startAt;
      this.endAt = columns.endAt;
      this.typeCodes = columns.typeCodes;
      return;
    }
    this.units = new Array<Block>(size);
    this.tokenCounts = new Int32Array(size);
    this.headingAt = new Int32Array(size);
    this.typeLists = new Array<readonly BlockType[]>(size);
    this.startAt = new Int32Array(size);
    this.endAt = new Int32Array(size);
    this.typeCodes = new Uint8Array(size);
  }

  /**
   * Empties the table and hands its columns, cleared of the document's units, to the next
   * table made: only for a table that nothing reads any more (chunkSemantic's, once its records
   * are made). The columns of 170,000 pieces (1 MB of tiny headings) were made fresh in every
   * pass, each page of them faulted in: an eighth of the pass (issue 15).
   */
  release(): void {
    const size = this.tokenCounts.length;
    if (size >= SPARE_FROM && size <= SPARE_MOST) {
      this.units.fill(undefined as unknown as Block, 0, this.length);
      this.typeLists.fill(undefined as unknown as readonly BlockType[], 0, this.length);
      spare.keep({ units: this.units, tokenCounts: this.tokenCounts, headingAt: this.headingAt, typeLists: this.typeLists, startAt: this.startAt, endAt: this.endAt, typeCodes: this.typeCodes }, size);
      if (this.parts !== null && this.parts.length <= SPARE_MOST) {
        this.parts.fill(null, 0, this.length);
        spareParts.keep(this.parts, this.parts.length);
      }
    }
    this.length = 0;
    this.units = [];
    this.tokenCounts = new Int32Array(0);
    this.headingAt = new Int32Array(0);
    this.typeLists = [];
    this.startAt = new Int32Array(0);
    this.endAt = new Int32Array(0);
    this.typeCodes = new Uint8Array(0);
    this.parts = null;
  }

  /** A table of `pieces`, in order (for tests and for readers that hold Piece objects). */
  static of(pieces: readonly Piece[]): PieceTable {
    const table = new PieceTable(pieces.length);
    for (let k = 0; k < pieces.length; k++) table.pushPiece(pieces[k]!);
    return table;
  }

  /** Appends a piece: `unit` whole (`part` null) or a part of it. */
  push(unit: Block, tokens: number, heading: number, types: readonly BlockType[], part: UnitPart | null): void {
    const i = this.length;
    if (i === this.tokenCounts.length) this.grow(i * 2);
    this.units[i] = unit;
    this.tokenCounts[i] = tokens;
    this.headingAt[i] = heading;
    this.typeLists[i] = types;
    this.typeCodes[i] = typeCodeOf(unit.type);
    if (part !== null) {
      if (this.parts === null) this.parts = takeSpareParts(this.tokenCounts.length) ?? new Array<UnitPart | null>(this.tokenCounts.length).fill(null);
      this.parts[i] = part;
      this.startAt[i] = part.start;
      this.endAt[i] = part.end;
    } else {
      if (this.parts !== null) this.parts[i] = null;
      this.startAt[i] = unit.start;
      this.endAt[i] = unit.end;
    }
    this.length = i + 1;
  }

  /** Appends `piece`, as pieceAt gives pieces. */
  pushPiece(piece: Piece): void {
    this.push(piece.unit, piece.tokens, piece.heading, piece.types, piece.splitUnit ? { start: piece.start, end: piece.end, rebuiltText: piece.rebuiltText, tokens: piece.tokens } : null);
  }

  /** Appends pieces [from, to) of `other`. */
  append(other: PieceTable, from = 0, to = other.length): void {
    for (let k = from; k < to; k++) this.push(other.units[k]!, other.tokenCounts[k]!, other.headingAt[k]!, other.typeLists[k]!, other.part(k));
  }

  /** Pieces [from, to) as a table of their own. */
  slice(from: number, to = this.length): PieceTable {
    const table = new PieceTable(to - from);
    table.append(this, from, to);
    return table;
  }

  /**
   * Room for `size` pieces: the spare columns when they fit (a document of a few units split
   * into thousands of parts grows its table from a few entries), else new ones.
   */
  private grow(size: number): void {
    const n = this.length;
    const columns = takeSpare(size);
    if (columns !== null) {
      columns.tokenCounts.set(this.tokenCounts.subarray(0, n));
      columns.headingAt.set(this.headingAt.subarray(0, n));
      columns.startAt.set(this.startAt.subarray(0, n));
      columns.endAt.set(this.endAt.subarray(0, n));
      columns.typeCodes.set(this.typeCodes.subarray(0, n));
      for (let k = 0; k < n; k++) {
        columns.units[k] = this.units[k]!;
        columns.typeLists[k] = this.typeLists[k]!;
      }
      this.units = columns.units;
      this.tokenCounts = columns.tokenCounts;
      this.headingAt = columns.headingAt;
      this.typeLists = columns.typeLists;
      this.startAt = columns.startAt;
      this.endAt = columns.endAt;
      this.typeCodes = columns.typeCodes;
    } else {
      this.tokenCounts = grown(this.tokenCounts, size);
      this.headingAt = grown(this.headingAt, size);
      this.startAt = grown(this.startAt, size);
      this.endAt = grown(this.endAt, size);
      this.typeCodes = grown(this.typeCodes, size);
      this.units = grownArray(this.units, size, undefined as unknown as Block);
      this.typeLists = grownArray(this.typeLists, size, undefined as unknown as readonly BlockType[]);
    }
    const { parts } = this;
    if (parts === null) return;
    // The columns' length, at least `size` (a spare may be longer).
    const room = this.tokenCounts.length;
    const taken = takeSpareParts(room);
    if (taken === null) this.parts = grownArray(parts, room, null);
    else {
      for (let k = 0; k < n; k++) taken[k] = parts[k]!;
      this.parts = taken;
    }
  }

  /** The unit piece `i` comes from. */
  unit(i: number): Block {
    return this.units[i]!;
  }

  /** Exact token count of piece `i` on its own. */
  tokens(i: number): number {
    return this.tokenCounts[i]!;
  }

  /** The headings in effect at piece `i` (Piece.heading). */
  heading(i: number): number {
    return this.headingAt[i]!;
  }

  /** Block types in piece `i` (Piece.types). */
  types(i: number): readonly BlockType[] {
    return this.typeLists[i]!;
  }

  /** The part of its unit piece `i` is, or null for the whole unit. */
  part(i: number): UnitPart | null {
    const { parts } = this;
    return parts === null ? null : parts[i]!;
  }

  start(i: number): number {
    return this.startAt[i]!;
  }

  end(i: number): number {
    return this.endAt[i]!;
  }

  /** Piece `i`'s text when rebuilt; null when it is `source.slice(start, end)`. */
  rebuiltText(i: number): string | null {
    const part = this.part(i);
    return part === null ? null : part.rebuiltText;
  }

  /** Piece `i` is a part of a unit larger than the cap. */
  splitUnit(i: number): boolean {
    return this.part(i) !== null;
  }

  /** Some piece of [from, to) is a part of a split unit. */
  anySplit(from: number, to: number): boolean {
    if (this.parts === null) return false;
    for (let k = from; k < to; k++) if (this.parts[k] !== null) return true;
    return false;
  }

  /** Piece `i` is a whole heading (a bare heading unit, not part of one). */
  isHeading(i: number): boolean {
    return this.typeCodes[i] === HEADING_CODE && this.part(i) === null;
  }

  /** Piece `i` is a paragraph or a part of one. */
  isParagraph(i: number): boolean {
    return this.typeCodes[i] === PARAGRAPH_CODE;
  }

  /** The type of the unit piece `i` comes from (`unit(i).type`, read without reaching the unit). */
  unitType(i: number): BlockType {
    return BLOCK_TYPES[this.typeCodes[i]!] ?? this.units[i]!.type;
  }

  /** Piece `i` as an object (for tests and the few readers that keep one). */
  pieceAt(i: number): Piece {
    return new UnitPiece(this.units[i]!, this.tokenCounts[i]!, this.headingAt[i]!, this.typeLists[i]!, this.part(i));
  }

  /** Pieces [from, to) as objects. */
  piecesOf(from = 0, to = this.length): Piece[] {
    const out = new Array<Piece>(to - from);
    for (let k = from; k < to; k++) out[k - from] = this.pieceAt(k);
    return out;
  }
}

/** Every BlockType, by the code PieceTable keeps for it (typeCodes). */
const BLOCK_TYPES: readonly BlockType[] = [
  'heading',
  'paragraph',
  'code',
  'table',
  'list',
  'listItem',
  'blockquote',
  'html',
  'thematicBreak',
  'definition',
  'footnoteDefinition',
];
const HEADING_CODE = 0;
const PARAGRAPH_CODE = 1;
/** A type BLOCK_TYPES does not list (none should be): unitType reads it off the unit. */
const OTHER_CODE = 255;
let lastType: BlockType | null = null;
let lastCode = OTHER_CODE;

/** BLOCK_TYPES' index of `type`; runs of one type (one-line paragraphs) ask no search. */
function typeCodeOf(type: BlockType): number {
  if (type !== lastType) {
    const code = BLOCK_TYPES.indexOf(type);
    lastType = type;
    lastCode = code < 0 ? OTHER_CODE : code;
  }
  return lastCode;
}

/** A table's columns but its parts. */
interface Columns {
  units: Block[];
  tokenCounts: Int32Array;
  headingAt: Int32Array;
  typeLists: (readonly BlockType[])[];
  startAt: Int32Array;
  endAt: Int32Array;
  typeCodes: Uint8Array;
}
/**
 * The columns of the last table released, for the next large one (PieceTable.release): strongly
 * up to STRONG_MOST pieces (at most about 10 MiB with the parts column), weakly up to SPARE_MOST (past
 * 2^18 they were made fresh every call: 10 MB of tiny paragraphs is 2,000,000 pieces).
 */
const spare = new Spare<Columns>(STRONG_MOST, SPARE_MOST);
/** The parts column of the last table released that had one, all null. */
const spareParts = new Spare<(UnitPart | null)[]>(STRONG_MOST, SPARE_MOST);

/** The spare columns when they fit `size` pieces (then no longer spare), else null. */
function takeSpare(size: number): Columns | null {
  const columns = size < SPARE_FROM ? null : spare.peek();
  if (columns === null || columns.tokenCounts.length < size || columns.tokenCounts.length > 4 * size) return null;
  spare.clear();
  return columns;
}

/** The spare parts column when it fits `size` pieces (then no longer spare), else null. */
function takeSpareParts(size: number): (UnitPart | null)[] | null {
  const parts = size < SPARE_FROM ? null : spareParts.peek();
  if (parts === null || parts.length < size || parts.length > 4 * size) return null;
  spareParts.clear();
  return parts;
}
/**
 * Tables of fewer pieces make their own columns (small arrays are cheap to make, and a spare
 * taken by a small document is one the next large one must make again).
 */
const SPARE_FROM = 4096;

/** A table of no pieces: what an anchored draft holds once let go (semantic.ts), and PieceTable's hidden class kept. */
export const NO_PIECES = new PieceTable(0);

/** `array` copied into a new one of `size` entries, the rest `fill`: object columns grow by it. */
export function grownArray<T>(array: T[], size: number, fill: T): T[] {
  const bigger = new Array<T>(size);
  for (let k = 0; k < array.length; k++) bigger[k] = array[k]!;
  for (let k = array.length; k < size; k++) bigger[k] = fill;
  return bigger;
}

/** A chunk before metadata: pieces [from, to) of a table, possibly extended backwards by overlap. */
export interface DraftChunk {
  /** The pieces the chunk is made of: `table`'s [from, to). */
  table: PieceTable;
  from: number;
  to: number;
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
export type Column = Int32Array | Float64Array | Uint8Array | Uint16Array;

/** `column` copied into a new zeroed one of the same type and `size` elements (at least its length): columns grow by it. */
export function grown<T extends Column>(column: T, size: number): T {
  const bigger = new (column.constructor as new (length: number) => T)(size);
  (bigger as Column).set(column);
  return bigger;
}
