/**
 * Top-level lists made into blocks while markdown-it parses, with no token (issue 15). A flat
 * list of one-line items was a hundred times slower per MB than prose: per item, markdown-it's
 * list rule made `list_item_open`, paragraph and `list_item_close` tokens with two line maps,
 * fast-blocks a tree node for it, then toBlock the item and paragraph blocks; most of a pass was
 * garbage collection. Here a top-level list becomes its list block at once, and each item that
 * is one paragraph its item and paragraph blocks, as toBlock would make them from markdown-it's
 * tokens. So is each item that is one paragraph and then a list of such items, nested up to
 * MAX_DIRECT_DEPTH lists deep (`- a` / `  - b` / `    - c`: before, each went through
 * markdown-it's tokens, a tree and toBlock, 6–8× prose per MB). Any other item (content indented as code, an
 * item holding other blocks, a first line starting HTML) is tokenized by markdown-it as its
 * list rule would, and its block made from those tokens (fast-blocks' tokenItem).
 *
 * The control flow is markdown-it 15.0.3's (its list rule, the block tokenizer it runs per
 * item, its setext heading and paragraph rules), followed only as far as these items need:
 * at every point where markdown-it asks a block rule, the same rule is asked here (in silent
 * mode, where its answer is the one it gives when not silent), with the state (and token
 * level) it would see. A ruler with other rules than markdown-it's (KNOWN_RULES) leaves lists to markdown-it.
 */
import type { StateBlock } from 'markdown-it';
import { currentBlockPool, lastLineOf } from './direct-blocks.js';
import { skipWhitespace, trimEndOffset, type LineTable } from './lines.js';
import { enterEnclosingIndent, leaveEnclosingIndent } from './enclosing-indents.js';
import { anchor } from './shape-anchor.js';
import type { Block } from './types.js';

type Rule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

/** Up to this many blocks, a BlockArray is an ordinary array grown by push. */
const PUSHED_BLOCKS = 8192;

/**
 * Blocks appended in order of their lines (a document's top-level blocks, a list's items), as
 * one array. Up to PUSHED_BLOCKS they are pushed; past that, the array is made again at the
 * size the blocks so far extrapolate to over the source's lines, an eighth more, and filled by
 * index (trimmed to its length at the end). An array grown by push past 16,384 slots (128 KB,
 * V8's largest ordinary object) is made again at every growth by half in V8's large-object
 * space, each time from fresh memory: on 1 MB of tiny headings (166,000 blocks) fastBlocks took
 * ~930 page faults a pass with them and ~420 with one extrapolated array, and a third less time
 * (issue 15). Past PUSHED_BLOCKS the array has holes as V8 sees it (no element is missing).
 */
export class BlockArray {
  private array: Block[] = [];
  private count = 0;
  private readonly lineCount: number;

  constructor(lineCount: number) {
    this.lineCount = lineCount;
  }

  get length(): number {
    return this.count;
  }

  /** Appends `block`, which starts on line `line` (for the extrapolation). */
  push(block: Block, line: number): void {
    const array = this.array;
    if (this.count < array.length) array[this.count++] = block;
    else if (this.count < PUSHED_BLOCKS) {
      array.push(block);
      this.count++;
    } else {
      const count = this.count;
      // A spare from the last call's parse (block-pool.ts), its pages already the process's: a
      // new one past 128 KB is fresh memory, one page fault per 512 slots.
      const pool = currentBlockPool();
      let bigger = pool?.spareArray(count + 1) ?? null;
      if (bigger === null) {
        const rate = Math.ceil(((count + 1) / (line + 1)) * this.lineCount * 1.125) + 16;
        bigger = new Array<Block>(Math.max(rate, count * 2));
      }
      for (let k = 0; k < count; k++) bigger[k] = array[k]!;
      bigger[count] = block;
      pool?.lend(bigger);
      this.array = bigger;
      this.count = count + 1;
    }
  }

  /** The blocks, as one array (call once, when every block is in). */
  toArray(): Block[] {
    const array = this.array;
    if (array.length !== this.count) array.length = this.count;
    return array;
  }
}
// A class whose instances live no longer than a document: one instance keeps its hidden class
// alive (see shape-anchor.ts).
anchor('block array', new BlockArray(0));

/** Where the blocks go: fast-blocks' DirectBlocks. */
export interface ListTarget {
  source: string;
  lines: LineTable;
  blocks: BlockArray;
  /**
   * Records that the block of `items[at]` is to be made after the parse from `node` (what
   * tokenItem returned), as an item of an ordered list or not.
   */
  addTokenItem(node: unknown, items: Block[], at: number, ordered: boolean): void;
  /**
   * Whether an item that is one paragraph is made with DEFERRED_PARAGRAPH as its children, not
   * its paragraph block (absent: not). Only for a caller whose every reader of item children
   * knows DEFERRED_PARAGRAPH: the blocks fastBlocks returns keep their paragraphs.
   */
  deferItemParagraphs?: boolean;
}

/**
 * The children of an item made without its paragraph block (ListTarget.deferItemParagraphs):
 * one shared frozen empty array, so a reader that does not know it finds no children rather
 * than a wrong block, and none can add to it. deferredParagraph(item, lines) is the paragraph.
 * A flat list's item and paragraph blocks were over half of a chunkDocument pass's allocation
 * on one (200 bytes an item: 80 the item, 56 its children array, 64 the paragraph), and the
 * paragraph and its array are made only to be read back as "list, listItem, paragraph" by
 * units.ts (issue 15).
 */
export const DEFERRED_PARAGRAPH: Block[] = Object.freeze([]) as unknown as Block[];

/**
 * The paragraph block of an item made with DEFERRED_PARAGRAPH (as itemBlock makes it: from the
 * item's first line's start, then the item's end and lines, which are the paragraph's there).
 */
export function deferredParagraph(item: Block, lines: LineTable): Block {
  return { type: 'paragraph', start: lines.starts[item.startLine]!, end: item.end, startLine: item.startLine, endLine: item.endLine };
}

/**
 * The children of a top-level quote of one line holding an ATX heading (fast-blocks'
 * directQuote), made without the heading block and its one-element array when the reader knows
 * this sentinel (as DEFERRED_PARAGRAPH). A document of `> # h` quotes each ended by a lazy line
 * made three objects a quote (~110 bytes), two of them only to be read back as "blockquote,
 * heading" by units.ts; the allocation was most of directQuote's time and of the parse's garbage
 * (issue 15). deferredQuoteHeading(quote, source, lines) is the heading.
 */
export const DEFERRED_HEADING: Block[] = Object.freeze([]) as unknown as Block[];

/**
 * The heading block of a quote made with DEFERRED_HEADING, as directQuote makes it: from the
 * line's start to the quote's end, its depth and text read again from the line (`source`'s line
 * holds markdown-it's characters, NUL aside, which markdown-it reads as U+FFFD: no `>`, `#`,
 * space or tab is either, so the same scan finds the same bounds).
 */
export function deferredQuoteHeading(quote: Block, source: string, lines: LineTable): Block {
  const line = quote.startLine;
  const lineStart = lines.starts[line]!;
  let max = lines.ends[line]!;
  // The quote starts at its `>`; directQuote took the heading's `#` as the content's first character past the spaces and tabs after it.
  let pos = quote.start + 1;
  while (pos < max && isSpaceOrTab(source.charCodeAt(pos))) pos++;
  let depth = 0;
  while (pos < max && source.charCodeAt(pos) === 0x23) {
    depth++;
    pos++;
  }
  // markdown-it's skipSpacesBack, then skipCharsBack of `#` (a closing sequence after a space or tab).
  while (max > pos && isSpaceOrTab(source.charCodeAt(max - 1))) max--;
  let tmp = max;
  while (tmp > pos && source.charCodeAt(tmp - 1) === 0x23) tmp--;
  if (tmp > pos && isSpaceOrTab(source.charCodeAt(tmp - 1))) max = tmp;
  while (pos < max && isAsciiTrimmable(source.charCodeAt(pos))) pos++;
  while (max > pos && isAsciiTrimmable(source.charCodeAt(max - 1))) max--;
  let text = source.slice(pos, max);
  if (text.includes('\0')) text = text.replace(/\0/g, '\uFFFD');
  return { type: 'heading', start: lineStart, end: quote.end, startLine: line, endLine: quote.endLine, depth, text };
}

function isSpaceOrTab(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/** fast-blocks' isAsciiTrimmable: what markdown-it's heading rule trims from a heading's text. */
function isAsciiTrimmable(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * The children of a top-level item that is one paragraph and then a list made directly (its
 * items the same, to MAX_DIRECT_DEPTH), made without any block below the item when the reader
 * knows this sentinel (as DEFERRED_PARAGRAPH). Such an item's types are always `list`,
 * `listItem`, `paragraph`, `list`; its children are made again only where a reader needs them
 * (fast-blocks' childrenOf, splitting an oversized item), by parsing its lines again. Nested
 * lists made a dozen blocks and arrays a group of three lines, all alive to the end of the
 * parse: the young generation's copies of them were most of a pass (issue 15).
 */
export const DEFERRED_NESTED: Block[] = Object.freeze([]) as unknown as Block[];

/** fast-blocks' `interrupts`: whether a paragraph terminator accepts the line (markdown-it's loop, with its shortcut). */
export type Interrupts = (state: StateBlock, line: number, endLine: number, rules: Rule[]) => boolean;

/**
 * fast-blocks' item left to markdown-it (the item's state set as the list rule sets it): makes
 * the tokens the list rule makes of it (or, for an empty item followed by an empty line, none),
 * leaves `state.line` after the item and returns what toBlock makes its block of, after the
 * parse (ListTarget's addTokenItem; its `ordered` then set).
 */
export type TokenItem = (state: StateBlock, line: number, endLine: number, emptyItem: boolean) => unknown;

/** Where a token item's block will stand until fast-blocks makes it (resolveTokenItems replaces it). */
export const PENDING_ITEM: Block = Object.freeze({ type: 'listItem', start: 0, end: 0, startLine: 0, endLine: 0 });

/**
 * The rulers this code knows, by their rules' names in order: markdown-it 15.0.3's, and
 * fast-blocks' (the same with its GFM footnote definition rule before `reference`).
 */
const KNOWN_RULES = new Set([
  'table,code,fence,blockquote,hr,list,reference,html_block,heading,lheading,paragraph',
  'table,code,fence,blockquote,hr,list,footnote_def,reference,html_block,heading,lheading,paragraph',
]);
/**
 * The rules that may take an item's first line before the paragraph rule, each of which
 * answers in silent mode as it would otherwise: `code` is left out (content indented less
 * than 4 columns past the item's, which it needs, never reaches here), `html_block` too (its
 * silent answer is whether it may interrupt a paragraph, not whether it matches: a first line
 * starting with `<` is left to markdown-it), and `lheading` is followed by firstParagraphEnd.
 */
const SILENT_FIRST_LINE = new Set(['table', 'fence', 'blockquote', 'hr', 'list', 'footnote_def', 'reference', 'heading']);

/** How many lists directList has made (for tests: that the generated inputs reach it). */
let made = 0;
export function directListsMadeForTests(): number {
  return made;
}

/** How many items directList has left to markdown-it's tokens (for tests). */
let tokenItems = 0;
export function tokenItemsForTests(): number {
  return tokenItems;
}

let rulesChecked: unknown = null;
/** SILENT_FIRST_LINE's rules in the ruler's order (table first), or null when the ruler is not KNOWN_RULES. */
let firstLineRules: Rule[] | null = null;
/** Whether the list rule's terminators are markdown-it's fence, blockquote and hr, in that order (what TERMINATOR_OF indexes). */
let listTerminatorsKnown = false;

function firstLineRulesOf(state: StateBlock): Rule[] | null {
  const ruler = state.md.block.ruler;
  // getRules returns one array until the rules change (tests swap rules).
  const all = ruler.getRules('');
  if (all !== rulesChecked) {
    rulesChecked = all;
    // fast-blocks' by_first_char (a line to the first rule that may take it, before the others)
    // is markdown-it's order with a shortcut, and says no in silent mode: not a rule of its own here.
    const known = (ruler as unknown as { __rules__: { name: string; enabled: boolean; fn: Rule }[] }).__rules__.filter((r) => r.enabled && r.name !== 'by_first_char');
    firstLineRules = KNOWN_RULES.has(known.map((r) => r.name).join(',')) ? known.filter((r) => SILENT_FIRST_LINE.has(r.name)).map((r) => r.fn) : null;
    const fn = (name: string): Rule | undefined => known.find((r) => r.name === name)?.fn;
    const chain = ruler.getRules('list') as Rule[];
    listTerminatorsKnown = firstLineRules !== null && chain.length === 3 && chain[0] === fn('fence') && chain[1] === fn('blockquote') && chain[2] === fn('hr');
  }
  return firstLineRules;
}

/**
 * First characters (after indentation) with which one of SILENT_FIRST_LINE's rules, or
 * html_block, may take a line: fence ` ~, blockquote >, hr * - _, list * - + and digits,
 * footnote definition and reference [, heading #, html_block <. The table rule looks at the next line instead.
 */
const MAY_START = new Uint8Array(128);
for (const ch of '`~>*-_+[#<0123456789') MAY_START[ch.charCodeAt(0)] = 1;

/**
 * Which of the list rule's terminators may take a line starting (after indentation) with a
 * character: 1 fence (` ~), 2 blockquote (>), 3 hr (* - _), 0 none. Each of those rules says
 * no at once to any other first character, and no character starts two of them: so before
 * each item past the first one rule at most is asked instead of three (on a flat `-` list the
 * calls of fence and blockquote that said no were a twentieth of directList's time, issue 15).
 */
const TERMINATOR_OF = new Uint8Array(128);
for (const [chars, rule] of [['`~', 1], ['>', 2], ['*-_', 3]] as const) for (const ch of chars) TERMINATOR_OF[ch.charCodeAt(0)] = rule;

/** markdown-it 15.0.3's skipBulletListMarker: the position after the marker, or -1. */
function bulletMarkerEnd(state: StateBlock, line: number): number {
  const max = state.eMarks[line]!;
  let pos = state.bMarks[line]! + state.tShift[line]!;
  const marker = state.src.charCodeAt(pos++);
  if (marker !== 0x2a && marker !== 0x2d && marker !== 0x2b) return -1;
  if (pos < max) {
    const ch = state.src.charCodeAt(pos);
    if (ch !== 0x20 && ch !== 0x09) return -1;
  }
  return pos;
}

/** markdown-it 15.0.3's skipOrderedListMarker: the position after the marker, or -1. */
function orderedMarkerEnd(state: StateBlock, line: number): number {
  const start = state.bMarks[line]! + state.tShift[line]!;
  const max = state.eMarks[line]!;
  let pos = start;
  if (pos + 1 >= max) return -1;
  let ch = state.src.charCodeAt(pos++);
  if (ch < 0x30 || ch > 0x39) return -1;
  for (;;) {
    if (pos >= max) return -1;
    ch = state.src.charCodeAt(pos++);
    if (ch >= 0x30 && ch <= 0x39) {
      if (pos - start >= 10) return -1;
      continue;
    }
    if (ch === 0x29 || ch === 0x2e) break;
    return -1;
  }
  if (pos < max) {
    ch = state.src.charCodeAt(pos);
    if (ch !== 0x20 && ch !== 0x09) return -1;
  }
  return pos;
}

/**
 * Where the paragraph that starts an item's first line `line` ends (the line after its
 * last), with the item's state in place (blkIndent the item's content column), or -1 where
 * markdown-it's setext heading rule would take it instead: the loop both rules run, with
 * lheading's underline check. `rules`: the paragraph rule's terminators.
 */
function firstParagraphEnd(state: StateBlock, line: number, endLine: number, interrupts: Interrupts, rules: Rule[]): number {
  const indent = state.blkIndent;
  const src = state.src;
  let next = line + 1;
  for (; next < endLine; next++) {
    const first = state.bMarks[next]! + state.tShift[next]!;
    const max = state.eMarks[next]!;
    if (first >= max) break;
    const sCount = state.sCount[next]!;
    if (sCount - indent > 3) continue;
    const c = src.charCodeAt(first);
    if (sCount >= indent) {
      // lheading: a line of `=` or `-` (then spaces or tabs) under the paragraph.
      if (c === 0x3d || c === 0x2d) {
        const pos = state.skipSpaces(state.skipChars(first, c));
        if (pos >= max) return -1;
      }
    } else if (sCount < 4 && (c === 0x2d || c === 0x2a || c === 0x2b || (c >= 0x30 && c <= 0x39)) && (bulletMarkerEnd(state, next) >= 0 || orderedMarkerEnd(state, next) >= 0)) {
      // A marker left of the content column (and of code's 4, from listIndent 0): the list
      // rule, as a terminator, accepts it whatever follows the marker; so the paragraph ends.
      break;
    }
    if (sCount < 0) continue;
    if (interrupts(state, next, endLine, rules)) break;
  }
  return next;
}

/**
 * Where the paragraph that the tokenizer makes of an item's first line `line` ends (the line
 * after its last), with the item's state in place; or -1 where a rule before the paragraph
 * rule takes the line (or may: a first character `<`, which html_block's silent answer does
 * not tell).
 */
function oneParagraph(state: StateBlock, line: number, endLine: number, rules: Rule[], interrupts: Interrupts, paragraphTerminators: Rule[]): number {
  const src = state.src;
  const c = src.charCodeAt(state.bMarks[line]! + state.tShift[line]!);
  if (c === 0x3c) return -1;
  if (c < 128 && MAY_START[c] === 1) {
    for (let i = 1; i < rules.length; i++) if (rules[i]!(state, line, endLine, true)) return -1;
  }
  if (line + 1 < endLine) {
    // The table rule reads the next line first (a delimiter row starts with | - or :).
    const next = state.bMarks[line + 1]! + state.tShift[line + 1]!;
    const n = src.charCodeAt(next);
    // (The rule's own first check, a next line left of the item's content, made here: every
    // item of a `-` list but the last has such a next line.)
    if (next < state.eMarks[line + 1]! && (n === 0x7c || n === 0x2d || n === 0x3a) && state.sCount[line + 1]! >= state.blkIndent && rules[0]!(state, line, endLine, true)) return -1;
  }
  state.parentType = 'paragraph';
  const end = firstParagraphEnd(state, line, endLine, interrupts, paragraphTerminators);
  state.parentType = 'list';
  return end;
}

/**
 * How many lists deep (the top-level one counted) an item is made directly before its
 * top-level item is left to markdown-it (its tokens, tokenItem): the deepest item's content is
 * at token level 64, below markdown-it's maxNesting (100), whose limit the direct path does
 * not follow. At 8, lists nine deep were parsed twice, 15–20% slower than before the direct
 * path (CPU per MB of such items, interleaved with the previous build).
 */
const MAX_DIRECT_DEPTH = 32;

/** What every list and item of one directList call reads. */
interface ListParse {
  readonly state: StateBlock;
  readonly endLine: number;
  readonly source: string;
  readonly lines: LineTable;
  readonly rules: Rule[];
  readonly interrupts: Interrupts;
  readonly paragraphTerminators: Rule[];
  readonly listTerminators: Rule[];
  /** The top-level list's target: its token items and deferred paragraphs (none for nested lists). */
  readonly into: ListTarget;
  readonly tokenItem: TokenItem;
  /** Set by parseItems: the line where its list ended (markdown-it's list rule's last `nextLine`). */
  listEnd: number;
  /** Set by directItem: the line after its item (where markdown-it's tokenizer stopped in it). */
  itemEnd: number;
  /** Whether lists nested in items are made as blocks (not for an item made with DEFERRED_NESTED). */
  readonly buildNested: boolean;
  /** Set by nestedList when it builds: the list's block. */
  list: Block | null;
  /** The token items of the top-level list: what tokenItem returned for each, and where it stands among the items. */
  tokenNodes: unknown[] | null;
  tokenAts: number[] | null;
}

/**
 * Parses the list starting at `startLine` (at the document's top level, markdown-it's list rule
 * about to run not silently): appends the list's block to `into` (children and all), sets
 * `state.line` past the list as markdown-it's rule would, and returns true. An item is made at
 * once when it is one paragraph, a marker alone, or one paragraph and then a list of such items
 * (nested to MAX_DIRECT_DEPTH); any other is left to markdown-it's tokens (tokenItem). Returns
 * false, the state as it was and nothing appended, where the list is not at the top level or
 * the ruler is not one this code knows.
 */
export function directList(state: StateBlock, startLine: number, endLine: number, into: ListTarget, interrupts: Interrupts, tokenItem: TokenItem): boolean {
  if (state.blkIndent !== 0 || state.listIndent !== -1 || endLine !== state.lineMax) return false;
  const rules = firstLineRulesOf(state);
  if (rules === null) return false;
  if (state.sCount[startLine]! >= 4) return false;
  let isOrdered: boolean;
  let posAfterMarker = orderedMarkerEnd(state, startLine);
  if (posAfterMarker >= 0) isOrdered = true;
  else if ((posAfterMarker = bulletMarkerEnd(state, startLine)) >= 0) isOrdered = false;
  else return false;
  const { source, lines } = into;
  const parse: ListParse = {
    state,
    endLine,
    source,
    lines,
    rules,
    interrupts,
    // Looked up once a list, not once an item (the ruler does not change during a parse).
    paragraphTerminators: state.md.block.ruler.getRules('paragraph') as Rule[],
    listTerminators: state.md.block.ruler.getRules('list') as Rule[],
    into,
    tokenItem,
    listEnd: startLine,
    itemEnd: startLine,
    buildNested: into.deferItemParagraphs !== true,
    list: null,
    tokenNodes: null,
    tokenAts: null,
  };
  const children = parseItems(parse, startLine, posAfterMarker, isOrdered, 0)!;
  const nextLine = parse.listEnd;
  // toBlock's list: its map's lines less trailing whitespace, then `ordered`, then the items.
  const lastLine = nextLine - 1;
  const start = skipWhitespace(source, lines.starts[startLine]!, lines.ends[lastLine]!);
  const end = trimEndOffset(source, start, lines.ends[lastLine]!);
  const { tokenNodes, tokenAts } = parse;
  if (tokenNodes !== null && tokenAts !== null) for (let k = 0; k < tokenNodes.length; k++) into.addTokenItem(tokenNodes[k], children, tokenAts[k]!, isOrdered);
  // All seven fields in one literal, as toBlock makes lists: `ordered` and `children` added
  // afterwards went through two hidden-class transitions that the one list of a document was
  // the only user of, gone at a full GC between documents (deoptimizing this function at every
  // pass of a long list, "Insufficient type feedback"; see shape-anchor.ts).
  const listLastLine = lastLineOf(lines, end, lastLine);
  // From the pool where chunkerBlocks runs with one (block-pool.ts), unless an item is still to
  // come from tokens: addTokenItem has kept `children` to put it in.
  const pool = tokenNodes === null ? currentBlockPool() : null;
  into.blocks.push(pool !== null ? pool.list(start, end, startLine, listLastLine, isOrdered, children) : { type: 'list', start, end, startLine, endLine: listLastLine, ordered: isOrdered, children }, startLine);
  made++;
  state.line = nextLine;
  return true;
}

/**
 * markdown-it's list rule's loop over the items of a list whose first marker, on `startLine`,
 * ends at `firstMarkerEnd`, at nesting `depth` (0: the top level), with the state of the
 * container the list is in (its blkIndent the container's content column). Returns the items
 * (parse.listEnd the line the list ends before), or, for a nested list holding an item that
 * directItem does not make, null with the state as it was. At the top level such an item is
 * left to markdown-it (tokenItem) and its place held by PENDING_ITEM. A nested list not built
 * (parse.buildNested false) gives NO_ITEMS.
 */
function parseItems(parse: ListParse, startLine: number, firstMarkerEnd: number, isOrdered: boolean, depth: number): Block[] | null {
  const { state, endLine } = parse;
  const src = state.src;
  const top = depth === 0;
  const build = top || parse.buildNested;
  const outerIndent = state.blkIndent;
  const outerListIndent = state.listIndent;
  const outerLevel = state.level;
  const outerParentType = state.parentType;
  const markerCharCode = src.charCodeAt(firstMarkerEnd - 1);
  const listTerminators = parse.listTerminators;
  // The top-level list's items in one array that grows without V8's large-object copies; a
  // nested list's in an array of exactly their number (most hold one to three).
  const topItems = top ? new BlockArray(parse.lines.starts.length) : null;
  let firstItem: Block | null = null;
  let moreItems: Block[] | null = null;
  let posAfterMarker = firstMarkerEnd;
  let nextLine = startLine;
  state.parentType = 'list';
  while (nextLine < endLine) {
    const line = nextLine;
    const lineStart = state.bMarks[line]! + state.tShift[line]!;
    const max = state.eMarks[line]!;
    const initial = state.sCount[line]! + posAfterMarker - lineStart;
    let offset = initial;
    let pos = posAfterMarker;
    while (pos < max) {
      const ch = src.charCodeAt(pos);
      if (ch === 0x09) offset += 4 - ((offset + state.bsCount[line]!) % 4);
      else if (ch === 0x20) offset++;
      else break;
      pos++;
    }
    // markdown-it's item indentation: an empty first line, or content indented as code past the marker, counts one column.
    const emptyFirst = pos >= max;
    let indentAfterMarker = emptyFirst ? 1 : offset - initial;
    if (indentAfterMarker > 4) indentAfterMarker = 1;
    const indent = initial + indentAfterMarker;
    // The item's state, as the list rule sets it before tokenizing the item (and its tokens' level).
    const oldTShift = state.tShift[line]!;
    const oldSCount = state.sCount[line]!;
    state.listIndent = outerIndent;
    state.blkIndent = indent;
    state.level = outerLevel + 2;
    state.tShift[line] = pos - state.bMarks[line]!;
    state.sCount[line] = offset;
    let item = directItem(parse, line, indent, offset, emptyFirst, isOrdered, depth);
    let after = parse.itemEnd;
    if (item === null && top) {
      // Any other item: markdown-it's tokens of it, made into its block after the parse.
      tokenItems++;
      const oldTight = state.tight;
      state.tight = true;
      state.line = line;
      state.level = 0;
      (parse.tokenNodes ??= []).push(parse.tokenItem(state, line, endLine, emptyFirst && state.isEmpty(line + 1)));
      (parse.tokenAts ??= []).push(topItems!.length);
      item = PENDING_ITEM;
      after = state.line;
      state.tight = oldTight;
    }
    state.tShift[line] = oldTShift;
    state.sCount[line] = oldSCount;
    state.blkIndent = outerIndent;
    state.listIndent = outerListIndent;
    state.level = outerLevel;
    state.parentType = 'list';
    if (item === null) {
      state.parentType = outerParentType;
      return null;
    }
    if (topItems !== null) topItems.push(item, line);
    else if (!build) {
      // Checked and its end known, nothing kept.
    } else if (firstItem === null) firstItem = item;
    else if (moreItems === null) moreItems = [firstItem, item];
    else moreItems.push(item);
    // The list rule's checks before the next item.
    nextLine = after;
    if (nextLine >= endLine) break;
    const sCount = state.sCount[nextLine]!;
    if (sCount < outerIndent || sCount - outerIndent >= 4) break;
    if (listTerminatorsKnown) {
      const c = src.charCodeAt(state.bMarks[nextLine]! + state.tShift[nextLine]!);
      const t = c < 128 ? TERMINATOR_OF[c]! : 0;
      if (t !== 0 && listTerminators[t - 1]!(state, nextLine, endLine, true)) break;
    } else {
      let terminate = false;
      for (let i = 0; i < listTerminators.length && !terminate; i++) terminate = listTerminators[i]!(state, nextLine, endLine, true);
      if (terminate) break;
    }
    posAfterMarker = isOrdered ? orderedMarkerEnd(state, nextLine) : bulletMarkerEnd(state, nextLine);
    if (posAfterMarker < 0) break;
    if (src.charCodeAt(posAfterMarker - 1) !== markerCharCode) break;
  }
  state.parentType = outerParentType;
  parse.listEnd = nextLine;
  if (topItems !== null) return topItems.toArray();
  if (!build) return NO_ITEMS;
  return moreItems ?? [firstItem!];
}

/**
 * The block of the item on `line` (its state set as the list rule sets it; `indent` its
 * content column, `offset` its first line's content column) when it is a marker alone, one
 * paragraph, or one paragraph and then a list that parseItems makes (and nothing after it in
 * the item), with parse.itemEnd the line after the item; otherwise null. A nested list that
 * turns out not to be direct leaves the state as it was, so markdown-it may parse the
 * top-level item again: at most twice the work for that item, however deep the nesting. An
 * item inside a list not built (parse.buildNested false) is NOT_BUILT, once checked.
 */
function directItem(parse: ListParse, line: number, indent: number, offset: number, emptyFirst: boolean, ordered: boolean, depth: number): Block | null {
  const { state, endLine, source, lines } = parse;
  const top = depth === 0;
  const build = top || parse.buildNested;
  if (emptyFirst) {
    // A marker alone, and the next line (if any) not the item's: markdown-it's item holds
    // nothing and ends at that line. Its block made at once, as toBlock makes it from the two
    // tokens (a document of such items made them, a tree node and a block per line: 2.8 µs an
    // item, issue 15).
    if (line + 1 < endLine && (state.isEmpty(line + 1) || state.sCount[line + 1]! >= indent)) return null;
    parse.itemEnd = line + 1;
    return build ? emptyItemBlock(source, lines, line, ordered, top) : NOT_BUILT;
  }
  if (offset !== indent) return null;
  const paragraphEnd = oneParagraph(state, line, endLine, parse.rules, parse.interrupts, parse.paragraphTerminators);
  if (paragraphEnd < 0) return null;
  // The tokenizer goes on after the paragraph: past one empty line, then past empty lines to
  // the next line, where it stops if that is left of the item's content.
  let after = paragraphEnd;
  while (after < endLine && state.isEmpty(after)) after++;
  if (!(after < endLine && state.sCount[after]! >= indent)) {
    parse.itemEnd = after;
    return top ? itemBlock(source, lines, line, paragraphEnd - 1, ordered, parse.into.deferItemParagraphs === true) : nestedItemBlock(source, lines, line, paragraphEnd - 1, ordered, build);
  }
  // The item goes on at `after`: a list there, made directly, may be the rest of it.
  if (depth + 1 >= MAX_DIRECT_DEPTH) return null;
  const listEndLine = nestedList(parse, after, depth + 1);
  if (listEndLine < 0) return null;
  const list = parse.list;
  let end = parse.listEnd;
  while (end < endLine && state.isEmpty(end)) end++;
  if (end < endLine && state.sCount[end]! >= indent) return null;
  parse.itemEnd = end;
  return itemWithList(source, lines, line, paragraphEnd - 1, listEndLine, parse.buildNested ? list : null, ordered, top, build);
}

/**
 * The list that markdown-it's tokenizer, inside an item (its state in place), starts on `line`
 * (a line at or right of the item's content column) when no rule before its list rule takes
 * the line and every item of it is one that directItem makes: the list's last line, parse.list
 * its block (toBlock's, in 'lines' mode as inside an item) where parse.buildNested, and
 * parse.listEnd the line it ends before. Otherwise -1, the state as it was.
 */
function nestedList(parse: ListParse, line: number, depth: number): number {
  const { state, endLine, source, lines, rules } = parse;
  // The rules the tokenizer asks before `list`: table, code, fence, blockquote and hr (each says no to a line its first character cannot start).
  if (state.sCount[line]! - state.blkIndent >= 4) return -1;
  const src = state.src;
  const c = src.charCodeAt(state.bMarks[line]! + state.tShift[line]!);
  const t = c < 128 ? TERMINATOR_OF[c]! : 0;
  if (t !== 0 && rules[t]!(state, line, endLine, true)) return -1;
  if (line + 1 < endLine) {
    const next = state.bMarks[line + 1]! + state.tShift[line + 1]!;
    const n = src.charCodeAt(next);
    if (next < state.eMarks[line + 1]! && (n === 0x7c || n === 0x2d || n === 0x3a) && state.sCount[line + 1]! >= state.blkIndent && rules[0]!(state, line, endLine, true)) return -1;
  }
  // The list rule, not silent (so no paragraph it would interrupt): a marker, ordered first.
  let isOrdered = true;
  let posAfterMarker = orderedMarkerEnd(state, line);
  if (posAfterMarker < 0) {
    isOrdered = false;
    posAfterMarker = bulletMarkerEnd(state, line);
    if (posAfterMarker < 0) return -1;
  }
  // fast-blocks' list rule enters the list's enclosing column (interrupts reads it for lazy lines).
  enterEnclosingIndent(state.blkIndent);
  let children: Block[] | null;
  try {
    children = parseItems(parse, line, posAfterMarker, isOrdered, depth);
  } finally {
    leaveEnclosingIndent();
  }
  if (children === null) return -1;
  const lastLine = parse.listEnd - 1;
  const exactStart = skipWhitespace(source, lines.starts[line]!, lines.ends[lastLine]!);
  const end = trimEndOffset(source, exactStart, lines.ends[lastLine]!);
  const listLast = lastLineOf(lines, end, lastLine);
  nestedMade++;
  parse.list = parse.buildNested ? { type: 'list', start: lines.starts[line]!, end, startLine: line, endLine: listLast, ordered: isOrdered, children } : null;
  return listLast;
}

/** How many nested lists directItem has made (for tests: that the generated inputs reach it). */
let nestedMade = 0;
export function nestedListsMadeForTests(): number {
  return nestedMade;
}

/**
 * An item that holds nothing, on `line` alone: toBlock's block of its open and close tokens
 * (no children; from its marker, or in 'lines' mode, `exact` false, from its line's start).
 */
function emptyItemBlock(source: string, lines: LineTable, line: number, ordered: boolean, exact: boolean): Block {
  const start = skipWhitespace(source, lines.starts[line]!, lines.ends[line]!);
  const end = trimEndOffset(source, start, lines.ends[line]!);
  return { type: 'listItem', start: exact ? start : lines.starts[line]!, end, startLine: line, endLine: lastLineOf(lines, end, line), children: [], ordered };
}

/**
 * toBlock's top-level list item holding one paragraph (source lines `line` to `last`): the
 * paragraph from its first line's start (toBlock's 'lines' mode inside items), the item from
 * its first visible character, each to its last one. Fields in toBlock's order, so that both
 * make blocks of one hidden class. `defer`: the paragraph is DEFERRED_PARAGRAPH where
 * deferredParagraph gives it back (wherever it has a visible character).
 */
function itemBlock(source: string, lines: LineTable, line: number, last: number, ordered: boolean, defer: boolean): Block {
  const lineStart = lines.starts[line]!;
  const visible = skipWhitespace(source, lineStart, lines.ends[last]!);
  const end = trimEndOffset(source, visible, lines.ends[last]!);
  const itemLast = lastLineOf(lines, end, last);
  if (defer && end > visible) {
    const pool = currentBlockPool();
    return pool !== null ? pool.item(visible, end, line, itemLast, DEFERRED_PARAGRAPH, ordered) : { type: 'listItem', start: visible, end, startLine: line, endLine: itemLast, children: DEFERRED_PARAGRAPH, ordered };
  }
  const paragraph: Block = { type: 'paragraph', start: lineStart, end, startLine: line, endLine: itemLast };
  let itemStart = visible;
  let itemEnd = end;
  let itemEndLine = itemLast;
  if (end <= visible) {
    // No visible character: toBlock's own steps, over the item's last line.
    itemStart = skipWhitespace(source, lineStart, lines.ends[itemLast]!);
    itemEnd = trimEndOffset(source, itemStart, lines.ends[itemLast]!);
    itemEndLine = lastLineOf(lines, itemEnd, itemLast);
  }
  // Otherwise the item's are the paragraph's: its first visible character comes before `end`,
  // on or before line itemLast, and everything from `end` to the end of line `last` is
  // whitespace; so toBlock's scans over [lineStart, ends[itemLast]) stop where these did, and
  // `end - 1` is on line itemLast. One scan each way and one line search less per item.
  // All seven fields in one literal, as toBlock makes items: the two added afterwards went to
  // a property array of their own, one more object per item of a long list (issue 15).
  return { type: 'listItem', start: itemStart, end: itemEnd, startLine: line, endLine: itemEndLine, children: [paragraph], ordered };
}

/** What directItem gives for an item inside a list not built (parse.buildNested false): checked, not made. */
const NOT_BUILT: Block = Object.freeze({ type: 'listItem', start: 0, end: 0, startLine: 0, endLine: 0 });
/** What parseItems gives for a list not built. */
const NO_ITEMS: Block[] = Object.freeze([]) as unknown as Block[];

/**
 * itemBlock's item inside an item ('lines' mode: the item from its line's start too), or null
 * where its lines hold no visible character to lines.ts (toBlock's item would be its last
 * line's; left to markdown-it). NOT_BUILT where `build` is false.
 */
function nestedItemBlock(source: string, lines: LineTable, line: number, last: number, ordered: boolean, build: boolean): Block | null {
  const lineStart = lines.starts[line]!;
  const visible = skipWhitespace(source, lineStart, lines.ends[last]!);
  const end = trimEndOffset(source, visible, lines.ends[last]!);
  if (end <= visible) return null;
  if (!build) return NOT_BUILT;
  const itemLast = lastLineOf(lines, end, last);
  const paragraph: Block = { type: 'paragraph', start: lineStart, end, startLine: line, endLine: itemLast };
  return { type: 'listItem', start: lineStart, end, startLine: line, endLine: itemLast, children: [paragraph], ordered };
}

/**
 * toBlock's item of one paragraph (lines `line` to `last`) and then a list whose last line is
 * `listEndLine`: the paragraph in 'lines' mode, the item to the list's last visible character,
 * from its first (`exact`, at the top level) or its line's start; or null where the paragraph
 * has no visible character to lines.ts (left to markdown-it). `list` the list's block, or null
 * where it was not built: then a top-level item holds DEFERRED_NESTED, and one inside a list
 * not built (`build` false) is NOT_BUILT.
 */
function itemWithList(source: string, lines: LineTable, line: number, last: number, listEndLine: number, list: Block | null, ordered: boolean, exact: boolean, build: boolean): Block | null {
  const lineStart = lines.starts[line]!;
  const visible = skipWhitespace(source, lineStart, lines.ends[last]!);
  const paragraphEnd = trimEndOffset(source, visible, lines.ends[last]!);
  if (paragraphEnd <= visible) return null;
  if (!build) return NOT_BUILT;
  // The list starts after the paragraph, so it holds the item's last line; the item's first
  // visible character is the paragraph's.
  const end = trimEndOffset(source, visible, lines.ends[listEndLine]!);
  const endLine = lastLineOf(lines, end, listEndLine);
  if (list === null) return { type: 'listItem', start: visible, end, startLine: line, endLine, children: DEFERRED_NESTED, ordered };
  const paragraph: Block = { type: 'paragraph', start: lineStart, end: paragraphEnd, startLine: line, endLine: lastLineOf(lines, paragraphEnd, last) };
  return { type: 'listItem', start: exact ? visible : lineStart, end, startLine: line, endLine, children: [paragraph, list], ordered };
}
