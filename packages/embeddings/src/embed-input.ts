/**
 * What every provider's `embed` checks of its arguments before any work or request. A JavaScript
 * caller's mistakes were answered from deep inside: a string was embedded one vector per
 * character (locally) or sent whole as one input against as many result slots (remotely), a
 * number among the texts threw "text.toLowerCase is not a function" or went to the server, and
 * `null` options threw "Cannot destructure property 'signal'".
 */
import type { EmbedOptions } from './types.js';

/** A value's kind for a message (null, an array, or its typeof), never the value itself. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/** `options` as the providers read them, or a TypeError naming the argument that is wrong. */
export function checkedEmbedInput(texts: unknown, options: EmbedOptions | null | undefined): EmbedOptions {
  if (!Array.isArray(texts)) throw new TypeError(`embed: texts must be an array of strings, got ${kindOf(texts)}`);
  for (let i = 0; i < texts.length; i++) {
    if (typeof texts[i] !== 'string') throw new TypeError(`embed: texts[${i}] must be a string, got ${kindOf(texts[i])}`);
  }
  if (options === null || options === undefined) return {};
  if (typeof options !== 'object') throw new TypeError(`embed: options must be an object, got ${kindOf(options)}`);
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw new TypeError(`embed: options.onProgress must be a function, got ${kindOf(options.onProgress)}`);
  }
  return options;
}
