import { parse as parseYaml } from 'yaml';
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
  let title: string | null = null;
  try {
    const data: unknown = parseYaml(yamlText);
    if (data && typeof data === 'object' && 'title' in data) {
      const t = (data as { title: unknown }).title;
      if (typeof t === 'string' && t.trim()) title = t.trim();
    }
  } catch {
    title = null;
  }
  return { start: 0, end, title };
}

/**
 * The source with the front matter's characters replaced by spaces (line breaks
 * kept), so a markdown parser sees an empty region and every offset and line
 * number stays that of the original.
 */
export function blankOut(source: string, range: SourceRange | null): string {
  if (!range || range.end <= range.start) return source;
  const blanked = source.slice(range.start, range.end).replace(/[^\r\n]/g, ' ');
  return source.slice(0, range.start) + blanked + source.slice(range.end);
}
