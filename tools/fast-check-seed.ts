/**
 * vitest setup: the seed of every fast-check property. A run outside CI draws new cases each
 * time (fast-check's own random seed, printed with any failure), so that local runs keep
 * exploring; in CI the seed is fixed, so that a clean clone's run is reproducible and a CI run
 * here that passed predicts the next one on the same commit. FC_SEED replays a printed seed.
 */
import fc from 'fast-check';

/** The seed CI runs every property with. */
export const CI_SEED = 20261126;

/** The seed to configure for an environment, or undefined for fast-check's random one. */
export function seedFrom(env: Record<string, string | undefined>): number | undefined {
  const given = env['FC_SEED'];
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer (fast-check's printed seed), got ${JSON.stringify(given.slice(0, 40))}`);
    return seed;
  }
  return env['CI'] !== undefined && env['CI'] !== '' && env['CI'] !== 'false' && env['CI'] !== '0' ? CI_SEED : undefined;
}

const seed = seedFrom(process.env);
if (seed !== undefined) fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
