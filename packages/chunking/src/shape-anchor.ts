/**
 * Keeps the latest document's working objects reachable until the next
 * document starts. This changes no output; it keeps V8's optimized code valid.
 *
 * Why: optimized code refers to the hidden classes ("maps") of the objects it
 * handles, and V8 holds those maps weakly from the code. Once a document is
 * done, every parser state, token, block, unit, piece and draft of it is
 * garbage; a full GC in between documents (a host's idle-time GC, or the
 * benchmark's `gc()` before every pass) then collects the maps that only those
 * objects used and deoptimizes every function that embeds them ("reason: weak
 * objects" under `node --trace-deopt`: ~40 functions per full GC, markdown-it's
 * block rules and our stages). The next document runs unoptimized until V8
 * has re-profiled and recompiled them. Measured on the Node API corpus with
 * `gc()` before each pass: ~1000 ms of CPU per pass without anchors, ~600 ms
 * with them; ~450 ms without the GCs.
 *
 * What is kept is a few objects of each kind, not a document's working set: the maps are what
 * the optimized code needs, not the objects. Anchoring a document's whole arrays and states kept
 * them alive after the call returned: 41 MiB per MB of a document of tiny headings, 4 MiB per MB
 * of prose, held by a long-running host (the MCP server) until its next document
 * (`node bench/memory.mjs --shape tiny-headings --mb 10 --path whole`). So the arrays are
 * anchored through `exemplars`, and the classes whose instances hold a document (its source,
 * its columns) as an instance made once over an empty document (`anchorEmpty`).
 */
const latest = new Map<string, unknown>();

/**
 * Remembers `value` as the latest object of its kind (replacing the previous one), its strings
 * detached from the document they were sliced from (detachStrings).
 */
export function anchor(kind: string, value: unknown): void {
  detachStrings(value);
  latest.set(kind, value);
}

// `any[]` is what TypeScript's mixin pattern requires of a base constructor;
// the subclass forwards every argument unchanged.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Constructor = new (...args: any[]) => object;

/**
 * A subclass of `Base` whose first instance stays anchored, for classes a
 * library instantiates for us (markdown-it's parser states). Every instance
 * gets the same fields in the same order, so one instance keeps their hidden
 * class alive; keeping the newest would also keep its document's source, line
 * tables and tokens, which measured slower (more to copy in every scavenge).
 */
export function anchoredClass<T extends Constructor>(kind: string, Base: T): T {
  return class extends Base {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    constructor(...args: any[]) {
      super(...args);
      if (!latest.has(kind)) latest.set(kind, this);
    }
  };
}

/**
 * A few of `items`, enough to keep their hidden classes alive: the first and last `edge` (16
 * unless given), and the first of each kind `kindOf` names in between (a block's type: the one
 * table a thousand blocks in has a map of its own). A new array: `items` itself is not kept.
 */
export function exemplars<T>(items: readonly T[], kindOf?: (item: T) => unknown, edge = 16): T[] {
  const n = items.length;
  if (n <= 2 * edge) return items.slice();
  const kept = items.slice(0, edge);
  if (kindOf !== undefined) {
    const kinds = new Set<unknown>();
    for (let i = 0; i < edge; i++) kinds.add(kindOf(items[i]!));
    // The kind just seen is in the set: runs of one kind (200,000 paragraphs a MB) skip the lookup.
    let last: unknown = kinds; // no kind: the set itself
    for (let i = edge; i < n - edge; i++) {
      const item = items[i]!;
      const kind = kindOf(item);
      if (kind === last) continue;
      last = kind;
      if (!kinds.has(kind)) {
        kinds.add(kind);
        kept.push(item);
      }
    }
  }
  for (let i = n - edge; i < n; i++) kept.push(items[i]!);
  return kept;
}

/**
 * Anchors `make()`'s value for `kind`, made once (on the first call): an instance of a class
 * over an empty document, whose hidden class is the one every document's instance has, without
 * a document's source or columns in it.
 */
export function anchorEmpty(kind: string, make: () => unknown): void {
  if (latest.has(kind)) return;
  // Taken first: `make` may construct the very class whose constructor asks for this anchor.
  latest.set(kind, null);
  latest.set(kind, make());
}

/**
 * A copy of `s` that keeps no reference to the string it was sliced from: V8 keeps a slice of 13
 * characters or more as a view of its parent, so a text kept past its document (anchored here,
 * or in a cache that lives as long as the process) kept the whole document alive with it.
 * Concatenation then a slice makes V8 flatten the two into a new string first.
 */
export function detached(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/**
 * Replaces every string among `value`'s fields, and its arrays' and objects' fields down to
 * `depth` levels (a block's children's children…), by a detached copy (equal, so nothing that
 * reads them sees a difference): an anchored record's text, embedText and heading path, or an
 * anchored block's heading text, are slices of the document, and the anchor kept the last
 * document chunked alive in a long-running host (the document and its normalized copy, 42 MB
 * after a 21 MB one; session 62). At most DETACH_BUDGET objects are visited a call: what is
 * anchored is a few exemplars (blockExemplars keeps only blocks of few descendants).
 */
export function detachStrings(value: unknown, depth = 8): void {
  detachBudget = DETACH_BUDGET;
  detachWithin(value, depth);
}

const DETACH_BUDGET = 20_000;
let detachBudget = 0;

function detachWithin(value: unknown, depth: number): void {
  if (depth < 0 || value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || Object.isFrozen(value) || --detachBudget < 0) return;
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const field = fields[key];
    if (typeof field === 'string') {
      if (field.length >= 13) fields[key] = detached(field);
    } else detachWithin(field, depth - 1);
  }
}

/**
 * Makes V8 let go of the last string a regular expression ran on: it keeps the subject of the
 * last match (for RegExp.lastMatch and `$1`, legacy features every regex feeds), and the
 * pipeline's last regex ran on a slice of the document, which kept the whole document alive
 * after the call (10 MB after an 8 MB document chunked by paginate; session 62).
 */
export function forgetLastMatch(): void {
  EMPTY_MATCH.exec('');
}
const EMPTY_MATCH = /^/;

/** What is anchored now, by kind (for tests: what the chunker keeps between calls). */
export function anchoredForTests(): ReadonlyMap<string, unknown> {
  return latest;
}
