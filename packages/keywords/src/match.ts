/**
 * Which keywords of a table occur in a piece of markdown (a chunk), by the same rules that
 * extracted them: "source generator" in a chunk matches the keyword "source generation"
 * (same Porter stems), an identifier matches case-insensitively, and text inside DocFX
 * `<xref:…>` links, code spans and code blocks counts as it did for extraction.
 */
import type { KeywordEntry } from './extract.js';
import { scanMarkdown, termKey } from './scan.js';

/**
 * The entries of `table` that occur in `markdown`, in table order. A name the scan cannot
 * produce as one term (a hand-written keyword of more than three words, say) matches when it
 * occurs as text, case-insensitively and with runs of whitespace treated as one space.
 */
export function matchKeywords(table: readonly KeywordEntry[], markdown: string): KeywordEntry[] {
  const keys = new Set(scanMarkdown(markdown).map((o) => o.key));
  let flat: string | undefined;
  return table.filter((entry) => {
    const key = termKey(entry.name);
    if (key !== null) return keys.has(key);
    flat ??= markdown.toLowerCase().replace(/\s+/g, ' ');
    return flat.includes(entry.name.trim().toLowerCase().replace(/\s+/g, ' '));
  });
}
