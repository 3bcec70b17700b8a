/**
 * Reading string values from front matter YAML safely: one reader for the chunker's title and the
 * keyword scan's heading keys (session 41's fuzz found the same three faults in each copy).
 */
import { isAlias, isMap, isScalar, parseDocument, visit, type Document } from 'yaml';

/**
 * Nesting deeper than this is not handed to the YAML parser (the YAML then reads as holding
 * nothing, as YAML that does not parse). Real front matter nests a few levels; `yaml` recurses
 * once or more per level, and near the stack's end V8 aborted the whole process (s41 fuzz:
 * `x: [[[…` a thousand deep, or `- - - …`, read a few times in one process gave "FATAL ERROR:
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
 * The string value of each of `keys` in YAML text that is a mapping (undefined for a key that is
 * missing or not a string), or null for YAML that does not parse, is not a mapping, or nests
 * deeper than YAML_MAX_DEPTH. What `yaml`'s `parse` would give for those keys, without
 * converting the whole document to JavaScript: that turned every mapping used as a key into a
 * string, each holding the ones inside it, so `? ? ? … x` took 5 s for 250 levels and 15 s for
 * 300 (s41 fuzz).
 */
export function yamlStrings(yamlText: string, keys: readonly string[]): (string | undefined)[] | null {
  if (yamlDepthBound(yamlText) > YAML_MAX_DEPTH) return null;
  try {
    // logLevel 'error': a YAML warning (a mapping used as a key, as a `{{template}}` line makes;
    // an unknown tag) would go to process.emitWarning, on stderr at every read. Reading is pure.
    // uniqueKeys false, and hasDuplicateKey instead: `yaml` compares each key of a mapping with
    // every key before it, so 1 MB of flat keys took 14.5 s (issue 15, session 42's probe).
    const doc = parseDocument(yamlText, { logLevel: 'error', uniqueKeys: false });
    if (doc.errors.length > 0 || !isMap(doc.contents) || hasDuplicateKey(doc)) return null;
    const { contents } = doc;
    return keys.map((key) => {
      let node: unknown = contents.get(key, true);
      if (isAlias(node)) node = node.resolve(doc);
      return isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
    });
  } catch {
    return null;
  }
}

/**
 * Whether a mapping anywhere in `doc` has two keys that `yaml`'s default `uniqueKeys` calls equal
 * (which it reports as an error): scalars whose values are `===` (so two `.nan` keys are not,
 * and `1` and `"1"` are not). One set per mapping: linear in the keys.
 */
function hasDuplicateKey(doc: Document): boolean {
  let duplicate = false;
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        if (!isScalar(key) || Number.isNaN(key.value)) continue;
        if (seen.has(key.value)) {
          duplicate = true;
          return visit.BREAK;
        }
        seen.add(key.value);
      }
      return undefined;
    },
  });
  return duplicate;
}
