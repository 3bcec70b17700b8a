/**
 * The characters a document name may not hold, defined once for the three places that ask:
 * resolveOptions refuses a `docName` holding one, interop's visibleDocName shows each as U+FFFD,
 * and @chunkyard/topic-io's docNameProblem refuses a source file whose name holds one (all three
 * through `@chunkyard/chunking/interop` or this file). The name opens every chunk id
 * (`{contentType}:{docName}::ch{n}`), which goes into every manifest and terminal line: an
 * escape there cleared a terminal, a newline split an id across lines of a log, and a bidi
 * control reordered the line it was shown on.
 *
 * The set: the C0 controls, DEL and the C1 controls (`\p{Cc}`, U+0000–U+001F, U+007F–U+009F),
 * and the bidirectional formatting controls: ALM U+061C, LRM U+200E, RLM U+200F, LRE/RLE/PDF/
 * LRO/RLO U+202A–U+202E and LRI/RLI/FSI/PDI U+2066–U+2069.
 */
const DOC_NAME_CONTROL = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const EVERY_DOC_NAME_CONTROL = new RegExp(DOC_NAME_CONTROL.source, 'gu');

/** The first control character in `name` as `U+XXXX` (upper-case hex, four digits at least), or null when it holds none. */
export function docNameControl(name: string): string | null {
  const found = DOC_NAME_CONTROL.exec(name);
  return found === null ? null : `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * A document name derived from a loader's or reader's metadata (a `source` path, a `file_name`,
 * a node id) with each control character shown as U+FFFD: chunkDocument refuses them in
 * `docName`, which goes into every chunk id, and the adapters' caller never chose this name, so
 * a path holding a newline must not fail the splitter.
 */
export function visibleDocName(name: string): string {
  return name.replace(EVERY_DOC_NAME_CONTROL, '\ufffd');
}
