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
import type { Nodes, Root, RootContent } from 'mdast';
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
  /** The definitions among the kept children (see definitionsOf). */
  readonly definitions: Definition[];
  /**
   * The labels its headings and tables may reference (see referencedLabels): null when they
   * hold no `[`, 'all' when a bracket spans lines (its label is not read here).
   */
  readonly references: Set<string> | 'all' | null;
}

/** A definition: its key (kind and normalized label) and the line that makes it again. */
interface Definition {
  readonly key: string;
  readonly line: string;
}

/**
 * `parsed`, when given, hears the length of each text handed to micromark (tests check the work
 * and the most held at once with it).
 */
export function remarkBlocks(
  source: string,
  lines: LineTable,
  windowChars: number = REMARK_WINDOW_CHARS,
  parsed: (chars: number) => void = () => undefined,
): { frontMatter: FrontMatter | null; blocks: Block[] } {
  const whole = (): { frontMatter: FrontMatter | null; blocks: Block[] } => {
    parsed(source.length);
    const doc = parse(source);
    return { frontMatter: doc.frontMatter, blocks: flatten(doc) };
  };
  const tree = (markdown: string) => {
    parsed(markdown.length);
    return remarkTree(markdown);
  };
  if (source.length <= 2 * windowChars) return whole();
  const frontMatter = findFrontMatter(source);
  const text = blankOut(source, frontMatter);
  const windows: Window[] = [];
  let start = 0;
  let size = windowChars;
  while (start < text.length) {
    const end = lineStartFrom(lines, text.length, start + size);
    const children = tree(text.slice(start, end)).children;
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
    windows.push({ start, end, kept, blocks, definitions: definitionsOf(keptChildren), references: referencedLabels(blocks, source) });
    start = cut;
    size = windowChars;
  }
  if (windows.length > 1 && !withDefinitionsElsewhere(windows, text, source, lines, tree)) return whole();
  return { frontMatter, blocks: windows.flatMap((w) => w.blocks) };
}

/**
 * Parses again, with the definitions from other windows that its headings and tables may
 * reference in front, each window that holds such a reference. False when that would parse
 * more than twice the text again (then only a whole parse is both exact and linear).
 */
function withDefinitionsElsewhere(windows: Window[], text: string, source: string, lines: LineTable, tree: (markdown: string) => Root): boolean {
  const byKey = new Map<string, { line: string; from: Window }>();
  for (const w of windows) for (const d of w.definitions) if (!byKey.has(d.key)) byKey.set(d.key, { line: d.line, from: w });
  if (byKey.size === 0) return true;
  const prefixes = new Map<Window, string>();
  let cost = 0;
  for (const w of windows) {
    if (w.references === null) continue;
    const defining: string[] = [];
    if (w.references === 'all') {
      for (const other of windows) if (other !== w) for (const d of other.definitions) defining.push(d.line);
    } else {
      for (const key of w.references) {
        const d = byKey.get(key);
        if (d !== undefined && d.from !== w) defining.push(d.line);
      }
    }
    if (defining.length === 0) continue;
    const prefix = defining.join('');
    prefixes.set(w, prefix);
    cost += prefix.length + w.end - w.start;
  }
  if (cost > 2 * text.length) return false;
  for (const [w, prefix] of prefixes) {
    const children = tree(prefix + text.slice(w.start, w.end)).children.filter((c) => offsetOf(c, 'start') >= prefix.length);
    w.blocks = flattenNodes(children.slice(0, w.kept), source, lines, w.start - prefix.length);
  }
  return true;
}

/**
 * Whether `children[i]` starts where a fresh parse would start it: whether its first line can
 * be read only one way, whatever came before. Not every block's can. micromark reads a run of
 * lines as one paragraph's content and only then takes the link definitions at its front out of
 * it, so a child right after a definition began inside that paragraph (`[a]: /u` then `-` is a
 * definition and a paragraph `-`, where `-` alone is a list); and after indented code it reads
 * `2. two` as a paragraph even past a blank line, where alone it is a list (both found by the
 * property test). So a window is cut only before an ATX heading, a quote, a fenced code block, a
 * thematic break, or a paragraph or setext heading whose first character is a letter: the
 * constructs that open whatever is open, and text that opens nothing else. Indentation of four
 * columns or a tab before it would be indented code from a fresh start, so that is no cut either.
 */
function startsOwnBlock(children: readonly RootContent[], i: number, start: number, text: string, lines: LineTable): boolean {
  const node = children[i]!;
  const first = start + offsetOf(node, 'start');
  const lineStart = lines.starts[lineOf(lines, first)]!;
  if (first - lineStart > 3) return false;
  for (let k = lineStart; k < first; k++) if (text.charCodeAt(k) !== 0x20) return false;
  const c = text[first] ?? '';
  switch (node.type) {
    case 'heading':
      return c === '#' || /\p{L}/u.test(c);
    case 'paragraph':
      return /\p{L}/u.test(c);
    case 'blockquote':
      return c === '>';
    case 'code':
      return c === '`' || c === '~';
    case 'thematicBreak':
      return true;
    default:
      return false;
  }
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
 * for the whole document too), each with a line that defines its label again for another window.
 * By its identifier: the label as written, normalized (mdast's `label` has its escapes decoded,
 * and `[x\\]y]` written back from it as `[x]y]` defines nothing), which normalizes to the same.
 */
function definitionsOf(nodes: readonly RootContent[]): Definition[] {
  const out: Definition[] = [];
  const stack: Nodes[] = [...nodes];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.type === 'definition') out.push({ key: `l:${normalizeLabel(node.identifier)}`, line: `[${node.identifier}]: #\n\n` });
    else if (node.type === 'footnoteDefinition') out.push({ key: `f:${normalizeLabel(node.identifier)}`, line: `[^${node.identifier}]: x\n\n` });
    if ('children' in node) for (const child of node.children) stack.push(child);
  }
  return out;
}

/**
 * The keys of the labels the headings and tables among `blocks` (and inside them) may reference:
 * the text of every innermost pair of brackets (a label holds no unescaped bracket), as a link
 * label and, after a `^`, as a footnote's. Null when none holds `[`; 'all' when a bracket's text
 * spans lines (a label inside a quote or list item carries the container's markers there).
 */
function referencedLabels(blocks: readonly Block[], source: string): Set<string> | 'all' | null {
  let keys: Set<string> | null = null;
  const stack: Block[] = [...blocks];
  while (stack.length) {
    const b = stack.pop()!;
    if (b.children) for (const child of b.children) stack.push(child);
    if (b.type !== 'heading' && b.type !== 'table') continue;
    let open = -1;
    for (let k = b.start; k < b.end; k++) {
      const c = source.charCodeAt(k);
      if (c === 0x5c) k++;
      else if (c === 0x5b) {
        open = k;
        keys ??= new Set();
      } else if (c === 0x5d && open !== -1) {
        const label = source.slice(open + 1, k);
        if (/[\r\n]/.test(label)) return 'all';
        keys ??= new Set();
        keys.add(`l:${normalizeLabel(label)}`);
        if (label.startsWith('^')) keys.add(`f:${normalizeLabel(label.slice(1))}`);
        open = -1;
      }
    }
  }
  return keys;
}

/** micromark's normalizeIdentifier: whitespace runs as one space, trimmed, case folded. */
function normalizeLabel(label: string): string {
  return label.replace(/[\t\n\r ]+/g, ' ').replace(/^ | $/g, '').toLowerCase().toUpperCase();
}
