/**
 * Seed 003's heuristic heading detection, for plain text (.txt, text
 * extracted from PDFs) and for markdown with fewer than 3 `#` headings.
 *
 * The parse is the same as for markdown; afterwards a top-level paragraph
 * whose first line looks like a heading is split into a heading block (that
 * line) and a paragraph block (the rest). A line looks like a heading when it
 * is short (at most 80 characters), does not end in sentence punctuation, and is
 *
 * - a Chapter/Section/Part/Appendix line: `Chapter 3`, `SECTION 2.1 Setup` (depth 1, Section 2);
 * - a numbered heading: `2 Background`, `3.1 Design goals` (depth = number of parts);
 * - ALL CAPS: at least two letters, no lower-case letter (depth 1);
 * - Title Case: 1–8 words, each significant word capitalised, and the line is
 *   a paragraph of its own (depth 2).
 *
 * A one-item ordered list whose single line reads as a numbered heading
 * (`1. Introduction`, which markdown parses as a list) becomes a heading too.
 *
 * Limits, as seed 003 says of the heuristic: a short capitalised line that is
 * not a heading (a name, a slogan, a table caption) becomes one; a heading
 * written as a full sentence, or run into its paragraph mid-line, is missed;
 * depth is a guess from the pattern, not from the layout.
 */
import { isJsTrimmed } from './lines.js';
import type { Block } from './types.js';

const MAX_HEADING_CHARS = 80;
const CHAPTER = /^(chapter|section|part|appendix)\s+([0-9]+(?:\.[0-9]+)*|[IVXLC]+|[A-Z])\b[.:]?(\s+\S.*)?$/i;
const NUMBERED = /^([0-9]{1,2}(?:\.[0-9]{1,2}){0,4})\.?\s+(\p{Lu}\S*)(\s+\S+){0,11}$/u;
const SENTENCE_END = /[.,;:!?]$/;
const SMALL_WORDS = new Set(['a', 'an', 'and', 'as', 'at', 'but', 'by', 'for', 'from', 'in', 'into', 'of', 'on', 'or', 'the', 'to', 'vs', 'with']);

export interface HeadingGuess {
  depth: number;
  text: string;
}

/** The heading a line would be, or null. `standalone`: the line is a paragraph of its own. */
export function headingOf(line: string, standalone: boolean): HeadingGuess | null {
  const text = line.trim();
  if (!text || text.length > MAX_HEADING_CHARS || /^[#>|`~\-*+=]/.test(text)) return null;
  const chapter = CHAPTER.exec(text);
  if (chapter) return { depth: /^section/i.test(text) ? 2 : 1, text };
  if (SENTENCE_END.test(text)) return null;
  const numbered = NUMBERED.exec(text);
  if (numbered) return { depth: Math.min(6, numbered[1]!.split('.').length), text };
  // A lower-case letter anywhere rules out ALL CAPS before the letters are gathered (Ll is a
  // subset of L): most lines have one, and a replace per line was a fifth of the heading guess on
  // a document of one-line lists (issue 15).
  if (!LOWER_CASE_LETTER.test(text)) {
    const letters = text.replace(NOT_A_LETTER, '');
    if (letters.length >= 2 && UPPER_CASE_LETTER.test(letters)) return { depth: 1, text };
  }
  if (standalone && isTitleCase(text)) return { depth: 2, text };
  return null;
}

// Module constants, not literals in the functions: the build (esbuild) turns a literal with a
// property escape into `new RegExp(…)`, which then made and looked up a regex per line.
const LOWER_CASE_LETTER = /\p{Ll}/u;
const UPPER_CASE_LETTER = /\p{Lu}/u;
const NOT_A_LETTER = /[^\p{L}]/gu;
const STARTS_UPPER_CASE = /^\p{Lu}/u;

function isTitleCase(text: string): boolean {
  // `text` is trimmed, so its first word starts where it does: tested before the split.
  if (!STARTS_UPPER_CASE.test(text)) return false;
  const words = text.split(/\s+/);
  if (words.length > 8) return false;
  return words.every((w, i) => {
    const bare = w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (!bare) return false;
    if (i > 0 && SMALL_WORDS.has(bare.toLowerCase())) return true;
    return /^[\p{Lu}\p{N}]/u.test(bare);
  });
}

/** Number of ATX (`#`) headings in the parse: the seed's test for "this is markdown". */
export function atxHeadingCount(source: string, blocks: Block[], enough = Infinity): number {
  let n = 0;
  for (let k = 0; k < blocks.length && n < enough; k++) {
    const b = blocks[k]!;
    if (b.type === 'heading' && source.charCodeAt(b.start) === 35) n++;
  }
  return n;
}

/** Seed 003's rule: plain text, or markdown with fewer than 3 `#` headings (counted up to 3, not through 200,000 tiny ones). */
export function usesHeuristicHeadings(source: string, blocks: Block[], sourceFile: string): boolean {
  return /\.txt$/i.test(sourceFile) || atxHeadingCount(source, blocks, 3) < 3;
}

/** The line scanLine found: `[lineStart, lineEnd)`, without its line break. */
let lineStart = 0;
let lineEnd = 0;

/**
 * Finds the first non-empty line of `[from, end)` (a line ends at `\n`, `\r` or `\r\n`) into
 * lineStart/lineEnd; false when there is none. One line at a time, in place of an array of
 * line objects per paragraph (issue 15).
 */
function scanLine(source: string, from: number, end: number): boolean {
  let s = from;
  while (s < end && isBreak(source.charCodeAt(s))) s++;
  if (s >= end) return false;
  let e = s + 1;
  while (e < end && !isBreak(source.charCodeAt(e))) e++;
  lineStart = s;
  lineEnd = e;
  return true;
}

function isBreak(c: number): boolean {
  return c === 10 || c === 13;
}

/**
 * True when headingOf(source.slice(start, end), standalone) is surely null, read from the
 * characters in place: the trimmed line starts with an ASCII lower-case letter and not with a
 * Chapter/Section/Part/Appendix word (a numbered heading starts with a digit; an ALL CAPS line
 * has no lower-case letter; a Title Case line starts with an upper-case one). Until session 56
 * every line starting with a, c, p or s went to headingOf: a quarter of the time of a document
 * of one-line paragraphs such as `p12`.
 * A document of paragraphs such as `lazy 12` ran four patterns, a replace and a split on each
 * (issue 15). plain-text.test.ts holds it to headingOf.
 */
export function surelyNotHeading(source: string, start: number, end: number): boolean {
  let k = start;
  while (k < end && isJsTrimmed(source.charCodeAt(k))) k++;
  if (k >= end) return false;
  const c = source.charCodeAt(k);
  if (c < 0x61 || c > 0x7a) return false;
  const word = CHAPTER_WORD_BY_LETTER[c - 0x61];
  return word === undefined || !startsWithAsciiFolded(source, k, end, word);
}

/** CHAPTER's words by their first letter: a lower-case line can only be a heading by starting with one. */
const CHAPTER_WORD_BY_LETTER: readonly (string | undefined)[] = Array.from({ length: 26 }, (_, i) =>
  ['chapter', 'section', 'part', 'appendix'].find((w) => w.charCodeAt(0) === 0x61 + i),
);

/**
 * `source[k…]` starts with `word` (lower-case ASCII) in either case. CHAPTER's `/i` without `u`
 * folds no non-ASCII letter to an ASCII one (ſ, K, ı stay apart), so ASCII folding is the whole
 * of its match.
 */
function startsWithAsciiFolded(source: string, k: number, end: number, word: string): boolean {
  if (end - k < word.length) return false;
  for (let i = 0; i < word.length; i++) if ((source.charCodeAt(k + i) | 0x20) !== word.charCodeAt(i)) return false;
  return true;
}

/**
 * Blocks with guessed headings split out of top-level paragraphs (and one-line numbered lists):
 * a new array, or `blocks` itself when no heading is guessed.
 */
export function detectHeadings(source: string, blocks: Block[]): Block[] {
  // The blocks up to the first guessed heading are copied once, when it is found: an array grown
  // by a push per block was made again at every growth past 128 KB, each time from fresh memory
  // (two thirds of this function's time on 100,000 paragraphs without a heading, issue 15).
  let out: Block[] | null = null;
  for (let k = 0; k < blocks.length; k++) {
    const b = blocks[k]!;
    if (b.type === 'list' && b.ordered && b.children?.length === 1 && b.startLine === b.endLine) {
      const text = source.slice(b.start, b.end);
      // NUMBERED first: it decides alone for most one-item lists (`1. step`), whose guess, a
      // pattern, a replace and a split, was most of a document of lists alternating their marker.
      const guess = NUMBERED.test(text.trim()) ? headingOf(text, true) : null;
      if (guess) {
        out ??= blocks.slice(0, k);
        out.push({ type: 'heading', start: b.start, end: b.end, startLine: b.startLine, endLine: b.endLine, depth: guess.depth, text: guess.text });
        continue;
      }
    }
    if (b.type !== 'paragraph') {
      if (out !== null) out.push(b);
      continue;
    }
    // The paragraph's first non-empty line, and whether another follows (it is then not standalone).
    const found = scanLine(source, b.start, b.end);
    const first = lineStart;
    const firstEnd = lineEnd;
    if (!found || surelyNotHeading(source, first, firstEnd)) {
      if (out !== null) out.push(b);
      continue;
    }
    const more = scanLine(source, firstEnd, b.end);
    const guess = headingOf(source.slice(first, firstEnd), !more);
    if (!guess) {
      if (out !== null) out.push(b);
      continue;
    }
    out ??= blocks.slice(0, k);
    out.push({ type: 'heading', start: first, end: firstEnd, startLine: b.startLine, endLine: b.startLine, depth: guess.depth, text: guess.text });
    if (more) {
      let restStart = lineStart;
      while (/\s/.test(source[restStart] ?? '') && restStart < b.end) restStart++;
      out.push({ ...b, start: restStart, startLine: b.startLine + 1 });
    }
  }
  return out ?? blocks;
}
