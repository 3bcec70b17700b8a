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
 * The cost is one document's intermediate objects kept alive at a time (and
 * one small instance of each markdown-it state class for the whole process).
 */
const latest = new Map<string, unknown>();

/** Remembers `value` as the latest object of its kind (replacing the previous one). */
export function anchor(kind: string, value: unknown): void {
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
