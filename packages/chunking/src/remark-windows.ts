/**
 * Stage 1 of the remark route (`parser: 'remark'`) on a big document: the blocks
 * `flatten(parse(source))` gives, parsed a window of text at a time.
 *
 * micromark keeps every event, token and tokenizer of a document until mdast-util-from-markdown
 * has compiled the tree, about 2.5 KB of heap per byte of a document of short paragraphs: 1 MB
 * of them took 2.5 GB and 4 MB ran out of heap (session 55; valid markdown, a fatal error and no
 * message). Parsed in windows, the heap holds one window's events at a time.
 *
 * Why a window's blocks are the whole parse's. CommonMark builds blocks line by line, and a
 * top-level block is closed by the line that starts the next one (or by a line that lookahead
 * of one line decides, as a table's delimiter row, which is still before the next block's
 * start). So of a window's top-level children, all but the last are closed by lines inside the
 * window, exactly as in the whole parse; they are kept, and the next window starts at the line
 * of the last child, where the whole parse too has nothing open but the root. A fresh parse from
 * a line that starts a block starts the same block: the constructs that cannot interrupt a
 * paragraph (indented code, a type-7 HTML block, an ordered list from other than 1, an empty
 * item) match no line another construct matches. A window whose only child started at its first
 * line (a list or an unclosed fence longer than the window) is parsed again twice as long, so
 * the text parsed stays within twice the document's.
 *
 * The one thing a window does not see is the rest of the document's link and footnote
 * definitions: they decide whether `[x]` in a heading or a table's header row is a reference,
 * which changes the text those blocks keep (block structure does not depend on them). A window
 * with a heading or table holding `[` is parsed again with the other windows' definitions in
 * front of it (`[label]: #` lines, whose targets nothing reads), unless that would parse more
 * than twice the document again, when the document is parsed whole as before.
 */
import type { Nodes, RootContent } from 'mdast';
import { flatten, flattenNodes } from './flatten.js';
import { blankOut, findFrontMatter, type FrontMatter } from './front-matter.js';
import { lineOf, type LineTable } from './lines.js';
import { parse, remarkTree } from './parse.js';
import type { Block } from './types.js';

/** Characters a window starts at: its events take tens of megabytes at most. */
export const REMARK_WINDOW_CHARS = 32 * 1024;

interface Window {
  /** Where the window's text starts in the source (a line start). */
  readonly start: number;
  /** Where the text parsed ends (a line start, or the source's end). */
  readonly end: number;
  /** How many of the tree's top-level children were kept. */
  readonly kept: number;
  blocks: Block[];
  /** The definitions among the kept children, as prefix lines (see definitionLine). */
  readonly definitions: string[];
  /** Whether a kept heading or table holds `[`, so definitions elsewhere may change its text. */
  readonly readsDefinitions: boolean;
}

export function remarkBlocks(source: string, lines: LineTable, windowChars: number = REMARK_WINDOW_CHARS): { frontMatter: FrontMatter | null; blocks: Block[] } {
  const whole = (): { frontMatter: FrontMatter | null; blocks: Block[] } => {
    const parsed = parse(source);
    return { frontMatter: parsed.frontMatter, blocks: flatten(parsed) };
  };
  if (source.length <= 2 * windowChars) return whole();
  const frontMatter = findFrontMatter(source);
  const text = blankOut(source, frontMatter);
  const windows: Window[] = [];
  let start = 0;
  let size = windowChars;
  while (start < text.length) {
    const end = lineStartFrom(lines, text.length, start + size);
    const children = remarkTree(text.slice(start, end)).children;
    // Where the next window starts: the line of the last child that starts a block of its own
    // (the whole rest when this window reached the end, and nothing when it held no block).
    let cut = end;
    if (end < text.length && children.length > 0) {
      let next = children.length - 1;
      while (next > 0 && !startsOwnBlock(children, next, start, text, lines)) next--;
      cut = lines.starts[lineOf(lines, start + offsetOf(children[next]!, 'start'))]!;
    }
    let kept = 0;
    while (kept < children.length && start + offsetOf(children[kept]!, 'end') <= cut) kept++;
    if (cut <= start || (kept === 0 && children.length > 0)) {
      size *= 2;
      continue;
    }
    const keptChildren = children.slice(0, kept);
    const blocks = flattenNodes(keptChildren, source, lines, start);
    windows.push({ start, end, kept, blocks, definitions: definitionLines(keptChildren), readsDefinitions: blocks.some((b) => holdsBracket(b, source)) });
    start = cut;
    size = windowChars;
  }
  if (windows.length > 1 && !withDefinitionsElsewhere(windows, text, source, lines)) return whole();
  return { frontMatter, blocks: windows.flatMap((w) => w.blocks) };
}

/**
 * Parses again, with the other windows' definitions in front, each window whose blocks may read
 * them. False when that would parse more than twice the text again (then only a whole parse is
 * both exact and linear).
 */
function withDefinitionsElsewhere(windows: Window[], text: string, source: string, lines: LineTable): boolean {
  const total = windows.reduce((n, w) => n + w.definitions.length, 0);
  if (total === 0) return true;
  const redo = windows.filter((w) => w.readsDefinitions);
  const chars = (w: Window): number => w.definitions.reduce((n, d) => n + d.length, 0);
  const allChars = windows.reduce((n, w) => n + chars(w), 0);
  let cost = 0;
  for (const w of redo) cost += w.end - w.start + allChars - chars(w);
  if (cost > 2 * text.length) return false;
  for (const w of redo) {
    const prefix = windows.flatMap((other) => (other === w ? [] : other.definitions)).join('');
    const children = remarkTree(prefix + text.slice(w.start, w.end)).children.filter((c) => offsetOf(c, 'start') >= prefix.length);
    w.blocks = flattenNodes(children.slice(0, w.kept), source, lines, w.start - prefix.length);
  }
  return true;
}

/**
 * Whether `children[i]` starts where a fresh parse would start it. micromark reads a run of
 * lines as one paragraph's content and only then takes the link definitions at its front out of
 * it, so a child right after a definition, with no blank line between, began inside that
 * paragraph: its first line was a continuation there, and from a fresh start it may be another
 * block (`[a]: /u` then `-` is a definition and a paragraph `-`, where `-` alone is a list).
 */
function startsOwnBlock(children: readonly RootContent[], i: number, start: number, text: string, lines: LineTable): boolean {
  if (children[i - 1]!.type !== 'definition') return true;
  const line = lineOf(lines, start + offsetOf(children[i]!, 'start'));
  return line > 0 && isBlank(text, lines.starts[line - 1]!, lines.ends[line - 1]!);
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c !== 0x20 && c !== 0x09) return false;
  }
  return true;
}

/** The first line start at or after `at`, or `length`. */
function lineStartFrom(lines: LineTable, length: number, at: number): number {
  if (at >= length) return length;
  const line = lineOf(lines, at);
  if (lines.starts[line] === at) return at;
  return line + 1 < lines.starts.length ? lines.starts[line + 1]! : length;
}

function offsetOf(node: RootContent, end: 'start' | 'end'): number {
  // Every node micromark makes has offsets; a missing one sorts as the text's start, so its window grows.
  return node.position?.[end].offset ?? 0;
}

/**
 * The definitions among `nodes` and their descendants (one in a quote or a list item defines
 * for the whole document too), each as a line that defines its label again for another window.
 * By its identifier: the label as written, normalized (mdast's `label` has its escapes decoded,
 * and `[x\]y]` written back from it as `[x]y]` defines nothing), which normalizes to the same.
 */
function definitionLines(nodes: readonly RootContent[]): string[] {
  const out: string[] = [];
  const stack: Nodes[] = [...nodes];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.type === 'definition' || node.type === 'footnoteDefinition') {
      out.push(node.type === 'definition' ? `[${node.identifier}]: #\n\n` : `[^${node.identifier}]: x\n\n`);
    }
    if ('children' in node) for (const child of node.children) stack.push(child);
  }
  return out;
}

/** Whether `block`, or a block inside it, is a heading or a table whose text holds `[`. */
function holdsBracket(block: Block, source: string): boolean {
  const stack: Block[] = [block];
  while (stack.length) {
    const b = stack.pop()!;
    if (b.type === 'heading' || b.type === 'table') {
      for (let k = b.start; k < b.end; k++) if (source.charCodeAt(k) === 0x5b) return true;
    }
    if (b.children) for (const child of b.children) stack.push(child);
  }
  return false;
}
