/**
 * Heading context and content analysis for an arbitrary character range, for
 * the strategies whose chunks are not runs of packed pieces (token-window,
 * paginate pages, hierarchical tiers). Same rules as the semantic metadata
 * stage: a chunk is about its first heading, else the heading it continues.
 */
import type { HeadingRef } from './pieces.js';
import type { BlockType, ContentHint } from './types.js';
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

/** Answers range queries over one document's units (sorted by start, as toUnits gives them). */
export class RangeContexts {
  private readonly starts: number[];

  constructor(private readonly units: Unit[]) {
    this.starts = units.map((u) => u.block.start);
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

  of(start: number, end: number): RangeContext {
    let i = this.lastAtOrBefore(start);
    // The unit holding `start` may have ended before it (whitespace between units).
    if (i >= 0 && this.units[i]!.block.end <= start) i++;
    if (i < 0) i = 0;
    const inRange: Unit[] = [];
    for (let k = i; k < this.units.length && this.units[k]!.block.start < end; k++) inRange.push(this.units[k]!);
    const heading = inRange.find((u) => u.block.type === 'heading' && u.block.start >= start);
    const before = this.lastAtOrBefore(start);
    const path = heading?.path ?? inRange[0]?.path ?? (before >= 0 ? this.units[before]!.path : []);
    const types = new Set<BlockType>();
    const tableColumns: number[] = [];
    const tableHeaders: string[][] = [];
    for (const u of inRange) {
      for (const t of u.types) types.add(t);
      if (u.block.type === 'table') {
        tableColumns.push(u.block.header?.length ?? 0);
        tableHeaders.push(u.block.header ?? []);
      }
    }
    const contentHints = contentHintOf(inRange.map((u) => u.block.type));
    return { path, nodeTypes: [...types], contentHints, tableColumns, tableHeaders };
  }
}
