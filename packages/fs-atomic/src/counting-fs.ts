/**
 * For tests only (not exported by the package): node:fs with `realpathSync` and `lstatSync`
 * wrapped to count the path components they look up, for `vi.mock('node:fs', …)` in a test
 * that bounds that work on folders nested deep (issue 15: docs-export and docs-score called
 * realpathSync per topic, quadratic in the depth). Everything else is the real node:fs.
 *
 *   const lookups = vi.hoisted(() => ({ components: 0 }));
 *   vi.mock('node:fs', async (importOriginal) =>
 *     (await import('…/packages/fs-atomic/src/counting-fs.js')).countingFs(await importOriginal(), lookups));
 */
import { resolve, sep } from 'node:path';

type Fs = typeof import('node:fs');

export function countingFs(fs: Fs, lookups: { components: number }): Fs {
  // realpathSync lstat's each component of the path it is given (Node's fs.realpathSync walks
  // them one by one); an lstatSync looks up one path.
  const realpathSync = Object.assign(
    (p: Parameters<Fs['realpathSync']>[0], o?: Parameters<Fs['realpathSync']>[1]) => {
      lookups.components += resolve(String(p)).split(sep).filter(Boolean).length;
      return fs.realpathSync(p, o);
    },
    { native: fs.realpathSync.native },
  ) as Fs['realpathSync'];
  const lstatSync = ((...args: Parameters<Fs['lstatSync']>) => {
    lookups.components += 1;
    return fs.lstatSync(...args);
  }) as Fs['lstatSync'];
  return { ...fs, default: { ...fs, realpathSync, lstatSync }, realpathSync, lstatSync } as Fs;
}
