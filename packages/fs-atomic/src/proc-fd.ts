/**
 * The path through which an open folder is reached by its descriptor (Linux's /proc). Not
 * exported from the package: a seam for this package's own tests only, which point it at a
 * path that does not exist to run PinnedDir's fallback (the plain path, checked before each
 * use) as on a system without /proc. Production always uses /proc/self/fd.
 */
export const procFd: { path: (fd: number) => string } = { path: (fd) => `/proc/self/fd/${fd}` };
