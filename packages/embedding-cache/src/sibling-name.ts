/**
 * The temp names the cache writes under. A module of its own, and not one of the package's
 * `exports`: index.ts uses it, and the tests import it by path to check the names, so the
 * published entry point carries no test hook (it exported `siblingNameForTests`).
 */
import { tempName } from '@chunkyard/fs-atomic';

/**
 * A hidden name beside `target` (readers only ever open exact names, so they never see it):
 * fs-atomic's temp name, `.<name>.tmp-<pid>~<pid space>-<hex>`. What a killed run leaves there
 * (a half-built entry, or one moved aside) is removed by the next write into that folder
 * (removeStaleTempsOnce); a live writer's is left alone, in another pid namespace too (a
 * container sharing the cache), which its own `<pid>-<hex>` form could not tell apart.
 */
export function siblingName(target: string): string {
  return tempName(target);
}
