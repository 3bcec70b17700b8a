/**
 * A keyword or score cell as a message quotes it: JSON-quoted, at most 60 characters, and its
 * control characters (C0, DEL, C1), bidirectional controls and marks, invisible characters and
 * lone surrogates as \u001b-style escapes (JSON.stringify does C0 and lone surrogates, SHOWN
 * the rest). Messages quoted cells whole, so one megabyte keyword made a megabyte line on
 * stderr, and raw: a keyword of a zero-width space was `keyword "" has only invisible
 * characters`, and one behind a right-to-left mark read backwards (qa-pairs quotes its
 * questions the same way).
 */
/** What JSON.stringify leaves raw and a message escapes: DEL, C1, U+00AD, U+200B–U+200F, U+2028/9, U+202A–U+202E, U+2060–U+2064, U+2066–U+2069, U+FEFF. */
const SHOWN = /[\u007f-\u009f\u00ad\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

export function quoted(s: string): string {
  const MAX = 60;
  let cut = s.length > MAX ? s.slice(0, MAX - 3) : s;
  if (cut.length < s.length && /[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1); // not half a surrogate pair
  // eslint-disable-next-line no-control-regex
  const safe = JSON.stringify(cut).replace(SHOWN, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return cut.length < s.length ? `${safe.slice(0, -1)}..." (${s.length} characters)` : safe;
}

/**
 * What a keyword may not hold: C0 controls but the tab, DEL, C1 controls and the bidirectional
 * embeddings, overrides and isolates. A keyword is shown as written in words.md, topic-spec.md,
 * the indexes and terminals.
 */
// eslint-disable-next-line no-control-regex
export const KEYWORD_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** Characters that show as nothing: zero-width space, joiners, word joiner, BOM, soft hyphen. */
export const INVISIBLE = /[\u200b-\u200d\u2060\ufeff\u00ad]/g;

/**
 * A value's kind for a message about an argument of the wrong type: the kind, never the value,
 * except a string (quoted cut short), so that `max: "3"` does not read as the number 3.
 */
export function shownArgument(value: unknown): string {
  if (typeof value === 'string') return quoted(value);
  if (typeof value === 'number') return String(value);
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

/**
 * The TypeError for a JavaScript caller's argument that is not what the types promise. Such
 * arguments failed deep inside (`source.charCodeAt is not a function`, "Cannot read properties
 * of null (reading 'forEach')"), naming nothing the caller wrote.
 */
export function argumentError(where: string, wanted: string, value: unknown): TypeError {
  return new TypeError(`${where} must be ${wanted}, got ${shownArgument(value)}`);
}
