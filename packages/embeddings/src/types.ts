/**
 * The one embedding interface every chunkyard tool uses, and the settings that pick a
 * provider. Kept free of runtime code so that any package can import the types alone.
 */

export type ProviderName = 'local' | 'ollama' | 'openai';

export interface EmbedOptions {
  /** Aborting rejects `embed` with the signal's reason and cancels requests in flight. */
  signal?: AbortSignal;
  /** Called after each batch with the number of texts embedded so far. */
  onProgress?: (done: number, total: number) => void;
}

export interface EmbeddingProvider {
  readonly provider: ProviderName;
  /** Model id written into every cache key and output, e.g. 'local-lexical-v1-d512', 'mxbai-embed-large'. */
  readonly model: string;
  /** Known up front (local, or configured); otherwise learned from the first response and then enforced. */
  readonly dimensions: number | null;
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
}

/** What a retry is about to wait for; reported through `EmbeddingSettings.onRetry`. */
export interface RetryInfo {
  provider: ProviderName;
  url: string;
  /** The attempt that failed, 1-based. */
  attempt: number;
  /** How long the provider waits before the next attempt. */
  delayMs: number;
  /** Why, e.g. 'HTTP 429', 'HTTP 503', 'timeout', 'connection reset (ECONNRESET)'. */
  reason: string;
  /** True when `delayMs` came from the server's Retry-After / retry-after-ms header. */
  fromRetryAfter: boolean;
}

export interface EmbeddingSettings {
  provider: ProviderName;
  model?: string;
  dimensions?: number;
  /** ollama only: server address; else env OLLAMA_HOST, else http://127.0.0.1:11434. */
  host?: string;
  /** openai only: API base URL for compatible servers; else env OPENAI_BASE_URL, else the library default. */
  baseURL?: string;
  /** Remote providers: texts per request (default 64). */
  batchSize?: number;
  /** Remote providers: requests in flight at once (default 2). */
  concurrency?: number;
  /** Remote providers: per-request timeout in ms (default 60000). */
  timeoutMs?: number;
  /** Remote providers: retries after the first attempt on 429, 5xx, timeouts and connection resets (default 4). */
  maxRetries?: number;
  /**
   * Remote providers: base of the exponential backoff in ms (default 500): attempt n waits
   * about backoffMs * 2^(n-1), jittered. Not a config-file key; tests and tools set it.
   */
  backoffMs?: number;
  /** Remote providers: upper bound on any wait between attempts, Retry-After included (default 30000). */
  maxDelayMs?: number;
  /** Remote providers: told before each retry, so a CLI can say why it is waiting. */
  onRetry?: (info: RetryInfo) => void;
}
