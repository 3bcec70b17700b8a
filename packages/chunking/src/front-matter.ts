import { isAlias, isMap, isScalar, parseDocument } from 'yaml';
import type { SourceRange } from './types.js';

export interface FrontMatter extends SourceRange {
  /** The `title` key when the YAML parses and holds a string title. */
  title: string | null;
}

const OPEN = /^---[ \t]*\r?\n/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m;

/**
 * YAML front matter at the very start of the document (`---` … `---`), which
 * is excluded from chunking. Returns null when there is none. A front matter
 * block whose YAML does not parse is still excluded; its title is then null.
 */
export function findFrontMatter(source: string): FrontMatter | null {
  const open = OPEN.exec(source);
  if (!open) return null;
  const rest = source.slice(open[0].length);
  const close = CLOSE.exec(rest);
  if (!close) return null;
  const yamlText = rest.slice(0, close.index);
  const end = open[0].length + close.index + close[0].length;
  const quick = simpleTitle(yamlText);
  if (quick !== undefined) return { start: 0, end, title: quick };
  return { start: 0, end, title: yamlTitle(yamlText) };
}

/**
 * Nesting deeper than this is not handed to the YAML parser (its title is then null, as for
 * YAML that does not parse). Real front matter nests a few levels; `yaml` recurses once or
 * more per level, and near the stack's end V8 aborted the whole process (s41 fuzz: `x: [[[…`
 * a thousand deep, or `- - - …`, chunked a few times in one process gave "FATAL ERROR:
 * RegExpCompiler Allocation failed"), which no try/catch can turn into an answer.
 */
export const YAML_MAX_DEPTH = 128;

/**
 * An upper bound on the nesting depth of YAML text, in one pass: the deepest flow nesting
 * (`[`/`{` not yet closed, quotes ignored, so a bracket in a string only makes it larger)
 * plus the most a line can open in block style (its indentation in spaces, and the compact
 * `- `, `? `, `: ` indicators it starts with: `- - - x` nests three deep on one line).
 */
export function yamlDepthBound(text: string): number {
  let flow = 0;
  let maxFlow = 0;
  let maxBlock = 0;
  let lineStart = true;
  let indicators = false;
  let block = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      lineStart = true;
      indicators = false;
      block = 0;
      continue;
    }
    if (lineStart) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 32;
      if (c === 32) {
        if (!indicators) block++; // indentation (the spaces after an indicator only separate)
      } else if ((c === 45 || c === 63 || c === 58) && (next === 32 || next === 9 || next === 10 || next === 13)) {
        block++; // `- `, `? `, `: ` open a node on this line
        indicators = true;
      } else if (c !== 9) {
        lineStart = false;
      }
      if (block > maxBlock) maxBlock = block;
    }
    if (c === 91 || c === 123) {
      if (++flow > maxFlow) maxFlow = flow;
    } else if ((c === 93 || c === 125) && flow > 0) {
      flow--;
    }
  }
  return maxFlow + maxBlock;
}

/**
 * The trimmed string `title` of front matter YAML, or null: YAML that does not parse, a title
 * that is no string or empty, YAML nested deeper than YAML_MAX_DEPTH. What `yaml`'s `parse`
 * would give, without converting the whole document to JavaScript: that turned every mapping
 * used as a key into a string, each holding the ones inside it, so `? ? ? … x` took 5 s for
 * 250 levels and 15 s for 300 (s41 fuzz).
 */
function yamlTitle(yamlText: string): string | null {
  if (yamlDepthBound(yamlText) > YAML_MAX_DEPTH) return null;
  try {
    // logLevel 'error': a YAML warning (an unknown tag) would go to process.emitWarning,
    // printing to stderr on every chunking of the document. Chunking is pure.
    const doc = parseDocument(yamlText, { logLevel: 'error' });
    if (doc.errors.length > 0 || !isMap(doc.contents)) return null;
    let node: unknown = doc.contents.get('title', true);
    if (isAlias(node)) node = node.resolve(doc);
    const t: unknown = isScalar(node) ? node.value : undefined;
    return typeof t === 'string' && t.trim() ? t.trim() : null;
  } catch {
    return null;
  }
}

// A line of the flat `key: plain value` form nearly all docs front matter has (Hugo, Docusaurus,
// npm's docs). The value must be a plain YAML scalar that cannot mean anything else: it does not
// start with an indicator character and holds no `: `, ` #` or tab. Anything else goes to the
// real YAML parser, which costs about 13% of chunking a corpus of small front-mattered pages.
const V = '[\\x20-\\x7e\\u00a0-\\ud7ff\\ue000-\\ufffc]';
const SIMPLE_LINE = new RegExp(`^([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+((?![-?:,\\[\\]{}#&*!|>'"%@\\x60 ])${V}(?:(?![ ]#|:(?:[ ]|$))${V})*?))?[ ]*$`);
// Plain values YAML 1.2's core schema reads as something other than a string.
const NOT_A_STRING = /^(?:[-+.]?[0-9]|[-+]?\.(?:inf|Inf|INF)$|\.(?:nan|NaN|NAN)$|(?:null|Null|NULL|true|True|TRUE|false|False|FALSE|~)$)/;

/**
 * The title of front matter made only of flat `key: plain value` lines (and blank lines), read
 * without the YAML parser; `undefined` when the text is anything else, so the caller parses it.
 * It gives what `yaml`'s `parse` would: the trimmed string `title`, or null for no title, an
 * empty one, a non-string one, or a duplicate key (which `yaml` rejects).
 */
export function simpleTitle(yamlText: string): string | null | undefined {
  const keys = new Set<string>();
  let title: string | null = null;
  let from = 0;
  while (from <= yamlText.length) {
    let to = yamlText.indexOf('\n', from);
    if (to < 0) to = yamlText.length;
    let line = yamlText.slice(from, to);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    from = to + 1;
    if (line.trim() === '') continue;
    const m = SIMPLE_LINE.exec(line);
    if (!m) return undefined;
    const key = m[1]!;
    if (keys.has(key)) return null;
    keys.add(key);
    if (key === 'title') {
      const value = m[2];
      if (value === undefined) title = null;
      else if (NOT_A_STRING.test(value)) return undefined;
      else title = value.trim() || null;
    }
  }
  return title;
}

/**
 * The source with the front matter's characters replaced by spaces (line breaks
 * kept), so a markdown parser sees an empty region and every offset and line
 * number stays that of the original.
 */
export function blankOut(source: string, range: SourceRange | null): string {
  if (!range || range.end <= range.start) return source;
  // What `.replace(/[^\r\n]/g, ' ')` of the range gives, a run of spaces per line rather than a
  // regex match per character (every page of a front-mattered docs set pays it).
  let blanked = '';
  let run = range.start;
  for (let i = range.start; i < range.end; i++) {
    const c = source.charCodeAt(i);
    if (c === 10 || c === 13) {
      blanked += ' '.repeat(i - run) + (c === 10 ? '\n' : '\r');
      run = i + 1;
    }
  }
  blanked += ' '.repeat(range.end - run);
  return source.slice(0, range.start) + blanked + source.slice(range.end);
}
