/**
 * Reading string values from front matter YAML safely: one reader for the chunker's title and the
 * keyword scan's heading keys (session 41's fuzz found the same three faults in each copy).
 */
import { isAlias, isMap, isScalar, parseDocument } from 'yaml';

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
    const doc = parseDocument(yamlText, { logLevel: 'error' });
    if (doc.errors.length > 0 || !isMap(doc.contents)) return null;
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
