// Helpers topic-io's own tests share (not built, not exported: the package's entries are
// index.ts and entry-exists.ts).

/** What `f` throws, or null when it returns: lets a property test assert on the error or its absence. */
export function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  return null;
}
