/**
 * A seam for this package's own tests only (not exported from the package), as temp-random is:
 * StagedDir.commit calls `between` after it moved the old folder aside and before it renames
 * the staged one in, so a test can run another commit to the same target in that window (two
 * runs of a tool on one topic) and show neither fails. Production never replaces it.
 */
export const commitSeam: { between: (target: string) => void } = { between: () => {} };
