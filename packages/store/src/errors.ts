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

/**
 * A search filter names a topic no stored document has (a typo, a section, a ./ path): said so,
 * with the topics there are, where an empty result read as "the docs do not cover it".
 */
export class UnknownTopicError extends StoreError {
  override name = 'UnknownTopicError';
  /** What follows the topic in a message: "no stored topic matches (topics: …); give …". */
  readonly reason: string;
  constructor(
    readonly topic: string,
    readonly topics: readonly string[],
  ) {
    const shown = topics.length === 0 ? 'the store holds no topic' : `topics: ${topics.slice(0, 20).join(', ')}${topics.length > 20 ? `, and ${topics.length - 20} more` : ''}`;
    const reason = `no stored topic matches (${shown}); give a topic's path or its last segments`;
    super(`topic ${JSON.stringify(topic)}: ${reason}`);
    this.reason = reason;
  }
}
