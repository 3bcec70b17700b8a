/**
 * Heading context and content analysis for an arbitrary character range, for
 * the strategies whose chunks are not runs of packed pieces (token-window,
 * paginate pages, hierarchical tiers). Same rules as the semantic metadata
 * stage: a chunk is about its first heading, else the heading it continues.
 */
import type { Headings } from './headings.js';
import { PieceTable, type HeadingRef } from './pieces.js';
import type { Block, BlockType, ContentHint } from './types.js';
import type { Unit } from './units.js';

export interface RangeContext {
  path: HeadingRef[];
  nodeTypes: BlockType[];
  contentHints: ContentHint;
  tableColumns: number[];
  /** Header cells of the tables in the range (seed 003: extra path context). */
  tableHeaders: string[][];
}

// Every chunk of a section shares its path array; joining it afresh per record made a copy of
// the headings per chunk, quadratic time and memory under one huge heading (issue 15).
const joined = new WeakMap<readonly HeadingRef[], string>();

/**
 * `path`'s texts joined by ` > ` (seed 002's headerBreadcrumb). A path of one heading is its
 * text, with no cache entry: a document of tiny headings has a path per heading, and a WeakMap
 * entry for each cost more than the join it saves (issue 15).
 */
export function headerBreadcrumbOf(path: readonly HeadingRef[]): string {
  if (path.length <= 1) return path.length === 0 ? '' : path[0]!.text;
  let s = joined.get(path);
  if (s === undefined) {
    s = path[0]!.text;
    for (let i = 1; i < path.length; i++) s += ` > ${path[i]!.text}`;
    joined.set(path, s);
  }
  return s;
}

/** The seed 002 heading fields of a record whose section is the last heading of `path`. */
export function headingFields(path: readonly HeadingRef[]): {
  sectionTitle: string;
  headerPath: string[];
  headerBreadcrumb: string;
  headerDepths: number[];
  headerSlugs: string[];
  sectionSlug: string;
} {
  const last = path[path.length - 1];
  return {
    sectionTitle: last?.text ?? '',
    headerPath: path.map((h) => h.text),
    headerBreadcrumb: headerBreadcrumbOf(path),
    headerDepths: path.map((h) => h.depth),
    headerSlugs: path.map((h) => h.slug),
    sectionSlug: last?.slug ?? '',
  };
}

/** The content-analysis fields of a record covering the range `ctx` describes. */
export function contentFields(ctx: RangeContext): Pick<RangeContext, 'nodeTypes' | 'contentHints' | 'tableColumns'> & { containsTable: boolean } {
  return { nodeTypes: ctx.nodeTypes, contentHints: ctx.contentHints, containsTable: ctx.tableColumns.length > 0, tableColumns: ctx.tableColumns };
}

const HINT_OF: Partial<Record<BlockType, ContentHint>> = {
  paragraph: 'prose',
  code: 'code',
  table: 'table',
  listItem: 'list',
  blockquote: 'quote',
};

/**
 * prose | table | code | list | quote when every content block (by its type) is of one
 * kind, else mixed; prose when there is none (headings only).
 */
export function contentHintOf(blockTypes: Iterable<BlockType>): ContentHint {
  let hint: ContentHint | null = null;
  for (const type of blockTypes) hint = withHint(hint, type);
  return hint ?? 'prose';
}

/**
 * contentHintOf one type at a time: `hint` is the answer so far (null before any content
 * block), the result the answer with `type` added. No Set per record (issue 15: a document of
 * tiny headings makes a record per few headings).
 */
export function withHint(hint: ContentHint | null, type: BlockType): ContentHint | null {
  const h = HINT_OF[type];
  if (h === undefined || hint === h) return hint;
  return hint === null ? h : 'mixed';
}

/**
 * The units a RangeContexts answers over, in document order (sorted by start): a unit's block,
 * types and heading path by index.
 */
interface UnitTable {
  readonly count: number;
  block(i: number): Block;
  types(i: number): readonly BlockType[];
  path(i: number): HeadingRef[];
}

/** Units as toUnits gives them. */
class UnitList implements UnitTable {
  readonly count: number;
  constructor(private readonly units: readonly Unit[]) {
    this.count = units.length;
  }
  block(i: number): Block {
    return this.units[i]!.block;
  }
  types(i: number): readonly BlockType[] {
    return this.units[i]!.types;
  }
  path(i: number): HeadingRef[] {
    return this.units[i]!.path;
  }
}

/**
 * The units of a piece list (splitOversized's, in order: a unit's pieces are consecutive and
 * share its block), each as the index of its first piece, with its path built from the
 * document's Headings only when a range asks for it. A Unit object and a path array per unit,
 * alive until the records were made, were most of what paginate and hierarchical allocated on
 * a document of tiny headings (issue 15).
 */
class PieceUnits implements UnitTable {
  readonly count: number;
  private readonly first: Int32Array;

  constructor(
    private readonly pieces: PieceTable,
    private readonly headings: Headings,
  ) {
    const first = new Int32Array(pieces.length);
    let n = 0;
    let last: Block | null = null;
    for (let k = 0; k < pieces.length; k++) {
      const unit = pieces.unit(k);
      if (unit !== last) {
        first[n++] = k;
        last = unit;
      }
    }
    this.first = first.subarray(0, n);
    this.count = n;
  }
  block(i: number): Block {
    return this.pieces.unit(this.first[i]!);
  }
  types(i: number): readonly BlockType[] {
    return this.pieces.types(this.first[i]!);
  }
  path(i: number): HeadingRef[] {
    return this.headings.refs(this.pieces.heading(this.first[i]!));
  }
}

/** Answers range queries over one document's units (sorted by start, as toUnits gives them). */
export class RangeContexts {
  private readonly starts: Float64Array;
  private readonly table: UnitTable;

  constructor(units: readonly Unit[]);
  /** Over the units of `pieces` (splitOversized's output), whose heading indexes are in `headings`. */
  constructor(pieces: PieceTable, headings: Headings);
  constructor(items: readonly Unit[] | PieceTable, headings?: Headings) {
    const table: UnitTable = items instanceof PieceTable ? new PieceUnits(items, headings!) : new UnitList(items);
    const starts = new Float64Array(table.count);
    for (let i = 0; i < table.count; i++) starts[i] = table.block(i).start;
    this.starts = starts;
    this.table = table;
  }

  /** Index of the last unit starting at or before `offset`, or -1. */
  private lastAtOrBefore(offset: number): number {
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  /**
   * One pass over the units in [start, end), folding each into the answer: an array of the
   * units in range, a Set of their types and its iterator per range were a tenth of what
   * paginate allocated on a document of tiny headings (issue 15).
   */
  of(start: number, end: number): RangeContext {
    const t = this.table;
    const before = this.lastAtOrBefore(start);
    let i = before;
    // The unit holding `start` may have ended before it (whitespace between units).
    if (i >= 0 && t.block(i).end <= start) i++;
    if (i < 0) i = 0;
    let heading = -1;
    let hint: ContentHint | null = null;
    const nodeTypes: BlockType[] = [];
    const tableColumns: number[] = [];
    const tableHeaders: string[][] = [];
    let k = i;
    for (; k < t.count; k++) {
      const block = t.block(k);
      if (block.start >= end) break;
      if (heading < 0 && block.type === 'heading' && block.start >= start) heading = k;
      const types = t.types(k);
      for (let j = 0; j < types.length; j++) if (!nodeTypes.includes(types[j]!)) nodeTypes.push(types[j]!);
      if (block.type === 'table') {
        tableColumns.push(block.header?.length ?? 0);
        tableHeaders.push(block.header ?? []);
      }
      hint = withHint(hint, block.type);
    }
    const path = heading >= 0 ? t.path(heading) : k > i ? t.path(i) : before >= 0 ? t.path(before) : [];
    return { path, nodeTypes, contentHints: hint ?? 'prose', tableColumns, tableHeaders };
  }
}
