/**
 * cl100k_base byte-pair encoding of one pre-token, counted: tiktoken's merge
 * loop over the pre-token's UTF-8 bytes, with the ranks gpt-tokenizer ships.
 *
 * Used only for pre-tokens that hold U+FEFF or U+0085, where gpt-tokenizer's
 * own count departs from tiktoken's: its rank table keeps the bytes EF BB BF
 * (the BOM, rank 3305) as raw bytes rather than a string, and its encoder does
 * not find them, so it counts "\ufeff" as two tokens where tiktoken has one;
 * and its split, on JS's `\s`, can cut a pre-token holding either character
 * that tiktoken keeps whole. The rank map is built on first use, so documents
 * without these characters never pay for it.
 */
import bpeRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';

let ranks: Map<string, number> | null = null;

/** Rank of every token, keyed by its bytes as a latin-1 string. */
function rankMap(): Map<string, number> {
  if (ranks) return ranks;
  const encoder = new TextEncoder();
  const map = new Map<string, number>();
  const table = bpeRanks as readonly (string | readonly number[])[];
  table.forEach((value, rank) => {
    // A rank is a string when its bytes are valid UTF-8, else the raw bytes.
    const bytes = typeof value === 'string' ? encoder.encode(value) : value;
    map.set(latin1(bytes, 0, bytes.length), rank);
  });
  ranks = map;
  return map;
}

function latin1(bytes: ArrayLike<number>, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]!);
  return s;
}

/**
 * Number of cl100k tokens in `piece`, one pre-token: tiktoken's
 * `_byte_pair_merge` (tiktoken/src/lib.rs), ported as it is. Parts start as
 * single bytes; each carries the rank of itself merged with the next part;
 * the lowest rank (the leftmost on a tie) merges until no pair has a rank.
 */
export function bpeTokenCount(piece: string): number {
  const bytes = new TextEncoder().encode(piece);
  if (bytes.length <= 1) return bytes.length;
  const map = rankMap();
  if (map.has(latin1(bytes, 0, bytes.length))) return 1;
  const rankOfBytes = (a: number, b: number): number => map.get(latin1(bytes, a, b)) ?? Infinity;
  // parts[i] = [start, rank of parts i and i+1 merged]; two sentinels at the end.
  const parts: [number, number][] = [];
  for (let i = 0; i < bytes.length - 1; i++) parts.push([i, rankOfBytes(i, i + 2)]);
  parts.push([bytes.length - 1, Infinity], [bytes.length, Infinity]);
  const rankAt = (i: number): number => (i + 3 < parts.length ? rankOfBytes(parts[i]![0], parts[i + 3]![0]) : Infinity);
  for (;;) {
    let min = Infinity;
    let at = -1;
    for (let i = 0; i < parts.length - 1; i++) {
      if (parts[i]![1] < min) {
        min = parts[i]![1];
        at = i;
      }
    }
    if (at < 0) break;
    if (at > 0) parts[at - 1]![1] = rankAt(at - 1);
    parts[at]![1] = rankAt(at);
    parts.splice(at + 1, 1);
  }
  return parts.length - 1;
}
