/**
 * Stages 1+2 (fast route): markdown → the same flattened block list that
 * `flatten(parse(source))` gives, produced from markdown-it's block-level
 * tokens instead of a full mdast. remark-parse is about 0.35 MB/s here and
 * markdown-it's block parser about 100 MB/s; `fast-blocks.conformance.test.ts`
 * checks that both routes yield identical blocks on the sample corpus and on
 * every CommonMark spec example.
 *
 * markdown-it gives line maps, not offsets; ranges are rebuilt from the line
 * table with the same trimming rule flatten() applies to remark's positions.
 * Link reference definitions, which markdown-it consumes silently, show up as
 * uncovered lines and are made blocks of; GFM footnote definitions, which
 * markdown-it lacks, are a block rule of their own (footnote-definition.ts).
 */
import MarkdownIt, { type Env, type MarkdownIt as MarkdownItInstance, type StateBlock, type Token } from 'markdown-it';
import { plainCoreState, plainInlineState, plainTokenConstructor } from '@chunkyard/keywords';
import { BlockArray, DEFERRED_HEADING, DEFERRED_NESTED, DEFERRED_PARAGRAPH, deferredParagraph, deferredQuoteHeading, directList, PENDING_ITEM, type ListTarget } from './fast-lists.js';
import type { BlockPool } from './block-pool.js';
import { atxHeadingLine, hasInlineSyntax, headingBlock, headingText, isAsciiTrimmable, lastLineOf, leafBlock, paragraphBlock, currentBlockPool, withBlockPool } from './direct-blocks.js';
import { enclosingIndent, enterEnclosingIndent, leaveEnclosingIndent } from './enclosing-indents.js';
import { flatBlocks } from './flat-blocks.js';
import { emphasisOnlyText } from './emphasis-text.js';
import { FOOTNOTE_OPEN, footnoteDefinition, footnoteLabelEnd, LABEL_ALONE } from './footnote-definition.js';
import { blankOut, findFrontMatter, type FrontMatter } from './front-matter.js';
import { columnAt, EMPTY_LINES, isJsTrimmed, lineTable, skipWhitespace, trimEndOffset, type LineTable } from './lines.js';
import { anchor, anchoredClass, detached } from './shape-anchor.js';
import { referenceRule } from './reference-rule.js';
import { SPARE_MOST, STRONG_MOST, Spare } from './spare.js';
import type { Block, BlockType } from './types.js';


/** The token type of DirectBlocks' mark. */
const DIRECT_MARK = 'direct_block';
/** Makes a token as the block state's `push` does (set by fastBlockState, below: declared first so that it may set it). */
let makeMark: () => Token = () => {
  throw new Error('fastBlockState has not run');
};
let sharedMark: Token | null = null;
/** The one mark token (a token of the block state's own class: see shape-anchor.ts on why tokens keep one class). */
function directMark(): Token {
  return (sharedMark ??= makeMark());
}

// `html: true` because CommonMark HTML blocks are structure we must keep whole.
const md = new MarkdownIt('default', { html: true, linkify: false, typographer: false });
// Declared before the states below are replaced, which reads them (tokenClass, plainToken).
/** markdown-it's Token class (from a core state made before fastCoreState replaces it). */
let stockTokenClass: (typeof md.core.State.prototype)['Token'] | null = null;
let plainTokenCtor: (typeof md.core.State.prototype)['Token'] | null = null;
// Parser states die with each document; see shape-anchor.ts for why one is kept.
md.core.State = anchoredClass('markdown-it core state', plainCoreState(md.core.State, plainToken()));
md.block.State = anchoredClass('markdown-it block state', fastBlockState(md.block.State));
md.inline.State = anchoredClass('markdown-it inline state', plainInlineState(md.inline.State, plainToken()));
/**
 * Makes `instance`'s inline text remark's (heading and table text must not depend on the
 * parser); markdown-it's instance here has them, and the test that compares its tokens with a
 * stock instance's gives that one the same two rules.
 *
 * - A code span's text keeps its line endings (an mdast inlineCode value holds the source
 *   between the backtick runs) and loses one space or line ending at each end when both ends
 *   are one and something else is between; markdown-it turned line endings into spaces first
 *   and stripped spaces only. The stock rule finds the span; its content is read again.
 * - micromark's line suffix: the spaces and tabs that end a line of text are dropped, and they
 *   are a hard break only when they are two or more spaces and no tab. markdown-it looked at
 *   spaces alone, so `a\t\nb` kept its tab and `a\t  \nb` was a hard break ("a\tb").
 */
export function useRemarkInlineRules(instance: MarkdownItInstance): void {
  type InlineRule = Parameters<typeof instance.inline.ruler.at>[1];
  const stockBackticks = (instance.inline.ruler as unknown as { __rules__: { name: string; fn: InlineRule }[] }).__rules__.find((r) => r.name === 'backticks')!.fn;
  instance.inline.ruler.at('backticks', (state, silent) => {
    const start = state.pos;
    const count = state.tokens.length;
    if (!stockBackticks(state, silent)) return false;
    const token = state.tokens.length > count ? state.tokens[state.tokens.length - 1] : undefined;
    if (token?.type === 'code_inline') token.content = codeSpanContent(state.src.slice(start + token.markup.length, state.pos - token.markup.length));
    return true;
  });
  instance.inline.ruler.at('newline', (state, silent) => {
    if (state.src.charCodeAt(state.pos) !== 0x0a) return false;
    if (!silent) {
      const { pending } = state;
      let cut = pending.length;
      let tab = false;
      for (; cut > 0; cut--) {
        const c = pending.charCodeAt(cut - 1);
        if (c === 0x09) tab = true;
        else if (c !== 0x20) break;
      }
      const hard = !tab && pending.length - cut >= 2;
      state.pending = pending.slice(0, cut);
      state.push(hard ? 'hardbreak' : 'softbreak', 'br', 0);
    }
    let pos = state.pos + 1;
    while (pos < state.posMax && instance.utils.isSpace(state.src.charCodeAt(pos))) pos++;
    state.pos = pos;
    return true;
  });
}
useRemarkInlineRules(md);

/** micromark's content of a code span from the source between its backtick runs. */
export function codeSpanContent(raw: string): string {
  const padding = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d;
  if (raw.length < 2 || !padding(raw.charCodeAt(0)) || !padding(raw.charCodeAt(raw.length - 1))) return raw;
  // \r\n is one line ending, stripped whole.
  const head = raw.startsWith('\r\n') ? 2 : 1;
  const tail = raw.endsWith('\r\n') ? 2 : 1;
  if (head + tail > raw.length || !/[^ \r\n]/.test(raw.slice(head, raw.length - tail))) return raw;
  return raw.slice(head, raw.length - tail);
}
/** markdown-it's own block rule functions by name, before ours replace them (for referenceThenLazy, and for tests). */
const stockRules = new Map((md.block.ruler as unknown as { __rules__: { name: string; fn: unknown }[] }).__rules__.map((r) => [r.name, r.fn]));
// Reference definitions' destinations are normalized (mdurl parse, punycode,
// encode) before validateLink; the result depends on the string alone, and
// documentation repeats the same definitions in file after file.
const normalizeLink = md.normalizeLink.bind(md);
const normalizedLinks = new Map<string, string>();
md.normalizeLink = (url: string): string => {
  // What normalizeLink gives back unchanged (a test compares the two): one parse, punycode and
  // encode pass less per definition, a sixth of a pass over a page of distinct definitions.
  if (PLAIN_URL.test(url)) return url;
  let out = normalizedLinks.get(url);
  if (out === undefined) {
    out = normalizeLink(url);
    if (normalizedLinks.size >= 10_000) normalizedLinks.clear();
    normalizedLinks.set(url, out);
  }
  return out;
};

/**
 * A link destination markdown-it's normalizeLink returns as it is: an optional `http(s)://`
 * and a lowercase ASCII host and port, then a path, query and fragment of characters mdurl
 * neither encodes nor parses apart (no `%`, `@`, backslash or space).
 */
export const PLAIN_URL = /^(?:https?:\/\/[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::[0-9]{1,5})?)?(?:[/?#][A-Za-z0-9\-._~/?#=&]*)?$/;

/** The token type of a paragraph (a leaf: see paragraphWithoutText). */
const PARAGRAPH = 'paragraph';

type BlockRule = Parameters<typeof md.block.ruler.at>[1];
type BlockRules = ReturnType<typeof md.block.ruler.getRules>;
/** markdown-it's Ruler keeps its rule chains here (null until asked for after a change of rules). */
interface RulerCache {
  __cache__: unknown;
}
/**
 * The rule chains the rules below ask for on every paragraph line, by the ruler's cache they came
 * from: getRules looks a chain up by name in an object without a prototype (a dictionary), and on
 * quotes each ended by a lazy line three lookups a line were a twentieth of the parse (issue 15).
 */
class Chains {
  readonly cache: unknown;
  readonly all: BlockRules;
  readonly paragraph: BlockRules;
  constructor(cache: unknown, all: BlockRules, paragraph: BlockRules) {
    this.cache = cache;
    this.all = all;
    this.paragraph = paragraph;
  }
}
let chains = new Chains(null, [], []);

/** The ruler's chains: those of its cache when that is the one they came from, else looked up again. */
function chainsOf(state: StateBlock): Chains {
  const ruler = state.md.block.ruler;
  const cache = (ruler as unknown as RulerCache).__cache__;
  if (cache === null || cache !== chains.cache) {
    const all = ruler.getRules('');
    chains = new Chains((ruler as unknown as RulerCache).__cache__, all, ruler.getRules('paragraph'));
  }
  return chains;
}

/**
 * markdown-it's paragraph rule, less the paragraph's text: markdown-it joins
 * and trims a paragraph's lines for its inline parser, which never runs on our
 * paragraphs (a block is a range of the source), and those strings were a
 * tenth of all the memory a document allocated. The line logic is markdown-it
 * 15.0.3's own. A paragraph is one leaf token (type PARAGRAPH) rather than
 * open, inline and close tokens: nothing reads its inline token, and the list
 * rule's tight-paragraph marking, which looks for `paragraph_open`, only sets
 * `hidden`, which nothing reads either.
 */
function paragraphWithoutText(state: StateBlock, startLine: number, endLine: number): boolean {
  const terminatorRules = chainsOf(state).paragraph;
  const oldParentType = state.parentType;
  let nextLine = startLine + 1;
  state.parentType = 'paragraph';
  if (paragraphEnd.state === state && paragraphEnd.startLine === startLine && paragraphEnd.endLine === endLine) nextLine = paragraphEnd.nextLine;
  else {
    for (; nextLine < endLine && !state.isEmpty(nextLine); nextLine++) {
      if (state.sCount[nextLine]! - state.blkIndent > 3) continue;
      if (state.sCount[nextLine]! < 0) continue;
      if (interrupts(state, nextLine, endLine, terminatorRules)) break;
    }
  }
  paragraphEnd.state = null;
  state.line = nextLine;
  // A top-level paragraph is a block at once (see DirectBlocks), unless toBlock would make it a footnote definition or nothing.
  if (direct !== null && directParagraphs && state.level === 0 && directParagraph(direct, startLine, nextLine - 1)) pushMark(state, direct);
  else state.push(PARAGRAPH, 'p', 0).map = [startLine, nextLine];
  state.parentType = oldParentType;
  return true;
}
md.block.ruler.at('paragraph', paragraphWithoutText);

/**
 * markdown-it's reference rule, ported with shortcuts that change no result (reference-rule.ts).
 * No token for a top-level definition: buildTree would skip it (addUncoveredLines makes its
 * block from its lines), and only a quote's restart reads definition tokens, inside the quote.
 */
const referenceDefinition = referenceRule(md, PLAIN_URL, false) as BlockRule;
/** markdown-it's HTML block rule; in silent mode, whether one that may interrupt a paragraph (kinds 1 to 6) starts on the line. */
const stockHtmlBlock = stockRules.get('html_block') as BlockRule;

/**
 * markdown-it's reference rule (referenceDefinition), then the lines that continue the paragraph
 * a definition was read from. CommonMark reads definitions out of a paragraph, so the line after
 * one continues that paragraph even where markdown-it starts something else: an indented line
 * (`[d]: /u` then `    x` is a definition and a paragraph `x`, not indented code), and in a
 * container a lazy line (`- [d]: /u` then `x` is an item holding a definition and a paragraph
 * `x`, as remark parses it, not an item and a paragraph after the list). Such a line is read as
 * the rest of the paragraph: a definition again, a setext heading, or a paragraph.
 */
function referenceThenLazy(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (!referenceDefinition(state, startLine, endLine, silent)) return false;
  if (silent) return true;
  for (;;) {
    const line = state.line;
    if (!continuesParagraph(state, line, endLine)) return true;
    // The rest of a paragraph may be a definition again or a setext heading's text however
    // indented (the rules turn an indented first line away, as code would have taken it), so the
    // line counts as unindented: CommonMark reads `[d]: /u` then `    [e]: /v` as two definitions.
    const indent = state.sCount[line]!;
    state.sCount[line] = Math.min(indent, state.blkIndent);
    const definition = referenceDefinition(state, line, endLine, false);
    if (definition) {
      state.sCount[line] = indent;
      // addUncoveredLines starts a definition at a line starting `[` after at most three spaces:
      // this one it would join to the one before.
      if (state.level === 0 && indent - state.blkIndent >= 4) (indentedDefinitions ??= new Set()).add(line);
      continue;
    }
    const heading = lheadingSkipping(state, line, endLine);
    state.sCount[line] = indent;
    if (!heading) paragraphWithoutText(state, line, endLine);
    return true;
  }
}

/**
 * Line `line` continues an open paragraph where markdown-it would not read it so: indented four
 * columns or more past the container (code cannot interrupt a paragraph), a quote's lazy line
 * (markdown-it marks those with sCount -1), or a line less indented than its list item that
 * starts nothing that may interrupt a paragraph. Any other line markdown-it reads as the
 * paragraph would.
 */
function continuesParagraph(state: StateBlock, line: number, endLine: number): boolean {
  if (line >= endLine || state.isEmpty(line)) return false;
  const indent = state.sCount[line]!;
  if (indent - state.blkIndent > 3 || indent < 0) return true;
  if (indent >= state.blkIndent) return false;
  const oldParentType = state.parentType;
  state.parentType = 'paragraph';
  const interrupted = interrupts(state, line, endLine, chainsOf(state).paragraph);
  state.parentType = oldParentType;
  return !interrupted;
}
md.block.ruler.at('reference', referenceThenLazy);

/** Top-level lines of the parse under way where referenceThenLazy read a definition indented four columns or more. */
let indentedDefinitions: Set<number> | null = null;
// Before the reference rule, which would read `[^1]: note` as a definition of label `^1`; it
// interrupts a paragraph and ends a quote's lazy lines, as the heading rule does.
md.block.ruler.before('reference', 'footnote_def', footnoteDefinition, { alt: ['paragraph', 'reference', 'blockquote'] });

/**
 * Where lheadingSkipping, finding no underline, saw the paragraph at `startLine` end. Both rules
 * walk a paragraph's lines, each through the terminators, and end it on the same line when there
 * is no underline (lheading's loop is the paragraph rule's plus the underline check); markdown-it
 * runs the paragraph rule right after lheading fails, on the same line, and it takes the end from
 * here instead of walking the lines again (a paragraph of a million tiny lines, issue 15).
 */
const paragraphEnd: { state: StateBlock | null; startLine: number; endLine: number; nextLine: number } = { state: null, startLine: 0, endLine: 0, nextLine: 0 };
/** Off only in the test that compares the blocks with and without it. */
let paragraphEndShared = true;

/** For tests: makes the paragraph rule walk its lines itself (`on` false), or not. */
export function setParagraphEndSharedForTests(on: boolean): void {
  paragraphEndShared = on;
}

/**
 * markdown-it 15.0.3's setext heading rule (lheading), its line logic unchanged, with the
 * terminator check of `interrupts`: it walks every line of every paragraph (to look for an
 * underline) before the paragraph rule walks them again, each line through seven rules.
 */
function lheadingSkipping(state: StateBlock, startLine: number, endLine: number): boolean {
  const terminatorRules = chainsOf(state).paragraph;
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  const oldParentType = state.parentType;
  state.parentType = 'paragraph';
  let level = 0;
  let marker = 0;
  let nextLine = startLine + 1;
  // The line marks read once each, into locals (the terminators, asked in silent mode, change
  // none of them), and interrupts' first-character shortcut taken here without a call: on a
  // paragraph of a million tiny lines this loop is most of the parse (issue 15).
  const { src, bMarks, eMarks, tShift, sCount, blkIndent } = state;
  const quick = interruptsByFirstChar(terminatorRules);
  for (; nextLine < endLine; nextLine++) {
    const first = bMarks[nextLine]! + tShift[nextLine]!;
    const max = eMarks[nextLine]!;
    // state.isEmpty(nextLine)
    if (first >= max) break;
    const indent = sCount[nextLine]!;
    if (indent - blkIndent > 3) continue;
    const c = src.charCodeAt(first);
    if (indent >= blkIndent && (c === 0x2d || c === 0x3d)) {
      const pos = state.skipSpaces(state.skipChars(first, c));
      if (pos >= max) {
        marker = c;
        level = c === 0x3d ? 1 : 2;
        break;
      }
    }
    if (indent < 0) continue;
    if (quick && !(c < 128 && MAY_INTERRUPT[c] === 1) && !delimiterRowMayFollow(state, nextLine, endLine)) continue;
    if (interrupts(state, nextLine, endLine, terminatorRules)) break;
  }
  if (!level) {
    state.parentType = oldParentType;
    if (paragraphEndShared) {
      paragraphEnd.state = state;
      paragraphEnd.startLine = startLine;
      paragraphEnd.endLine = endLine;
      paragraphEnd.nextLine = nextLine;
    }
    return false;
  }
  state.line = nextLine + 1;
  // A top-level heading of plain text is a block at once, as an ATX one is (see DirectBlocks):
  // its three tokens, their maps and children array and the tree node made of them were half of
  // a pass over 1 MB of setext headings in the collector (session 42's probe: 0.7 s per MB, ten
  // times the same headings in ATX form). Its lines are getLines' at the top level (from each
  // line's start, joined by their `\n`), so their text is the source's range.
  if (direct !== null && state.level === 0 && directHeading(direct, src, startLine, nextLine, level, bMarks[startLine]! + tShift[startLine]!, eMarks[nextLine - 1]!)) {
    pushMark(state, direct);
    state.parentType = oldParentType;
    return true;
  }
  const text = headingLines(state, startLine, nextLine);
  const content = asciiTrim(text, 0, text.length);
  const open = state.push('heading_open', `h${level}`, 1);
  open.markup = String.fromCharCode(marker);
  open.map = [startLine, state.line];
  const inline = state.push('inline', '', 0);
  inline.content = content;
  inline.map = [startLine, state.line - 1];
  inline.children = [];
  const close = state.push('heading_close', `h${level}`, -1);
  close.markup = String.fromCharCode(marker);
  state.parentType = oldParentType;
  return true;
}
md.block.ruler.at('lheading', lheadingSkipping);

/**
 * A setext heading's lines as getLines gives them, with two of remark's readings: a lazy line
 * (left of the item's content column) keeps the indentation past the container it reaches,
 * where getLines cut it to the item's column; and a tab right after a quote's `>` that the
 * marker's optional space took one column of is the rest of its columns in spaces, where
 * markdown-it leaves the tab. Both show only inside a code span that runs over lines (`-  \``
 * then `  \``: remark's text "\n  ").
 */
function headingLines(state: StateBlock, startLine: number, endLine: number): string {
  const { src, bMarks, sCount, blkIndent } = state;
  let own = false;
  for (let line = startLine + 1; line < endLine && !own; line++) {
    const at = bMarks[line]!;
    own = (sCount[line]! >= 0 && sCount[line]! < blkIndent) || (src.charCodeAt(at) === 0x09 && src.charCodeAt(at - 1) === 0x3e);
  }
  if (!own) return state.getLines(startLine, endLine, blkIndent, false);
  let out = state.getLines(startLine, startLine + 1, blkIndent, false);
  for (let line = startLine + 1; line < endLine; line++) {
    const indent = sCount[line]! >= 0 && sCount[line]! < blkIndent ? enclosingIndent(sCount[line]!) : blkIndent;
    let text = state.getLines(line, line + 1, indent, false);
    const at = bMarks[line]!;
    if (text.charCodeAt(0) === 0x09 && src.charCodeAt(at) === 0x09 && src.charCodeAt(at - 1) === 0x3e) {
      let lineStart = at;
      while (lineStart > 0 && src.charCodeAt(lineStart - 1) !== 0x0a && src.charCodeAt(lineStart - 1) !== 0x0d) lineStart--;
      text = ' '.repeat(3 - (columnAt(src, lineStart, at) % 4)) + text.slice(1);
    }
    out += '\n' + text;
  }
  return out;
}

/**
 * markdown-it 15.0.3's fence rule, less the block's text: it joined the code's lines into
 * `content` (state.getLines, a slice per line), which nothing here reads (a code block is a
 * range of the source; toBlock reads `info` only), and code-heavy docs are mostly fences.
 * The line logic is markdown-it's own; its `alt` list is markdown-it's, since `at` resets it.
 */
function fenceWithoutText(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  let pos = state.bMarks[startLine]! + state.tShift[startLine]!;
  let max = state.eMarks[startLine]!;
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  if (pos + 3 > max) return false;
  const marker = state.src.charCodeAt(pos);
  if (marker !== 0x7e && marker !== 0x60) return false;
  let mem = pos;
  pos = state.skipChars(pos, marker);
  const len = pos - mem;
  if (len < 3) return false;
  const markup = state.src.slice(mem, pos);
  const params = state.src.slice(pos, max);
  if (marker === 0x60 && params.indexOf('`') >= 0) return false;
  if (silent) return true;
  let nextLine = startLine;
  let haveEndMarker = false;
  for (;;) {
    nextLine++;
    if (nextLine >= endLine) break;
    pos = mem = state.bMarks[nextLine]! + state.tShift[nextLine]!;
    max = state.eMarks[nextLine]!;
    if (pos < max && state.sCount[nextLine]! < state.blkIndent) break;
    if (state.src.charCodeAt(pos) !== marker) continue;
    if (state.sCount[nextLine]! - state.blkIndent >= 4) continue;
    pos = state.skipChars(pos, marker);
    if (pos - mem < len) continue;
    pos = state.skipSpaces(pos);
    if (pos < max) continue;
    haveEndMarker = true;
    break;
  }
  state.line = nextLine + (haveEndMarker ? 1 : 0);
  const token = state.push('fence', 'code', 0);
  token.info = params;
  token.markup = markup;
  token.map = [startLine, state.line];
  return true;
}
const FENCE_ALT = { alt: ['paragraph', 'reference', 'blockquote', 'list'] };

/** markdown-it 15.0.3's indented code rule, less the block's text (as fenceWithoutText). */
function codeWithoutText(state: StateBlock, startLine: number, endLine: number): boolean {
  if (state.sCount[startLine]! - state.blkIndent < 4) return false;
  let nextLine = startLine + 1;
  let last = nextLine;
  while (nextLine < endLine) {
    if (state.isEmpty(nextLine)) {
      nextLine++;
      continue;
    }
    if (state.sCount[nextLine]! - state.blkIndent >= 4) {
      nextLine++;
      last = nextLine;
      continue;
    }
    break;
  }
  // In a quote (at any depth), remark's code block also takes the whitespace-only lines after
  // it that are indented four columns or more (and the blank lines before them): micromark
  // ends it after their `>` markers. Elsewhere those lines stay out, as CommonMark says.
  let inQuote: boolean | null = null;
  for (let k = last; k < nextLine; k++) {
    if (state.sCount[k]! - state.blkIndent >= 4 && (inQuote ??= quoted(state, startLine))) last = k + 1;
  }
  state.line = last;
  state.push('code_block', 'code', 0).map = [startLine, state.line];
  return true;
}

/** Whether `line` is inside a quote: its source before the content holds a `>` marker. */
function quoted(state: StateBlock, line: number): boolean {
  const { src } = state;
  for (let i = state.bMarks[line]! - 1; i >= 0; i--) {
    const c = src.charCodeAt(i);
    if (c === 0x3e) return true;
    if (c === 0x0a || c === 0x0d) return false;
  }
  return false;
}

/** Ours (`on`), or markdown-it's own fence and indented code rules (for tests). */
export function setCodeWithoutTextForTests(on: boolean): void {
  md.block.ruler.at('fence', on ? fenceWithoutText : (stockRules.get('fence') as BlockRule), FENCE_ALT);
  md.block.ruler.at('code', on ? codeWithoutText : (stockRules.get('code') as BlockRule));
}
setCodeWithoutTextForTests(true);

/** Off only in the test that compares the list blocks with those made from tokens. */
let directLists = true;

/** For tests: makes every list tokens again (`on` false), or not. */
export function setDirectListsForTests(on: boolean): void {
  directLists = on;
}

const stockList = stockRules.get('list') as BlockRule;
/** markdown-it's list rule, but a top-level list is a block at once, its one-paragraph items too (see fast-lists.ts and DirectBlocks). */
function listDirect(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (silent) return stockList(state, startLine, endLine, silent);
  enterEnclosingIndent(state.blkIndent);
  try {
    if (direct !== null && directLists && state.level === 0 && directList(state, startLine, endLine, direct, interrupts, tokenItem)) {
      pushMark(state, direct);
      return true;
    }
    return stockList(state, startLine, endLine, silent);
  } finally {
    leaveEnclosingIndent();
  }
}
md.block.ruler.at('list', listDirect, { alt: ['paragraph', 'reference', 'blockquote'] });

/**
 * An item of a direct list that is not one paragraph (fast-lists.ts' TokenItem): markdown-it's
 * list rule's tokens of it, at the levels that rule gives them. An item holding a heading or a
 * table has its block made from them after the parse (resolveTokenItems): the text of a heading
 * or header cell may use a reference defined further down. Any other item's block reads only
 * the source, and is made now (its `ordered` still unset): keeping every item's tokens and tree
 * alive to the end of the parse had the collector copy and promote them (lists nesting quotes
 * nesting lists, four blocks a line: over half of a pass in the collector, issue 15).
 */
function tokenItem(state: StateBlock, line: number, endLine: number, emptyItem: boolean): TreeNode | Block | null {
  const outer = state.tokens;
  const tokens: Token[] = [];
  state.tokens = tokens;
  state.level = 1;
  const map: [number, number] = [line, 0];
  state.push('list_item_open', 'li', 1).map = map;
  if (emptyItem) state.line = Math.min(state.line + 2, endLine);
  else state.md.block.tokenize(state, line, endLine);
  state.push('list_item_close', 'li', -1);
  state.tokens = outer;
  state.level = 0;
  map[1] = state.line;
  const node = buildTree(tokens)[0]!;
  if (!itemsNow || direct === null || readsReferences(tokens)) return node;
  return toBlock(node, (direct.itemCtx ??= new Ctx(direct.source, direct.lines, state.env as Record<string, unknown>, null)), 'exact');
}

/** Off only in the test that compares the blocks with and without it. */
let itemsNow = true;

/** For tests: makes every token item's block after the parse (`on` false), as before, or not. */
export function setItemsNowForTests(on: boolean): void {
  itemsNow = on;
}

/** Whether toBlock reads markdown-it's env for these tokens: a heading's text or a table's header cells. */
function readsReferences(tokens: Token[]): boolean {
  for (let k = 0; k < tokens.length; k++) {
    const type = tokens[k]!.type;
    if (type === 'heading_open' || type === ATX_HEADING || type === 'table_open') return true;
  }
  return false;
}

/**
 * The blocks of the direct lists' token items, made now that every reference is known (toBlock
 * sets an item's `ordered` after its children, as here). An item with no block leaves its list,
 * as in toBlock's list (none has: its marker is visible).
 */
function resolveTokenItems(made: DirectBlocks, ctx: Ctx): void {
  let lost = false;
  for (const { node, items, at, ordered } of made.tokenItems) {
    const block = node === null ? null : toBlock(node, ctx, 'exact');
    if (block !== null) {
      block.ordered = ordered;
      items[at] = block;
    } else lost = true;
  }
  if (lost) for (const { items } of made.tokenItems) for (let k = items.indexOf(PENDING_ITEM); k >= 0; k = items.indexOf(PENDING_ITEM)) items.splice(k, 1);
}

/** markdown-it 15.0.3's limit on cells a table's body rows may lack before the table ends there. */
const MAX_AUTOCOMPLETED_CELLS = 65536;

/**
 * markdown-it 15.0.3's GFM table rule, less the tokens of its cells: it made a token and a
 * string per cell of every row (on a table of 10 rows of 13,600 columns, 29 MB a pass, issue
 * 15), and a table block is a range of the source that reads its header's text only. The
 * line logic is markdown-it's own: the same delimiter row check, the same terminators, the
 * same column counts (and limit on missing cells) decide where the table ends. It pushes
 * `table_open` (its `meta.header` the header cells' trimmed inline source) and `table_close`,
 * nothing between.
 */
function tableWithoutCells(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  tableRuleCalls++;
  if (startLine + 2 > endLine) return false;
  const src = state.src;
  const delimiterLine = startLine + 1;
  if (state.sCount[delimiterLine]! < state.blkIndent) return false;
  if (state.sCount[delimiterLine]! - state.blkIndent >= 4) return false;
  let pos = state.bMarks[delimiterLine]! + state.tShift[delimiterLine]!;
  const delimiterEnd = state.eMarks[delimiterLine]!;
  if (pos >= delimiterEnd) return false;
  const firstCh = src.charCodeAt(pos++);
  if (firstCh !== 0x7c && firstCh !== 0x2d && firstCh !== 0x3a) return false;
  if (pos >= delimiterEnd) return false;
  const secondCh = src.charCodeAt(pos++);
  if (secondCh !== 0x7c && secondCh !== 0x2d && secondCh !== 0x3a && secondCh !== 0x20 && secondCh !== 0x09) return false;
  if (firstCh === 0x2d && (secondCh === 0x20 || secondCh === 0x09)) return false;
  for (; pos < delimiterEnd; pos++) {
    const ch = src.charCodeAt(pos);
    if (ch !== 0x7c && ch !== 0x2d && ch !== 0x3a && ch !== 0x20 && ch !== 0x09) return false;
  }
  const delimiterStart = state.bMarks[delimiterLine]! + state.tShift[delimiterLine]!;
  // GFM (micromark-extension-gfm-table, remark's reading): a row of dashes alone is a setext
  // underline or a thematic break, never a delimiter row; one with a pipe or a colon is one,
  // and then the header needs no pipe of its own (`x` then `-:` is a table of one column).
  // markdown-it asks for a pipe in the header instead: `a|` then `--` was a table, not a heading.
  if (gfmTableStarts && pipeAt(src, delimiterStart, delimiterEnd) === delimiterEnd && !holdsColon(src, delimiterStart, delimiterEnd)) return false;
  const aligns = delimiterColumns(src, delimiterStart, delimiterEnd);
  if (aligns < 0) return false;
  const headerStart = jsTrimStart(src, state.bMarks[startLine]! + state.tShift[startLine]!, state.eMarks[startLine]!);
  const headerEnd = jsTrimEnd(src, headerStart, state.eMarks[startLine]!);
  if (!gfmTableStarts && pipeAt(src, headerStart, headerEnd) === headerEnd) return false;
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  // A header line that opens a quote or a list item opens it first (GFM's containers come
  // before its leaf blocks): `> a|` or `1. a|` then `-|-` is a quote or an item whose line is
  // `a|`, the delimiter row then a lazy line of its paragraph. markdown-it tried the table
  // first. So does a line that starts another block: a thematic break, an ATX heading, a
  // fence, an HTML block (`<div>|`).
  const interrupting = state.parentType === 'paragraph' || (interruptedState === state && interruptedLine === startLine && interruptedLevel === state.level && interruptedTShift === state.tShift[startLine]);
  if (gfmTableStarts && (opensContainer(src, headerStart, headerEnd, interrupting) || startsLeafBlock(src, headerStart, headerEnd) || stockHtmlBlock(state, startLine, endLine, true))) return false;
  const columnCount = rowColumns(src, headerStart, headerEnd);
  if (columnCount === 0 || columnCount !== aligns) return false;
  if (silent) return true;
  const oldParentType = state.parentType;
  state.parentType = 'table';
  const terminatorRules = state.md.block.ruler.getRules('blockquote');
  const open = state.push('table_open', 'table', 1);
  const map: [number, number] = [startLine, 0];
  open.map = map;
  open.meta = { header: headerCells(src.slice(headerStart, headerEnd)) };
  let autocompletedCells = 0;
  let nextLine = startLine + 2;
  for (; nextLine < endLine; nextLine++) {
    if (state.sCount[nextLine]! < state.blkIndent) break;
    let terminate = false;
    for (let i = 0, l = terminatorRules.length; i < l; i++) {
      if (terminatorRules[i]!(state, nextLine, endLine, true)) {
        terminate = true;
        break;
      }
    }
    if (terminate) break;
    const rowStart = jsTrimStart(src, state.bMarks[nextLine]! + state.tShift[nextLine]!, state.eMarks[nextLine]!);
    const rowEnd = jsTrimEnd(src, rowStart, state.eMarks[nextLine]!);
    if (rowStart === rowEnd) break;
    if (state.sCount[nextLine]! - state.blkIndent >= 4) break;
    autocompletedCells += columnCount - rowColumns(src, rowStart, rowEnd);
    if (autocompletedCells > MAX_AUTOCOMPLETED_CELLS) break;
  }
  state.push('table_close', 'table', -1);
  map[1] = nextLine;
  state.parentType = oldParentType;
  state.line = nextLine;
  return true;
}

/**
 * The number of columns markdown-it's table rule reads from a delimiter row (`src[start, end)`,
 * made of `|`, `-`, `:`, spaces and tabs only), or -1 where it rejects the row: cells split at
 * every `|`, each trimmed; an empty one is skipped first or last and rejects the row elsewhere;
 * the rest must match `:?-+:?`.
 */
function delimiterColumns(src: string, start: number, end: number): number {
  let columns = 0;
  let cellStart = start;
  for (let index = 0; ; index++) {
    const cellEnd = pipeAt(src, cellStart, end);
    const last = cellEnd === end;
    let a = cellStart;
    let b = cellEnd;
    while (a < b && (src.charCodeAt(a) === 0x20 || src.charCodeAt(a) === 0x09)) a++;
    while (b > a && (src.charCodeAt(b - 1) === 0x20 || src.charCodeAt(b - 1) === 0x09)) b--;
    if (a === b) {
      if (!(index === 0 || last)) return -1;
    } else {
      if (src.charCodeAt(a) === 0x3a) a++;
      if (b > a && src.charCodeAt(b - 1) === 0x3a) b--;
      if (a === b) return -1;
      for (let k = a; k < b; k++) if (src.charCodeAt(k) !== 0x2d) return -1;
      columns++;
    }
    if (last) return columns;
    cellStart = cellEnd + 1;
  }
}

/**
 * How many cells markdown-it's table rule finds in a trimmed row `src[start, end)`: its
 * `escapedSplit` splits at each `|` not right after a backslash, then an empty first and an
 * empty last cell are dropped. A cell is empty only where a split `|` starts or ends the row
 * (an escaped `|` stays in its cell).
 */
function rowColumns(src: string, start: number, end: number): number {
  if (start === end) return 0;
  let pipes = 0;
  for (let p = pipeAt(src, start, end); p < end; p = pipeAt(src, p + 1, end)) {
    if (p === start || src.charCodeAt(p - 1) !== 0x5c) pipes++;
  }
  let columns = pipes + 1;
  if (src.charCodeAt(start) === 0x7c) columns--;
  if (columns > 0 && src.charCodeAt(end - 1) === 0x7c && (end - 1 === start || src.charCodeAt(end - 2) !== 0x5c)) columns--;
  return columns;
}

/**
 * The first `|` in `src[from, end)`, or `end`. Not `indexOf`, which would look past the line
 * to the next `|` of the document: on lines without one, every try of the rule read the
 * rest of the document.
 */
function pipeAt(src: string, from: number, end: number): number {
  while (from < end && src.charCodeAt(from) !== 0x7c) from++;
  return from;
}

/**
 * Whether `src[start, end)`, a line after its indentation, opens a block quote or a list item
 * (`-`, `+`, `*`, or one to nine digits and `.` or `)`, then a space, a tab or the line's end).
 * Where it would interrupt a paragraph (`interrupting`), an item must not be empty and an
 * ordered one must start at 1, as CommonMark has it.
 */
function opensContainer(src: string, start: number, end: number, interrupting: boolean): boolean {
  if (start >= end) return false;
  const c = src.charCodeAt(start);
  if (c === 0x3e) return true;
  let k = start;
  if (c === 0x2d || c === 0x2b || c === 0x2a) k++;
  else {
    while (k < end && k - start < 10 && src.charCodeAt(k) >= 0x30 && src.charCodeAt(k) <= 0x39) k++;
    if (k === start || k - start > 9 || k >= end) return false;
    const d = src.charCodeAt(k);
    if (d !== 0x2e && d !== 0x29) return false;
    if (interrupting && (k - start !== 1 || c !== 0x31)) return false;
    k++;
  }
  if (k >= end) return !interrupting;
  const after = src.charCodeAt(k);
  if (after !== 0x20 && after !== 0x09) return false;
  return !interrupting || skipSpacesAndTabs(src, k, end) < end;
}

function skipSpacesAndTabs(src: string, k: number, end: number): number {
  while (k < end && (src.charCodeAt(k) === 0x20 || src.charCodeAt(k) === 0x09)) k++;
  return k;
}

/** Whether trimmed `src[start, end)` is a thematic break, opens an ATX heading or opens a fenced code block. */
function startsLeafBlock(src: string, start: number, end: number): boolean {
  return isThematicBreak(src, start, end) || isAtxHeadingLine(src, start, end) || opensFence(src, start, end);
}

/** Whether trimmed `src[start, end)` is a thematic break: three or more of one of `-`, `*`, `_`, with spaces or tabs between. */
function isThematicBreak(src: string, start: number, end: number): boolean {
  const marker = src.charCodeAt(start);
  if (marker !== 0x2d && marker !== 0x2a && marker !== 0x5f) return false;
  let count = 0;
  for (let k = start; k < end; k++) {
    const c = src.charCodeAt(k);
    if (c === marker) count++;
    else if (c !== 0x20 && c !== 0x09) return false;
  }
  return count >= 3;
}

/** Whether trimmed `src[start, end)` opens an ATX heading: one to six `#`, then a space, a tab or the end. */
function isAtxHeadingLine(src: string, start: number, end: number): boolean {
  let k = start;
  while (k < end && k - start < 7 && src.charCodeAt(k) === 0x23) k++;
  if (k === start || k - start > 6) return false;
  return k === end || src.charCodeAt(k) === 0x20 || src.charCodeAt(k) === 0x09;
}

/** Whether trimmed `src[start, end)` opens a fence: three or more backticks (and no backtick after them) or tildes. */
function opensFence(src: string, start: number, end: number): boolean {
  const marker = src.charCodeAt(start);
  if (marker !== 0x60 && marker !== 0x7e) return false;
  let k = start;
  while (k < end && src.charCodeAt(k) === marker) k++;
  if (k - start < 3) return false;
  if (marker === 0x7e) return true;
  for (; k < end; k++) if (src.charCodeAt(k) === 0x60) return false;
  return true;
}

function holdsColon(src: string, from: number, end: number): boolean {
  for (; from < end; from++) if (src.charCodeAt(from) === 0x3a) return true;
  return false;
}

/** The header row's cells as markdown-it's table rule gives them to its inline tokens (markdown-it's `escapedSplit`, then trim). */
function headerCells(row: string): string[] {
  const cells: string[] = [];
  const max = row.length;
  let pos = 0;
  let ch = row.charCodeAt(pos);
  let isEscaped = false;
  let lastPos = 0;
  let current = '';
  while (pos < max) {
    if (ch === 0x7c) {
      if (!isEscaped) {
        cells.push(current + row.substring(lastPos, pos));
        current = '';
        lastPos = pos + 1;
      } else {
        current += row.substring(lastPos, pos - 1);
        lastPos = pos;
      }
    }
    isEscaped = ch === 0x5c;
    pos++;
    ch = row.charCodeAt(pos);
  }
  cells.push(current + row.substring(lastPos));
  if (cells.length && cells[0] === '') cells.shift();
  if (cells.length && cells[cells.length - 1] === '') cells.pop();
  for (let i = 0; i < cells.length; i++) cells[i] = cells[i]!.trim();
  return cells;
}

export { isJsTrimmed };
/** Where `src.slice(start, end).trim()` starts in `src`. */
function jsTrimStart(src: string, start: number, end: number): number {
  while (start < end && isJsTrimmed(src.charCodeAt(start))) start++;
  return start;
}
/** Where `src.slice(start, end).trim()` ends in `src` (`start` already trimmed). */
function jsTrimEnd(src: string, start: number, end: number): number {
  while (end > start && isJsTrimmed(src.charCodeAt(end - 1))) end--;
  return end;
}

/** How often the table rule was asked, since the count was last read (tableRuleCallsForTests). */
let tableRuleCalls = 0;

/** For tests: how often the table rule was asked since the last call (and resets the count). */
export function tableRuleCallsForTests(): number {
  const calls = tableRuleCalls;
  tableRuleCalls = 0;
  return calls;
}

/** Off only in the test that compares the table rule's line logic with markdown-it's own rule. */
let gfmTableStarts = true;

/**
 * For tests: where a table may start, GFM's reading (`on`: a delimiter row needs a pipe or a
 * colon, the header none; a header line that opens a container or another block is not one),
 * or markdown-it's (a pipe in the header).
 */
export function setGfmTableStartsForTests(on: boolean): void {
  gfmTableStarts = on;
}

/** Ours (`on`), or markdown-it's own table rule (for tests). */
export function setTableWithoutCellsForTests(on: boolean): void {
  md.block.ruler.at('table', on ? tableWithoutCells : (stockRules.get('table') as BlockRule), { alt: ['paragraph', 'reference'] });
}
setTableWithoutCellsForTests(true);

/**
 * Where blockquoteWithScratch keeps the line marks it changes, four per line (bMarks,
 * bsCount, sCount, tShift), for all the quotes open at once: a quote's lines are stored
 * from `scratchTop` up, before the quotes inside it (parsed afterwards) store theirs above.
 */
let scratch = new Int32Array(4096);
let scratchTop = 0;
/**
 * A `scratch` grown past STRONG_MOST entries (1 MiB) for one document's quotes, held only weakly
 * between parses (spare.ts): it grows with the quoted lines open at once.
 */
const largeScratch = new Spare<Int32Array<ArrayBuffer>>(STRONG_MOST, SPARE_MOST);

/**
 * markdown-it 15.0.3's blockquote rule, its line logic unchanged, keeping the line marks it
 * restores afterwards in one shared typed array instead of four arrays grown a push at a time
 * per quote: quotes nested a hundred deep (markdown-it's limit) stored each line a hundred
 * times, 56% of all the memory a pass of deep-quote allocated at 1 MB (issue 15).
 */
function blockquoteWithScratch(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  let pos = state.bMarks[startLine]! + state.tShift[startLine]!;
  let max = state.eMarks[startLine]!;
  const oldLineMax = state.lineMax;
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  if (state.src.charCodeAt(pos) !== 0x3e) return false;
  if (silent) return true;
  const base = scratchTop;
  let saved = 0;
  const terminatorRules = state.md.block.ruler.getRules('blockquote');
  const oldParentType = state.parentType;
  const oldIndent = state.blkIndent;
  const open = state.push('blockquote_open', 'blockquote', 1);
  open.markup = '>';
  const map: [number, number] = [startLine, 0];
  open.map = map;
  const firstInner = state.tokens.length;
  let lastLineEmpty = false;
  let nextLine = startLine;
  // Where the next tokenize of the quote's content starts, and the first line from which a lazy
  // line stops the scan instead of being marked (see LAZY_WINDOW).
  let restart = startLine;
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
      // A `>` indented four columns past the quote's container is no marker (CommonMark allows
      // three): markdown-it read `>` then `    >` as one quote, where the second line is
      // indented code, or a lazy line when a paragraph is open (remark reads both so).
      if (state.src.charCodeAt(pos++) === 0x3e && !isOutdented && (!markerIndentChecked || state.sCount[nextLine]! - oldIndent < 4)) {
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
          } else {
            adjustTab = true;
          }
        } else {
          spaceAfterMarker = false;
        }
        let offset = initial;
        saveMarks(state, nextLine, base + 4 * saved++);
        state.bMarks[nextLine] = pos;
        while (pos < max) {
          const ch = state.src.charCodeAt(pos);
          if (ch === 0x09) offset += 4 - ((offset + state.bsCount[nextLine]! + (adjustTab ? 1 : 0)) % 4);
          else if (ch === 0x20) offset++;
          else break;
          pos++;
        }
        lastLineEmpty = pos >= max;
        state.bsCount[nextLine] = state.sCount[nextLine]! + 1 + (spaceAfterMarker ? 1 : 0);
        state.sCount[nextLine] = offset - initial;
        state.tShift[nextLine] = pos - state.bMarks[nextLine]!;
        continue;
      }
      if (lastLineEmpty) break;
      let terminate = false;
      // A line an enclosing quote marked lazy (sCount -1) was checked against these same rules
      // there, with its own indentation, and none took it: it continues this quote's paragraph
      // too. Asked again here with -1, a line indented four columns looked unindented to them
      // (`> > q` then `    - z` ended the inner quote with a list, made code of the line).
      const markedLazy = nestedLazyLines && state.sCount[nextLine] === -1;
      for (let i = 0, l = markedLazy ? 0 : terminatorRules.length; i < l; i++) {
        if (terminatorRules[i]!(state, nextLine, endLine, true)) {
          terminate = true;
          break;
        }
      }
      if (terminate) {
        state.lineMax = nextLine;
        if (state.blkIndent !== 0) {
          saveMarks(state, nextLine, base + 4 * saved++);
          state.sCount[nextLine] = state.sCount[nextLine]! - state.blkIndent;
        }
        break;
      }
      if (nextLine >= stopAtLazyFrom) {
        pendingLazy = nextLine;
        break;
      }
      saveMarks(state, nextLine, base + 4 * saved++);
      state.sCount[nextLine] = -1;
    }
    scratchTop = base + 4 * saved;
    state.blkIndent = 0;
    // Rules that look past their range read up to lineMax (a definition's title, a list's blank
    // lines): up to the lazy line here, as the lines after it are not marked yet.
    if (pendingLazy >= 0) state.lineMax = pendingLazy;
    state.md.block.tokenize(state, restart, nextLine);
    if (pendingLazy < 0) break;
    state.lineMax = oldLineMax;
    if (state.line !== pendingLazy) break;
    // The content was parsed up to the lazy line. Only a paragraph takes a lazy line (or a
    // definition, as its title), so unless the content may end in one there (mayTakeLazyLine),
    // the quote ends there as markdown-it's whole scan would end it.
    const inner = open.level + 1;
    let last = lastBlockAt(state.tokens, firstInner, inner);
    if (last >= 0 && state.tokens[last]!.map![1] !== pendingLazy) {
      // Content without tokens ends the quote (blank lines, a definition's lines): parse it again.
      restart = state.tokens[last]!.map![1];
    } else {
      if (last >= 0 && !mayTakeLazyLine(state.tokens, last, pendingLazy)) break;
      // A block right after a definition, or on a lazy line, may continue the paragraph the
      // definition came from (see referenceThenLazy): the parse starts again before it.
      while (last >= 0) {
        const begin = state.tokens[last]!.map![0];
        const before = lastBlockAt(state.tokens, firstInner, inner, last);
        const afterDefinition = before >= 0 && state.tokens[before]!.type === 'reference_definition' && state.tokens[before]!.map![1] === begin;
        if (!afterDefinition && state.sCount[begin]! >= 0) break;
        last = before;
      }
      restart = last >= 0 ? state.tokens[last]!.map![0] : startLine;
      state.tokens.length = last >= 0 ? last : firstInner;
      state.level = inner;
    }
    stopAtLazyFrom = pendingLazy + LAZY_WINDOW * Math.max(1, pendingLazy - restart);
  }
  if (stopAtLazyFrom > startLine) (quoteWindows ??= new Map()).set(windowKey, stopAtLazyFrom);
  const close = state.push('blockquote_close', 'blockquote', -1);
  close.markup = '>';
  state.lineMax = oldLineMax;
  state.parentType = oldParentType;
  map[1] = state.line;
  // The lines saved are startLine, startLine + 1, … (every line the loop passed, in order).
  for (let i = 0; i < saved; i++) {
    const at = base + 4 * i;
    state.bMarks[i + startLine] = scratch[at]!;
    state.bsCount[i + startLine] = scratch[at + 1]!;
    state.sCount[i + startLine] = scratch[at + 2]!;
    state.tShift[i + startLine] = scratch[at + 3]!;
  }
  scratchTop = base;
  state.blkIndent = oldIndent;
  return true;
}

/** Off only in the test that compares this rule with markdown-it's own, which takes a `>` however indented. */
let markerIndentChecked = true;

/** For tests: takes a `>` indented four columns as a quote marker (`on` false), as markdown-it does, or not. */
export function setMarkerIndentCheckedForTests(on: boolean): void {
  markerIndentChecked = on;
}

/** Off only in the test that compares this rule with markdown-it's own, which asks again (see markedLazy). */
let nestedLazyLines = true;

/** For tests: asks the terminators about a line an enclosing quote marked lazy (`on` false), as markdown-it does, or not. */
export function setNestedLazyLinesForTests(on: boolean): void {
  nestedLazyLines = on;
}

/** Off only in the test that compares the quote blocks with those made from tokens. */
let directQuotes = true;

/** For tests: makes every quote tokens again (`on` false), or not. */
export function setDirectQuotesForTests(on: boolean): void {
  directQuotes = on;
}

/**
 * Makes a top-level quote of one line (startLine, a `>` line) holding an ATX heading whose
 * text has no inline syntax, when the next line is not a `>` line, into its blocks at once and
 * returns true (false: nothing done, the rule goes on). Such a quote ends at the next line
 * whatever that line is: a blank line or a terminator ends it, and a lazy line is taken only by
 * a paragraph, which a heading is not. A document of `> # h` then `lazy` lines made, per quote,
 * three tokens, a tree node and two blocks through toBlock (issue 15); here it is the two blocks
 * toBlock makes of them: the quote ('exact' range) holding the heading (its range from the line's
 * start, as toBlock gives children of a quote), with the text directHeading gives.
 * The marker and indentation logic is blockquoteWithScratch's for one line, the heading's
 * atxHeadingLeaf's, on the marks the rule would set (not stored: nothing else reads them).
 */
function directQuote(state: StateBlock, into: DirectBlocks, startLine: number, endLine: number): boolean {
  const src = state.src;
  const next = startLine + 1;
  if (next < endLine) {
    const p = state.bMarks[next]! + state.tShift[next]!;
    if (p < state.eMarks[next]! && src.charCodeAt(p) === 0x3e) return false;
  }
  // After the `>` (the rule's check), as blockquoteWithScratch reads the line.
  let pos = state.bMarks[startLine]! + state.tShift[startLine]! + 1;
  let max = state.eMarks[startLine]!;
  let initial = state.sCount[startLine]! + 1;
  let adjustTab = false;
  const after = src.charCodeAt(pos);
  if (after === 0x20) {
    pos++;
    initial++;
  } else if (after === 0x09) {
    if ((state.bsCount[startLine]! + initial) % 4 === 3) {
      pos++;
      initial++;
    } else adjustTab = true;
  }
  let offset = initial;
  // The quote's bsCount for the line, which the tab stops below count from.
  const bsCount = state.bsCount[startLine]!;
  while (pos < max) {
    const ch = src.charCodeAt(pos);
    if (ch === 0x09) offset += 4 - ((offset + bsCount + (adjustTab ? 1 : 0)) % 4);
    else if (ch === 0x20) offset++;
    else break;
    pos++;
  }
  // Empty content, or indented code (the heading rule's check, blkIndent being 0 inside).
  if (pos >= max || offset - initial >= 4) return false;
  // atxHeadingLeaf's line logic from here.
  const level = atxHeadingLine(src, pos, max, atxText);
  if (level === 0) return directQuoteParagraph(state, into, startLine, endLine, src.charCodeAt(pos));
  pos = atxText.pos;
  max = atxText.max;
  // directHeading's text and its check for inline syntax (which needs the token's plainText).
  while (pos < max && isAsciiTrimmable(src.charCodeAt(pos))) pos++;
  while (max > pos && isAsciiTrimmable(src.charCodeAt(max - 1))) max--;
  if (hasInlineSyntax(src, pos, max)) return false;
  const { source, lines } = into;
  const lineStart = lines.starts[startLine]!;
  const start = skipWhitespace(source, lineStart, lines.ends[startLine]!);
  const end = trimEndOffset(source, start, lines.ends[startLine]!);
  if (end <= start) return false;
  const last = lastLineOf(lines, end, startLine);
  // For chunkerBlocks, the heading is made only when a reader asks for it (fast-lists' childrenOf).
  if (into.deferItemParagraphs && deferQuoteHeadings) {
    const pool = currentBlockPool();
    into.blocks.push(pool !== null ? pool.quote(start, end, startLine, last, DEFERRED_HEADING) : quoteBlock(start, end, startLine, last, DEFERRED_HEADING), startLine);
  }
  else {
    const heading: Block = { type: 'heading', start: lineStart, end, startLine, endLine: last, depth: level, text: headingText(src, pos, max) };
    into.blocks.push(quoteBlock(start, end, startLine, last, [heading]), startLine);
  }
  state.line = next;
  pushMark(state, into);
  return true;
}

/**
 * directQuote's other case: the quote's one line holds a paragraph of that line alone, its first
 * character a letter or non-ASCII (no rule but the paragraph's, and a setext underline's or a
 * table's on the next line, can start with one), and the next line is blank or none (a lazy line
 * would continue the paragraph; a blank line ends the quote). Its blocks are toBlock's: the quote
 * ('exact') holding the paragraph (from the line's start, as a quote's children are). A document
 * of one-line notes (`> Note: …` then a blank line) made four tokens, a tree node and a children
 * list a quote, living through the parse (issue 15 probe: 13 times prose per MB).
 */
function directQuoteParagraph(state: StateBlock, into: DirectBlocks, startLine: number, endLine: number, first: number): boolean {
  if (!(first >= 0x80 || ((first | 0x20) >= 0x61 && (first | 0x20) <= 0x7a))) return false;
  const next = startLine + 1;
  if (next < endLine && !state.isEmpty(next)) return false;
  const { source, lines } = into;
  const lineStart = lines.starts[startLine]!;
  const start = skipWhitespace(source, lineStart, lines.ends[startLine]!);
  const end = trimEndOffset(source, start, lines.ends[startLine]!);
  if (end <= start) return false;
  const last = lastLineOf(lines, end, startLine);
  const paragraph: Block = { type: 'paragraph', start: lineStart, end, startLine, endLine: last };
  into.blocks.push(quoteBlock(start, end, startLine, last, [paragraph]), startLine);
  state.line = next;
  pushMark(state, into);
  return true;
}

/**
 * A quote's block, all six fields in one literal, made here for toBlock and directQuote alike (one
 * hidden class, anchored below for the reason toBlock anchors a table block): a `children` added
 * to a literal of five took a map transition and a property array per quote, a quarter of
 * directQuote's time (issue 15).
 */
function quoteBlock(start: number, end: number, startLine: number, endLine: number, children: Block[]): Block {
  return { type: 'blockquote', start, end, startLine, endLine, children };
}
anchor('quote block', quoteBlock(0, 0, 0, 0, []));

/**
 * How far past a lazy line the scan of a quote goes before it stops at the next one, as a
 * multiple of the lines parsed again. markdown-it's rule scans to the end of every line a quote
 * might take (all its `>` lines and the lazy lines between them) before parsing any of it, and
 * a quote ends at the first lazy line no paragraph takes: `> # h` then `lazy`, repeated, made
 * every quote scan the rest of the document (200 KB took 15 s, issue 15). This rule scans to
 * the first lazy line, parses, and goes on only when the content may take that line
 * (mayTakeLazyLine), parsing again from the outermost block that may with a window grown by
 * this factor each time, so that a paragraph taking a thousand lazy lines is parsed a bounded
 * number of times over, not once per line.
 */
const LAZY_WINDOW = 2;

/**
 * How far each quote's scan went in this parse (stopAtLazyFrom), by start line and level. A quote
 * whose content may take its lazy line parses that content again, nested quotes included, and
 * each nested quote began its own stops at lazy lines again from its first line: quotes nested
 * a hundred deep with lazy lines at many depths multiplied their parses level by level (a fuzzed
 * document of 3.5 KB took 9.5 s, one of 17 KB 14 s). A quote parsed again starts with the window
 * it reached; scanning further before a stop is what markdown-it's own rule does for every line,
 * so the blocks are the same. Cleared by each parse.
 */
let quoteWindows: Map<number, number> | null = null;

/** The index of the last token at `level` in tokens[from, before) that opens a block or is one (-1: none). */
function lastBlockAt(tokens: Token[], from: number, level: number, before = tokens.length): number {
  for (let k = before - 1; k >= from; k--) {
    const t = tokens[k]!;
    if (t.level === level && t.nesting !== -1 && t.map) return k;
  }
  return -1;
}

/**
 * Whether what the tokens from `from` on end with may take lazy line `line` once the scan goes
 * on: a paragraph ending there (inside any containers), or a definition (which may take its
 * title from it), or content without tokens at the end, or a setext heading (a definition cut
 * short may have become one). Only a block that plainly ends at `line` and takes no lazy line
 * (an ATX heading, a fence, a rule, code, HTML, a table) answers no; anything else is parsed
 * again, which costs time, never a different answer.
 */
function mayTakeLazyLine(tokens: Token[], from: number, line: number): boolean {
  for (let k = tokens.length - 1; k >= from; k--) {
    const t = tokens[k]!;
    if (t.nesting === -1 || t.type === 'inline') continue;
    // markdown-it 15 marks a definition with a token of its own.
    if (t.type === PARAGRAPH || t.type === 'reference_definition') return true;
    // An open with nothing after it but closes: content without tokens; or a setext heading,
    // which may be a definition cut short at the lazy line (its title running on past it).
    if (t.nesting === 1) return true;
    return t.map === null || t.map[1] !== line;
  }
  return true;
}

/** Lines the blockquote rule has marked (each scanned line once per scan): for the test of its linear time. */
let quoteLinesMarked = 0;
export function quoteLinesMarkedForTests(): number {
  return quoteLinesMarked;
}

/** Stores line `line`'s bMarks, bsCount, sCount and tShift at `scratch[at…at + 3]`, growing it as needed. */
function saveMarks(state: StateBlock, line: number, at: number): void {
  quoteLinesMarked++;
  if (at + 4 > scratch.length) {
    const kept = largeScratch.take();
    const grown = kept !== null && kept.length >= at + 4 ? kept : new Int32Array(Math.max(scratch.length * 2, at + 4));
    grown.set(scratch.subarray(0, at));
    scratch = grown;
  }
  scratch[at] = state.bMarks[line]!;
  scratch[at + 1] = state.bsCount[line]!;
  scratch[at + 2] = state.sCount[line]!;
  scratch[at + 3] = state.tShift[line]!;
}

/**
 * The blockquote rule: a top-level quote directQuote can make into blocks at once, else
 * blockquoteWithScratch (kept apart so that its loop, which nested quotes run line by line, is
 * compiled without directQuote's code in it).
 */
function blockquoteRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (!silent && direct !== null && directQuotes && state.level === 0 && state.blkIndent === 0) {
    // blockquoteWithScratch's own first checks: not indented code, and a `>` first.
    if (state.sCount[startLine]! >= 4 || state.src.charCodeAt(state.bMarks[startLine]! + state.tShift[startLine]!) !== 0x3e) return false;
    if (directQuote(state, direct, startLine, endLine)) return true;
  }
  if (silent) return blockquoteWithScratch(state, startLine, endLine, silent);
  enterEnclosingIndent(0);
  try {
    return blockquoteWithScratch(state, startLine, endLine, silent);
  } finally {
    leaveEnclosingIndent();
  }
}

/** Ours (`on`), or markdown-it's own blockquote rule (for tests). */
export function setBlockquoteScratchForTests(on: boolean): void {
  // markdown-it gives the blockquote rule the fence rule's `alt` list.
  md.block.ruler.at('blockquote', on ? blockquoteRule : (stockRules.get('blockquote') as BlockRule), FENCE_ALT);
}
setBlockquoteScratchForTests(true);

/** The paragraph terminators of markdown-it 15.0.3 (ours for `heading`), by rule name, in its order: what `interrupts` knows. */
const KNOWN_TERMINATORS = ['table', 'fence', 'blockquote', 'hr', 'list', 'footnote_def', 'html_block', 'heading'];
/**
 * Characters a line may start with (after its indentation) for one of those rules to
 * accept it: fence ` ~, blockquote >, hr * - _, list * - + and digits, footnote definition [,
 * html_block <, heading #.
 * Each of them returns false at once on any other first character.
 */
const MAY_INTERRUPT = new Uint8Array(128);
for (const ch of '`~>*-_+[<#0123456789') MAY_INTERRUPT[ch.charCodeAt(0)] = 1;
/** The rule list last checked against KNOWN_TERMINATORS (getRules returns one array until the rules change), and the answer. */
let checkedRules: unknown = null;
let rulesKnown = false;
/** Off only in the test that compares the two routes. */
let skipping = true;

/** For tests: turns the first-character check of `interrupts` off or on again. */
export function setInterruptSkipForTests(on: boolean): void {
  skipping = on;
}

/**
 * Whether one of the paragraph terminators accepts line `line` (the loop markdown-it's
 * paragraph and setext heading rules run for each line after the first). Most lines of a
 * paragraph start with a letter, where none of them can: that is checked first, from the
 * line's first character and, for a table (whose delimiter row is the next line), the next
 * line's (| - :). The rules run only when one of them might accept.
 */
function interrupts(state: StateBlock, line: number, endLine: number, rules: ReturnType<typeof md.block.ruler.getRules>): boolean {
  // A line left of the item's content column is read in the container whose column it reaches
  // (CommonMark); four columns past that, it starts no block there, so it is a lazy line.
  // markdown-it measured it from the item's column: `   - a` then `    # h` ended the item's
  // paragraph, and the line became indented code.
  const indent = state.sCount[line]!;
  if (indent >= 4 && indent < state.blkIndent && indent - enclosingIndent(indent) >= 4) return false;
  if (interruptsByFirstChar(rules)) {
    const c = state.src.charCodeAt(state.bMarks[line]! + state.tShift[line]!);
    if (!(c < 128 && MAY_INTERRUPT[c] === 1) && !delimiterRowMayFollow(state, line, endLine)) return false;
  }
  for (let k = 0; k < rules.length; k++) {
    if (rules[k]!(state, line, endLine, true)) {
      interruptedState = state;
      interruptedLine = line;
      interruptedLevel = state.level;
      interruptedTShift = state.tShift[line]!;
      return true;
    }
  }
  return false;
}

/**
 * The line where `interrupts` last ended a paragraph, and its parse: the block that starts
 * there interrupts that paragraph. The table rule reads it: a header line `2) a|` after a
 * paragraph opens no list (an ordered item interrupts one only from 1), so the table takes it,
 * where at the start of a block the item is opened first.
 */
let interruptedState: StateBlock | null = null;
let interruptedLine = -1;
/** The token level of that paragraph: one inside a closed item or quote ended there interrupts nothing outside it. */
let interruptedLevel = -1;
/**
 * The line's tShift then: a list item that starts on the line moves it past its marker, so the
 * item's first line interrupts nothing, even at the level of a sibling item's paragraph ended
 * there (`- a` then `- 2) y` then `  |-|`: the ordered list `2) y` opens first, as in remark,
 * where the table took the item).
 */
let interruptedTShift = -1;

/** Whether `interrupts` may answer no by a line's first character (and the next line's) with these terminators. */
function interruptsByFirstChar(rules: ReturnType<typeof md.block.ruler.getRules>): boolean {
  if (rules !== checkedRules) {
    checkedRules = rules;
    rulesKnown = sameRules(rules, KNOWN_TERMINATORS);
  }
  return skipping && rulesKnown;
}

/** The block rule functions the ruler holds under these names (markdown-it's `__rules__`), in this order: is it `rules`? */
function sameRules(rules: readonly unknown[], names: readonly string[]): boolean {
  const known = (md.block.ruler as unknown as { __rules__: { name: string; fn: unknown }[] }).__rules__;
  return rules.length === names.length && names.every((name, i) => known.find((r) => r.name === name)?.fn === rules[i]);
}

/**
 * False when the table rule would reject `line` as a header row: `line + 1` does not start like
 * a delimiter row, or holds neither a pipe nor a colon (the rule asks for one). That matters for
 * setext headings, whose `---` underline starts like a delimiter row: without it every heading
 * of a document of them went through the whole rule chain, table rule first (issue 15).
 */
function delimiterRowMayFollow(state: StateBlock, line: number, endLine: number): boolean {
  if (line + 2 > endLine) return false;
  const pos = state.bMarks[line + 1]! + state.tShift[line + 1]!;
  if (pos >= state.eMarks[line + 1]!) return false;
  const c = state.src.charCodeAt(pos);
  if (c !== 0x7c && c !== 0x2d && c !== 0x3a) return false;
  if (!gfmTableStarts) {
    const end = state.eMarks[line]!;
    return pipeAt(state.src, state.bMarks[line]! + state.tShift[line]!, end) < end;
  }
  const delimiterEnd = state.eMarks[line + 1]!;
  return pipeAt(state.src, pos, delimiterEnd) < delimiterEnd || holdsColon(state.src, pos, delimiterEnd);
}

/** Whether `interrupts` takes its shortcut on this build (the rule names are as expected): for its test. */
export function interruptSkipActive(): boolean {
  return rulesKnown;
}

/** The token type of an ATX heading (a leaf: see atxHeadingLeaf). */
const ATX_HEADING = 'atx_heading';

/**
 * markdown-it 15.0.3's ATX heading rule, pushing one leaf token (type ATX_HEADING,
 * tag `h1`…`h6`, `content` the heading's inline source) instead of open, inline and
 * close tokens with a children array: on a document of thousands of tiny headings
 * those objects were much of the garbage (issue 15). The line logic is markdown-it's
 * own; it is also the terminator other rules call in silent mode, so its `alt` list
 * is markdown-it's.
 */
function atxHeadingLeaf(state: StateBlock, startLine: number, _endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  const level = atxHeadingLine(state.src, state.bMarks[startLine]! + state.tShift[startLine]!, state.eMarks[startLine]!, atxText);
  if (level === 0) return false;
  if (silent) return true;
  const { pos, max } = atxText;
  state.line = startLine + 1;
  if (direct !== null && state.level === 0 && directHeading(direct, state.src, startLine, startLine, level, pos, max)) {
    pushMark(state, direct);
    return true;
  }
  const token = state.push(ATX_HEADING, HEADING_TAGS[level]!, 0);
  token.map = [startLine, state.line];
  token.content = asciiTrim(state.src, pos, max);
  return true;
}
/** atxHeadingLine's text range, reused. */
const atxText = { pos: 0, max: 0 };

/**
 * Blocks made while markdown-it parses, with no token of their own: a top-level paragraph
 * (a range of lines) and a top-level ATX heading
 * whose text has no inline syntax are blocks as soon as their lines are read (a heading's text is the
 * line's, trimmed; no reference definition later in the document can change it). On a
 * document of thousands of tiny headings the token, its line map and the block made from
 * them afterwards were a fifth of all the memory a pass allocated (issue 15). The rule pushes
 * `mark` (one shared token) where the heading's token stood, once for a run of direct blocks
 * (see pushMark); fastBlocks takes the blocks in that order.
 */
class DirectBlocks implements ListTarget {
  readonly blocks: BlockArray;
  /** How many blocks each `mark` among the tokens stands for, in order. */
  readonly runs: number[] = [];
  /** The context tokenItem makes blocks in during the parse (the parse's env: see tokenItem). */
  itemCtx: Ctx | null = null;
  /** The items of direct lists left to markdown-it's tokens (see tokenItem). */
  readonly tokenItems: { node: TreeNode | null; items: Block[]; at: number; ordered: boolean }[] = [];
  readonly source: string;
  readonly lines: LineTable;
  readonly mark: Token;
  /** ListTarget's: set only for chunkerBlocks, whose readers know DEFERRED_PARAGRAPH and DEFERRED_NESTED. */
  readonly deferItemParagraphs: boolean;
  /**
   * A class, with an instance that lives as long as the module (below): there is one per
   * document, so its hidden class died at a full GC between documents, and with it the
   * optimized code of every rule that reads it (directHeading, pushMark, directList: "weak
   * objects" or "Insufficient type feedback", see shape-anchor.ts).
   */
  constructor(source: string, lines: LineTable, mark: Token, deferItemParagraphs: boolean) {
    this.source = source;
    this.lines = lines;
    this.mark = mark;
    this.deferItemParagraphs = deferItemParagraphs;
    this.blocks = new BlockArray(lines.starts.length);
  }

  addTokenItem(node: unknown, items: Block[], at: number, ordered: boolean): void {
    // What tokenItem returned: the item's block made already, or its tokens' tree (or null, a
    // block toBlock did not make: left to resolveTokenItems, which takes it out of its list).
    const made = node as TreeNode | Block | null;
    if (made !== null && isBlock(made)) {
      made.ordered = ordered;
      items[at] = made;
    } else this.tokenItems.push({ node: made, items, at, ordered });
  }
}

/**
 * Marks where a direct block stood among the top-level tokens: consecutive direct blocks
 * share one mark (the tokens array and the tree's roots grew a slot per heading on a document
 * of tiny headings, 200,000 a megabyte, and were copied at every growth). Marks are pushed at
 * level 0 only, so a mark last among the tokens is a top-level one, just before this block.
 */
function pushMark(state: StateBlock, into: DirectBlocks): void {
  const tokens = state.tokens;
  if (tokens.length > 0 && tokens[tokens.length - 1] === into.mark) into.runs[into.runs.length - 1]!++;
  else {
    tokens.push(into.mark);
    into.runs.push(1);
  }
}
anchor('direct blocks', new DirectBlocks('', EMPTY_LINES, directMark(), false));
/** Set by fastBlocks for the length of its parse (null: every heading makes a token). */
let direct: DirectBlocks | null = null;
/** Set by chunkerBlocks for the length of its fastBlocks call: direct lists defer their items' paragraphs. */
let deferring = false;
/** Off only in the test that compares chunkDocument's records with and without deferral. */
let deferItemParagraphs = true;

/** Off only in the tests that compare chunkDocument's records with and without deferred quote headings. */
let deferQuoteHeadings = true;

/** For tests: makes chunkerBlocks keep every one-line quote's heading (`on` false), or not. */
export function setDeferQuoteHeadingsForTests(on: boolean): void {
  deferQuoteHeadings = on;
}

/** For tests: makes chunkerBlocks keep every item's paragraph and quote heading (`on` false), or not. */
export function setDeferItemParagraphsForTests(on: boolean): void {
  deferItemParagraphs = on;
}

/**
 * `block.children`, with a deferred child made again (for a reader that needs the children
 * themselves, as splitting an oversized item or quote by its children does): an item's
 * paragraph, a quote's heading, or an item's paragraph and nested list (DEFERRED_NESTED).
 */
export function childrenOf(block: Block, source: string, lines: LineTable): Block[] | undefined {
  const children = block.children;
  if (children === DEFERRED_PARAGRAPH) return [deferredParagraph(block, lines)];
  if (children === DEFERRED_HEADING) return [deferredQuoteHeading(block, source, lines)];
  if (children === DEFERRED_NESTED) return nestedChildren(block, source, lines);
  return children;
}

/**
 * A DEFERRED_NESTED item's children: its lines parsed again alone, then moved to its place. A
 * top-level item is parsed from its own lines only (markdown-it's list rule reads no line
 * before an item's, nor after its end), so its lines alone make one list of that one item.
 */
function nestedChildren(item: Block, source: string, lines: LineTable): Block[] {
  const from = lines.starts[item.startLine]!;
  const alone = fastBlocks(source.slice(from, lines.ends[item.endLine]!));
  const children = alone.blocks.length === 1 ? alone.blocks[0]!.children?.[0]?.children : undefined;
  if (children === undefined || children.length === 0) throw new Error(`fast-blocks: the deferred item on line ${item.startLine + 1} parsed again to ${alone.blocks.length} blocks, not one list of one item`);
  moveBlocks(children, from, item.startLine);
  return children;
}

/** Moves blocks made from a slice (and their children) by `offset` characters and `lineOffset` lines. */
function moveBlocks(blocks: Block[], offset: number, lineOffset: number): void {
  for (let k = 0; k < blocks.length; k++) {
    const block = blocks[k]!;
    block.start += offset;
    block.end += offset;
    block.startLine += lineOffset;
    block.endLine += lineOffset;
    if (block.children !== undefined) moveBlocks(block.children, offset, lineOffset);
  }
}

/**
 * fastBlocks for chunkDocument's own stages: a flat list's one-paragraph items are made with
 * fast-lists' DEFERRED_PARAGRAPH as children (one object an item instead of three: on a long
 * list the paragraphs and their arrays were a third of a pass's allocation, each MB of it
 * faulted in fresh, issue 15), and items of a paragraph and nested lists with DEFERRED_NESTED.
 * Only for blocks that no caller outside the package sees, and whose every reader of item
 * children knows the sentinels (units.ts, childrenOf); fastBlocks' own blocks and stream.ts's
 * keep their children.
 */
export function chunkerBlocks(source: string, lines: LineTable, pool: BlockPool | null = null): FastBlocksResult {
  deferring = deferItemParagraphs;
  try {
    return withBlockPool(pool, () => fastBlocks(source, lines));
  } finally {
    deferring = false;
  }
}
/** Off only in the test that compares the heading blocks with those made from tokens. */
let directHeadings = true;

/** For tests: makes every ATX heading a token again (`on` false), or not. */
export function setDirectHeadingsForTests(on: boolean): void {
  directHeadings = on;
}

/** Off only in the test that compares the paragraph blocks with those made from tokens. */
let directParagraphs = true;

/** For tests: makes every paragraph a token again (`on` false), or not. */
export function setDirectParagraphsForTests(on: boolean): void {
  directParagraphs = on;
}

/**
 * Appends the block toBlock would make of a top-level paragraph's token (lines `startLine`
 * to `lastLine`) and returns true, or returns false where toBlock would make no block of it
 * (no visible character): such a paragraph keeps its token.
 */
function directParagraph(into: DirectBlocks, startLine: number, lastLine: number): boolean {
  const block = paragraphBlock(into.source, into.lines, startLine, lastLine);
  if (block === null) return false;
  into.blocks.push(block, startLine);
  return true;
}

/**
 * Appends the block toBlock would make of a top-level heading's token (`src[pos, max)` its
 * text before trimming, in markdown-it's text; lines `startLine` to `lastLine`, which is the
 * underline of a setext heading) and returns true, or returns false where the heading needs its
 * token (its text has inline syntax).
 */
function directHeading(into: DirectBlocks, src: string, startLine: number, lastLine: number, depth: number, pos: number, max: number): boolean {
  const block = headingBlock(into.source, into.lines, src, startLine, lastLine, depth, pos, max, directInlineText);
  if (block === null) return false;
  into.blocks.push(block, startLine);
  return true;
}

const stockHr = stockRules.get('hr') as BlockRule;

/**
 * markdown-it's thematic break rule; a top-level break is a block at once (see DirectBlocks), as
 * a top-level heading is. Its token, map and markup string and the tree node made of them were
 * most of a pass over a document of many breaks (issue 15: a probe of `***` lines ran at 12 times
 * prose per MB, 500 bytes of garbage a break). Silent mode (a terminator's question) and breaks
 * inside containers are the stock rule's.
 */
function hrDirect(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (silent || direct === null || !directThematicBreaks || state.level !== 0) return stockHr(state, startLine, endLine, silent);
  if (!stockHr(state, startLine, endLine, true)) return false;
  const block = leafBlock('thematicBreak', direct.source, direct.lines, startLine, startLine);
  if (block === null) return stockHr(state, startLine, endLine, false);
  state.line = startLine + 1;
  direct.blocks.push(block, startLine);
  pushMark(state, direct);
  return true;
}
md.block.ruler.at('hr', hrDirect, FENCE_ALT);

/**
 * markdown-it's HTML block rule; a top-level HTML block is a block at once (see DirectBlocks): the
 * rule runs, and its token, read at once, is taken back off the list, so that it and its content
 * string die young instead of living through the parse with a tree node made of them (issue 15
 * probe: a document of `<br>` blocks at 14 times prose per MB, most of it in the collector). Silent
 * mode (a terminator's question) and blocks inside containers are the stock rule's.
 */
function htmlBlockDirect(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (silent || direct === null || !directHtmlBlocks || state.level !== 0) return stockHtmlBlock(state, startLine, endLine, silent);
  const count = state.tokens.length;
  if (!stockHtmlBlock(state, startLine, endLine, false)) return false;
  const token = state.tokens[count];
  if (state.tokens.length !== count + 1 || token === undefined || token.map === null) return true;
  const block = leafBlock('html', direct.source, direct.lines, token.map[0], token.map[1] - 1);
  if (block === null) return true;
  state.tokens.length = count;
  direct.blocks.push(block, startLine);
  pushMark(state, direct);
  return true;
}
md.block.ruler.at('html_block', htmlBlockDirect, { alt: ['paragraph', 'reference', 'blockquote'] });

/** Off only in the test that compares the HTML blocks with those made from tokens. */
let directHtmlBlocks = true;

/** For tests: makes every HTML block a token again (`on` false), or not. */
export function setDirectHtmlBlocksForTests(on: boolean): void {
  directHtmlBlocks = on;
}

/** Off only in the test that compares the thematic break blocks with those made from tokens. */
let directThematicBreaks = true;

/** For tests: makes every thematic break a token again (`on` false), or not. */
export function setDirectThematicBreaksForTests(on: boolean): void {
  directThematicBreaks = on;
}

const HEADING_TAGS = ['', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
md.block.ruler.at('heading', atxHeadingLeaf, { alt: ['paragraph', 'reference', 'blockquote'] });

/** Off only in the test that compares the blocks with and without it. */
let byFirstCharOn = true;

/** For tests: leaves every line to markdown-it's order of rules (`on` false), or not. */
export function setByFirstCharForTests(on: boolean): void {
  byFirstCharOn = on;
}

/** The rule chain last checked by byFirstChar (getRules returns one array until the rules change), and what it found. */
let chainChecked: unknown = null;
/** The blockquote rule of that chain, when the chain is the one byFirstChar knows (else null: it steps aside). */
let chainBlockquote: BlockRule | null = null;
/** markdown-it 15.0.3's rules after ours, in its order: what byFirstChar knows of the rules it passes over. */
const KNOWN_CHAIN = 'by_first_char,table,code,fence,blockquote,hr,list,footnote_def,reference,html_block,heading,lheading,paragraph';

function knownChain(state: StateBlock): BlockRule | null {
  const rules = chainsOf(state).all;
  if (rules !== chainChecked) {
    chainChecked = rules;
    const known = (state.md.block.ruler as unknown as { __rules__: { name: string; enabled: boolean; fn: BlockRule }[] }).__rules__.filter((r) => r.enabled);
    const fn = (name: string): BlockRule | undefined => known.find((r) => r.name === name)?.fn;
    const ours = known.map((r) => r.name).join(',') === KNOWN_CHAIN && fn('lheading') === lheadingSkipping && fn('paragraph') === paragraphWithoutText;
    chainBlockquote = ours ? fn('blockquote')! : null;
  }
  return chainBlockquote;
}

/**
 * A line goes at once to the first rule that may take it, by its first character (after its
 * indentation), rather than through markdown-it's order of rules, each of which says no to
 * most first characters at once:
 * - `#`: the ATX heading rule. Of the eight rules before it, only the table rule can take such
 *   a line (as a table's header row, when the next line may be a delimiter row: then this rule
 *   steps aside), and the others reject it by its first character (fence, blockquote, hr, list,
 *   reference, HTML) or by the indentation the heading rule rejects too (indented code). On a
 *   document of tiny headings those eight calls a line were a fifth of the parse (issue 15).
 * - `>`: the blockquote rule (before it, table, code and fence, which say no likewise).
 * - a character none of the rules before lheading starts with (a letter, most lines): lheading,
 *   then the paragraph rule. On quotes each ended by a lazy line (`> # h`, `lazy N`), the twelve
 *   calls a lazy line made through the rules were a sixth of the parse (issue 15).
 * Lines indented four columns past the container, and every other first character, keep
 * markdown-it's order. Never a terminator (silent mode says no): terminators keep their order.
 */
function byFirstChar(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (silent || !byFirstCharOn) return false;
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  const c = state.src.charCodeAt(state.bMarks[startLine]! + state.tShift[startLine]!);
  const plain = c >= 128 || (MAY_INTERRUPT[c] === 0 && c !== 0x5b);
  if (c !== 0x23 && c !== 0x3e && !plain) return false;
  if (delimiterRowMayFollow(state, startLine, endLine)) return false;
  // The heading rule is always ours, and every rule before it says no to `#` whatever it is.
  if (c === 0x23) return atxHeadingLeaf(state, startLine, endLine, false);
  const blockquote = knownChain(state);
  if (blockquote === null) return false;
  if (c === 0x3e) return blockquote(state, startLine, endLine, false);
  return lheadingSkipping(state, startLine, endLine) || paragraphWithoutText(state, startLine, endLine);
}
md.block.ruler.before('table', 'by_first_char', byFirstChar);

/** markdown-it's asciiTrim of `src.slice(start, end)` (space, tab, CR, LF), slicing once. */
function asciiTrim(src: string, start: number, end: number): string {
  while (start < end && isAsciiTrimmable(src.charCodeAt(start))) start++;
  while (end > start && isAsciiTrimmable(src.charCodeAt(end - 1))) end--;
  return src.slice(start, end);
}

/**
 * markdown-it 15's Token constructor sets each of its 13 fields through a
 * transpiled `_defineProperty` helper, which was ~5% of our time. Block tokens
 * are made here instead: same fields, defaults and prototype, pushed by the same
 * logic as markdown-it 15.0.3's `StateBlock.push`.
 *
 * Its block state's constructor is replaced too: it walked every character of
 * the document to find line ends and grew five arrays a push at a time (3% of
 * our time, an eighth of the memory we allocated). `lineMarks` finds line ends
 * with `indexOf`, reads only each line's indentation and fills typed arrays of
 * the exact size. The conformance test against remark would show any difference
 * in the blocks.
 */
function fastBlockState(Base: typeof md.block.State): typeof md.block.State {
  const TokenClass = tokenClass();
  const TokenCtor = plainToken();

  function BlockState(this: StateBlock, src: string, parser: MarkdownItInstance, env: Env, tokens: Token[]): void {
    // fastBlocks hands over its line table when `src` breaks lines where the source does.
    const known = pendingLines !== null && pendingLines.src === src ? pendingLines.lines : undefined;
    pendingLines = null;
    const marks = lineMarks(src, known, pooledMarks);
    // markdown-it 15.0.3's fields in its order. Its rules only index these
    // arrays and store integers in them, so typed arrays serve (the type says number[]).
    this.bMarks = marks.bMarks as unknown as number[];
    this.eMarks = marks.eMarks as unknown as number[];
    this.tShift = marks.tShift as unknown as number[];
    this.sCount = marks.sCount as unknown as number[];
    this.bsCount = marks.bsCount as unknown as number[];
    this.blkIndent = 0;
    this.line = 0;
    this.lineMax = marks.lineMax;
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
  makeMark = () => {
    const mark = new TokenCtor(DIRECT_MARK, '', 0);
    mark.block = true;
    return mark;
  };
  BlockState.prototype = Object.create(Base.prototype) as StateBlock;
  BlockState.prototype.constructor = BlockState;
  BlockState.prototype.push = function push(this: StateBlock, type: string, tag: string, nesting: -1 | 0 | 1): Token {
    const token = new TokenCtor(type, tag, nesting);
    token.block = true;
    if (nesting < 0) this.level--;
    token.level = this.level;
    if (nesting > 0) this.level++;
    this.tokens.push(token);
    return token;
  };
  return BlockState as unknown as typeof Base;
}

/** markdown-it's own Token class, from a core state made before the core state is replaced. */
function tokenClass(): (typeof md.core.State.prototype)['Token'] {
  return (stockTokenClass ??= new md.core.State('', md, {}).Token);
}

/** The plain Token constructor of this module's instance (see @chunkyard/keywords' markdown-it-states). */
function plainToken(): (typeof md.core.State.prototype)['Token'] {
  return (plainTokenCtor ??= plainTokenConstructor(tokenClass()));
}

/** Off only in the test that compares the blocks with and without it. */
let sharedMarks = true;

/** For tests: makes lineMarks copy the line table's starts and ends (`on` false), or not. */
export function setSharedMarksForTests(on: boolean): void {
  sharedMarks = on;
}

/** Off only in the test that compares the blocks with and without it. */
let pooledMarks = true;

/** For tests: makes every parse allocate its own tShift, sCount and bsCount (`on` false), or not. */
export function setPooledMarksForTests(on: boolean): void {
  pooledMarks = on;
}

/**
 * The buffer the block state's tShift, sCount and bsCount are views of, kept from one parse to
 * the next: they die with the parse (no token or block refers to them). Typed arrays of a
 * megabyte are memory fresh from the system at each allocation: on 1 MB of tiny lines (333,000
 * lines) those three were ~980 page faults a pass, more than half of fastBlocks' time (issue 15).
 */
let markPool: Int32Array | null = null;
/** Lines past which a parse allocates its own arrays, so that the pool keeps at most 12 MB. */
const MAX_POOLED_LINES = 1 << 20;

/** The line table of the text fastBlocks is about to parse, for the block state's constructor. */
let pendingLines: { src: string; lines: LineTable } | null = null;

interface LineMarks {
  bMarks: Int32Array;
  eMarks: Int32Array;
  tShift: Int32Array;
  sCount: Int32Array;
  bsCount: Int32Array;
  lineMax: number;
}

/**
 * What markdown-it 15.0.3's StateBlock constructor computes per line: start,
 * end (before the `\n`), indentation in characters (`tShift`) and in columns
 * with tabs to multiples of 4 (`sCount`), then one empty line at the end. Like
 * markdown-it, a last line without a line break that holds only spaces and
 * tabs is left out. Exported for its test against markdown-it's own.
 */
export function lineMarks(src: string, table?: LineTable, pooled = false): LineMarks {
  const len = src.length;
  let lines = 0;
  let lastBreak = -1;
  if (table) {
    // The table's lines are split at `\n` alone (src has no `\r`); its last line starts after the last break.
    lines = table.starts.length - 1;
    lastBreak = table.starts[lines]! - 1;
  } else {
    for (let nl = src.indexOf('\n'); nl !== -1; nl = src.indexOf('\n', nl + 1)) {
      lines++;
      lastBreak = nl;
    }
  }
  for (let pos = lastBreak + 1; pos < len; pos++) {
    const ch = src.charCodeAt(pos);
    if (ch !== 32 && ch !== 9) {
      lines++;
      break;
    }
  }
  let bMarks: Int32Array;
  let eMarks: Int32Array;
  const size = lines + 1;
  let tShift: Int32Array;
  let sCount: Int32Array;
  let bsCount: Int32Array;
  if (pooled && size <= MAX_POOLED_LINES) {
    if (markPool === null || markPool.length < 3 * size) markPool = new Int32Array(3 * Math.min(MAX_POOLED_LINES, Math.max(size, 4096)));
    tShift = markPool.subarray(0, size);
    sCount = markPool.subarray(size, 2 * size);
    bsCount = markPool.subarray(2 * size, 3 * size);
    // The loop below sets tShift and sCount of every line but the last (empty) one.
    tShift[lines] = 0;
    sCount[lines] = 0;
    bsCount.fill(0);
  } else {
    tShift = new Int32Array(size);
    sCount = new Int32Array(size);
    bsCount = new Int32Array(size);
  }
  if (table && lines + 1 === table.starts.length && table.starts[lines] === len && sharedMarks) {
    // A text ending with a line break: the table's starts and ends are bMarks and eMarks, the
    // empty line after the break included (issue 15: two arrays a line, allocated and copied,
    // for nothing). The rules that change bMarks (the blockquote rule) restore it before they
    // return, and the blocks made during the parse (at the top level) are made outside them.
    bMarks = table.starts;
    eMarks = table.ends;
  } else if (table) {
    bMarks = new Int32Array(lines + 1);
    eMarks = new Int32Array(lines + 1);
    // Starts and ends are the table's (its lines are these, and one more when the last is blank).
    const copied = Math.min(lines, table.starts.length);
    bMarks.set(table.starts.subarray(0, copied));
    eMarks.set(table.ends.subarray(0, copied));
  } else {
    bMarks = new Int32Array(lines + 1);
    eMarks = new Int32Array(lines + 1);
    for (let line = 0, start = 0; line < lines; line++) {
      const nl = src.indexOf('\n', start);
      const end = nl === -1 ? len : nl;
      bMarks[line] = start;
      eMarks[line] = end;
      start = end + 1;
    }
  }
  // Each line's indentation, as markdown-it's StateBlock reads it (a tab to the next multiple of 4).
  for (let line = 0; line < lines; line++) {
    const start = bMarks[line]!;
    const end = eMarks[line]!;
    let pos = start;
    let offset = 0;
    for (; pos < end; pos++) {
      const ch = src.charCodeAt(pos);
      if (ch === 32) offset++;
      else if (ch === 9) offset += 4 - (offset % 4);
      else break;
    }
    tShift[line] = pos - start;
    sCount[line] = offset;
  }
  bMarks[lines] = len;
  eMarks[lines] = len;
  return { bMarks, eMarks, tShift, sCount, bsCount, lineMax: lines };
}

export interface FastBlocksResult {
  frontMatter: FrontMatter | null;
  blocks: Block[];
}

let emptyStatesMade = false;

/**
 * Makes the first core, block and inline states over an empty text, before any document's: the
 * first instance of each is the one anchoredClass keeps for the life of the process, and the
 * first document's kept its source and line marks (7.6 MiB after a first document of 3 MB of
 * tiny headings, 25 MiB after 10 MB).
 */
function anchorEmptyStates(): void {
  if (emptyStatesMade) return;
  emptyStatesMade = true;
  new md.core.State('', md, {});
  new md.block.State('', md, {}, []);
  new md.inline.State('', md, {}, []);
}

/** Off only in the tests that compare flat-blocks' blocks with markdown-it's. */
let flatOn = true;
/** Documents flat-blocks has read since the last call (for tests: that a generator reaches it). */
let flatDocuments = 0;

/** For tests: reads every document through markdown-it (`on` false), or lets flat-blocks read flat ones; returns the flat documents read since the last call. */
export function setFlatBlocksForTests(on: boolean): number {
  flatOn = on;
  const read = flatDocuments;
  flatDocuments = 0;
  return read;
}

// `env`: markdown-it's environment, where reference definitions collect; a document chunked in
// sections (stream.ts) passes the whole document's, so heading texts resolve links alike.
export function fastBlocks(source: string, lines: LineTable = lineTable(source), env: Record<string, unknown> = {}): FastBlocksResult {
  anchorEmptyStates();
  const frontMatter = findFrontMatter(source);
  // markdown-it splits lines on `\n` only: give it `\n` line breaks, one per
  // original break, so its line numbers are those of `lines`. NUL becomes
  // U+FFFD as CommonMark requires (markdown-it's own normalize step does this).
  let text = blankOut(source, frontMatter);
  const hasCr = text.includes('\r');
  const hasNul = text.includes('\0');
  // A flat document (flat-blocks.ts) is read line by line: on block-dense documents markdown-it's
  // state and rule chain per line were most of the parse. Its lines must be `lines`' (no CR, no
  // NUL replaced), and the tests that make blocks through tokens turn it off with the direct rules.
  if (!hasCr && !hasNul && flatOn && directHeadings && directParagraphs) {
    const flat = flatBlocks(text, source, lines, directInlineText);
    flatDocuments += flat !== null ? 1 : 0;
    if (flat !== null) return { frontMatter, blocks: flat };
  }
  if (hasCr || hasNul) text = markdownItText(text);
  const tokens: Token[] = [];
  const made = directHeadings ? new DirectBlocks(source, lines, directMark(), deferring) : null;
  // Without a CR, text breaks lines exactly where `lines` does (blanking and NUL replacement
  // keep every character's place): the block state reuses the table instead of finding them again.
  pendingLines = !hasCr && lines.ends[lines.ends.length - 1] === text.length ? { src: text, lines } : null;
  direct = made;
  // A parse that threw would have left its quotes' marks stored.
  scratchTop = 0;
  quoteWindows = null;
  indentedDefinitions = null;
  try {
    md.block.parse(text, md, env, tokens);
  } finally {
    pendingLines = null;
    direct = null;
    // Grown for this document's quotes: not held strongly at that size for the rest of the process.
    if (scratch.length > STRONG_MOST) {
      largeScratch.keep(scratch, scratch.length);
      scratch = new Int32Array(4096);
    }
    // Set only between two rules; a parse that threw there must not keep its state alive.
    paragraphEnd.state = null;
    // Nor its last interrupted paragraph's (the state holds the document and its tokens).
    interruptedState = null;
  }
  parsedTokens = tokens.length;
  // One token keeps the (single) hidden class of block tokens alive; see shape-anchor.ts.
  if (tokens.length) anchor('markdown-it token', tokens[tokens.length - 1]);
  const tree = buildTree(tokens);
  const ctx = new Ctx(source, lines, env, indentedDefinitions);
  indentedDefinitions = null;
  deferredItems = made !== null ? made.tokenItems.length : 0;
  if (made !== null && made.tokenItems.length) resolveTokenItems(made, ctx);
  // A document of direct blocks alone (one mark) has its block list made already.
  const madeBlocks = made !== null ? made.blocks.toArray() : NO_BLOCKS;
  if (made !== null && tree.length === 1 && tree[0] === made.mark) return { frontMatter, blocks: addUncoveredLines(madeBlocks, ctx, frontMatter) };
  const blocks = new BlockArray(lines.starts.length);
  let nextMade = 0;
  let run = 0;
  for (const node of tree) {
    if (made !== null && node === made.mark) {
      // The direct blocks, in the order their marks stand among the top-level tokens.
      for (let end = nextMade + made.runs[run++]!; nextMade < end; nextMade++) blocks.push(madeBlocks[nextMade]!, madeBlocks[nextMade]!.startLine);
      continue;
    }
    const block = toBlock(node, ctx, 'exact');
    if (block !== null) blocks.push(block, block.startLine);
  }
  return { frontMatter, blocks: addUncoveredLines(blocks.toArray(), ctx, frontMatter) };
}

/**
 * `text.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD')`, written into one buffer. V8 builds a
 * global regex replacement from a part per match: 1 MB of tiny lines ended by CR made 29 MB of
 * them, a third of the pass in the collector (issue 15). One byte a character when every
 * character fits (the result is then a one-byte string, as the source was), else two.
 */
export function markdownItText(text: string): string {
  const n = text.length;
  let wide = false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    // U+FFFD for NUL needs two bytes too.
    if (c > 0xff || c === 0) {
      wide = true;
      break;
    }
  }
  if (!wide) {
    const bytes = Buffer.allocUnsafeSlow(n);
    bytes.write(text, 0, n, 'latin1');
    return bytes.toString('latin1', 0, withLineFeeds(bytes, n));
  }
  const buffer = Buffer.allocUnsafeSlow(2 * n);
  buffer.write(text, 0, 2 * n, 'utf16le');
  const units = new Uint16Array(buffer.buffer, buffer.byteOffset, n);
  for (let i = 0; i < n; i++) if (units[i] === 0) units[i] = 0xfffd;
  return buffer.toString('utf16le', 0, 2 * withLineFeeds(units, n));
}

/** Rewrites `units[0, n)` in place with each CR LF or lone CR as one LF; returns the new length. */
function withLineFeeds(units: Uint8Array | Uint16Array, n: number): number {
  let w = 0;
  for (let r = 0; r < n; r++) {
    const c = units[r]!;
    if (c === 13) {
      units[w++] = 10;
      if (r + 1 < n && units[r + 1] === 10) r++;
    } else units[w++] = c;
  }
  return w;
}

/** The token items of the last fastBlocks parse whose blocks were made after it (see tokenItem). */
let deferredItems = 0;

/** For tests: how many token items the last fastBlocks parse left to resolveTokenItems. */
export function deferredItemsForTests(): number {
  return deferredItems;
}

/** The markdown-it tokens of the last fastBlocks parse (a run of direct blocks is one mark token). */
let parsedTokens = 0;

/** For tests: how many markdown-it tokens the last fastBlocks parse made. */
export function parsedTokensForTests(): number {
  return parsedTokens;
}

/** A class with a lasting instance, for the reason DirectBlocks is one. */
class Ctx {
  readonly source: string;
  readonly lines: LineTable;
  readonly env: Record<string, unknown>;
  /** Top-level lines where a definition indented four columns or more starts (see referenceThenLazy). */
  readonly indentedDefinitions: Set<number> | null;
  constructor(source: string, lines: LineTable, env: Record<string, unknown>, indentedDefinitions: Set<number> | null) {
    this.source = source;
    this.lines = lines;
    this.env = env;
    this.indentedDefinitions = indentedDefinitions;
  }
}
anchor('fast-blocks context', new Ctx('', EMPTY_LINES, {}, null));

interface TokenNode {
  open: Token;
  children: TreeNode[];
  /** Inline tokens directly inside (heading text, table cells). */
  inline: Token[];
}

/**
 * A container (an open token, what it holds) or a leaf token itself: a leaf (paragraph,
 * heading, fence…) has no children and no inline tokens, so it needs no node of its own.
 */
type TreeNode = TokenNode | Token;

const isContainer = (node: TreeNode): node is TokenNode => 'open' in node;

/** A block, not a tree node (a token or a TokenNode): what tokenItem may return. */
const isBlock = (node: TreeNode | Block): node is Block => 'startLine' in node;

// Shared by every node without children or inline tokens (most of them), so that
// building the tree allocates two arrays only where they are filled. Frozen:
// a push onto them would throw instead of leaking into other nodes.
const NO_NODES: TreeNode[] = Object.freeze([]) as unknown as TreeNode[];
const NO_TOKENS: Token[] = Object.freeze([]) as unknown as Token[];
const NO_BLOCKS: Block[] = Object.freeze([]) as unknown as Block[];

function buildTree(tokens: Token[]): TreeNode[] {
  const roots: TreeNode[] = [];
  const stack: TokenNode[] = [];
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t]!;
    if (token.type === 'tbody_open') {
      // A table's body rows are never read (its block is a range; only the header's cells
      // are): no node per body cell, which were most of the objects of a wide table.
      let depth = 1;
      while (depth > 0 && ++t < tokens.length) depth += tokens[t]!.nesting;
      continue;
    }
    // A top-level definition makes no block here (addUncoveredLines makes it one from its
    // lines): no root, where a page of them grew the roots a slot each and sent the blocks off
    // the direct blocks' one-mark path.
    if (stack.length === 0 && token.type === 'reference_definition') continue;
    if (token.nesting === 1) {
      const node: TokenNode = { open: token, children: NO_NODES, inline: NO_TOKENS };
      addChild(stack, roots, node);
      stack.push(node);
    } else if (token.nesting === -1) {
      stack.pop();
    } else if (token.type === 'inline') {
      const parent = stack[stack.length - 1];
      if (parent) {
        // One inline token per container as a rule (a paragraph's, a heading's): an array of one.
        if (parent.inline === NO_TOKENS) parent.inline = [token];
        else parent.inline.push(token);
      }
    } else {
      addChild(stack, roots, token);
    }
  }
  return roots;
}

function addChild(stack: TokenNode[], roots: TreeNode[], node: TreeNode): void {
  const parent = stack[stack.length - 1];
  if (!parent) {
    roots.push(node);
    return;
  }
  // Most containers hold one or two nodes (an item's paragraph and its nested list): arrays of
  // exactly that many, where `[]` and a push made room for 17 (issue 15, nested lists).
  const children = parent.children;
  if (children === NO_NODES) parent.children = [node];
  else if (children.length === 1) parent.children = [children[0]!, node];
  else children.push(node);
}

const TYPE_OF: Record<string, BlockType> = {
  heading_open: 'heading',
  [ATX_HEADING]: 'heading',
  [PARAGRAPH]: 'paragraph',
  blockquote_open: 'blockquote',
  [FOOTNOTE_OPEN]: 'footnoteDefinition',
  bullet_list_open: 'list',
  ordered_list_open: 'list',
  list_item_open: 'listItem',
  table_open: 'table',
  fence: 'code',
  code_block: 'code',
  html_block: 'html',
  hr: 'thematicBreak',
};

type RangeMode = 'exact' | 'lines';

function toBlock(node: TreeNode, ctx: Ctx, mode: RangeMode): Block | null {
  const container = isContainer(node) ? node : null;
  const token = container ? container.open : (node as Token);
  const type = TYPE_OF[token.type];
  if (!type || !token.map) return null;
  let children: Block[] | undefined;
  if (container && (type === 'list' || type === 'listItem' || type === 'blockquote' || type === 'footnoteDefinition')) {
    const childMode = type === 'list' ? mode : 'lines';
    // Indexed loops here and below: a `for…of` made an iterator result per child where V8 did
    // not optimize it away (14 MB a pass over 1 MB of lists of nested items, issue 15).
    const nodes = container.children;
    // Made at the children's number (`[]` and a push made room for 17 where most containers
    // hold one or two), and cut to the blocks made.
    children = new Array<Block>(nodes.length);
    let made = 0;
    for (let k = 0; k < nodes.length; k++) {
      const child = toBlock(nodes[k]!, ctx, childMode);
      if (child !== null) children[made++] = child;
    }
    if (made < nodes.length) children.length = made;
  }
  const startLine = token.map[0];
  const { source, lines } = ctx;
  // A footnote's label line holds a definition only after its label: not when that is all it holds.
  const firstContentLine = type === 'footnoteDefinition' && token.meta === LABEL_ALONE ? startLine + 1 : startLine;
  if (children && type !== 'list') addUncoveredDefinitions(children, firstContentLine, token.map[1] - 1, ctx);
  if (children && !sortedByStart(children)) children.sort((a, b) => a.start - b.start);
  // A list item ends with its last child (its map can run over trailing blank
  // lines); lists and quotes end with their map, less trailing whitespace, as in remark.
  let lastLine = token.map[1] - 1;
  if (type === 'listItem' && children && children.length) {
    lastLine = children[0]!.endLine;
    for (let k = 1; k < children.length; k++) if (children[k]!.endLine > lastLine) lastLine = children[k]!.endLine;
  } else if (type === 'listItem' && children && token.level + 1 < md.options.maxNesting) {
    // An empty item is its marker's line: markdown-it's map runs a line on, and in a quote that
    // line's `>` is no whitespace to trim (`>-` then `>` made an item of both lines). Not an item
    // at markdown-it's nesting limit, whose content was left untokenized: it covers its lines.
    lastLine = startLine;
  }
  const exactStart = skipWhitespace(source, lines.starts[startLine]!, lines.ends[lastLine]!);
  const end = trimEndOffset(source, exactStart, lines.ends[lastLine]!);
  if (end <= exactStart) return null;
  if (type === 'heading') {
    // All seven fields in one literal, as directHeading makes headings (see there).
    const text = token.type === ATX_HEADING ? token.content : (container?.inline ?? NO_TOKENS).map((t) => t.content).join('');
    return {
      type,
      start: mode === 'exact' ? exactStart : lines.starts[startLine]!,
      end,
      startLine,
      endLine: lastLineOf(lines, end, lastLine),
      depth: Number(token.tag.slice(1)),
      text: plainText(text, ctx),
    };
  }
  if (type === 'list' && children) {
    // All seven fields in one literal, as fast-lists' directList makes lists (one hidden class).
    const ordered = token.type === 'ordered_list_open';
    for (let k = 0; k < children.length; k++) children[k]!.ordered = ordered;
    return {
      type,
      start: mode === 'exact' ? exactStart : lines.starts[startLine]!,
      end,
      startLine,
      endLine: lastLineOf(lines, end, lastLine),
      ordered,
      children,
    };
  }
  if (type === 'blockquote' && children) {
    return quoteBlock(mode === 'exact' ? exactStart : lines.starts[startLine]!, end, startLine, lastLineOf(lines, end, lastLine), children);
  }
  if (type === 'listItem' && children) {
    // All seven fields in one literal, as fast-lists' itemBlock makes items (`ordered` is set by
    // the item's list, as below): one object per item, not one and a property array.
    return {
      type,
      start: mode === 'exact' ? exactStart : lines.starts[startLine]!,
      end,
      startLine,
      endLine: lastLineOf(lines, end, lastLine),
      children,
      ordered: false,
    };
  }
  const block: Block = {
    type,
    start: mode === 'exact' ? exactStart : lines.starts[startLine]!,
    end,
    startLine,
    endLine: lastLineOf(lines, end, lastLine),
  };
  switch (token.type) {
    case 'fence': {
      block.fenced = true;
      const info = md.utils.unescapeAll(token.info).trim();
      block.lang = info ? (info.split(/\s+/)[0] ?? null) : null;
      break;
    }
    case 'code_block':
      block.fenced = false;
      block.lang = null;
      break;
    case 'table_open':
      // tableWithoutCells leaves the header's cells on the open token; markdown-it's own rule (tests) makes cell tokens.
      block.header = tableHeaderCells(token)?.map((cell) => plainText(cell, ctx)) ?? (container ? tableHeader(container, ctx) : []);
      // A table block's hidden class (with `header`) is used by few documents: kept alive past
      // documents without tables, so that the stages reading `header` stay optimized (see
      // shape-anchor.ts; without it every few passes of the npm docs deoptimized toBlock and
      // chunkShape, "Insufficient type feedback" after a full GC had dropped the class).
      anchor('table block', block);
      break;
    case 'bullet_list_open':
    case 'ordered_list_open':
      block.ordered = token.type === 'ordered_list_open';
      for (const item of children ?? []) item.ordered = block.ordered;
      break;
    default:
      break;
  }
  if (children) block.children = children;
  return block;
}

/** The header cells tableWithoutCells left on a table's open token (markdown-it's own rule leaves none). */
function tableHeaderCells(token: Token): string[] | undefined {
  return (token.meta as { header?: string[] } | null)?.header;
}

function tableHeader(node: TokenNode, ctx: Ctx): string[] {
  const thead = node.children.find((c): c is TokenNode => isContainer(c) && c.open.type === 'thead_open');
  const row = thead?.children.find((c): c is TokenNode => isContainer(c) && c.open.type === 'tr_open');
  return (row?.children ?? []).map((cell) => plainText((isContainer(cell) ? cell.inline : NO_TOKENS).map((t) => t.content).join(''), ctx));
}

// Characters where one of markdown-it's inline rules (with our options: no
// linkify, no typographer) or its normalize step could start; text free of
// them parses to one text token holding the text itself.
const INLINE_SYNTAX = /[\n\r\0\\`~*_[!<&]/;

/** Inline markdown → plain text, as mdast-util-to-string renders the mdast of it. */
export function plainText(inlineSource: string, ctx: Pick<Ctx, 'env'>): string {
  if (!INLINE_SYNTAX.test(inlineSource) || !hasLiveSyntax(inlineSource)) return inlineSource;
  const spans = codeSpansOnly(inlineSource);
  if (spans !== null) return spans;
  // Emphasis alone is paired by markdown-it's own algorithm without its tokens (emphasis-text.ts):
  // a heading of a megabyte of `*word*` made a token and a delimiter object per `*` (issue 15).
  const emphasized = emphasisOnlyText(inlineSource, md.utils);
  if (emphasized !== null) return emphasized;
  // Without a `[` the text's parse does not depend on the document's definitions (ctx.env):
  // one parse per distinct text. Headings repeat ("*Optional*", "`options`" in every section of
  // API docs), and markdown-it's inline parse of each, its core state, tokens and delimiters, was
  // most of a document of short headings with emphasis (issue 15 probe: 21 times prose per MB).
  if (inlineSource.length > MAX_MEMO_TEXT || inlineSource.includes('[')) return parsedPlainText(inlineSource, ctx);
  let text = plainTexts.get(inlineSource);
  if (text === undefined) {
    if (plainTexts.size >= MAX_MEMO_TEXTS) plainTexts.clear();
    // Both copied: a heading's text is a slice of its document, which the memo must not keep.
    text = detached(parsedPlainText(inlineSource, ctx));
    plainTexts.set(detached(inlineSource), text);
  }
  return text;
}

/**
 * A top-level heading's plain text where it has inline syntax but no `[` (InlineText): plainText
 * of its text, which then depends on nothing else, so the heading is a block at once. A `[` may
 * be a reference to a definition further down, known only once the whole document is parsed:
 * such a heading keeps its token. Headings of code spans or emphasis (`### \`options\``, in
 * every section of API docs) made a token, a tree node and a parse each (issue 15 probe: tiny
 * headings of one code span at 7 to 9 times prose per MB).
 */
function directInlineText(src: string, pos: number, max: number): string | null {
  // Not src.indexOf('[', pos): on a document without one that reads to its end for every heading.
  for (let k = pos; k < max; k++) if (src.charCodeAt(k) === 0x5b) return null;
  return plainText(src.slice(pos, max), NO_DEFINITIONS);
}
const NO_DEFINITIONS = { env: {} };

/** Plain texts of inline sources without `[`, by source (see plainText); emptied when full. */
const plainTexts = new Map<string, string>();
const MAX_MEMO_TEXTS = 4096;
/** The longest source kept there: a long one is seldom repeated, and would be held. */
const MAX_MEMO_TEXT = 256;

/** Syntax characters that start a rule whatever else the text holds. */
const ALWAYS_LIVE = /[\n\r\0\\`~*_]/;

/**
 * Whether `src` (which holds one of INLINE_SYNTAX's characters) holds one that can start
 * something: `[` and `!` (links, images, references) only where a `]` is in the text too, `<`
 * (autolinks, HTML) only with a `>`, `&` (entities) only with a `;`; without its closer each is
 * text to every rule, and the parse gives the text itself. markdown-it's link rule reads ahead
 * from each `[` to its nesting limit, 2 µs a bracket: a heading of a million `[` took 2 s (a
 * probe of issue 15's huge headings, at 48 times prose per MB).
 */
function hasLiveSyntax(src: string): boolean {
  if (ALWAYS_LIVE.test(src)) return true;
  return ((src.includes('[') || src.includes('!')) && src.includes(']')) || (src.includes('<') && src.includes('>')) || (src.includes('&') && src.includes(';'));
}

/**
 * Plain text of inline markdown whose only syntax is code spans (API headings:
 * "`fs.readFile(path[, options], callback)`", "Class: `Buffer`"), or null for
 * anything else. A code span's text is its content as written; spans whose
 * content starts or ends with a space (stripped by the parser) or whose
 * opening run has no closing run of the same length are left to the parser.
 */
function codeSpansOnly(src: string): string | null {
  let out = '';
  let textStart = 0;
  let i = 0;
  while (i < src.length) {
    const c = src.charCodeAt(i);
    if (c !== 0x60) {
      if (INLINE_SYNTAX_CODES.has(c)) return null;
      i++;
      continue;
    }
    let open = i;
    while (open < src.length && src.charCodeAt(open) === 0x60) open++;
    const run = open - i;
    // The closing run: the next run of backticks exactly as long as the opening one.
    let close = -1;
    for (let k = open; k < src.length; ) {
      const p = src.indexOf('`', k);
      if (p === -1) break;
      let q = p;
      while (q < src.length && src.charCodeAt(q) === 0x60) q++;
      if (q - p === run) {
        close = p;
        break;
      }
      k = q;
    }
    if (close <= open) return null;
    if (src.charCodeAt(open) === 32 || src.charCodeAt(close - 1) === 32 || /[\n\r\0]/.test(src.slice(open, close))) return null;
    out += src.slice(textStart, i) + src.slice(open, close);
    i = close + run;
    textStart = i;
  }
  return out + src.slice(textStart);
}

const INLINE_SYNTAX_CODES = new Set([...'\n\r\0\\~*_[!<&'].map((ch) => ch.charCodeAt(0)));

/** For tests: markdown-it's `parseInline` on this module's instance (its own core and inline states). */
export function inlineTokensForTests(src: string, env: Record<string, unknown>): Token[] {
  return md.parseInline(src, env);
}

let inlineParses = 0;

/** For tests: how many texts went through markdown-it's inline parser since the last call. */
export function inlineParsesForTests(): number {
  const n = inlineParses;
  inlineParses = 0;
  return n;
}

/** plainText through markdown-it's inline parser (exported for the test of the shortcut). */
export function parsedPlainText(inlineSource: string, ctx: Pick<Ctx, 'env'>): string {
  inlineParses++;
  const [inline] = md.parseInline(inlineSource, ctx.env);
  let out = '';
  for (const t of inline?.children ?? []) {
    switch (t.type) {
      case 'text':
      case 'code_inline':
      case 'html_inline':
        out += t.content;
        break;
      case 'image':
        out += t.content;
        break;
      case 'softbreak':
        out += '\n';
        break;
      default:
        break;
    }
  }
  return out;
}

/** A container's indentation and `>` markers, and on an item's first line its marker (and those of the items and quotes opened on the same line). */
const CONTAINER_PREFIX = /(?:[\s>]|[-*+](?=[ \t])|[0-9]{1,9}[.)](?=[ \t]))*/y;

/**
 * Whether a line of a container starts a definition: `[` after the container's prefix
 * (CONTAINER_PREFIX): remark keeps `- [d]: /u` as an item holding a definition. A footnote
 * definition's label (`[^1]:`, as footnoteLabelEnd reads one) opens a container too: an empty
 * quote or item in a footnote (`[^1]:>`) held the footnote's own label as a definition.
 */
function startsDefinitionInContainer(text: string): boolean {
  let at = 0;
  for (;;) {
    CONTAINER_PREFIX.lastIndex = at;
    CONTAINER_PREFIX.test(text);
    at = CONTAINER_PREFIX.lastIndex;
    if (text.charCodeAt(at) !== 0x5b) return false;
    const afterLabel = footnoteLabelEnd(text, at, text.length);
    if (afterLabel < 0) return true;
    at = afterLabel;
  }
}

/**
 * Appends to `children` a definition block for each line inside a container that none of
 * its children covers and that starts a link reference definition (after the container's
 * `>` markers and indentation): markdown-it drops those, remark keeps them as children.
 * Covered lines are marked once, not looked up child by child for every line (which was
 * quadratic in a quote of thousands of paragraphs).
 */
function addUncoveredDefinitions(children: Block[], first: number, last: number, ctx: Ctx): void {
  if (last < first) return;
  const { source, lines } = ctx;
  const count = children.length;
  // Small containers (most list items) are checked child by child, without an array.
  let covered: Uint8Array | null = null;
  if ((last - first + 1) * count > 64) {
    covered = new Uint8Array(last - first + 1);
    for (let k = 0; k < count; k++) {
      const c = children[k]!;
      const from = Math.max(c.startLine, first);
      const to = Math.min(c.endLine, last);
      if (from <= to) covered.fill(1, from - first, to - first + 1);
    }
  }
  // The definition the line before started or continued (one written over several lines:
  // `[d]:` then its destination, or a title, on the next), as addUncoveredLines joins them.
  let current: Block | null = null;
  for (let line = first; line <= last; line++) {
    if (covered !== null ? covered[line - first] === 1 : coveredBy(children, count, line)) {
      current = null;
      continue;
    }
    const ls = lines.starts[line]!;
    const le = lines.ends[line]!;
    const text = source.slice(ls, le);
    if (startsDefinitionInContainer(text)) {
      current = { type: 'definition', start: ls, end: trimEndOffset(source, ls, le), startLine: line, endLine: line };
      children.push(current);
    } else if (current !== null && !CONTAINER_BLANK.test(text)) {
      current.end = trimEndOffset(source, ls, le);
      current.endLine = line;
    } else current = null;
  }
}

/** A line holding nothing but a container's indentation and `>` markers. */
const CONTAINER_BLANK = /^[\s>]*$/;

/** Some of the first `count` blocks spans `line`. */
function coveredBy(blocks: Block[], count: number, line: number): boolean {
  for (let k = 0; k < count; k++) {
    const b = blocks[k]!;
    if (b.startLine <= line && line <= b.endLine) return true;
  }
  return false;
}

/** Whether `blocks` is in order of start already (Array.prototype.sort is stable: it would leave it as it is). */
function sortedByStart(blocks: Block[]): boolean {
  for (let k = 1; k < blocks.length; k++) if (blocks[k]!.start < blocks[k - 1]!.start) return false;
  return true;
}

/**
 * Non-blank top-level lines that no block covers are link reference
 * definitions (markdown-it stores them in `env` and emits no token). They
 * become `definition` blocks, one per definition, so that every
 * non-whitespace character lies in some block.
 */
function addUncoveredLines(blocks: Block[], ctx: Ctx, frontMatter: FrontMatter | null): Block[] {
  const { source, lines } = ctx;
  const count = lines.starts.length;
  const covered = new Uint8Array(count);
  // Stores, not covered.fill: a call per block was most of this function's time on 200,000 one-line headings.
  for (let k = 0; k < blocks.length; k++) {
    const b = blocks[k]!;
    for (let line = b.startLine, last = Math.min(b.endLine, count - 1); line <= last; line++) covered[line] = 1;
  }
  // A BlockArray and the pool's objects (fast-lists.ts, block-pool.ts): a page of definitions
  // is a block a line, as many as a page of rules.
  const extra = new BlockArray(count);
  const pool = currentBlockPool();
  let current: Block | null = null;
  for (let line = 0; line < count; line++) {
    // Covered lines (nearly all) are passed over before their characters are read.
    if (covered[line] === 1) {
      current = null;
      continue;
    }
    const ls = lines.starts[line]!;
    const le = lines.ends[line]!;
    const start = skipWhitespace(source, ls, le);
    if (start === le || (frontMatter !== null && ls < frontMatter.end)) {
      current = null;
      continue;
    }
    if (!current || startsDefinition(source, ls, start) || ctx.indentedDefinitions?.has(line) === true) {
      current = pool !== null ? pool.leaf('definition', start, le, line, line) : { type: 'definition', start, end: le, startLine: line, endLine: line };
      extra.push(current, line);
    }
    current.end = trimEndOffset(source, current.start, le);
    current.endLine = line;
  }
  if (extra.length === 0) return blocks;
  return mergedByStart(blocks, extra.toArray(), pool);
}

/**
 * Whether a definition starts the line from `lineStart`, whose first non-whitespace character
 * is at `visible`: `/^ {0,3}\[/`, a `[` after at most three spaces (a tab is not one of them).
 */
function startsDefinition(source: string, lineStart: number, visible: number): boolean {
  if (source.charCodeAt(visible) !== 0x5b) return false;
  if (visible - lineStart > 3) return false;
  for (let k = lineStart; k < visible; k++) if (source.charCodeAt(k) !== 0x20) return false;
  return true;
}

/**
 * `[...blocks, ...extra]` sorted by start, stably (a block before a definition of the same
 * start), each being in that order already: merged into one array (from the pool's spares
 * past 8,192), where the spread and the sort's copy were two more arrays of a document's
 * length, each fresh memory in V8's large-object space (issue 15). Sorted as before if
 * `blocks` is not in order.
 */
function mergedByStart(blocks: Block[], extra: Block[], pool: BlockPool | null): Block[] {
  for (let k = 1; k < blocks.length; k++) if (blocks[k]!.start < blocks[k - 1]!.start) return [...blocks, ...extra].sort((a, b) => a.start - b.start);
  const n = blocks.length + extra.length;
  const out = pool?.spareArray(n) ?? new Array<Block>(n);
  let i = 0;
  let j = 0;
  let w = 0;
  while (i < blocks.length && j < extra.length) out[w++] = extra[j]!.start < blocks[i]!.start ? extra[j++]! : blocks[i++]!;
  while (i < blocks.length) out[w++] = blocks[i++]!;
  while (j < extra.length) out[w++] = extra[j++]!;
  if (out.length !== n) out.length = n;
  pool?.lend(out);
  return out;
}
