/**
 * Seed 003's retrieval text prefix, `[DOC: …][PATH: …][CONCEPTS: …]`, held to
 * a token budget so that it can be reserved before packing: when the full
 * prefix is too long, concepts go first, then table header context, then the
 * outermost headings of the path, then the title is shortened.
 */
import { countTokens } from './tokens.js';

export interface PrefixParts {
  doc: string;
  /** Heading path, outermost first. */
  path: string[];
  /** Header cells of tables in the chunk (seed 003: table headers as heading-path context). */
  tableHeaders: string[][];
  concepts: string[];
}

/** Tokens reserved for the prefix and the line break after it. */
export const PREFIX_RESERVE = 64;

export function formatPrefix(p: PrefixParts): string {
  const tables = p.tableHeaders.filter((h) => h.length > 0).map((h) => `table: ${h.join(', ')}`);
  const path = [...p.path, ...tables].join(' > ');
  return `[DOC: ${clean(p.doc)}][PATH: ${clean(path)}][CONCEPTS: ${p.concepts.map(clean).join(', ')}]`;
}

/** Brackets and line breaks would make the prefix ambiguous to parse back. */
function clean(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').replace(/[[\]]/g, '');
}

/** The longest cl100k token, in UTF-16 code units (retrieval-prefix.test.ts checks it against the ranks). */
export const MAX_TOKEN_UNITS = 128;

/** The last answer of `boundedHeader` per header array: every chunk of a table asks with the same one. */
const boundedHeaders = new WeakMap<readonly string[], { reserve: number; header: string[] }>();

/**
 * A copy of `header`, or, when its part of a prefix would be longer than any text of `reserve`
 * tokens can be (each token holds at most MAX_TOKEN_UNITS code units), a copy of its first cells
 * up to just past that length. A prefix holding either cannot fit, so fitPrefix drops either
 * alike, but without copying, formatting and counting a header of thousands of cells for every
 * chunk of its table, which made a wide table's time grow with its width times its chunks
 * (issue 15).
 */
function boundedHeader(header: readonly string[], reserve: number): string[] {
  const known = boundedHeaders.get(header);
  if (known !== undefined && known.reserve === reserve) return [...known.header];
  const limit = (reserve + 1) * MAX_TOKEN_UNITS;
  let length = 'table: '.length - 2;
  let kept = header.length;
  for (let i = 0; i < header.length; i++) {
    length += clean(header[i]!).length + 2;
    if (length > limit) {
      kept = i + 1;
      break;
    }
  }
  const bounded = header.slice(0, kept);
  boundedHeaders.set(header, { reserve, header: bounded });
  return [...bounded];
}

/** The longest prefix (by the order above) whose text plus `\n` fits `reserve` tokens. */
export function fitPrefix(p: PrefixParts, reserve = PREFIX_RESERVE): { prefix: string; parts: PrefixParts } {
  let parts: PrefixParts = { ...p, concepts: [...p.concepts], path: [...p.path], tableHeaders: p.tableHeaders.map((h) => boundedHeader(h, reserve)) };
  const fits = (q: PrefixParts): boolean => {
    const text = `${formatPrefix(q)}\n`;
    // Longer than `reserve` tokens can be: no need to count it.
    return text.length <= reserve * MAX_TOKEN_UNITS && countTokens(text) <= reserve;
  };
  while (!fits(parts)) {
    if (parts.concepts.length) parts = { ...parts, concepts: parts.concepts.slice(0, -1) };
    else if (parts.tableHeaders.length) parts = { ...parts, tableHeaders: parts.tableHeaders.slice(0, -1) };
    else if (parts.path.length) parts = { ...parts, path: parts.path.slice(1) };
    else if (parts.doc.length > 0) parts = { ...parts, doc: parts.doc.slice(0, Math.floor(parts.doc.length / 2)) };
    else break;
  }
  return { prefix: formatPrefix(parts), parts };
}
