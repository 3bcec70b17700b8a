/**
 * Where tempName's random bytes come from. Not exported from the package: a seam for this
 * package's own tests only, which replace `bytes` to know a temp name in advance and plant a
 * symlink there (the exclusive open must refuse it). Production always uses randomBytes.
 */
import { randomBytes } from 'node:crypto';

export const tempRandom: { bytes: (n: number) => Buffer } = { bytes: randomBytes };
