import type { ProviderName } from './types.js';

export type EmbeddingErrorKind = 'unreachable' | 'auth' | 'http' | 'timeout' | 'malformed' | 'dimensions' | 'config';

export interface EmbeddingErrorDetails {
  provider: ProviderName;
  url: string | null;
  kind: EmbeddingErrorKind;
  fix: string;
  /** HTTP status of the last response, when there was one. */
  status?: number;
  /** Attempts made (1 + retries), for request failures. */
  attempts?: number;
  cause?: unknown;
}

/**
 * Every failure of a provider, with enough context to act on: which provider, which URL,
 * what went wrong (`kind`), and `fix`, one sentence telling the user what to do. The
 * message already contains all of it, so a CLI can print `err.message` alone.
 */
export class EmbeddingError extends Error {
  override name = 'EmbeddingError';
  readonly provider: ProviderName;
  readonly url: string | null;
  readonly kind: EmbeddingErrorKind;
  readonly fix: string;
  readonly status: number | null;
  readonly attempts: number | null;
  /**
   * What a failed embed() call did get back: one slot per text of the call, holding the vector
   * when that text's request came back before the failure; empty when none did. With requests
   * in flight side by side, one failing would otherwise take its siblings' vectors (paid for)
   * down with it; embedThroughCache caches these before passing the error on. Set by the
   * provider as the error leaves embed(); the message does not change.
   */
  partial: readonly (Float32Array | undefined)[] = [];

  constructor(problem: string, details: EmbeddingErrorDetails) {
    const where = details.url ? ` (${details.url})` : '';
    // The problem may quote the server (an error page, a body the JSON parser quotes): on one
    // line, its control characters escaped, so a page holding ESC sequences cannot clear or
    // retitle the terminal that shows the message, as LlmError's (issue 15 probe).
    super(`${details.provider} embeddings${where}: ${escapeControl(problem.replace(/\s+/g, ' ').trim())}. ${details.fix}`, details.cause === undefined ? undefined : { cause: details.cause });
    this.provider = details.provider;
    this.url = details.url;
    this.kind = details.kind;
    this.fix = details.fix;
    this.status = details.status ?? null;
    this.attempts = details.attempts ?? null;
  }
}

/** A URL fit for messages: user:password@ removed, so credentials never reach logs. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * C0 controls, DEL, C1 controls and the bidirectional embeddings, overrides and isolates as
 * `\u001b`-style escapes: @chunkyard/fs-atomic's escapeControl rule (this package depends on no
 * other chunkyard package). Line breaks are gone before it runs (the message is one line).
 */
export function escapeControl(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
