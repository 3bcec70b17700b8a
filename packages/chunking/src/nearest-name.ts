/**
 * The "did you mean" of an unknown option key: chunkDocument's options (options.ts) and the
 * LangChain and LlamaIndex splitters' (interop.ts) name the nearest known option alike.
 */

/** The known name closest to `key`, case aside, if it is at most two edits away (`maxToken`, `MaxTokens`, `stratgey`). */
export function nearestName(key: string, names: Iterable<string>): string | undefined {
  // A hostile megabyte key would cost a megabyte per name, and resembles none of them.
  if (key.length > 40) return undefined;
  const given = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of names) {
    const d = editDistance(name.toLowerCase(), given);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}

/** Levenshtein distance of two short names. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}
