/**
 * Stage 7: normalized chunks → seed 002 chunk records: ids and links, the
 * heading context, the breadcrumb-prefixed `embedText`, token stats and the
 * content analysis fields (contentHints, containsTable, tableColumns, isCode).
 */
import type { NormalizedChunk } from './normalize.js';
import { Headings, NO_HEADING } from './headings.js';
import type { HeadingRef, Piece, PieceTable } from './pieces.js';
import { contentHintOf, withHint } from './range-context.js';
import { sharedTypeList } from './type-lists.js';
import { anchorEmpty } from './shape-anchor.js';
import { estimateTokens, estimateTokensRange } from './tokens.js';
import { DEFAULT_OPTIONS } from './options.js';
import type {
  Block,
  BlockType,
  BreadcrumbMode,
  ChunkRecord,
  ContentHint,
  RecordedOptions,
  ResolvedChunkOptions,
} from './types.js';

export const PIPELINE = { name: '@chunkyard/chunking', version: '0.1.0' } as const;

export interface MetadataContext {
  source: string;
  fileTitle: string;
  options: ResolvedChunkOptions;
  sourceFile: string;
  /** Exact tokens of a breadcrumb prefix as prepended (`prefix + "\n\n"`). */
  prefixTokens(prefix: string): number;
  /** The one string object kept for a breadcrumb's text (see chunkSemantic); identity when absent. */
  intern?(breadcrumb: string): string;
  /** The document's headings, which the pieces' heading paths index (units.ts). */
  headings: Headings;
  /**
   * `metadata.chunkingOptions` as the records show it (recordedOptions): when given, every
   * record holds one frozen `metadata` object; otherwise each has its own, with `options`.
   */
  recorded?: RecordedOptions;
}

/** The breadcrumb that `always` mode prepends (and conditional mode's "full" one). */
export function fullBreadcrumb(fileTitle: string, path: HeadingRef[]): string {
  if (path.length === 0) return fileTitle;
  // One string per path (and title), shared by every chunk of the section: built afresh, each
  // chunk's copy cost time and a hash of its length in the prefix cache (issue 15's huge heading).
  const hit = fullCache.get(path);
  if (hit !== undefined && hit.title === fileTitle) return hit.value;
  const value = joinBreadcrumb(fileTitle, path);
  fullCache.set(path, { title: fileTitle, value });
  return value;
}

/** fullBreadcrumb without its cache. */
export function joinBreadcrumb(fileTitle: string, path: readonly HeadingRef[]): string {
  if (path.length === 0) return fileTitle;
  // Joined by hand: no array of names per path (a document of tiny headings has one path each).
  let value = path[0]!.text === fileTitle ? path[0]!.text : `${fileTitle} > ${path[0]!.text}`;
  for (let i = 1; i < path.length; i++) value += ` > ${path[i]!.text}`;
  return value;
}
const fullCache = new WeakMap<HeadingRef[], { title: string; value: string }>();

/** What the metadata stage reads from a chunk's pieces, gathered in one pass over them. */
interface ChunkShape {
  /** The heading path the chunk is about: its first heading's, else the first piece's (an index in Headings). */
  heading: number;
  /** The unit of the first heading piece, if any. */
  opening: Block | undefined;
  /** Some piece is not a heading, and every such piece is code, a table, a list item or HTML. */
  contextless: boolean;
  /** contentHintOf the pieces' unit types. */
  contentHints: ContentHint;
  /** uniqueTypes: every type of every piece, once, in order of first appearance. */
  nodeTypes: BlockType[];
  tableColumns: number[];
  splitUnit: boolean;
}

function chunkShape(pieces: PieceTable, from: number, to: number): ChunkShape {
  /** The first heading piece, or -1. */
  let openingAt = -1;
  let content = 0;
  let contextless = true;
  let splitUnit = false;
  let hint: ContentHint | null = null;
  let lastTypes: readonly BlockType[] | null = null;
  // The types are gathered in one scratch array and copied out at their exact length: a
  // record's `[]` grown by push took a backing store of 17 slots (issue 15: a record per few
  // tiny headings). Indexed loops: a `for…of` made an iterator result per piece.
  // Scratch arrays filled from 0 with counts of their own (setting `length` is a runtime call).
  const seen = TYPES_SCRATCH;
  let types = 0;
  const columns = COLUMNS_SCRATCH;
  let tables = 0;
  for (let k = from; k < to; k++) {
    // The type from the table's column: the unit itself is reached only for a table's header.
    const type = pieces.unitType(k);
    hint = withHint(hint, type);
    if (type === 'heading') {
      if (openingAt < 0) openingAt = k;
    } else {
      content++;
      if (type !== 'code' && type !== 'table' && type !== 'listItem' && type !== 'html') contextless = false;
    }
    if (type === 'table') columns[tables++] = pieces.unit(k).header?.length ?? 0;
    // A chunk has a handful of types: a linear search keeps a Set's first-appearance order.
    // Leaf units share one frozen array per type, so a run of paragraphs (or of pieces of one
    // split unit) brings the same array again, whose types are all in already.
    const pieceTypes = pieces.types(k);
    if (pieceTypes !== lastTypes) {
      lastTypes = pieceTypes;
      for (let t = 0; t < lastTypes.length; t++) {
        const inner = lastTypes[t]!;
        let k = 0;
        while (k < types && seen[k] !== inner) k++;
        if (k === types) seen[types++] = inner;
      }
    }
    if (pieces.splitUnit(k)) splitUnit = true;
  }
  // One shape object, refilled per chunk: record() reads it before the next chunk's.
  const shape = SHAPE;
  shape.heading = pieces.heading(openingAt >= 0 ? openingAt : from);
  shape.opening = openingAt >= 0 ? pieces.unit(openingAt) : undefined;
  shape.contextless = content > 0 && contextless;
  shape.contentHints = hint ?? 'prose';
  // Frozen and shared (type-lists.ts); ChunkRecord's doc says so.
  shape.nodeTypes = sharedTypeList(seen, types) as BlockType[];
  shape.tableColumns = tables === 0 ? NO_NUMBERS : columns.slice(0, tables);
  shape.splitUnit = splitUnit;
  return shape;
}
const TYPES_SCRATCH: BlockType[] = [];

/**
 * Records share what many of them hold alike, frozen (see ChunkRecord): a document of tiny
 * headings makes tens of thousands of records, and their copies of `[]`, `['heading']`, `[1]`
 * and the pipeline were a quarter of a record's allocation (issue 15).
 */
const NO_NUMBERS: number[] = Object.freeze([]) as unknown as number[];
const NO_STRINGS: string[] = Object.freeze([]) as unknown as string[];
const PIPELINE_FIELD: ChunkRecord['metadata']['pipeline'] = Object.freeze({ name: PIPELINE.name, version: PIPELINE.version });


/**
 * The headerDepths of the path `h` ends, frozen and shared: a path's depths strictly increase
 * (units.ts), so the set of them, a mask of at most 6 bits, names the list.
 */
function sharedDepths(headings: Headings, h: number): number[] {
  if (h === NO_HEADING) return NO_NUMBERS;
  let mask = 0;
  let below = 32;
  for (let k = h; k !== NO_HEADING; k = headings.parent(k)) {
    const d = headings.depth(k);
    // Not a path units.ts makes (depths 1–6, increasing): its own array.
    if (!(d >= 0 && d < below)) return fieldOf(headings, h, depthAt);
    below = d;
    mask |= 1 << d;
  }
  let depths = DEPTHS[mask];
  if (depths === undefined) {
    depths = Object.freeze(fieldOf(headings, h, depthAt)) as number[];
    DEPTHS[mask] = depths;
  }
  return depths;
}
const DEPTHS: (number[] | undefined)[] = [];
const COLUMNS_SCRATCH: number[] = [];
const SHAPE: ChunkShape = { heading: NO_HEADING, opening: undefined, contextless: false, contentHints: 'prose', nodeTypes: [], tableColumns: [], splitUnit: false };

/** The path `h` ends, one field of each heading, in an array of exactly its length (a pushed `[]` reserves 17 slots). */
function fieldOf<T>(headings: Headings, h: number, field: (headings: Headings, k: number) => T): T[] {
  const n = headings.pathLength(h);
  if (n === 1) return [field(headings, h)];
  const out = new Array<T>(n);
  for (let i = 0, k = h; i < n; i++, k = headings.parent(k)) out[n - 1 - i] = field(headings, k);
  return out;
}
const textAt = (headings: Headings, k: number): string => headings.text(k);
const depthAt = (headings: Headings, k: number): number => headings.depth(k);
const slugAt = (headings: Headings, k: number): string => headings.slug(k);

/** `slugs` is fieldOf(headings, h, slugAt) (of the same length: a path node's), compared without making it. */
function sameSlugs(headings: Headings, h: number, slugs: readonly string[]): boolean {
  for (let i = slugs.length - 1, k = h; i >= 0; i--, k = headings.parent(k)) if (headings.slug(k) !== slugs[i]) return false;
  return true;
}

/**
 * The embedText prefix for a chunk, seed 002's breadcrumbMode:
 * - `none`: nothing.
 * - `always`: the full breadcrumb.
 * - `conditional`, in this order: context-less chunks (only code, tables, lists,
 *   HTML) and short chunks (fewer than minTokens beyond their overlap) get the
 *   full breadcrumb; a chunk that opens a section gets it too, unless it would
 *   only repeat the heading the chunk starts with; prose in the middle of a
 *   section gets the file title when the title is not the first heading, and
 *   nothing otherwise.
 *
 * For a mode other than `none`, with the chunk's shape and full breadcrumb at hand.
 */
function prefixOf(mode: BreadcrumbMode, chunk: NormalizedChunk, fileTitle: string, minTokens: number, shape: ChunkShape, full: string, headings: Headings): string {
  if (mode === 'always') return full;
  const short = chunk.tokens - chunk.overlapTokens < minTokens;
  if (shape.contextless || short) return full;
  if (shape.opening) return full === shape.opening.text ? '' : full;
  if (shape.heading !== NO_HEADING && headings.text(headings.at(shape.heading, 0)) !== fileTitle) return fileTitle;
  return '';
}

/**
 * joinBreadcrumb of the path `h` ends in `headings`: its header breadcrumb (`header`, when the
 * caller has it already) behind the file title, unless the path starts with the title.
 */
export function breadcrumbOf(fileTitle: string, headings: Headings, h: number, header = headerBreadcrumbAt(headings, h)): string {
  if (h === NO_HEADING) return fileTitle;
  return headings.text(headings.at(h, 0)) === fileTitle ? header : `${fileTitle} > ${header}`;
}

/** headerBreadcrumbOf the path `h` ends: its texts joined by ` > ` (a one-heading path is its text). */
function headerBreadcrumbAt(headings: Headings, h: number): string {
  const n = headings.pathLength(h);
  if (n <= 1) return n === 0 ? '' : headings.text(h);
  let value = headings.text(headings.at(h, 0));
  for (let i = 1; i < n; i++) value += ` > ${headings.text(headings.at(h, i))}`;
  return value;
}

export function attachMetadata(chunks: NormalizedChunk[], ctx: MetadataContext): ChunkRecord[] {
  const records = new RecordBuilder(ctx);
  return chunks.map((chunk, n) => records.record(chunk, n, n < chunks.length - 1));
}

/**
 * A MetadataContext of an empty document, for the RecordBuilder anchored. Its fields are those of
 * the contexts chunkSemantic and the stream make, in their order, so that it has their hidden
 * class too.
 */
function emptyMetadataContext(): MetadataContext {
  return { source: '', fileTitle: '', options: DEFAULT_OPTIONS, sourceFile: '', prefixTokens: () => 0, intern: (b) => b, headings: new Headings(), recorded: undefined };
}

/** A heading path's breadcrumbs, as RecordBuilder keeps them in its trie. */
interface PathNode {
  /** headerBreadcrumbAt the path. */
  header: string;
  /** breadcrumbOf the path, interned; '' in breadcrumbMode `none`. */
  full: string;
  /** prefixTokens(full), -1 until asked. */
  fullTokens: number;
  /** `${full}\n\n`, the embedText's head, null until asked. */
  fullHead: string | null;
  next: Map<string, PathNode> | null;
  /** The path's heading texts (every record's headerPath here), frozen; null until asked. */
  headerPath: string[] | null;
  /** The first record's headerSlugs here, frozen: later paths of these texts share it when their slugs are the same. */
  headerSlugs: string[] | null;
}

/**
 * attachMetadata one chunk at a time, in order, for a document whose chunks stream out
 * (stream.ts): the caller numbers the chunks and says whether another follows.
 */
export class RecordBuilder {
  private readonly parentId: string;
  /** `${parentId}::ch`, the part of every id before its number. */
  private readonly idStem: string;
  private readonly memo = new BreadcrumbMemo();
  /**
   * What records share per heading path, in a trie of heading texts: a document of tiny
   * headings starts a new path with (nearly) every record, but repeats a few names, and each
   * record built its breadcrumb afresh, hashed it to intern it and counted its tokens twice
   * (issue 15). The root is the path of no heading.
   */
  private readonly root: PathNode;
  // The chunks of a section are consecutive and share its heading path: the last one's node is kept.
  private lastHeading = NO_HEADING - 1;
  private lastPath: PathNode;
  // The headerSlugs of the last record's heading, for the next record of the same section (null
  // when the heading changed), and whether it is frozen yet: only an array a second record holds is.
  private lastSlugs: string[] | null = null;
  private lastSlugsFrozen = false;
  // Each id once: a chunk's prevId and nextId are its neighbours' ids, not new copies of them.
  // Held as number and string fields, not an object per record (issue 15).
  private nextN = -1;
  private nextId = '';
  private lastN = -1;
  private lastId = '';
  /**
   * The document's one `metadata`, frozen (see ChunkRecord), when ctx.recorded is given: an
   * object per record was 48 bytes of every record of a document of tiny headings (issue 15).
   */
  private readonly metadata: ChunkRecord['metadata'] | null;

  constructor(private readonly ctx: MetadataContext) {
    this.parentId = `${ctx.options.contentType}:${ctx.options.docName}`;
    this.metadata = ctx.recorded === undefined ? null : Object.freeze({ sourceFile: ctx.sourceFile, chunkingOptions: ctx.recorded, pipeline: PIPELINE_FIELD });
    this.idStem = `${this.parentId}::ch`;
    this.root = this.newPath(NO_HEADING);
    this.lastPath = this.root;
    // Its hidden class outlives the document, and with it record()'s optimized code: one made over
    // an empty document, not this one, which holds the document's source and headings (shape-anchor.ts).
    anchorEmpty('record builder', () => new RecordBuilder(emptyMetadataContext()));
  }

  private idOf(n: number): string {
    return this.nextN === n ? this.nextId : this.idStem + n;
  }

  /** The node of the heading texts on the path `h` ends, made on first use. */
  private pathOf(h: number): PathNode {
    const { headings } = this.ctx;
    const n = headings.pathLength(h);
    let node = this.root;
    for (let i = 0; i < n; i++) {
      const text = headings.text(headings.at(h, i));
      let next = node.next?.get(text);
      if (next === undefined) {
        // Its breadcrumbs are those of the prefix of h's path that ends here.
        next = this.newPath(headings.at(h, i));
        (node.next ??= new Map()).set(text, next);
      }
      node = next;
    }
    return node;
  }

  private newPath(h: number): PathNode {
    const { ctx } = this;
    const header = headerBreadcrumbAt(ctx.headings, h);
    let full = '';
    if (ctx.options.breadcrumbMode !== 'none') {
      full = breadcrumbOf(ctx.fileTitle, ctx.headings, h, header);
      if (ctx.intern) full = ctx.intern(full);
    }
    return { header, full, fullTokens: -1, fullHead: null, next: null, headerPath: null, headerSlugs: null };
  }

  /** The record of chunk `n` (0-based); `hasNext`: a chunk `n + 1` follows. */
  record(chunk: NormalizedChunk, n: number, hasNext: boolean): ChunkRecord {
    const { ctx } = this;
    const { options } = ctx;
    const shape = chunkShape(chunk.table, chunk.from, chunk.to);
    const { heading } = shape;
    const { headings } = ctx;
    if (heading !== this.lastHeading) {
      this.lastHeading = heading;
      this.lastPath = this.pathOf(heading);
      this.lastSlugs = null;
    }
    const path = this.lastPath;
    let embedText = chunk.text;
    let embedTokens = chunk.tokens;
    if (options.breadcrumbMode !== 'none') {
      const wanted = prefixOf(options.breadcrumbMode, chunk, ctx.fileTitle, options.minTokens, shape, path.full, headings);
      const room = options.maxTokens - chunk.tokens;
      // The path's breadcrumb or the file title (the root's), as they mostly are: their counts
      // and heads are kept on their nodes. Otherwise (no room, or one to shorten) shrinkBreadcrumb.
      const node = wanted === '' || room <= 0 ? null : wanted === path.full ? path : wanted === this.root.full ? this.root : null;
      if (node !== null && (node.fullTokens < 0 ? (node.fullTokens = ctx.prefixTokens(node.full)) : node.fullTokens) <= room) {
        embedText = (node.fullHead ??= `${node.full}\n\n`) + chunk.text;
        embedTokens += node.fullTokens;
      } else if (wanted !== '') {
        const prefix = shrinkBreadcrumb(wanted, room, ctx.prefixTokens, this.memo);
        if (prefix) {
          embedText = `${prefix}\n\n${chunk.text}`;
          embedTokens += ctx.prefixTokens(prefix);
        }
      }
    }
    const id = this.idOf(n);
    const prevId = n > 0 ? this.prevId(n - 1) : null;
    const nextId = hasNext ? this.idStem + (n + 1) : null;
    this.lastN = n;
    this.lastId = id;
    // One store of each field whatever hasNext is: a branch run by the last record alone had no
    // type feedback when record() was optimized, so every document deoptimized it at its end
    // and the next document ran it unoptimized until V8 had compiled it again (issue 15).
    this.nextN = nextId === null ? -1 : n + 1;
    this.nextId = nextId ?? '';
    // headingFields(path) written out, in its order: no object to spread per record. The texts
    // are the path node's, one frozen array for every record of these heading texts (a document
    // of tiny headings repeats a few names: a new array per record was a sixth of its bytes,
    // all of them copied by the scavenger as the records survive, issue 15).
    const none = heading === NO_HEADING;
    const headerPath = none ? NO_STRINGS : (path.headerPath ??= Object.freeze(fieldOf(headings, heading, textAt)) as string[]);
    const headerDepths = sharedDepths(headings, heading);
    const headerSlugs = none ? NO_STRINGS : this.slugsOf(heading, path);
    return {
      id,
      parentId: this.parentId,
      chunkNumber: n,
      contentType: options.contentType,
      embedText,
      originalText: chunk.text,
      fileTitle: ctx.fileTitle,
      sectionTitle: heading === NO_HEADING ? '' : headings.text(heading),
      headerPath,
      headerBreadcrumb: path.header,
      headerDepths,
      headerSlugs,
      sectionSlug: heading === NO_HEADING ? '' : headings.slug(heading),
      sourcePosition: { charStart: chunk.start, charEnd: chunk.end, totalChars: ctx.source.length },
      tokenStats: {
        tokens: chunk.tokens,
        estimatedTokens: chunk.exact ? estimateTokensRange(ctx.source, chunk.start, chunk.end) : estimateTokens(chunk.text),
        embedTokens,
      },
      prevId,
      nextId,
      nodeTypes: shape.nodeTypes,
      contentHints: shape.contentHints,
      containsTable: shape.tableColumns.length > 0,
      tableColumns: shape.tableColumns,
      isCode: isCode(chunk.text),
      splitUnit: shape.splitUnit,
      overlapChars: chunk.overlapChars,
      metadata: this.metadata ?? { sourceFile: ctx.sourceFile, chunkingOptions: options, pipeline: PIPELINE_FIELD },
      // Declared here, filled by attachSourceLines (or LineCursor.attach): a field the literal
      // lacks added later took a property store per record besides its object (issue 15).
      // JSON leaves an undefined field out, and the key is last either way.
      source: undefined,
    };
  }

  /**
   * The headerSlugs of the path `h` ends, whose node is `path`: the previous record's when it has
   * the same heading (a section's chunks), the node's when the slugs are the same (headings
   * whose slugs github-slugger did not number), else a new array.
   */
  private slugsOf(h: number, path: PathNode): string[] {
    let slugs = this.lastSlugs;
    if (slugs !== null) {
      if (!this.lastSlugsFrozen) {
        Object.freeze(slugs);
        this.lastSlugsFrozen = true;
      }
      return slugs;
    }
    const { headings } = this.ctx;
    const shared = path.headerSlugs;
    if (shared !== null && sameSlugs(headings, h, shared)) {
      slugs = shared;
      this.lastSlugsFrozen = true;
    } else {
      slugs = fieldOf(headings, h, slugAt);
      if (shared === null) path.headerSlugs = Object.freeze(slugs) as string[];
      this.lastSlugsFrozen = shared === null;
    }
    this.lastSlugs = slugs;
    return slugs;
  }

  private prevId(n: number): string {
    return this.lastN === n ? this.lastId : this.idStem + n;
  }
}

/**
 * `prefix` (a breadcrumb: names joined by ` > `) shortened until its tokens,
 * as prepended, fit `room`: each name truncated to fewer and fewer words, then
 * the first name (the title) alone, truncated likewise, then nothing. A prefix
 * that fits is returned as it is, so ordinary breadcrumbs never change; the
 * packer reserves room for at most half the cap, and a unit kept whole over
 * that reserve takes room from its prefix, never the other way round.
 */
export function shrinkBreadcrumb(
  prefix: string,
  room: number,
  prefixTokens: (p: string) => number,
  memo: BreadcrumbMemo = new BreadcrumbMemo(),
): string {
  if (room <= 0) return '';
  if (prefixTokens(prefix) <= room) return prefix;
  let names = memo.names.get(prefix);
  if (names === undefined) {
    names = prefix.split(' > ');
    memo.names.set(prefix, names);
  }
  for (const keep of [names, names.slice(0, 1)]) {
    // Word limits fall geometrically, so a 3000-word heading costs a few counts.
    for (let words = 32; words >= 1; words = Math.floor(words / 2)) {
      const shortened = keep.map((n) => truncateWords(n, words, memo)).join(' > ');
      if (prefixTokens(shortened) <= room) return shortened;
    }
  }
  return '';
}

/**
 * `name`'s first `words` words, each cut to 24 characters, with `…` where anything was cut.
 * Only the words kept are scanned (a heading of a whole document used to be split on every
 * call), and results are memoised per name: every chunk under a long heading asks again.
 */
function truncateWords(name: string, words: number, memo: BreadcrumbMemo): string {
  let byWords = memo.truncated.get(name);
  if (byWords === undefined) {
    byWords = new Map();
    memo.truncated.set(name, byWords);
  }
  let hit = byWords.get(words);
  if (hit === undefined) {
    hit = truncateWordsUncached(name, words);
    byWords.set(words, hit);
  }
  return hit;
}
/**
 * One document's memo for shrinkBreadcrumb. Every chunk of a section brings the same prefix
 * string object (fullBreadcrumb is cached per path), so its split and its names' truncations are
 * done once per document, not once per chunk: under a heading of a whole document the per-chunk
 * work made metadata quadratic (issue 15).
 */
export class BreadcrumbMemo {
  readonly names = new Map<string, string[]>();
  readonly truncated = new Map<string, Map<number, string>>();
}

const WORD_START = /\S/g;
const WORD_END = /\s/g;
function truncateWordsUncached(name: string, words: number): string {
  const kept: string[] = [];
  let cut = false;
  let at = 0;
  for (;;) {
    WORD_START.lastIndex = at;
    const s = WORD_START.exec(name);
    if (s === null) break;
    if (kept.length === words) {
      cut = true;
      break;
    }
    // Only the first 25 characters are looked at; the rest of a longer word is skipped below.
    const head = name.slice(s.index, s.index + 25);
    const ws = head.search(/\s/);
    if (ws >= 0) {
      kept.push(head.slice(0, ws));
      at = s.index + ws;
      continue;
    }
    if (head.length > 24) {
      kept.push(`${head.slice(0, 24)}…`);
      cut = true;
    } else kept.push(head);
    WORD_END.lastIndex = s.index + head.length;
    const e = WORD_END.exec(name);
    if (e === null) break;
    at = e.index;
  }
  if (kept.length === 0) {
    const k = name.slice(0, 24);
    return k !== '' ? `${k}…` : k;
  }
  return cut ? `${kept.join(' ')}…` : kept.join(' ');
}

/** prose | table | code | list | quote when every content block is of one kind, else mixed. */
export function contentHint(pieces: Piece[]): ContentHint {
  return contentHintOf(pieces.map((p) => p.unit.type));
}

/**
 * Seed 001: more than half of the chunk's lines lie inside fenced code (fences
 * included). Lines end at `\r\n`, `\r` or `\n`; a fence line is up to three
 * spaces, then three or more backticks or tildes; a fence closes on a line
 * holding only a run of its character at least as long as the opening one
 * (surrounding whitespace allowed). Walks the text in place: no line strings.
 */
export function isCode(text: string): boolean {
  if (!text.includes('```') && !text.includes('~~~')) return false;
  const n = text.length;
  // Without a CR, a line ends at the next LF, which indexOf finds far faster than a loop.
  const lfOnly = !text.includes('\r');
  let lines = 0;
  let inside = 0;
  let fenceChar = 0; // 0: outside a fence
  let fenceLength = 0;
  let start = 0;
  for (;;) {
    let end = start;
    if (lfOnly) {
      end = text.indexOf('\n', start);
      if (end === -1) end = n;
    } else {
      while (end < n) {
        const c = text.charCodeAt(end);
        if (c === 10 || c === 13) break;
        end++;
      }
    }
    lines++;
    // The fence run this line opens with, if any.
    let i = start;
    while (i < end && i - start < 3 && text.charCodeAt(i) === 32) i++;
    const c = text.charCodeAt(i);
    let run = 0;
    if (i < end && (c === 96 || c === 126)) {
      while (i + run < end && text.charCodeAt(i + run) === c) run++;
      if (run < 3) run = 0;
    }
    if (fenceChar === 0) {
      if (run > 0) {
        fenceChar = c;
        fenceLength = run;
        inside++;
      }
    } else {
      inside++;
      if (run > 0 && c === fenceChar && run >= fenceLength && onlyWhitespace(text, start, i) && onlyWhitespace(text, i + run, end)) {
        fenceChar = 0;
      }
    }
    if (end >= n) break;
    start = text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
  }
  return inside * 2 > lines;
}

/** `text.slice(a, b).trim() === ''`: String.prototype.trim's whitespace. */
function onlyWhitespace(text: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 ? c !== 32 && (c < 9 || c > 13) : !TRIMMED.test(text[i]!)) return false;
  }
  return true;
}
const TRIMMED = /^\s$/u;
