import { yamlStrings } from '@chunkyard/keywords';
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
 * block whose YAML does not parse is still excluded; its title is then null
 * (in block-style YAML only the title's own entry is parsed: yamlStrings).
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

const TITLE = ['title'];

/**
 * The trimmed string `title` of front matter YAML, or null: YAML that does not parse or nests too
 * deep to hand to the parser (yamlStrings), a title that is no string or empty.
 */
function yamlTitle(yamlText: string): string | null {
  const title = yamlStrings(yamlText, TITLE)?.[0]?.trim();
  return title ? title : null;
}

// A line of the flat `key: plain value` form nearly all docs front matter has (Hugo, Docusaurus,
// npm's docs). The value must be a plain YAML scalar that cannot mean anything else: it does not
// start with an indicator character and holds no `: `, ` #` or tab. Anything else goes to the
// real YAML parser, which costs about 13% of chunking a corpus of small front-mattered pages.
const V = '[\\x20-\\x7e\\u00a0-\\ud7ff\\ue000-\\ufffc]';
// Matched against the line without its trailing spaces, and the value greedy: a lazy value
// before `[ ]*$` could end at every space of a run, and a line of 40,000 spaces and a tab took
// 1.6 s (quadratic; issue 15 probe).
const SIMPLE_LINE = new RegExp(`^([A-Za-z_][A-Za-z0-9_-]*):(?:[ ]+((?![-?:,\\[\\]{}#&*!|>'"%@\\x60 ])${V}(?:(?![ ]#|:(?:[ ]|$))${V})*))?$`);
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
    let end = line.length;
    while (end > 0 && line.charCodeAt(end - 1) === 0x20) end--;
    const m = SIMPLE_LINE.exec(end === line.length ? line : line.slice(0, end));
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
