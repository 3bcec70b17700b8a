/** Errors the store raises for a caller to report; anything else is a bug. */

/** The document cannot be stored (binary, empty, not UTF-8, a huge single line …). Nothing was stored. */
export class InputError extends Error {
  override name = 'InputError';
  constructor(
    readonly source: string,
    readonly problem: string,
  ) {
    super(`${source}: ${problem}`);
  }
}

/** The request contradicts what the database holds (other embedding model, id collision, unknown id …). */
export class StoreError extends Error {
  override name = 'StoreError';
}
