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
 * The string value of each of `keys` in front matter YAML that is a mapping (undefined for a key
 * that is missing or not a string), or null for YAML that does not parse, is not a mapping, has a
 * key twice, or nests deeper than YAML_MAX_DEPTH.
 *
 * Front matter in block style, each top-level line a plain `key:` line (or a comment, or an item
 * of a sequence at the key's own indentation), is read by its entries: the entries of `keys` are
 * parsed on their own, and the rest is only checked for a top-level key written twice. `yaml`
 * reads 0.5–2.5 s per MB however little of it is wanted (1 MB of tag lists under a one-line
 * title: 2.2 s, issue 15); an entry does not depend on the others unless it names an anchor
 * (`*a`), and then the whole text is read. So a broken line elsewhere no longer hides a good
 * title. Any other form (flow style, explicit or quoted top-level keys, directives) is read whole.
 */
export function yamlStrings(yamlText: string, keys: readonly string[]): (string | undefined)[] | null {
  const byEntries = entryStrings(yamlText, keys);
  return byEntries !== undefined ? byEntries : wholeStrings(yamlText, keys);
}

/**
 * yamlStrings by the top-level entries of `keys`, or undefined when the text is not of the form
 * that can be read so (see yamlStrings).
 */
function entryStrings(yamlText: string, keys: readonly string[]): (string | undefined)[] | null | undefined {
  const seen = new Set<string>();
  const starts: number[] = new Array<number>(keys.length).fill(-1);
  const ends: number[] = new Array<number>(keys.length).fill(yamlText.length);
  let open = -1; // the index in keys of the entry being read, or -1
  const n = yamlText.length;
  for (let at = 0; at < n; ) {
    let end = yamlText.indexOf('\n', at);
    if (end < 0) end = n;
    const next = end + 1;
    const c = yamlText.charCodeAt(at);
    // A blank or comment line, an indented one, or an item of a sequence at column 0 (the
    // value of the key above it) belongs to the entry above it; content before any key is
    // not a mapping of this form.
    if (c === 35 || isBlankLine(yamlText, at, end)) {
      at = next;
      continue;
    }
    if (c === 32 || (c === 45 && (at + 1 === end || isSpace(yamlText.charCodeAt(at + 1))))) {
      if (seen.size === 0) return undefined;
      at = next;
      continue;
    }
    const key = plainKey(yamlText, at, end);
    if (key === null) return undefined;
    // yaml: "Map keys must be unique" (keys of one text have one value, but NaN is not NaN).
    if (seen.has(key) && !NAN_KEY.test(key)) return null;
    seen.add(key);
    if (open >= 0) {
      ends[open] = at;
      open = -1;
    }
    const wanted = keys.indexOf(key);
    if (wanted >= 0) {
      starts[wanted] = at;
      open = wanted;
    }
    at = next;
  }
  if (seen.size === 0) return undefined;
  const values: (string | undefined)[] = [];
  for (let k = 0; k < keys.length; k++) {
    const start = starts[k]!;
    if (start < 0) {
      values.push(undefined);
      continue;
    }
    const entry = yamlText.slice(start, ends[k]);
    if (entry.includes('*')) return undefined; // maybe an alias of an anchor in another entry
    const read = wholeStrings(entry, [keys[k]!]);
    if (read === null) return null;
    values.push(read[0]);
  }
  return values;
}

/** A space, a tab or the CR of a CRLF break: what may follow a key's `:` or fill a blank line. */
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 13;

function isBlankLine(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isSpace(text.charCodeAt(i))) return false;
  return true;
}

/**
 * The key of a line `key: …` whose key is a plain scalar that cannot be read as anything but
 * its text up to the `:` (trailing spaces trimmed), or null for any other line. The key may not
 * start with an indicator or hold a comment (` #`); `og:title` and `a b` are keys.
 */
function plainKey(text: string, from: number, to: number): string | null {
  const first = text.charCodeAt(from);
  if (INDICATORS.includes(text[from]!) || first === 9) return null;
  for (let i = from + 1; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 58 && (i + 1 === to || isSpace(text.charCodeAt(i + 1)))) {
      let keyEnd = i;
      while (keyEnd > from && text.charCodeAt(keyEnd - 1) === 32) keyEnd--;
      return text.slice(from, keyEnd);
    }
    if (c === 35 && isSpace(text.charCodeAt(i - 1))) return null;
    if (c === 9) return null;
  }
  return null;
}

/** The core schema's NaN. */
const NAN_KEY = /^\.(?:nan|NaN|NAN)$/;

/** Characters that give a line's first character another meaning than a plain key's. */
const INDICATORS = '-?:,[]{}#&*!|>\'"%@`';

/** yamlStrings by `yaml`'s parse of the whole text. */
function wholeStrings(yamlText: string, keys: readonly string[]): (string | undefined)[] | null {
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
