/**
 * A seam for this app's own tests only (not exported from the package), as fs-atomic's
 * temp-random is: file mode calls `reached` at the points between its look at a file's
 * `<folder>/_chunks` and its writes there, so a test can swap the folder for a symlink in that
 * window and show nothing is written through the link. Production never replaces it.
 *
 * - `checked`: the folder was looked at (refuseSymlink), before anything is staged in it;
 * - `staged`: every output is staged inside it, before the check that precedes moving them in;
 * - `moving`: after that check, right before the renames into the folder and the removal of
 *   stale chunk files there;
 * - `moved`: one output was renamed into the folder (`dir` is that output's path), before the next;
 * - `listed`: the folder was listed for stale chunk files (once per folder, however many
 *   documents: a listing per document was quadratic).
 */
export type OutputPhase = 'checked' | 'staged' | 'moving' | 'moved' | 'listed';

export const outputSeam: { reached: (phase: OutputPhase, dir: string) => void } = { reached: () => {} };
