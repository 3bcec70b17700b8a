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

/** The longest prefix (by the order above) whose text plus `\n` fits `reserve` tokens. */
export function fitPrefix(p: PrefixParts, reserve = PREFIX_RESERVE): { prefix: string; parts: PrefixParts } {
  let parts: PrefixParts = { ...p, concepts: [...p.concepts], path: [...p.path], tableHeaders: p.tableHeaders.map((h) => [...h]) };
  const fits = (q: PrefixParts): boolean => countTokens(`${formatPrefix(q)}\n`) <= reserve;
  while (!fits(parts)) {
    if (parts.concepts.length) parts = { ...parts, concepts: parts.concepts.slice(0, -1) };
    else if (parts.tableHeaders.length) parts = { ...parts, tableHeaders: parts.tableHeaders.slice(0, -1) };
    else if (parts.path.length) parts = { ...parts, path: parts.path.slice(1) };
    else if (parts.doc.length > 0) parts = { ...parts, doc: parts.doc.slice(0, Math.floor(parts.doc.length / 2)) };
    else break;
  }
  return { prefix: formatPrefix(parts), parts };
}
