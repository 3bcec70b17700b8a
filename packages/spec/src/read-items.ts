/**
 * A fast reader for the `chunks:` items of topic-spec.md as formatTopicSpecMd writes them: one
 * `key: value` a line, keywords as one flow mapping a line, prompt hashes as one flow sequence.
 * The yaml library builds a syntax tree and a document of nodes for every scalar, about 0.5 ms a
 * chunk: two thirds of index-tool's 22 s on a 20,000-chunk topic (session 53). This reads that
 * layout line by line, and answers only where the answer is sure to be the yaml library's (YAML
 * 1.2 core schema): any other line, key or scalar (a number written another way, a null, an
 * escape other than `\\` and `\"`, a comment) makes it answer null, and the caller reads the
 * part with the yaml library, which names any problem as it always has.
 */

/** What `readItems` gives up with: the caller reads the text with the yaml library instead. */
const UNSURE = Symbol('unsure');
type Scalar = string | number | boolean;

const ITEM_KEYS = new Set(['doc', 'index', 'href', 'title', 'is_code', 'tokens', 'similarity_conceptual', 'similarity_technical', 'keywords', 'prompt_hashes']);

/**
 * The items of a `chunks:` list's part (`text`: whole items, each opening with `  - ` at the
 * start of a line, the last line ending in a line feed), or null where a line is not of the
 * layout above.
 */
export function readItems(text: string): Record<string, unknown>[] | null {
  if (!text.endsWith('\n')) return null;
  const items: Record<string, unknown>[] = [];
  let item: Record<string, unknown> | null = null;
  /** The block list the lines `      - ` go into (the last key's, when it had no value on its line). */
  let list: unknown[] | null = null;
  let end = 0;
  for (let start = 0; start < text.length; start = end + 1) {
    end = text.indexOf('\n', start);
    const line = text.slice(start, end);
    if (line.startsWith('  - ')) {
      if (list !== null && list.length === 0) return null; // `key:` with nothing under it is null
      item = {};
      items.push(item);
      const opened = readPair(line, 4, item);
      if (opened === false) return null;
      list = Array.isArray(opened) ? opened : null;
      continue;
    }
    if (item === null) return null;
    if (line.startsWith('      - ')) {
      if (list === null) return null;
      const entry = flowMap(line, 8);
      if (entry === UNSURE) return null;
      list.push(entry);
      continue;
    }
    if (!line.startsWith('    ') || line.charCodeAt(4) === 32) return null;
    if (list !== null && list.length === 0) return null;
    list = null;
    const opened = readPair(line, 4, item);
    if (opened === false) return null;
    if (Array.isArray(opened)) list = opened;
  }
  if (list !== null && list.length === 0) return null;
  return items;
}

/**
 * `key: value` from `line` at `at` into `item`: true, or the new list when the line is `key:`
 * alone (a block list follows); false when unsure (an unknown or repeated key, an odd value).
 */
function readPair(line: string, at: number, item: Record<string, unknown>): boolean | unknown[] {
  const colon = line.indexOf(':', at);
  if (colon < 0) return false;
  const key = line.slice(at, colon);
  if (!ITEM_KEYS.has(key) || Object.hasOwn(item, key)) return false;
  if (colon === line.length - 1) {
    const list: unknown[] = [];
    item[key] = list;
    return list;
  }
  if (line.charCodeAt(colon + 1) !== 32) return false;
  const raw = line.slice(colon + 2);
  const value = raw.startsWith('[') ? flowSeq(raw) : blockScalar(raw);
  if (value === UNSURE) return false;
  item[key] = value;
  return true;
}

/** A whole scalar standing as a block mapping's value. */
function blockScalar(raw: string): Scalar | typeof UNSURE {
  if (raw.startsWith('"')) {
    const q = doubleQuoted(raw, 0);
    return q !== UNSURE && q.end === raw.length ? q.value : UNSURE;
  }
  return plain(raw, false);
}

/** `{ name: x, score: n }` from `at` to the line's end, exactly so. */
function flowMap(line: string, at: number): { name: Scalar; score: Scalar } | typeof UNSURE {
  if (!line.startsWith('{ name: ', at) || !line.endsWith(' }')) return UNSURE;
  const name = flowScalar(line, at + 8, line.length - 2);
  if (name === UNSURE || !line.startsWith(', score: ', name.end)) return UNSURE;
  const score = flowScalar(line, name.end + 9, line.length - 2);
  if (score === UNSURE || score.end !== line.length - 2) return UNSURE;
  return { name: name.value, score: score.value };
}

/** `[ a, b ]` (or `[]`), each entry a flow scalar. */
function flowSeq(raw: string): Scalar[] | typeof UNSURE {
  if (raw === '[]') return [];
  if (!raw.startsWith('[ ') || !raw.endsWith(' ]')) return UNSURE;
  const out: Scalar[] = [];
  const stop = raw.length - 2;
  let at = 2;
  for (;;) {
    const s = flowScalar(raw, at, stop);
    if (s === UNSURE) return UNSURE;
    out.push(s.value);
    if (s.end === stop) return out;
    if (!raw.startsWith(', ', s.end)) return UNSURE;
    at = s.end + 2;
  }
}

/** A scalar inside a flow collection, from `at`, ending at the next `, ` or at `stop`. */
function flowScalar(s: string, at: number, stop: number): { value: Scalar; end: number } | typeof UNSURE {
  if (s.charCodeAt(at) === 34) return doubleQuoted(s, at);
  let end = s.indexOf(', ', at);
  if (end < 0 || end > stop) end = stop;
  const value = plain(s.slice(at, end), true);
  return value === UNSURE ? UNSURE : { value, end };
}

/** A double-quoted scalar at `at` whose only escapes are `\\` and `\"`; its value and the index after its closing quote. */
function doubleQuoted(s: string, at: number): { value: string; end: number } | typeof UNSURE {
  let value = '';
  let from = at + 1;
  for (let k = from; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c === 34) return { value: value + s.slice(from, k), end: k + 1 };
    if (c === 92) {
      const next = s.charCodeAt(k + 1);
      if (next !== 92 && next !== 34) return UNSURE;
      value += s.slice(from, k) + s[k + 1];
      k++;
      from = k + 1;
    } else if (c < 0x20 && c !== 9) return UNSURE;
  }
  return UNSURE;
}

/** Indicators a plain scalar may not start with (some may, before a non-space; these are never written so). */
const INDICATOR_START = /^[-?:,[\]{}#&*!|>'"%@`\s]/;
/** Characters this reader leaves to the yaml library: controls, and what YAML or its writer treats as breaks or escapes. */
// eslint-disable-next-line no-control-regex
const ODD = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;
const NULL = /^(?:~|[Nn]ull|NULL)$/;
const TRUE = /^(?:[Tt]rue|TRUE)$/;
const FALSE = /^(?:[Ff]alse|FALSE)$/;
/** The YAML 1.2 core schema's numbers, every form (yaml's own tests). */
const ANY_NUMBER = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
/** The forms read here: decimal integers and decimals, as the writer gives them. */
const PLAIN_INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const PLAIN_DECIMAL = /^-?(?:0|[1-9][0-9]*)\.[0-9]+$/;

/** A plain scalar's value in the core schema, or UNSURE; in a flow collection also no `,[]{}`. */
function plain(raw: string, inFlow: boolean): Scalar | typeof UNSURE {
  // A negative number (a cosine) starts with the indicator `-`, which it may before a digit.
  const negative = raw.charCodeAt(0) === 45 && raw.charCodeAt(1) >= 48 && raw.charCodeAt(1) <= 57;
  if (raw === '' || (!negative && INDICATOR_START.test(raw)) || ODD.test(raw)) return UNSURE;
  const last = raw.charCodeAt(raw.length - 1);
  if (last === 32 || last === 58 || raw.includes(': ') || raw.includes(' #')) return UNSURE;
  // In a flow collection a colon may start a value and these end the scalar: left to yaml.
  if (inFlow && /[,:[\]{}]/.test(raw)) return UNSURE;
  if (NULL.test(raw)) return UNSURE;
  if (TRUE.test(raw)) return true;
  if (FALSE.test(raw)) return false;
  if (ANY_NUMBER.test(raw)) {
    if (PLAIN_INTEGER.test(raw)) {
      const n = Number(raw);
      return Number.isSafeInteger(n) && !Object.is(n, -0) ? n : UNSURE;
    }
    return PLAIN_DECIMAL.test(raw) ? Number(raw) : UNSURE;
  }
  return raw;
}
