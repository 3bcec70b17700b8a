/**
 * Markdown → what the keyword scans read of its block structure: each inline content (a
 * heading's, a paragraph's, a table cell's text) with whether it is a heading, and each code
 * block's content, in document order. markdown-it's block parse, without keeping its tokens.
 */
import MarkdownIt, { type Env, type MarkdownIt as MarkdownItInstance, type StateBlock, type Token } from 'markdown-it';
import { plainTokenConstructor } from './markdown-it-states.js';

/** What the scans read of a document's block tokens, in document order. */
export interface BlockItems {
  /** BODY or HEADING (an inline content, and where it is), or CODE (a fenced or indented code block's content). */
  kinds: number[];
  contents: string[];
}
export const BODY = 0;
export const HEADING = 1;
export const CODE = 2;

/**
 * The scan's parser (`default` preset, `html: true` so raw HTML is its own token, no linkify,
 * no typographer) with the core rules that parse or rewrite inline children switched off: it
 * yields the block tokens, with each inline token's content but no children. The scans parse a
 * content's children themselves (`parseInline` of the full parser, which runs those same
 * rules), and only when a content holds inline syntax. strip_references is off too: it
 * compacts the token array after the block parse, and the drain below reads it by index; the
 * scans skip reference definitions anyway.
 */
const mdBlocks = new MarkdownIt('default', { html: true, linkify: false, typographer: false });
mdBlocks.core.ruler.disable(['inline', 'linkify', 'replacements', 'smartquotes', 'text_join', 'strip_references']);

/** Where DrainingState hands finished tokens during a blockItems parse (one parse at a time: none is reentrant). */
let drain: TokenDrain | null = null;

/**
 * Reads block tokens into a BlockItems as the parse goes and puts SPENT in their places: a
 * token then dies young instead of living until the whole document is parsed. A list item is
 * five tokens; a 1 MB list kept half a million of them, and copying them into the old
 * generation was a third of a keywords pass (issue 15).
 */
class TokenDrain {
  readonly items: BlockItems = { kinds: [], contents: [] };
  /** Tokens before this index are read. */
  private done = 0;
  private inHeading = false;

  /** An inline content a rule hands over without tokens (headingItem, setextOrParagraphItem), after the tokens before it. */
  item(tokens: Token[], kind: number, content: string): void {
    this.take(tokens);
    this.items.kinds.push(kind);
    this.items.contents.push(content);
  }

  /** What the drain holds now, for `rollback` (a quote parsed again: see quoteItems). */
  checkpoint(): number {
    return this.items.kinds.length;
  }

  /** Back to `checkpoint`'s items, with the tokens from `tokensFrom` on dropped (the caller truncates them). */
  rollback(checkpoint: number, tokensFrom: number): void {
    this.items.kinds.length = checkpoint;
    this.items.contents.length = checkpoint;
    if (this.done > tokensFrom) this.done = tokensFrom;
    this.inHeading = false;
  }

  take(tokens: Token[]): void {
    const { kinds, contents } = this.items;
    for (let i = this.done; i < tokens.length; i++) {
      const token = tokens[i]!;
      const type = token.type;
      if (type === 'heading_open') this.inHeading = true;
      else if (type === 'heading_close') this.inHeading = false;
      else if (type === 'inline') {
        kinds.push(this.inHeading ? HEADING : BODY);
        contents.push(token.content);
      } else if (type === 'fence' || type === 'code_block') {
        kinds.push(CODE);
        contents.push(token.content);
      }
      tokens[i] = SPENT;
    }
    this.done = tokens.length;
  }
}

/**
 * markdown-it 15's Token constructor sets its 13 fields through a transpiled `_defineProperty`
 * helper (8% of a keywords pass over a long list). Block tokens are made here instead: the same
 * fields in the same order, the same defaults and prototype.
 */
const TokenClass = new mdBlocks.core.State('', mdBlocks, {}).Token;
const PlainTokenClass = plainTokenConstructor(TokenClass);
/** What a read token's slot holds: a block token no rule looks at again. */
const SPENT: Token = new PlainTokenClass('spent', '', 0);

/**
 * mdBlocks' block state. Its constructor computes what markdown-it 15.0.3's does (each line's
 * start, end before the `\n`, indentation in characters and in columns with tabs to multiples
 * of 4, and one empty line at the end; a last line of only spaces and tabs is left out), with
 * `indexOf` and typed arrays of the exact size: markdown-it's walks every character and grows
 * five arrays a push at a time (a quarter of a keywords pass over a document of tiny lines).
 * Its rules only index these arrays and store integers in them, so typed arrays serve.
 *
 * Its `push` is markdown-it's, with PlainToken, after handing the tokens pushed so far to the
 * drain. Each of them is complete: a block rule sets a token's fields right after pushing it,
 * before it pushes another, and reads no token back but through the list rule's
 * markTightParagraphs, which only marks paragraph tokens hidden and passes over SPENT (its type
 * is no paragraph's). Draining at every push, not at each top-level block, is what lets a long
 * list's tokens die young: the whole list is one block.
 */
function DrainingState(this: StateBlock, src: string, parser: MarkdownItInstance, env: Env, tokens: Token[]): void {
  const len = src.length;
  let lines = 0;
  let lastBreak = -1;
  for (let nl = src.indexOf('\n'); nl !== -1; nl = src.indexOf('\n', nl + 1)) {
    lines++;
    lastBreak = nl;
  }
  for (let pos = lastBreak + 1; pos < len; pos++) {
    const ch = src.charCodeAt(pos);
    if (ch !== 32 && ch !== 9) {
      lines++;
      break;
    }
  }
  const bMarks = new Int32Array(lines + 1);
  const eMarks = new Int32Array(lines + 1);
  const tShift = new Int32Array(lines + 1);
  const sCount = new Int32Array(lines + 1);
  for (let line = 0, start = 0; line < lines; line++) {
    const nl = src.indexOf('\n', start);
    const end = nl === -1 ? len : nl;
    let pos = start;
    let offset = 0;
    for (; pos < end; pos++) {
      const ch = src.charCodeAt(pos);
      if (ch === 32) offset++;
      else if (ch === 9) offset += 4 - (offset % 4);
      else break;
    }
    bMarks[line] = start;
    eMarks[line] = end;
    tShift[line] = pos - start;
    sCount[line] = offset;
    start = end + 1;
  }
  bMarks[lines] = len;
  eMarks[lines] = len;
  // markdown-it 15.0.3's fields, in its order (the type says number[]).
  this.bMarks = bMarks as unknown as number[];
  this.eMarks = eMarks as unknown as number[];
  this.tShift = tShift as unknown as number[];
  this.sCount = sCount as unknown as number[];
  this.bsCount = new Int32Array(lines + 1) as unknown as number[];
  this.blkIndent = 0;
  this.line = 0;
  this.lineMax = lines;
  this.tight = false;
  this.listIndent = -1;
  this.parentType = 'root';
  this.level = 0;
  this.Token = TokenClass;
  this.src = src;
  this.md = parser;
  this.env = env;
  this.tokens = tokens;
}
DrainingState.prototype = Object.create(mdBlocks.block.State.prototype) as StateBlock;
DrainingState.prototype.constructor = DrainingState;
DrainingState.prototype.push = function push(this: StateBlock, type: string, tag: string, nesting: -1 | 0 | 1): Token {
  if (drain !== null) drain.take(this.tokens);
  const token = new PlainTokenClass(type, tag, nesting);
  token.block = true;
  if (nesting < 0) this.level--;
  token.level = this.level;
  if (nesting > 0) this.level++;
  this.tokens.push(token);
  return token;
};
// A function constructor, so that no class-field helper runs; typed as the class it stands in for.
mdBlocks.block.State = DrainingState as unknown as typeof mdBlocks.block.State;

/**
 * markdown-it 15.0.3's ATX heading rule, handing its inline content to the drain
 * instead of pushing three tokens: an open, an inline and a close token with two map arrays
 * and a children array were 580 bytes a heading (99 MB a pass over 1 MB of tiny headings, issue
 * 15), and for paragraphs a third of a long list's allocation. No rule reads these tokens back but list's
 * markTightParagraphs, which only marks paragraph tokens `hidden`, which the scans never read;
 * and an open and its close change `state.level` by nothing. Setext headings and paragraphs
 * are handed over the same way (setextOrParagraphItem).
 */
function headingItem(state: StateBlock, startLine: number, _endLine: number, silent: boolean): boolean {
  let pos = state.bMarks[startLine]! + state.tShift[startLine]!;
  let max = state.eMarks[startLine]!;
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  let ch = state.src.charCodeAt(pos);
  if (ch !== 0x23 || pos >= max) return false;
  let level = 1;
  ch = state.src.charCodeAt(++pos);
  while (ch === 0x23 && pos < max && level <= 6) {
    level++;
    ch = state.src.charCodeAt(++pos);
  }
  if (level > 6 || (pos < max && !isSpace(ch))) return false;
  if (silent) return true;
  max = state.skipSpacesBack(max, pos);
  const tmp = state.skipCharsBack(max, 0x23, pos);
  if (tmp > pos && isSpace(state.src.charCodeAt(tmp - 1))) max = tmp;
  state.line = startLine + 1;
  drainNow().item(state.tokens, HEADING, asciiTrim(state.src, pos, max));
  return true;
}

/**
 * markdown-it 15.0.3's setext heading rule, which is tried on every paragraph first: it scans
 * the paragraph's lines for an underline with the paragraph's terminators and, finding none,
 * returns false for the paragraph rule to scan the same lines again (two fifths of a keywords
 * pass over a paragraph of 30,000 tiny lines, issue 15). Finding none, this one hands the
 * paragraph over itself: the paragraph rule's loop is this loop less the underline check, so
 * it would stop at the same line.
 */
function setextOrParagraphItem(state: StateBlock, startLine: number, endLine: number): boolean {
  const terminatorRules = state.md.block.ruler.getRules('paragraph');
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  const oldParentType = state.parentType;
  state.parentType = 'paragraph';
  let level = 0;
  let nextLine = startLine + 1;
  for (; nextLine < endLine && !state.isEmpty(nextLine); nextLine++) {
    if (state.sCount[nextLine]! - state.blkIndent > 3) continue;
    if (state.sCount[nextLine]! >= state.blkIndent) {
      let pos = state.bMarks[nextLine]! + state.tShift[nextLine]!;
      const max = state.eMarks[nextLine]!;
      if (pos < max) {
        const marker = state.src.charCodeAt(pos);
        if (marker === 0x2d || marker === 0x3d) {
          pos = state.skipChars(pos, marker);
          pos = state.skipSpaces(pos);
          if (pos >= max) {
            level = marker === 0x3d ? 1 : 2;
            break;
          }
        }
      }
    }
    if (state.sCount[nextLine]! < 0) continue;
    if (terminatedAt(state, terminatorRules, nextLine, endLine)) break;
  }
  // A paragraph cut by the end of its range might go on past it, and a setext heading whose
  // underline is the range's last line may be a definition cut short (its title running on past
  // the range, see quoteItems).
  if (level ? nextLine + 1 === endLine : nextLine === endLine) rangeEndHit = endLine;
  const lines = state.getLines(startLine, nextLine, state.blkIndent, false);
  // A setext heading ends past its underline; a paragraph at the line that ended it.
  state.line = level ? nextLine + 1 : nextLine;
  drainNow().item(state.tokens, level ? HEADING : BODY, asciiTrim(lines, 0, lines.length));
  state.parentType = oldParentType;
  return true;
}

/** A block rule as a terminator calls it: silent, asking only whether it would start at `line`. */
type Terminator = (state: StateBlock, line: number, endLine: number, silent: boolean) => boolean;

/** Whether one of the paragraph's terminator `rules` ends it at `line` (markdown-it's inner loop). */
function terminatedAt(state: StateBlock, rules: readonly Terminator[], line: number, endLine: number): boolean {
  for (let i = 0; i < rules.length; i++) if (rules[i]!(state, line, endLine, true)) return true;
  return false;
}

/** The drain of the parse under way: mdBlocks parses only inside blockItems. */
function drainNow(): TokenDrain {
  if (drain === null) throw new Error('block-items: mdBlocks parsed outside blockItems');
  return drain;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/** markdown-it's asciiTrim of `src.slice(start, end)`, slicing once: blocks keep Unicode spaces at their edges. */
function asciiTrim(src: string, start: number, end: number): string {
  while (start < end && isAsciiTrimmable(src.charCodeAt(start))) start++;
  while (end > start && isAsciiTrimmable(src.charCodeAt(end - 1))) end--;
  return src.slice(start, end);
}

function isAsciiTrimmable(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * Where a paragraph, a definition or a setext heading last ended because its range did, not
 * because of what follows it: -1 when none since quoteItems last looked.
 */
let rangeEndHit = -1;

const stockRules = (mdBlocks.block.ruler as unknown as { __rules__: { name: string; fn: Terminator }[] }).__rules__;
const stockReference = stockRules.find((r) => r.name === 'reference')!.fn;

/** markdown-it's reference rule, noting a definition that ends where the lines it may read do (its title may be on the next). */
function referenceItem(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (!stockReference(state, startLine, endLine, silent)) return false;
  if (!silent && (state.line >= endLine || state.line >= state.lineMax)) rangeEndHit = state.line;
  return true;
}

/**
 * How far past a lazy line quoteItems scans before it stops at the next one, as a multiple of
 * the lines it parses again.
 */
const LAZY_WINDOW = 2;

/**
 * How far each quote's scan went before its last stop, by start line and nesting level, for this
 * parse. A line with fewer `>` is lazy for every quote deeper than it, and a quote whose content
 * may take its lazy line parses that content again: each nested quote then began its stops again
 * from its first line, so parses multiplied level by level (a fuzzed document of 32 KB, quotes
 * 150 deep, took 7 s in hierarchical's keyword matching; the chunker's own quote rule had the
 * same, fixed in session 38). A quote parsed again now starts with the window it reached;
 * scanning further before a stop is what markdown-it's own rule does for every line, so the
 * items are the same. Cleared by each parse.
 */
let quoteWindows: Map<number, number> | null = null;

/** Lines quoteItems has marked (each scanned line once per scan): for the test of its linear time. */
let quoteLinesMarked = 0;
export function quoteLinesMarkedForTests(): number {
  return quoteLinesMarked;
}

/**
 * markdown-it 15.0.3's blockquote rule, its line logic unchanged, but scanning lazily.
 * markdown-it's rule marks every line a quote might take (its `>` lines and the lazy lines
 * between them) before parsing any of it, and a quote ends at the first lazy line no paragraph
 * takes: `> # h` then `lazy`, repeated, made every quote mark the rest of the document (200 KB
 * took 51 s, issue 15). This one stops its scan at the first lazy line, parses, and goes on
 * only when a paragraph, a definition or a setext heading ended there because the range did:
 * then it parses the quote again with a scan that goes on past the lazy line, LAZY_WINDOW times
 * as far as it had come, so that a quote is parsed a bounded number of times over. Its tokens
 * and items are dropped before each new parse, and a parse that may be dropped defines its
 * references apart.
 */
function quoteItems(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  let pos = state.bMarks[startLine]! + state.tShift[startLine]!;
  let max = state.eMarks[startLine]!;
  const oldLineMax = state.lineMax;
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  if (state.src.charCodeAt(pos) !== 0x3e) return false;
  if (silent) return true;
  const oldBMarks: number[] = [];
  const oldBSCount: number[] = [];
  const oldSCount: number[] = [];
  const oldTShift: number[] = [];
  const terminatorRules = state.md.block.ruler.getRules('blockquote');
  const oldParentType = state.parentType;
  const oldIndent = state.blkIndent;
  const open = state.push('blockquote_open', 'blockquote', 1);
  open.markup = '>';
  const lines: [number, number] = [startLine, 0];
  open.map = lines;
  const tokensAtOpen = state.tokens.length;
  const reader = drainNow();
  const itemsAtOpen = reader.checkpoint();
  let lastLineEmpty = false;
  let nextLine = startLine;
  // A quote parsed again (its parent re-parsing from it) scans at once as far as it did before.
  const windowKey = startLine * 128 + Math.min(state.level, 127);
  let stopAtLazyFrom = Math.max(startLine, quoteWindows?.get(windowKey) ?? startLine);
  for (;;) {
    state.blkIndent = oldIndent;
    state.parentType = 'blockquote';
    // A lazy line the scan stopped at, not marked yet; -1 when the scan ended the quote.
    let pendingLazy = -1;
    for (; nextLine < endLine; nextLine++) {
      const isOutdented = state.sCount[nextLine]! < state.blkIndent;
      pos = state.bMarks[nextLine]! + state.tShift[nextLine]!;
      max = state.eMarks[nextLine]!;
      if (pos >= max) break;
      if (state.src.charCodeAt(pos++) === 0x3e && !isOutdented) {
        let initial = state.sCount[nextLine]! + 1;
        let spaceAfterMarker: boolean;
        let adjustTab = false;
        if (state.src.charCodeAt(pos) === 0x20) {
          pos++;
          initial++;
          adjustTab = false;
          spaceAfterMarker = true;
        } else if (state.src.charCodeAt(pos) === 0x09) {
          spaceAfterMarker = true;
          if ((state.bsCount[nextLine]! + initial) % 4 === 3) {
            pos++;
            initial++;
            adjustTab = false;
          } else adjustTab = true;
        } else spaceAfterMarker = false;
        let offset = initial;
        quoteLinesMarked++;
        oldBMarks.push(state.bMarks[nextLine]!);
        state.bMarks[nextLine] = pos;
        while (pos < max) {
          const ch = state.src.charCodeAt(pos);
          if (ch === 0x09) offset += 4 - ((offset + state.bsCount[nextLine]! + (adjustTab ? 1 : 0)) % 4);
          else if (ch === 0x20) offset++;
          else break;
          pos++;
        }
        lastLineEmpty = pos >= max;
        oldBSCount.push(state.bsCount[nextLine]!);
        state.bsCount[nextLine] = state.sCount[nextLine]! + 1 + (spaceAfterMarker ? 1 : 0);
        oldSCount.push(state.sCount[nextLine]!);
        state.sCount[nextLine] = offset - initial;
        oldTShift.push(state.tShift[nextLine]!);
        state.tShift[nextLine] = pos - state.bMarks[nextLine]!;
        continue;
      }
      if (lastLineEmpty) break;
      if (terminatedAt(state, terminatorRules, nextLine, endLine)) {
        state.lineMax = nextLine;
        if (state.blkIndent !== 0) {
          quoteLinesMarked++;
          oldBMarks.push(state.bMarks[nextLine]!);
          oldBSCount.push(state.bsCount[nextLine]!);
          oldTShift.push(state.tShift[nextLine]!);
          oldSCount.push(state.sCount[nextLine]!);
          state.sCount[nextLine] = state.sCount[nextLine]! - state.blkIndent;
        }
        break;
      }
      if (nextLine >= stopAtLazyFrom) {
        pendingLazy = nextLine;
        break;
      }
      quoteLinesMarked++;
      oldBMarks.push(state.bMarks[nextLine]!);
      oldBSCount.push(state.bsCount[nextLine]!);
      oldTShift.push(state.tShift[nextLine]!);
      oldSCount.push(state.sCount[nextLine]!);
      state.sCount[nextLine] = -1;
    }
    state.blkIndent = 0;
    // Rules that look past their range read up to lineMax (a definition's title): up to the
    // lazy line here, as the lines after it are not marked yet.
    if (pendingLazy >= 0) state.lineMax = pendingLazy;
    rangeEndHit = -1;
    if (pendingLazy < 0) {
      state.md.block.tokenize(state, startLine, nextLine);
      break;
    }
    // A parse that may be dropped defines its references apart (a definition cut short at the
    // lazy line would otherwise keep its place: the first definition of a label wins).
    const env = state.env;
    const passReferences = Object.create((env.references as object | undefined) ?? null) as Record<string, unknown>;
    state.env = Object.assign(Object.create(env) as Env, { references: passReferences });
    try {
      state.md.block.tokenize(state, startLine, nextLine);
    } finally {
      state.env = env;
    }
    state.lineMax = oldLineMax;
    if (state.line !== pendingLazy || rangeEndHit !== pendingLazy) {
      const defined = Object.keys(passReferences);
      if (defined.length > 0) {
        const references = (env.references ??= {}) as Record<string, unknown>;
        for (const label of defined) references[label] = passReferences[label];
      }
      break;
    }
    state.tokens.length = tokensAtOpen;
    reader.rollback(itemsAtOpen, tokensAtOpen);
    state.level = open.level + 1;
    stopAtLazyFrom = pendingLazy + LAZY_WINDOW * Math.max(1, pendingLazy - startLine);
  }
  if (stopAtLazyFrom > startLine) (quoteWindows ??= new Map()).set(windowKey, stopAtLazyFrom);
  const close = state.push('blockquote_close', 'blockquote', -1);
  close.markup = '>';
  state.lineMax = oldLineMax;
  state.parentType = oldParentType;
  lines[1] = state.line;
  for (let i = 0; i < oldTShift.length; i++) {
    state.bMarks[i + startLine] = oldBMarks[i]!;
    state.tShift[i + startLine] = oldTShift[i]!;
    state.sCount[i + startLine] = oldSCount[i]!;
    state.bsCount[i + startLine] = oldBSCount[i]!;
  }
  state.blkIndent = oldIndent;
  return true;
}

// The alternatives are markdown-it's own for these rules: other rules' terminator lists are
// built from them.
mdBlocks.block.ruler.at('heading', headingItem, { alt: ['paragraph', 'reference', 'blockquote'] });
mdBlocks.block.ruler.at('lheading', setextOrParagraphItem);
mdBlocks.block.ruler.at('reference', referenceItem);
mdBlocks.block.ruler.at('blockquote', quoteItems, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
// markdown-it's own paragraph rule stays, unreached: lheading comes just before it and now
// takes every paragraph but one whose first line is indented 4 or more, which the code rule
// takes first. Were it reached, its tokens would go through the drain like any others.

/** The inline contents and code blocks of `text`, in order; `env` gets its link reference definitions. */
export function blockItems(text: string, env: Env): BlockItems {
  const reader = new TokenDrain();
  drain = reader;
  quoteWindows = null;
  try {
    reader.take(mdBlocks.parse(text, env));
  } finally {
    drain = null;
    quoteWindows = null;
  }
  return reader.items;
}
