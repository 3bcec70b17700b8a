/**
 * @chunkyard/qa-pairs — reads a topic's `qa-pairs.md`: the questions a reader would ask of
 * the topic, each with its answer and, optionally, verbatim reference excerpts of the source.
 *
 *   # Questions: How to use source generation in System.Text.Json     (optional title)
 *
 *   ## How do I turn on source generation for a type?
 *
 *   Derive a partial class from `JsonSerializerContext` and add `[JsonSerializable]`.
 *
 *   > To use source generation with all defaults, create a partial class
 *   > that derives from JsonSerializerContext
 *
 * Each `##` heading (or setext heading underlined with `---`) is a question and must end with `?`. The text under it, up to the next
 * `##`, is the answer. A block quote in an answer is a reference excerpt: its text, with the
 * `> ` markers removed and its lines (lazy continuation lines too) joined by newlines, must
 * occur verbatim in the topic's source; `locateExcerpts` turns it into a character range there
 * (what retrieval evaluation scores against). Anything before the first `##` (a title, an introduction) is ignored.
 * A heading or quote inside a code fence or an HTML block (a comment, `<div>` …) is neither.
 *
 * Pure: no I/O. Every problem is a QaPairsError whose message starts `file:line:`.
 */

export interface Excerpt {
  text: string;
  /** 1-based line of the excerpt's first `>` line in qa-pairs.md. */
  line: number;
}

export interface QaPair {
  question: string;
  /** 1-based line of the question heading. */
  line: number;
  /** The answer's markdown, trimmed, block quotes included. */
  answer: string;
  excerpts: Excerpt[];
}

export interface LocatedExcerpt extends Excerpt {
  /** UTF-16 offsets into the source: `source.slice(start, end) === text`, but for its line ends (each \n of text may be a CRLF or a lone CR there). */
  start: number;
  end: number;
}

export class QaPairsError extends Error {
  override name = 'QaPairsError';
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly problem: string,
  ) {
    // The path as one line, control characters escaped: a topic folder named with an ESC
    // sequence or a newline reached the terminal raw (docs-score prints the message as is).
    super(line === null ? `${escapeShown(file)}: ${problem}` : `${escapeShown(file)}:${line}: ${problem}`);
  }
}

/**
 * What a message shows as a \u001b-style escape (JSON's form, as fs-atomic's escapeControl):
 * control characters (C0 with tab and newline, DEL, C1), bidirectional controls (the marks
 * U+200E and U+200F, embeddings, overrides, isolates), the characters that show as nothing
 * (zero-width space and joiners U+200B–U+200D, soft hyphen, word joiner and invisible operators
 * U+2060–U+2064, the BOM U+FEFF), the line and paragraph separators, and a surrogate without its
 * pair. A question holding a zero-width space was quoted with it raw: `"Why"`, no fault the
 * author could see, and a duplicate that differed by one was asked "twice" in two equal quotes.
 * Exported as `escapeShown` for the other readers of hand-written files (@chunkyard/quality).
 */
// eslint-disable-next-line no-control-regex
const SHOWN_ESCAPED = /[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function escapeShown(s: string): string {
  return s.replace(SHOWN_ESCAPED, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * An opening fence, maybe on a list item's line after its markers ("- ```sh", "1. - ~~~"):
 * group 1 is the markers, group 2 the fence. A list item's fence was not seen, so its closing
 * line, indented to the item's content, was read as an opening one ("never closed"), and a
 * heading in its code as a question.
 */
const FENCE = /^ {0,3}((?:(?:[-+*]|[0-9]{1,9}[.)]) {1,4})*)(`{3,}|~{3,})/;
/** A closing fence: nothing after it, at most three spaces before it (it must also match the opening one). */
const CLOSING_FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
// Linear patterns: `(.*?)[ \t]*#*[ \t]*$` and `[ \t]*#*[ \t]*$` backtracked on a run of blanks or
// hashes (a heading holding 4,000 spaces took 26 s). The closing sequence is cut by closingCut.
// `[\s\S]`, not `.`: a line may hold U+2028 or U+2029, which CommonMark reads as text and `.`
// does not match; a question holding one was not a question (its answer joined the one before,
// unsaid), nor a quote holding one an excerpt.
const QUESTION = /^ {0,3}##(?!#)[ \t]+(?![ \t])([\s\S]*)$/;
const EMPTY_QUESTION = /^ {0,3}##[ \t]*(?:#+[ \t]*)?$/;
const QUOTE = /^ {0,3}>[ ]?([\s\S]*)$/;
/** An ATX heading of any level (CommonMark 4.2): it interrupts a paragraph. */
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
/**
 * A list item's first line. Any one ends a quote that a lazy line would continue: the limits on
 * a list interrupting a paragraph (not empty, numbered 1) hold only inside the paragraph's own
 * container, which a line without `>` has left (commonmark.js and markdown-it read it so).
 */
const LIST_ITEM = /^ {0,3}(?:[-+*]|[0-9]{1,9}[.)])(?:[ \t]|$)/;
/** A setext heading's underline, after a paragraph line (CommonMark 4.3). */
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;

/** A thematic break (CommonMark 4.1): three or more of one of `*`, `-`, `_`, blanks between. Compared without a pattern, which would backtrack over a long run of them. */
function isThematicBreak(raw: string): boolean {
  if (indentOf(raw) > 3) return false;
  const marks = raw.replace(/[ \t]+/g, '');
  const c = marks[0];
  if ((c !== '*' && c !== '-' && c !== '_') || marks.length < 3) return false;
  for (let i = 1; i < marks.length; i++) if (marks[i] !== c) return false;
  return true;
}

/**
 * CommonMark's HTML blocks (spec 4.6), by start condition. Kinds 1-5 run to the first line
 * holding their end marker (the opening line included); 6 and 7 to a blank line; 7 cannot
 * interrupt a paragraph. Nothing inside one is a heading or a block quote: a question commented
 * out (`<!-- ## Later? -->` over several lines) was read as a question. Each line is tested
 * once and searched once for its end marker, so the scan stays linear.
 */
const HTML_BLOCK_TAGS = new Set(
  ('address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt fieldset figcaption figure footer form ' +
    'frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav noframes ol optgroup option p param search section ' +
    'summary table tbody td tfoot th thead title tr track ul').split(' '),
);
const HTML_RAW = /^ {0,3}<(pre|script|style|textarea)(?:[ \t>]|$)/i;
const HTML_TAG_NAME = /^ {0,3}<\/?([A-Za-z][A-Za-z0-9-]*)(?:[ \t>]|\/>|$)/;
// Attributes are separated by blanks and a name never starts with one, so each character has
// one reading: no backtracking over a long line.
const HTML_COMPLETE_TAG = new RegExp(
  '^ {0,3}(?:<[A-Za-z][A-Za-z0-9-]*' +
    '(?:[ \\t]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \\t]*=[ \\t]*(?:[^ \\t"\'=<>`]+|\'[^\']*\'|"[^"]*"))?)*' +
    '[ \\t]*\\/?>|<\\/[A-Za-z][A-Za-z0-9-]*[ \\t]*>)[ \\t]*$',
);

interface HtmlBlock {
  /** The marker a line must hold to end the block, or null for one that ends at a blank line. */
  end: string | null;
  /** What opened it, as a message names it. */
  what: string;
}

/** The HTML block `raw` opens, or null. `inParagraph`: the line before is paragraph text (kind 7 cannot interrupt one). */
function htmlBlockStart(raw: string, inParagraph: boolean): HtmlBlock | null {
  const at = raw.indexOf('<');
  if (at < 0 || at > 3 || raw.slice(0, at).trim() !== '') return null;
  const raw1 = HTML_RAW.exec(raw);
  if (raw1) return { end: `</${raw1[1]!.toLowerCase()}>`, what: `an HTML block (<${raw1[1]!.toLowerCase()})` };
  const rest = raw.slice(at);
  if (rest.startsWith('<!--')) return { end: '-->', what: 'an HTML comment (<!--)' };
  if (rest.startsWith('<?')) return { end: '?>', what: 'an HTML block (<?)' };
  if (rest.startsWith('<![CDATA[')) return { end: ']]>', what: 'an HTML block (<![CDATA[)' };
  if (/^<![A-Za-z]/.test(rest)) return { end: '>', what: 'an HTML block (<!)' };
  const tag = HTML_TAG_NAME.exec(raw);
  if (tag && HTML_BLOCK_TAGS.has(tag[1]!.toLowerCase())) return { end: null, what: 'an HTML block' };
  if (!inParagraph && HTML_COMPLETE_TAG.test(raw)) return { end: null, what: 'an HTML block' };
  return null;
}

/** Whether `raw` ends the HTML block (a line holding its end marker; kinds 6 and 7: a blank line, which is not part of it). */
function endsHtmlBlock(block: HtmlBlock, raw: string): boolean {
  if (block.end === null) return raw.trim() === '';
  // Kind 1's end tags are matched in any case; the others are not letters.
  return (block.end.startsWith('</') ? raw.toLowerCase() : raw).includes(block.end);
}

/** The column a line's text starts at: a tab runs to the next multiple of 4 (CommonMark 2.2). */
function indentOf(raw: string): number {
  let col = 0;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === ' ') col++;
    else if (raw[i] === '\t') col += 4 - (col % 4);
    else break;
  }
  return col;
}

/** `raw` without its first `columns` columns of leading blanks (a list item's content indent). */
function afterColumns(raw: string, columns: number): string {
  let col = 0;
  let i = 0;
  while (i < raw.length && col < columns) {
    if (raw[i] === ' ') col++;
    else if (raw[i] === '\t') col += 4 - (col % 4);
    else break;
    i++;
  }
  // A tab that runs past the content's column leaves its rest as spaces.
  return ' '.repeat(Math.max(0, col - columns)) + raw.slice(i);
}

/** `s` without the spaces and tabs around it (CommonMark's blanks; a no-break space is text), in linear time. */
function trimBlanks(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && (s[start] === ' ' || s[start] === '\t')) start++;
  while (end > start && (s[end - 1] === ' ' || s[end - 1] === '\t')) end--;
  return s.slice(start, end);
}

/** A heading's text without its trailing blanks, closing hashes and the blanks before them. */
function closingCut(text: string): string {
  let end = text.length;
  const blank = (i: number) => text[i] === ' ' || text[i] === '\t';
  while (end > 0 && blank(end - 1)) end--;
  let hashes = end;
  while (hashes > 0 && text[hashes - 1] === '#') hashes--;
  // A closing sequence follows a blank (CommonMark 4.2): in "Why?#" or "What is C#" the hashes
  // are text, and cutting them read "## Why?#" as the question "Why?".
  if (hashes < end && (hashes === 0 || blank(hashes - 1))) {
    end = hashes;
    while (end > 0 && blank(end - 1)) end--;
  }
  return text.slice(0, end);
}

/**
 * What a run of lines leaves open that the next line's reading depends on: a paragraph (which
 * a lazy line continues and an HTML block of kind 7 cannot interrupt), and a list item's
 * content column (a line indented to it is the item's, not indented code).
 */
interface Blocks {
  paragraph: boolean;
  /** The open list item's content column, or 0. Nested items are read as their outer one. */
  item: number;
  /** The open item has no line yet: a blank line ends it (CommonMark 5.2: at most one blank line starts an item). */
  emptyItem: boolean;
}

/** What a quote's last line leaves open: Blocks inside its innermost quote, and a fence or HTML block in it. */
interface QuoteBlocks extends Blocks {
  /** How many `>` markers deep the innermost open quote is. */
  depth: number;
  fence: { marker: string; depth: number } | null;
  html: (HtmlBlock & { depth: number }) | null;
}

/**
 * A list item's first line: indent, marker, the blanks after it, its text. `[\s\S]`, not `.`:
 * a U+2028 in the line failed `(.*)$`, which then backtracked over every blank before it.
 */
const LIST_ITEM_START = /^( {0,3})([-+*]|[0-9]{1,9}[.)])([ \t]*)([\s\S]*)$/;

/**
 * Follows what a quote's line leaves open, as far as a lazy line after it needs: a paragraph,
 * or a fence or HTML block, which no lazy line continues. `raw` is the whole line.
 */
function readQuoteLine(quote: QuoteBlocks, raw: string): void {
  // Where the text after each `>` marker starts: offsets, not slices, which for a line of n
  // markers would copy n²/2 characters.
  const after = [0];
  for (;;) {
    let at = after.at(-1)!;
    const from = at;
    while (at < raw.length && at - from < 3 && raw[at] === ' ') at++;
    if (raw[at] !== '>') break;
    after.push(raw[at + 1] === ' ' ? at + 2 : at + 1);
  }
  const depth = after.length - 1;
  const open = quote.fence ?? quote.html;
  if (open && depth >= open.depth) {
    // Code or HTML of the quote `open.depth` deep: a `>` after its markers is its text.
    const text = raw.slice(after[open.depth]!);
    quote.paragraph = false;
    if (quote.fence) {
      const c = CLOSING_FENCE.exec(text);
      if (c && c[1]![0] === quote.fence.marker[0] && c[1]!.length >= quote.fence.marker.length) quote.fence = null;
    } else if (endsHtmlBlock(quote.html!, text)) quote.html = null;
    return;
  }
  const inner = raw.slice(after[depth]!);
  quote.fence = null;
  quote.html = null;
  if (depth !== quote.depth) {
    // Fewer markers: the inner quotes' paragraph goes on lazily, or they end. More: new quotes.
    if (depth < quote.depth && quote.paragraph && isLazyLine(inner) && !opensFenceOrHtml(inner, true)) return;
    quote.depth = depth;
    quote.paragraph = false;
    quote.item = 0;
    quote.emptyItem = false;
  }
  const f = FENCE.exec(inner);
  const fence = f !== null && !(f[2]![0] === '`' && inner.includes('`', f[0].length));
  const block = fence ? null : htmlBlockStart(inner, quote.paragraph);
  // Neither is a lazy line: one indented less than the open list item's content ends the item.
  if ((fence || block) && indentOf(inner) < quote.item) quote.item = 0;
  if (fence) {
    quote.paragraph = false;
    quote.emptyItem = false;
    quote.fence = { marker: f![2]!, depth };
    return;
  }
  if (block) {
    quote.paragraph = false;
    quote.emptyItem = false;
    if (block.end === null || !endsHtmlBlock(block, inner)) quote.html = { ...block, depth };
    return;
  }
  readBlockLine(quote, inner);
}

/** Whether `raw` opens a fence, or an HTML block (one of kind 7 only outside a paragraph). */
function opensFenceOrHtml(raw: string, inParagraph: boolean): boolean {
  const f = FENCE.exec(raw);
  return (f !== null && !(f[2]![0] === '`' && raw.includes('`', f[0].length))) || htmlBlockStart(raw, inParagraph) !== null;
}

/**
 * Moves `blocks` past a line that opens no fence or HTML block: whether it leaves a paragraph
 * open, and the list item it is in.
 */
function readBlockLine(blocks: Blocks, raw: string): void {
  let was = blocks.paragraph;
  blocks.paragraph = false;
  if (raw.trim() === '') {
    if (blocks.emptyItem) blocks.item = 0;
    blocks.emptyItem = false;
    return;
  }
  blocks.emptyItem = false;
  let text = raw;
  if (blocks.item > 0) {
    if (indentOf(raw) >= blocks.item) text = afterColumns(raw, blocks.item);
    else if (was && isLazyLine(raw)) {
      blocks.paragraph = true;
      return;
    } else {
      // Out of the item, so out of its paragraph: a list item here follows it, not interrupts.
      blocks.item = 0;
      was = false;
    }
  }
  if (ATX_HEADING.test(text) || isThematicBreak(text)) return;
  const li = LIST_ITEM_START.exec(text);
  const rest = li?.[4] ?? '';
  const spaces = li ? indentOf(li[3]!) : 0;
  // A list item opens with a blank after its marker, or nothing; an empty one or one not
  // numbered 1 does not interrupt a paragraph of its own container (CommonMark 5.2).
  if (li && (li[3] !== '' || rest === '') && !(was && (rest === '' || !/^(?:[-+*]|0{0,8}1[.)])$/.test(li[2]!)))) {
    // Five or more blanks, or nothing after it: the content starts a column after the marker.
    blocks.item += li[1]!.length + li[2]!.length + (rest === '' || spaces >= 5 ? 1 : spaces);
    blocks.emptyItem = rest === '';
    blocks.paragraph = rest !== '' && spaces < 5 && !ATX_HEADING.test(rest) && !isThematicBreak(rest);
    return;
  }
  // A setext underline ends its paragraph as a heading; indented code cannot follow a paragraph's line.
  if (was ? SETEXT_UNDERLINE.test(text) : indentOf(text) >= 4) return;
  blocks.paragraph = true;
}

/**
 * Whether `header` then `delimiter` open a GFM table, as markdown-it 15 reads one: a delimiter
 * row of `-`, `:` and `|` cells (`---`, `| :-- | --: |`), the header holding a `|` and as many
 * cells, split at each `|` not after a backslash; neither indented four columns or more.
 */
function isTableStart(header: string, delimiter: string): boolean {
  if (indentOf(header) >= 4 || indentOf(delimiter) >= 4) return false;
  const d = trimBlanks(delimiter);
  if (d.length < 2 || !/^[-|:][-|: \t]*$/.test(d) || (d[0] === '-' && (d[1] === ' ' || d[1] === '\t'))) return false;
  const cells = d.split('|');
  let columns = 0;
  for (let k = 0; k < cells.length; k++) {
    const cell = cells[k]!.trim();
    if (cell === '') {
      if (k === 0 || k === cells.length - 1) continue;
      return false;
    }
    if (!/^:?-+:?$/.test(cell)) return false;
    columns++;
  }
  const h = header.trim();
  if (!h.includes('|')) return false;
  let headerCells = 1;
  for (let k = 0; k < h.length; k++) if (h[k] === '|' && h[k - 1] !== '\\') headerCells++;
  if (h[0] === '|') headerCells--;
  if (h.at(-1) === '|' && h.at(-2) !== '\\') headerCells--;
  return columns > 0 && headerCells === columns;
}

/**
 * Whether `raw`, after a quote whose paragraph is open, continues it lazily: any text that
 * starts no block able to interrupt a paragraph. Fences, HTML blocks and `##` headings were
 * read before this is asked.
 */
function isLazyLine(raw: string): boolean {
  return raw.trim() !== '' && !ATX_HEADING.test(raw) && !isThematicBreak(raw) && !LIST_ITEM.test(raw);
}

/** Parses qa-pairs.md. `file` is used in error messages only. */
export function parseQaPairs(text: string, file: string): QaPair[] {
  if (text.includes('\u0000')) throw new QaPairsError(file, null, 'not a text file (NUL bytes)');
  // CRLF, LF and a lone CR each end a line, as in CommonMark and chunking-tool: split at \n
  // alone, a file saved with old Mac line ends was one line, and gave zero questions unsaid.
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n?|\n/);
  const pairs: QaPair[] = [];
  const seen = new Map<string, number>();
  let current: { pair: QaPair; body: string[] } | null = null;
  /** The open fence's marker, and the column its list item's content starts at (0: not in a list item). */
  let fence: { marker: string; within: number } | null = null;
  let fenceLine = 0;
  /**
   * The excerpt being read, and what its last line left open: a paragraph (which a lazy line
   * continues), a fence or an HTML block inside the quote (which a line without `>` ends).
   */
  let quote: (Excerpt & QuoteBlocks) | null = null;
  /** What the lines outside quotes leave open (see Blocks). */
  const top: Blocks = { paragraph: false, item: 0, emptyItem: false };
  let html: (HtmlBlock & { line: number }) | null = null;
  /** The line before was paragraph text, which an HTML block of kind 7 cannot interrupt. */
  let inParagraph = false;

  const closeQuote = (): void => {
    if (quote && current) {
      const t = quote.text.trim();
      if (!t) throw new QaPairsError(file, quote.line, 'empty reference excerpt (a block quote with no text)');
      // trim() removes what /^\s+|\s+$/g did (WhiteSpace and LineTerminator), in linear time:
      // that pattern tried \s+$ from every blank of a run inside the excerpt, and 400,000 tabs
      // between two words took two minutes (issue 15 probe).
      current.pair.excerpts.push({ text: t, line: quote.line });
    }
    quote = null;
  };
  const closePair = (): void => {
    closeQuote();
    if (!current) return;
    current.pair.answer = current.body.join('\n').trim();
    if (!current.pair.answer) throw new QaPairsError(file, current.pair.line, `question "${preview(current.pair.question)}" has no answer below it`);
    pairs.push(current.pair);
    current = null;
  };

  /** A block that is no paragraph starts at `raw`: it is in the open list item if indented into it, else after it. */
  const leaveBlocks = (raw: string): void => {
    if (indentOf(raw) < top.item) top.item = 0;
    top.emptyItem = false;
    top.paragraph = false;
  };


  /**
   * Starts the question `question` of line `line`, after its checks; `hint` follows the
   * message that it does not end with "?".
   */
  const openQuestion = (question: string, line: number, hint: string): void => {
    if (!endsWithQuestionMark(question)) throw new QaPairsError(file, line, `a question heading must end with "?": "${preview(question)}"${invisibleTail(question)}${hint}`);
    // `## ?` was a question: topic-spec embedded "?" and matched prompts against it.
    if (!/[\p{L}\p{N}]/u.test(question)) throw new QaPairsError(file, line, `a question heading needs words before its "?": "${preview(question)}"`);
    // NFC: the same question typed with precomposed and with combining accents reads the same.
    // Upper then lower case: a case fold, where lower-casing alone kept `STRASSE` and `Straße`
    // (ß capitalises to SS), or `ΛΟΓΟΣ` and `λογος` (final ς), apart.
    // Without the characters that show as nothing and change no letter (soft hyphen, zero-width
    // space, word joiner, U+FEFF, LTR/RTL marks): "Why?" and "Wh<U+200B>y?" were two questions
    // that read the same, each embedded and matched on its own.
    const key = question.replace(/[\u00ad\u200b\u200e\u200f\u2060\ufeff]/g, '').normalize('NFC').toUpperCase().toLowerCase().replace(/\s+/g, ' ');
    const first = seen.get(key);
    if (first !== undefined) throw new QaPairsError(file, line, `question "${preview(question)}" is asked twice (first on line ${first})`);
    seen.set(key, line);
    current = { pair: { question, line, answer: '', excerpts: [] }, body: [] };
  };
  /**
   * The paragraph outside quotes and list items that the lines so far leave open: its first
   * line, where its lines start in the open answer's body, and its text. A setext underline
   * (`---`) after it makes it a level-2 heading, as `##` does (CommonMark 4.3).
   */
  let paragraph: { line: number; bodyAt: number; text: string[] } | null = null;
  /** The lines so far are a table's rows (GFM): its rows are no paragraph, and `---` after one is a thematic break. */
  let table = false;

  lines.forEach((raw, i) => {
    const line = i + 1;
    // Kept only by a line that goes on with it (the last branch below); any other ends it.
    const openParagraph = paragraph;
    paragraph = null;
    const inTable = table;
    table = false;
    if (html) {
      if (endsHtmlBlock(html, raw)) {
        html = null;
        // A blank line that ends a kind 6 or 7 block is not in it: read below, as blank.
        if (raw.trim() !== '') {
          current?.body.push(raw);
          inParagraph = false;
          return;
        }
      } else {
        current?.body.push(raw);
        return;
      }
    }
    const paragraphBefore = inParagraph;
    inParagraph = false;
    // A line indented less than the list item's content ends the item, and a fence in it (code
    // has no lazy lines; CommonMark 5.2): it is read as any other line.
    if (fence && fence.within > 0 && raw.trim() !== '' && indentOf(raw) < fence.within) fence = null;
    if (fence) {
      // Of the opening fence's character and at least as long: a ``` line closed a ```` fence
      // (a heading in the example it shows was then read as a question), as did ```js.
      const c = CLOSING_FENCE.exec(fence.within > 0 ? afterColumns(raw, fence.within) : raw);
      if (c && c[1]![0] === fence.marker[0] && c[1]!.length >= fence.marker.length) fence = null;
      current?.body.push(raw);
      return;
    }
    const f = FENCE.exec(raw);
    // A backtick fence's info string holds no backtick (CommonMark 4.5): a line starting with
    // inline code such as "```x``` reads" is paragraph text. Read as a fence, it hid every
    // question after it, or failed the file as a fence never closed.
    if (f && !(f[2]![0] === '`' && raw.includes('`', f[0].length))) {
      closeQuote();
      leaveBlocks(raw);
      fence = { marker: f[2]!, within: f[1] ? f[0].length - f[2]!.length : 0 };
      fenceLine = line;
      current?.body.push(raw);
      return;
    }
    const block = htmlBlockStart(raw, paragraphBefore);
    if (block) {
      closeQuote();
      leaveBlocks(raw);
      current?.body.push(raw);
      // Kinds 1-5 may end on the line that opens them (`<!-- note -->`).
      if (block.end === null || !endsHtmlBlock(block, raw)) html = { ...block, line };
      return;
    }
    if (EMPTY_QUESTION.test(raw)) throw new QaPairsError(file, line, 'empty question heading');
    const q = QUESTION.exec(raw);
    if (q) {
      closePair();
      leaveBlocks(raw);
      openQuestion(closingCut(q[1]!), line, '');
      return;
    }
    const m = QUOTE.exec(raw);
    // A quote before the first question is no excerpt, but still a quote: its text above a
    // `---` is no heading (a setext underline is never a lazy line).
    if (m) {
      current?.body.push(raw);
      if (quote) quote.text += `\n${m[1]!}`;
      else quote = { text: m[1]!, line, paragraph: false, item: 0, emptyItem: false, depth: 0, fence: null, html: null };
      readQuoteLine(quote, raw);
      inParagraph = quote.paragraph;
      leaveBlocks(raw);
      return;
    }
    if (quote?.paragraph && isLazyLine(raw)) {
      // A lazy continuation line (CommonMark 5.1): the quote's paragraph goes on without the
      // `>`, and the rendered quote shows the line. It was left out of the excerpt, which then
      // ended mid-sentence where the author had not meant it to.
      current?.body.push(raw);
      quote.text += `\n${raw}`;
      inParagraph = true;
      return;
    }
    // A quote's paragraph is its own: a line after the quote does not continue or interrupt it.
    top.paragraph = quote ? false : paragraphBefore;
    closeQuote();
    if (top.paragraph && top.item === 0 && openParagraph && i > 0 && isTableStart(lines[i - 1]!, raw)) {
      // The paragraph's last line is a table's header (GFM; it interrupts the paragraph): its
      // lines and rows are no heading's text, and `| Why? |` then `---` is a table of one column.
      table = true;
      // Read on as a paragraph is: a block that cannot interrupt one cannot end a table.
      inParagraph = top.paragraph = true;
      current?.body.push(raw);
      return;
    }
    if (inTable && top.paragraph && raw.trim() !== '' && indentOf(raw) < 4 && isLazyLine(raw)) {
      // A row: the table goes on to a blank line or a line that starts another block.
      table = true;
      // Read on as a paragraph is: a block that cannot interrupt one cannot end a table.
      inParagraph = top.paragraph = true;
      current?.body.push(raw);
      return;
    }
    // A line that ends a table continues no paragraph: indented four columns, it is code.
    if (inTable) top.paragraph = false;
    if (top.paragraph && top.item === 0 && openParagraph && SETEXT_UNDERLINE.test(raw) && raw.trim()[0] === '-') {
      // `Why?` then `---` is the heading `## Why?`: a question. Its lines were read as the
      // answer before it, and the question was lost unsaid (`===` makes `# Why?`, a title).
      const { line: at, bodyAt, text } = openParagraph;
      current?.body.splice(bodyAt);
      closePair();
      leaveBlocks(raw);
      openQuestion(
        text.join(' '),
        at,
        ` (a line of text just above a "---" line makes it a heading; put a blank line before "---" for a thematic break)`,
      );
      return;
    }
    readBlockLine(top, raw);
    inParagraph = top.paragraph;
    if (top.paragraph && top.item === 0) {
      if (paragraphBefore && openParagraph) (paragraph = openParagraph).text.push(trimBlanks(raw));
      else paragraph = { line, bodyAt: current?.body.length ?? 0, text: [trimBlanks(raw)] };
    }
    current?.body.push(raw);
  });
  if (fence) throw new QaPairsError(file, fenceLine, 'code fence opened here is never closed');
  // As a fence: CommonMark runs it to the end of the file, where every question after it was lost unsaid.
  // (The cast: TypeScript does not see the assignments in the callback above, and narrows to null.)
  const open = html as (HtmlBlock & { line: number }) | null;
  if (open?.end) throw new QaPairsError(file, open.line, `${open.what} opened here is never closed (${open.end}), so nothing after it is read`);
  closePair();
  return pairs;
}

/**
 * Finds every excerpt in the source. An excerpt must occur verbatim; when it occurs more
 * than once, the first occurrence is taken. A missing one is an error naming its line.
 *
 * Linear in the source's length plus the excerpts' total length: one indexOf per excerpt made
 * it excerpts × source (4,000 excerpts at the end of 4 MB took 134 s), and one indexOf of a
 * pattern such as a^m b a^m is itself quadratic in V8 (62 s at m = 100,000). All excerpts are
 * searched for at once (Aho–Corasick, below).
 */
export function locateExcerpts(pairs: readonly QaPair[], source: string, file: string, sourceName: string): LocatedExcerpt[][] {
  // Offsets must index the source as given; normalise only to search. Each CR taken out of a
  // CRLF is remembered by where its LF is in the normalised text, to map offsets back (a source
  // whose line endings are mixed was searched with every \n as \r\n, and missed what was there).
  // A lone CR is a line end too (as parseQaPairs reads one): it becomes \n in place, which moves
  // no offset, so an excerpt is found in a source saved with old Mac line ends.
  const text = source.replace(/\r\n/g, '\n').replace(/\r/g, '\n');
  const removed: number[] = [];
  if (text.length !== source.length) {
    for (let i = source.indexOf('\r\n'); i >= 0; i = source.indexOf('\r\n', i + 2)) removed.push(i - removed.length);
  }
  const toSource = (at: number): number => {
    let lo = 0;
    let hi = removed.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (removed[mid]! < at) lo = mid + 1;
      else hi = mid;
    }
    return at + lo;
  };
  const texts = pairs.flatMap((p) => p.excerpts.map((e) => e.text));
  const firstEnd = firstEnds(texts, text);
  let k = 0;
  return pairs.map((p) =>
    p.excerpts.map((e) => {
      const end = firstEnd[k++]!;
      if (end < 0) throw new QaPairsError(file, e.line, `reference excerpt not found verbatim in ${escapeShown(sourceName)}: "${preview(e.text)}"${formHint(e.text, text)}`);
      const start = end - e.text.length;
      return { ...e, start: toSource(start), end: toSource(end) };
    }),
  );
}

/**
 * Why an excerpt that reads the same as the source is not found, when the reason is Unicode
 * normalization: `café` with a combining accent (NFD, as macOS and some editors save it) is not
 * `café` precomposed (NFC), and the message quoted both the same way, naming no fault the
 * author could see (s58 probe). Asked once, for the excerpt that fails.
 */
function formHint(excerpt: string, source: string): string {
  if (!source.normalize('NFC').includes(excerpt.normalize('NFC'))) return '';
  return ' (it is there with its accented letters encoded differently, precomposed in one file and as letter plus combining mark in the other; save both files in one Unicode form, NFC)';
}

/**
 * For each pattern, where its first occurrence in `text` ends (so `text.indexOf(p) + p.length`),
 * or -1 when it does not occur. UTF-16 code units throughout, as indexOf compares them.
 *
 * Aho–Corasick: a trie of the patterns with failure links, walked once over the text. Each
 * node's failure chain is followed only until a node already reached: that node, and every one
 * on its chain, was first reached at an earlier position, so its first end is already known.
 * Each node is reported once and each text position costs amortised O(1): linear in all.
 * The trie is typed arrays (a node's first child inline, other children in one Map keyed by
 * node and code unit): a Map per node costs hundreds of bytes, one per excerpt character; the
 * shared Map holds at most one entry per pattern.
 */
function firstEnds(patterns: readonly string[], text: string): number[] {
  let size = 1;
  for (const p of patterns) size += p.length;
  const ROOT = 0;
  const code = new Uint16Array(size); // the code unit on the edge into a node
  const child = new Int32Array(size).fill(-1); // a node's first child
  const sibling = new Int32Array(size).fill(-1); // the next child of its parent
  const more = new Map<number, number>(); // node * 0x10000 + code unit → a child that is not the first
  let nodes = 1;
  const step = (node: number, c: number): number => {
    const first = child[node]!;
    if (first < 0) return -1;
    if (code[first] === c) return first;
    return sibling[first]! < 0 ? -1 : (more.get(node * 0x10000 + c) ?? -1);
  };
  const nodeOf = patterns.map((p) => {
    let node = ROOT;
    for (let i = 0; i < p.length; i++) {
      const c = p.charCodeAt(i);
      let next = step(node, c);
      if (next < 0) {
        next = nodes++;
        code[next] = c;
        const first = child[node]!;
        if (first < 0) child[node] = next;
        else {
          sibling[next] = sibling[first]!;
          sibling[first] = next;
          more.set(node * 0x10000 + c, next);
        }
      }
      node = next;
    }
    return node;
  });

  // Failure links in breadth-first order: a node's link is to a shallower node, already linked.
  const fail = new Int32Array(nodes);
  const queue = new Int32Array(nodes);
  let head = 0;
  let tail = 0;
  for (let c = child[ROOT]!; c >= 0; c = sibling[c]!) queue[tail++] = c; // fail[c] = ROOT
  while (head < tail) {
    const node = queue[head++]!;
    for (let c = child[node]!; c >= 0; c = sibling[c]!) {
      let f = fail[node]!;
      let next = step(f, code[c]!);
      while (next < 0 && f !== ROOT) {
        f = fail[f]!;
        next = step(f, code[c]!);
      }
      fail[c] = next < 0 ? ROOT : next;
      queue[tail++] = c;
    }
  }

  // The empty pattern ends at 0, as indexOf('') is 0. The walk stops once every pattern is found.
  const end = new Int32Array(nodes).fill(-1);
  end[ROOT] = 0;
  const wanted = new Uint8Array(nodes);
  let pending = 0;
  for (const n of nodeOf) {
    if (n !== ROOT && wanted[n] === 0) {
      wanted[n] = 1;
      pending++;
    }
  }
  let node = ROOT;
  for (let i = 0; i < text.length && pending > 0; i++) {
    const c = text.charCodeAt(i);
    let next = step(node, c);
    while (next < 0 && node !== ROOT) {
      node = fail[node]!;
      next = step(node, c);
    }
    node = next < 0 ? ROOT : next;
    for (let n = node; n !== ROOT && end[n]! < 0; n = fail[n]!) {
      end[n] = i + 1;
      pending -= wanted[n]!;
    }
  }
  return nodeOf.map((n) => end[n]!);
}

/** U+200E LEFT-TO-RIGHT MARK, U+200F RIGHT-TO-LEFT MARK, U+061C ARABIC LETTER MARK. */
const BIDI_MARKS = '\u200e\u200f\u061c';

/**
 * Whether a question ends with a question mark (then any bidirectional marks): `?`, or the one its script writes, the
 * full-width `？` of Chinese and Japanese (U+FF1F, and the small U+FE56), the Arabic `؟`
 * (U+061F, also Persian and Urdu), the Ethiopic `፧`, an interrobang `‽` or `⁇ ⁈ ⁉`, and in
 * Greek text the Greek question mark, which NFC makes `;` (U+037E is U+003B). Or an Armenian
 * question, whose `՞` is inside it (ARMENIAN_QUESTION). A Chinese
 * `## 为什么使用源生成？` was refused ("must end with "?""), and every question of a Chinese,
 * Arabic or Greek qa-pairs.md with it.
 */
function endsWithQuestionMark(question: string): boolean {
  // A left-to-right, right-to-left or Arabic letter mark after it shows as nothing: Hebrew and
  // Arabic typed in a left-to-right editor put one there so the "?" shows at the sentence's end.
  let end = question.length;
  while (end > 0 && BIDI_MARKS.includes(question[end - 1]!)) end--;
  const last = question[end - 1];
  if (last === undefined) return false;
  if ('?\uff1f\ufe56\u061f\u1367\u203d\u2047\u2048\u2049'.includes(last)) return true;
  if ((last === ';' || last === '\u037e') && /\p{Script=Greek}/u.test(question)) return true;
  return ARMENIAN_QUESTION.test(question);
}

/**
 * Armenian writes its question mark `՞` (U+055E) over the stressed vowel of the word asked
 * about, inside the sentence: "Ինչպե՞ս տեղադրել" ("How to install?"), "Ի՞նչ է սերվերը". So a
 * question is one whose Armenian letter carries it, wherever the word is (a combining mark
 * between them aside). Not the exclamation `՜` (U+055C) or the comma `՝` (U+055D) written alike.
 * An Armenian question heading was refused, "must end with "?"" (s61 probe, helper 90).
 */
const ARMENIAN_QUESTION = /(?=\p{L})\p{Script=Armenian}\p{M}*\u055e/u;

/**
 * What follows the "?" of a heading that ends in blanks other than spaces and tabs (a no-break
 * space, U+3000, a form feed) or in zero-width characters, named: the quote shows them as a space, so "must end with "?":
 * "Why? "" named no fault the author could see.
 */
function invisibleTail(question: string): string {
  let end = question.length;
  // Unicode blanks, and the zero-width characters, which a quote shows as nothing at all.
  while (end > 0 && /[\s\u200b-\u200d\u2060]/.test(question[end - 1]!)) end--;
  if (end === question.length || !endsWithQuestionMark(question.slice(0, end))) return '';
  const tail = [...question.slice(end)];
  const names = tail.slice(0, 4).map((ch) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
  return ` (it ends with ${names.join(' ')}${tail.length > 4 ? ' ...' : ''} after the "?"; remove ${tail.length > 1 ? 'them' : 'it'})`;
}

/**
 * Text of the file as a message quotes it: one line of at most 60 characters, its control,
 * bidirectional and invisible characters as \u001b-style escapes (SHOWN_ESCAPED), so that a heading
 * holding an ESC sequence cannot clear or retitle the terminal showing the message. Messages
 * quoted questions whole (a megabyte heading made a megabyte message) and raw.
 */
function preview(s: string): string {
  // One line, each run of blanks and line breaks one space; not the BOM, which \s matches too
  // and which the quote then showed as a space the author could not find.
  const one = s.replace(/[^\S\ufeff]+/g, ' ');
  let cut = one.length > 60 ? one.slice(0, 57) : one;
  // Not half a pair cut in two; a lone surrogate the text holds is escaped (it was dropped).
  if (cut.length < one.length && /[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  const safe = escapeShown(cut);
  return one.length > 60 ? `${safe}...` : safe;
}
