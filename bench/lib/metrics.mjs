// Metric helpers of the benchmark. Pure functions of strings and arrays, so every
// adapter is measured the same way from the chunk texts and offsets it returns.
// Definitions follow /work/shared/notes/peer-benchmark.md (§2–§4); see README.md.

/**
 * @typedef {object} BenchChunk   one chunk as an adapter's toChunks() returns it
 * @property {string} text        the chunk text (for chunkyard: originalText)
 * @property {number} [start]     character offset (UTF-16) of the chunk in its file
 * @property {number} [end]       end offset (exclusive); start + text.length if missing
 * @property {boolean} [splitUnit] text is rebuilt by design (fence re-opened, header
 *                                repeated), so it is not expected to be a verbatim slice
 * @property {number} [reportedTokens] the tool's own token count of `text`
 * @property {string} [embedText] the text the tool would embed, if different
 * @property {number} [embedTokens] the tool's own token count of `embedText`
 */

/**
 * @typedef {object} SourceBlock  a fenced code block or GFM table found in a source file
 * @property {number} start       offset of the first fence / table character
 * @property {number} end         offset just past the closing fence / last table row
 * @property {string} text        source.slice(start, end)
 * @property {boolean} closed     code blocks: a closing fence was found (tables: true)
 */

// ---------------------------------------------------------------- lines and fences

/** A fence line: optional indentation, then ``` or ~~~ (three or more). */
export const FENCE_LINE = /^[ \t]*(?:`{3,}|~{3,})/;
const FENCE_LINE_GLOBAL = /^[ \t]*(?:`{3,}|~{3,})/gm;

/** @param {string} text @returns {number} lines of `text` that are fence lines */
export function countFenceLines(text) {
  FENCE_LINE_GLOBAL.lastIndex = 0;
  let n = 0;
  while (FENCE_LINE_GLOBAL.exec(text) !== null) n++;
  return n;
}

/**
 * Odd-fence chunk: an odd number of fence lines, so a fenced code block was cut
 * (opened but not closed in the chunk, or the other way round).
 * @param {string} text
 */
export function isOddFenceChunk(text) {
  return countFenceLines(text) % 2 === 1;
}

// ---------------------------------------------------------------- tables

const DELIMITER_ROW = /^\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?$/;

/** GFM delimiter row (`|---|:--:|`, `--- | ---`); must contain a pipe. @param {string} line */
export function isDelimiterRow(line) {
  const t = line.trim();
  return t.includes('|') && DELIMITER_ROW.test(t);
}

/** A list item's first line: a bullet (`-`, `*`, `+`) or ordered marker (`1.`, `1)`), then a space or the line end. */
const LIST_ITEM_START = /^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;

/**
 * A line that looks like a table row: trimmed, it starts or ends with `|`, and it
 * does not open a list item. In GFM a list item starts a new block, which ends a
 * table, so `* \`opt\`: {string|Buffer|` (a list item whose type union wraps onto
 * the next line, as in the Node.js API docs) is never a table row.
 * @param {string} line
 */
export function isTableRow(line) {
  const t = line.trim();
  return t.length > 0 && (t.startsWith('|') || t.endsWith('|')) && !LIST_ITEM_START.test(t);
}

/** Number of cells of a table row (unescaped pipes; leading/trailing pipe optional). @param {string} line */
export function cellCount(line) {
  let t = line.trim();
  if (t.startsWith('|')) t = t.slice(1);
  if (t.endsWith('|') && !t.endsWith('\\|')) t = t.slice(0, -1);
  let cells = 1;
  for (let i = 0; i < t.length; i++) {
    if (t[i] === '\\') i++;
    else if (t[i] === '|') cells++;
  }
  return cells;
}

/**
 * Headless-table chunk: the first non-blank line is a table row, and either it
 * is the delimiter row itself or the next line is not a delimiter row. The chunk
 * starts inside a table whose header (or delimiter row) is not in it.
 * @param {string} text
 */
export function isHeadlessTableChunk(text) {
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length && (lines[i] ?? '').trim() === '') i++;
  const first = lines[i];
  if (first === undefined) return false;
  // The delimiter row first: `- | -` is one, though it starts like a list item.
  if (isDelimiterRow(first)) return true;
  if (!isTableRow(first)) return false;
  const next = lines[i + 1];
  return next === undefined || !isDelimiterRow(next);
}

// ---------------------------------------------------------------- source structure

/**
 * Splits `source` into lines with their offsets (`\n` separators; a trailing `\r`
 * stays out of `text`).
 * @param {string} source
 * @returns {{ start: number, end: number, text: string }[]} end = offset of the `\n` (or source end)
 */
export function lineSpans(source) {
  const out = [];
  let pos = 0;
  for (;;) {
    const nl = source.indexOf('\n', pos);
    const end = nl < 0 ? source.length : nl;
    let text = source.slice(pos, end);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    out.push({ start: pos, end, text });
    if (nl < 0) break;
    pos = nl + 1;
  }
  return out;
}

const OPEN_FENCE = /^([ \t]*)(`{3,}|~{3,})(.*)$/;
const CLOSE_FENCE = /^([ \t]*)(`{3,}|~{3,})[ \t]*$/;

/**
 * Fenced code blocks of a source file, line based: an opening fence (``` or ~~~,
 * any indentation, so blocks inside list items count; a backtick fence's info
 * string may not contain a backtick) runs to the next fence line of the same
 * character that is at least as long and has nothing after it. A block whose
 * closing fence is missing runs to the end of the file (`closed: false`).
 * @param {string} source
 * @returns {SourceBlock[]}
 */
export function findFencedCodeBlocks(source) {
  /** @type {SourceBlock[]} */
  const blocks = [];
  /** @type {{ start: number, ch: string, len: number } | null} */
  let open = null;
  for (const line of lineSpans(source)) {
    if (open === null) {
      const m = OPEN_FENCE.exec(line.text);
      if (m !== null) {
        const [, indent = '', fence = '', info = ''] = m;
        if (fence[0] === '`' && info.includes('`')) continue;
        open = { start: line.start + indent.length, ch: fence[0] ?? '`', len: fence.length };
      }
    } else {
      const m = CLOSE_FENCE.exec(line.text);
      if (m !== null) {
        const [, indent = '', fence = ''] = m;
        if (fence[0] === open.ch && fence.length >= open.len) {
          const end = line.start + indent.length + fence.length;
          blocks.push({ start: open.start, end, text: source.slice(open.start, end), closed: true });
          open = null;
        }
      }
    }
  }
  if (open !== null) {
    const end = source.trimEnd().length;
    blocks.push({ start: open.start, end, text: source.slice(open.start, end), closed: false });
  }
  return blocks;
}

/**
 * GFM tables of a source file, outside fenced code: a line containing `|`
 * followed by a delimiter row with the same number of cells, then every
 * following non-blank line that contains `|` and is not a fence line. The block
 * runs from the header row's first non-blank character to the end of the last
 * row's text.
 * @param {string} source
 * @param {SourceBlock[]} [codeBlocks] from findFencedCodeBlocks (computed if omitted)
 * @returns {SourceBlock[]}
 */
export function findTables(source, codeBlocks = findFencedCodeBlocks(source)) {
  const lines = lineSpans(source);
  const inCode = (/** @type {number} */ offset) =>
    codeBlocks.some((b) => offset >= b.start && offset < b.end);
  /** @type {SourceBlock[]} */
  const tables = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const header = lines[i];
    const delim = lines[i + 1];
    if (header === undefined || delim === undefined) break;
    if (!header.text.includes('|') || isDelimiterRow(header.text) || !isDelimiterRow(delim.text)) continue;
    if (cellCount(header.text) !== cellCount(delim.text)) continue;
    if (inCode(header.start + header.text.length - header.text.trimStart().length)) continue;
    let last = i + 1;
    for (let j = i + 2; j < lines.length; j++) {
      const row = lines[j];
      if (row === undefined || row.text.trim() === '' || !row.text.includes('|') || FENCE_LINE.test(row.text)) break;
      last = j;
    }
    const lastLine = lines[last];
    if (lastLine === undefined) break;
    const start = header.start + (header.text.length - header.text.trimStart().length);
    const end = lastLine.start + lastLine.text.trimEnd().length;
    tables.push({ start, end, text: source.slice(start, end), closed: true });
    i = last;
  }
  return tables;
}

/**
 * Source blocks (code blocks or tables) that appear whole, verbatim, inside at
 * least one of the chunk texts of the same file.
 * @param {SourceBlock[]} blocks
 * @param {string[]} chunkTexts
 * @returns {boolean[]} one flag per block
 */
export function intactFlags(blocks, chunkTexts) {
  return blocks.map((b) => chunkTexts.some((t) => t.length >= b.text.length && t.includes(b.text)));
}

// ---------------------------------------------------------------- statistics

/**
 * Nearest-rank percentile of an ascending array (p in 0..100); NaN when empty.
 * @param {number[]} sorted
 * @param {number} p
 */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return /** @type {number} */ (sorted[Math.min(sorted.length, rank) - 1]);
}

/** @param {number[]} values @returns {number} median (mean of the middle two when even); NaN when empty */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? /** @type {number} */ (s[mid]) : (/** @type {number} */ (s[mid - 1]) + /** @type {number} */ (s[mid])) / 2;
}

/**
 * Token-size summary of the chunks.
 * @param {number[]} tokens token count per chunk
 * @param {number} max
 */
export function sizeStats(tokens, max) {
  const sorted = [...tokens].sort((a, b) => a - b);
  const total = sorted.reduce((a, b) => a + b, 0);
  const overMax = sorted.filter((t) => t > max).length;
  return {
    chunks: sorted.length,
    totalTokens: total,
    mean: sorted.length ? total / sorted.length : Number.NaN,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted.length ? /** @type {number} */ (sorted[sorted.length - 1]) : Number.NaN,
    min: sorted.length ? /** @type {number} */ (sorted[0]) : Number.NaN,
    overMax,
  };
}

// ---------------------------------------------------------------- fidelity

/** @param {number} c UTF-16 code unit @returns {boolean} */
function isWhitespaceCode(c) {
  if (c === 32 || (c >= 9 && c <= 13)) return true;
  if (c < 128) return false;
  return /\s/.test(String.fromCharCode(c));
}

/** @param {string} source @returns {number} non-whitespace UTF-16 code units */
export function nonWhitespaceCount(source) {
  let n = 0;
  for (let i = 0; i < source.length; i++) if (!isWhitespaceCode(source.charCodeAt(i))) n++;
  return n;
}

/**
 * Does the chunk carry character offsets, and is source.slice(start, end) its text?
 * @param {string} source
 * @param {BenchChunk} chunk
 * @returns {'none' | 'exact' | 'wrong'}
 */
export function offsetStatus(source, chunk) {
  if (typeof chunk.start !== 'number') return 'none';
  const end = typeof chunk.end === 'number' ? chunk.end : chunk.start + chunk.text.length;
  return source.slice(chunk.start, end) === chunk.text ? 'exact' : 'wrong';
}

/**
 * Locates each chunk of one file in its source and measures coverage of the
 * source's non-whitespace characters.
 *
 * - A chunk with exact offsets covers [start, end).
 * - Otherwise its text is searched verbatim with indexOf from a cursor one past
 *   the previous located chunk's start (so overlapping chunks are found), then
 *   in the whole file (`outOfOrder`).
 * - A chunk that is still not found but has offsets (for chunkyard: the rebuilt
 *   `splitUnit` pieces of oversized code blocks and tables) covers each of its
 *   trimmed lines that occurs verbatim inside its own [start, end) range, in
 *   order (`lineCredited`). The re-opened fence or repeated header of a piece
 *   lies outside its range and so earns nothing.
 *
 * `verbatimCovered` counts only the first two kinds, `covered` all three.
 *
 * @param {string} source
 * @param {BenchChunk[]} chunks non-empty chunks in document order
 */
export function locateAndCover(source, chunks) {
  const mask = new Uint8Array(source.length); // 1 = covered verbatim, 2 = covered by line credit
  let cursor = 0;
  let located = 0;
  let outOfOrder = 0;
  let lineCredited = 0;
  /** @type {number[]} */
  const notLocated = [];
  chunks.forEach((chunk, index) => {
    let at = -1;
    if (offsetStatus(source, chunk) === 'exact') at = /** @type {number} */ (chunk.start);
    else {
      at = source.indexOf(chunk.text, cursor);
      if (at < 0) {
        at = source.indexOf(chunk.text);
        if (at >= 0) outOfOrder++;
      }
    }
    if (at >= 0) {
      located++;
      mask.fill(1, at, at + chunk.text.length);
      cursor = at + 1;
      return;
    }
    notLocated.push(index);
    if (typeof chunk.start !== 'number') return;
    const lo = Math.max(0, chunk.start);
    const hi = Math.min(source.length, typeof chunk.end === 'number' ? chunk.end : chunk.start + chunk.text.length);
    let p = lo;
    let credited = false;
    for (const raw of chunk.text.split('\n')) {
      const line = raw.trim();
      if (line === '') continue;
      const idx = source.indexOf(line, p);
      if (idx < 0 || idx + line.length > hi) continue;
      for (let k = idx; k < idx + line.length; k++) if (mask[k] === 0) mask[k] = 2;
      p = idx + line.length;
      credited = true;
    }
    if (credited) lineCredited++;
  });
  let nonWs = 0;
  let verbatimCovered = 0;
  let covered = 0;
  /** @type {{ start: number, end: number }[]} */
  const gaps = [];
  let gapStart = -1;
  for (let i = 0; i < source.length; i++) {
    if (isWhitespaceCode(source.charCodeAt(i))) continue;
    nonWs++;
    const m = mask[i];
    if (m === 1) verbatimCovered++;
    if (m !== 0) {
      covered++;
      if (gapStart >= 0) {
        gaps.push({ start: gapStart, end: i });
        gapStart = -1;
      }
    } else if (gapStart < 0) gapStart = i;
  }
  if (gapStart >= 0) gaps.push({ start: gapStart, end: source.length });
  return { located, outOfOrder, lineCredited, notLocated, nonWs, verbatimCovered, covered, gaps };
}
