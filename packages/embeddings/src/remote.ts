/**
 * What the two remote providers share: batching, bounded concurrency, per-request timeouts,
 * retries with backoff, and the checks on what comes back. A provider supplies a Transport
 * (send one batch through its client library, and say what a thrown error means); this
 * module turns everything into vectors in input order or one EmbeddingError, which carries the
 * vectors of the batches that did come back (`partial`).
 */
import { limitJsonStructure, limitResponse, RedirectRefusedError, redactSecrets, ResponseRefusedError, runAttempt, unreadableResponse } from './attempt.js';
import { checkedEmbedInput } from './embed-input.js';
import { EmbeddingError, escapeControl, type EmbeddingErrorKind } from './errors.js';
import type { EmbeddingProvider, EmbedOptions, ProviderName, RetryInfo } from './types.js';

export const REMOTE_DEFAULTS = {
  batchSize: 64,
  concurrency: 2,
  timeoutMs: 60_000,
  maxRetries: 4,
  backoffMs: 500,
  maxDelayMs: 30_000,
} as const;

/**
 * Texts to hand a provider per embed() call when each call's vectors are cached before the
 * next (embedThroughCache's batchSize): one request per concurrent slot, so every slot stays
 * busy, and a provider that fails mid-document loses at most one call's worth of paid work.
 * Without it every uncached text went in one call, and a failure on its last request lost them all.
 */
export function cacheBatchSize(settings: { batchSize?: number | undefined; concurrency?: number | undefined } = {}): number {
  return (settings.batchSize ?? REMOTE_DEFAULTS.batchSize) * (settings.concurrency ?? REMOTE_DEFAULTS.concurrency);
}

/** What went wrong with one attempt, in the provider-neutral terms the retry loop needs. */
export type Failure =
  | { kind: 'http'; status: number; detail: string; retryAfterMs: number | null }
  | { kind: 'unreachable'; code: string; detail: string }
  | { kind: 'reset'; code: string; detail: string }
  | { kind: 'timeout' }
  | { kind: 'malformed'; detail: string };

export interface Transport {
  readonly provider: ProviderName;
  /** The endpoint, for messages (no credentials). */
  readonly url: string;
  /** Sends one batch; resolves to one raw vector per text, checked by the caller. */
  send(texts: string[], signal: AbortSignal): Promise<unknown[]>;
  classify(err: unknown): Failure;
  /** Checks that must pass before the first request (openai: the API key is set). */
  beforeRequest?(): void;
  /** The sentence telling the user what to do about a failure of this kind. */
  fix(kind: EmbeddingErrorKind, status?: number): string;
  /** The API key or password the requests carry: replaced in what a message quotes of the server. */
  readonly secrets?: readonly string[];
}

export interface RemoteSettings {
  model: string;
  dimensions: number | null;
  batchSize: number;
  concurrency: number;
  timeoutMs: number;
  maxRetries: number;
  backoffMs: number;
  maxDelayMs: number;
  onRetry?: ((info: RetryInfo) => void) | undefined;
}

/** Thrown by a transport's fetch wrapper for a non-2xx response, keeping what the retry loop needs. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly body: string,
  ) {
    super(`HTTP ${status}${body ? `: ${body}` : ''}`);
  }
}

/** Thrown by a transport when a 2xx body does not have the documented shape. */
export class MalformedResponseError extends Error {}

export { limitResponse };

/**
 * The longest vector accepted from a server, the same ceiling as the config's
 * `embeddings.dimensions`: the largest models give a few thousand, so a longer vector is a
 * server error, and every one of them would otherwise be cached and stored whole.
 */
export const MAX_REMOTE_DIMENSIONS = 65_536;

/**
 * The largest response body read for a batch of `texts` inputs: room for MAX_REMOTE_DIMENSIONS
 * floats per text as long JSON decimals (about 24 bytes each, so 2 MiB), plus 1 MiB for the
 * rest. Without it a server (or a proxy in front of one) could stream until the timeout, and
 * past about 512 MB the body fails inside fetch with a raw "Cannot create a string" error. Kept
 * under that length at the largest batch, so the limit is what a user meets, never V8's.
 *
 * With `dimensions` configured, room for that many floats per text instead (the longest JSON
 * number, `-1.2345678901234567e-100`, is 24 bytes with its comma) and 4 KiB for the fields
 * around each vector: a hostile server could otherwise make every one of `concurrency` (up to 16)
 * requests of 2048 texts buffer 400 MiB, 6.4 GB at once, where 1536 dimensions need 81 MiB each.
 */
export function maxResponseBytes(texts: number, dimensions: number | null = null): number {
  const perText = dimensions === null ? 2 * MIB : dimensions * BYTES_PER_JSON_FLOAT + 4 * 1024;
  return Math.min(texts * perText + MIB, 400 * MIB);
}

/** The most bytes one float of a vector takes as JSON, its separator included. */
const BYTES_PER_JSON_FLOAT = 26;

const MIB = 1024 * 1024;

/** The largest error body read (a 4xx/5xx): the message shows 300 characters of it. */
export const MAX_ERROR_BODY_BYTES = MIB;

/**
 * The most list or object openings (`[`, `{`) and value separators (`,`) outside strings that a
 * response for `texts` inputs could hold: a vector per input of at most MAX_REMOTE_DIMENSIONS
 * numbers, a few objects around each, and room for fields a compatible server adds.
 */
export function maxJsonStructure(texts: number, dimensions: number | null = null): { openings: number; separators: number } {
  return { openings: texts * 8 + 4096, separators: texts * ((dimensions ?? MAX_REMOTE_DIMENSIONS) + 64) + 4096 };
}

/**
 * limitJsonStructure for a batch of `texts` inputs. The byte limit alone let the structure cost
 * far more than the bytes: nested `[` parse into about 57 bytes of heap per byte (20 million
 * took 1.1 GB), so a 129 MiB body (the limit for 64 inputs) came near Node's default 4 GB heap
 * and a 400 MiB one (2048 inputs) far past it, which aborts the process; `0,0,0,…` cost about
 * 7 bytes per byte.
 */
export function limitBatchStructure(res: Response, texts: number, dimensions: number | null = null): Response {
  return limitJsonStructure(res, maxJsonStructure(texts, dimensions), batchNeeds(dimensions));
}

/** How limitResponse's refusal ends for an embedding batch. */
export const BATCH_NEEDS = 'the vectors of this batch could need';

/**
 * BATCH_NEEDS for a batch held to configured dimensions: a server that ignores
 * embeddings.dimensions and sends its model's full vectors meets this limit before the
 * dimension check could name the mismatch, so the setting is named here.
 */
export function batchNeeds(dimensions: number | null): string {
  return dimensions === null ? BATCH_NEEDS : `${BATCH_NEEDS} at the configured embeddings.dimensions (${dimensions}); if the model's vectors are longer, set it to their size or remove it`;
}


const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);
/**
 * A body that ended before its Content-Length: the server (an HTTP/1.0 one, or a proxy) closed
 * the connection mid-body. A dropped connection like a reset, so retried like one.
 */
const CUT_SHORT = 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH';
const RESET = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', CUT_SHORT]);

/** The first system error code along an error's `cause` chain (fetch wraps them: TypeError → cause). */
export function networkCode(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNREACHABLE.has(code) || RESET.has(code))) return code;
    // AggregateError: happy-eyeballs tries IPv4 and IPv6 and reports both.
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors)) {
      for (const inner of errors) {
        const c = networkCode(inner);
        if (c) return c;
      }
    }
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** The innermost message along an error's `cause` chain: "fetch failed" says less than its cause. */
export function rootMessage(err: unknown): string {
  let msg = err instanceof Error ? err.message : String(err);
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; depth++, e = e.cause) {
    if (e.message) msg = e.message;
  }
  return msg;
}

/**
 * Network failures shared by both transports; null when `err` is not one. Known reset codes
 * are retried; refusals, DNS failures and anything else that stopped fetch (TLS, a bad
 * address) are "unreachable" and are not, since waiting will not fix them.
 */
export function classifyNetwork(err: unknown): Failure | null {
  const code = networkCode(err);
  if (code) return RESET.has(code) ? { kind: 'reset', code, detail: rootMessage(err) } : { kind: 'unreachable', code, detail: rootMessage(err) };
  if (err instanceof TypeError && err.message === 'fetch failed') return { kind: 'unreachable', code: 'fetch failed', detail: rootMessage(err) };
  // fetch's error for a body that stopped arriving, whatever the cause: it escaped embed() raw.
  if (err instanceof TypeError && err.message === 'terminated') return { kind: 'reset', code: 'terminated', detail: rootMessage(err) };
  return null;
}

function isRetryable(f: Failure): boolean {
  switch (f.kind) {
    case 'http':
      return f.status === 429 || f.status >= 500;
    case 'reset':
    case 'timeout':
      return true;
    default:
      // Unreachable fails fast: nothing is listening, and the fix is the user's, not time's.
      return false;
  }
}

function describe(f: Failure): string {
  switch (f.kind) {
    case 'http':
      return `HTTP ${f.status}`;
    case 'unreachable':
      return `cannot connect (${f.code})`;
    case 'reset':
      return `connection reset (${f.code})`;
    case 'timeout':
      return 'timeout';
    case 'malformed':
      return 'malformed response';
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A MalformedResponseError (or limitResponse's refusal: too large, not UTF-8) along `err`'s cause
 * chain: the openai client wraps whatever its `fetch` throws (a Content-Length over the limit) in
 * a connection error.
 */
function malformedCause(err: unknown): Error | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; depth++, e = e.cause) {
    if (e instanceof MalformedResponseError || e instanceof ResponseRefusedError) return e;
  }
  return null;
}

/** fetchWithinOrigin's refusal along `err`'s cause chain (the openai client wraps it in a connection error). */
function refusedRedirect(err: unknown): RedirectRefusedError | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; depth++, e = e.cause) {
    if (e instanceof RedirectRefusedError) return e;
  }
  return null;
}

/** Number[] or Float32Array with only finite numbers → Float32Array; null when it is neither. */
function toVector(raw: unknown): Float32Array | null {
  if (raw instanceof Float32Array) {
    for (let i = 0; i < raw.length; i++) if (!Number.isFinite(raw[i]!)) return null;
    return raw;
  }
  if (!Array.isArray(raw)) return null;
  const v = new Float32Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const x: unknown = raw[i];
    if (typeof x !== 'number') return null;
    v[i] = x;
    // Checked after the store: a finite double beyond float32's range (1e300) becomes Infinity.
    if (!Number.isFinite(v[i]!)) return null;
  }
  return v;
}

/**
 * How the servers say an input is longer than the model takes: OpenAI ("maximum context length
 * is 8192 tokens", "maximum input length"), vLLM ("reduce the length of the input"), Ollama
 * ("input length exceeds the context length"), llama.cpp ("input is too large to process",
 * "exceeds the available context size"), Hugging Face TEI ("must have less than 512 tokens").
 */
const TOO_LONG = /context (?:length|size|window)|maximum input length|input length exceeds|input is too (?:large|long)|too many tokens|must have less than \d+ tokens|reduce the length of the input/i;

/** The fix for a text longer than the model takes, naming the longest text of the request. */
function tooLongFix(texts: readonly string[]): string {
  let longest = 0;
  for (let i = 1; i < texts.length; i++) if (texts[i]!.length > texts[longest]!.length) longest = i;
  const text = texts[longest] ?? '';
  const start = text.replace(/\s+/g, ' ').trim();
  const shown = start.length > 60 ? `${start.slice(0, 60).replace(/[\ud800-\udbff]$/, '')}…` : start;
  return (
    `A text is longer than the model takes (the longest of this request, ${text.length.toLocaleString('en-US')} characters, starts ${escapeControl(JSON.stringify(shown))}): ` +
    'shorten it (lower chunking.maxTokens for chunks; a qa-pairs.md question is embedded whole), or choose a model with a longer context.'
  );
}

/** Both remote providers: an EmbeddingProvider over a Transport. */
export class RemoteProvider implements EmbeddingProvider {
  readonly provider: ProviderName;
  readonly model: string;
  #dimensions: number | null;
  /** Whether #dimensions came from the settings (messages say "configured" vs "earlier"). */
  readonly #configured: boolean;

  constructor(
    readonly transport: Transport,
    readonly settings: RemoteSettings,
  ) {
    this.provider = transport.provider;
    this.model = settings.model;
    this.#dimensions = settings.dimensions;
    this.#configured = settings.dimensions !== null;
  }

  get dimensions(): number | null {
    return this.#dimensions;
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const { signal, onProgress } = checkedEmbedInput(texts, options);
    signal?.throwIfAborted();
    if (texts.length === 0) return [];
    this.transport.beforeRequest?.();
    const { batchSize, concurrency } = this.settings;
    const batches = Math.ceil(texts.length / batchSize);
    const out = new Array<Float32Array>(texts.length);
    // One controller for the whole call: the first failure (or the caller's abort) cancels
    // every request still in flight, so nothing is left running after embed() settles.
    const stop = new AbortController();
    const onCallerAbort = () => stop.abort(signal?.reason);
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    let next = 0;
    let done = 0;
    let failed = false;
    let firstError: unknown;
    const worker = async (): Promise<void> => {
      while (!failed && next < batches) {
        const b = next++;
        const start = b * batchSize;
        const batch = texts.slice(start, start + batchSize);
        try {
          const vectors = await this.#batch(batch, stop.signal);
          for (let i = 0; i < vectors.length; i++) out[start + i] = vectors[i]!;
          done += batch.length;
          onProgress?.(done, texts.length);
        } catch (err) {
          if (!failed) {
            failed = true;
            firstError = err;
            stop.abort(err);
          }
          return;
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(concurrency, batches) }, worker));
    } finally {
      signal?.removeEventListener('abort', onCallerAbort);
    }
    if (failed) {
      const err: unknown = signal?.aborted ? signal.reason : firstError;
      if (done > 0 && err instanceof EmbeddingError) err.partial = Array.from(out);
      throw err;
    }
    return out;
  }

  /** One batch, with its retries. */
  async #batch(texts: string[], parent: AbortSignal): Promise<Float32Array[]> {
    const { timeoutMs, maxRetries, backoffMs, maxDelayMs, onRetry } = this.settings;
    const { transport } = this;
    for (let attempt = 1; ; attempt++) {
      parent.throwIfAborted();
      const outcome = await runAttempt(timeoutMs, parent, async (signal) => this.#check(await transport.send(texts, signal), texts.length));
      if (outcome.ok) return outcome.value;
      const cause = outcome.error;
      if (cause instanceof EmbeddingError) throw cause;
      if (parent.aborted) throw parent.reason;
      const malformed = malformedCause(cause);
      const redirect = refusedRedirect(cause);
      const unreadable = unreadableResponse(cause);
      const failure: Failure = outcome.timedOut
        ? { kind: 'timeout' }
        : malformed
          ? { kind: 'malformed', detail: malformed.message }
          : redirect
            ? { kind: 'http', status: redirect.status, detail: redirect.message, retryAfterMs: null }
            : unreadable
              ? { kind: 'malformed', detail: unreadable }
              : transport.classify(cause);
      if (!isRetryable(failure) || attempt > maxRetries) throw this.#error(failure, attempt, cause, texts);
      const hinted = failure.kind === 'http' ? failure.retryAfterMs : null;
      const backoff = backoffMs * 2 ** (attempt - 1);
      // "Equal jitter": half fixed, half random, so parallel clients spread out but still back off.
      const delayMs = Math.round(Math.min(maxDelayMs, hinted ?? backoff * (0.5 + Math.random() * 0.5)));
      onRetry?.({ provider: this.provider, url: transport.url, attempt, delayMs, reason: describe(failure), fromRetryAfter: hinted !== null });
      await sleep(delayMs, parent);
    }
  }

  /** Checks one response against the batch and the known dimension; malformed/dimensions errors. */
  #check(raw: unknown[], expected: number): Float32Array[] {
    const { transport } = this;
    const malformed = (what: string) =>
      new EmbeddingError(`malformed response: ${what}`, { provider: this.provider, url: transport.url, kind: 'malformed', fix: transport.fix('malformed') });
    if (!Array.isArray(raw)) throw malformed('no list of embeddings');
    if (raw.length !== expected) throw malformed(`${raw.length} embeddings for ${expected} inputs`);
    const vectors: Float32Array[] = [];
    for (let i = 0; i < raw.length; i++) {
      const v = toVector(raw[i]);
      if (!v) throw malformed(`embedding ${i} is not a list of finite numbers`);
      if (v.length === 0) throw malformed(`embedding ${i} is empty`);
      vectors.push(v);
    }
    // Every vector in a batch must agree before any of them can teach the dimension.
    const first = vectors[0]!.length;
    if (first > MAX_REMOTE_DIMENSIONS) {
      throw new EmbeddingError(`model ${this.model} returned ${first}-dimensional vectors, more than the ${MAX_REMOTE_DIMENSIONS} accepted`, {
        provider: this.provider,
        url: transport.url,
        kind: 'dimensions',
        fix: transport.fix('dimensions'),
      });
    }
    const odd = vectors.findIndex((v) => v.length !== first);
    if (odd >= 0) {
      throw new EmbeddingError(`model ${this.model} returned vectors of different lengths in one response (${first} and ${vectors[odd]!.length})`, {
        provider: this.provider,
        url: transport.url,
        kind: 'dimensions',
        fix: transport.fix('dimensions'),
      });
    }
    if (this.#dimensions === null) {
      this.#dimensions = first;
    } else if (first !== this.#dimensions) {
      const source = this.#configured ? 'configured embeddings.dimensions' : 'earlier responses';
      throw new EmbeddingError(`model ${this.model} returned ${first}-dimensional vectors, expected ${this.#dimensions} (${source})`, {
        provider: this.provider,
        url: transport.url,
        kind: 'dimensions',
        fix: transport.fix('dimensions'),
      });
    }
    return vectors;
  }

  #error(f: Failure, attempts: number, cause: unknown, texts: readonly string[]): EmbeddingError {
    const { transport } = this;
    const base = { provider: this.provider, url: transport.url, attempts, cause };
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    // Whatever the server wrote (an error page, a body's error) may echo the key it was sent.
    const quoted = (text: string) => redactSecrets(text, transport.secrets ?? []);
    switch (f.kind) {
      case 'http': {
        const kind: EmbeddingErrorKind = f.status === 401 || f.status === 403 ? 'auth' : 'http';
        const detail = f.detail ? `: ${quoted(f.detail).slice(0, 300)}` : '';
        // A text longer than the model takes: the fix for a 400 was to check the model and its
        // dimensions, and nothing said which text; the longest of the request is the suspect.
        if (kind === 'http' && f.detail && TOO_LONG.test(f.detail)) {
          return new EmbeddingError(`HTTP ${f.status}${tries}${detail}`, { ...base, kind, status: f.status, fix: tooLongFix(texts) });
        }
        return new EmbeddingError(`HTTP ${f.status}${tries}${detail}`, { ...base, kind, status: f.status, fix: transport.fix(kind, f.status) });
      }
      case 'unreachable':
        return new EmbeddingError(`cannot reach the server (${f.code === 'fetch failed' ? quoted(f.detail) : f.code})`, { ...base, kind: 'unreachable', fix: transport.fix('unreachable') });
      case 'reset':
        // Resets that persist through every retry look like a server that is not there.
        return new EmbeddingError(`${f.code === CUT_SHORT || f.code === 'terminated' ? 'the connection closed before the whole body arrived' : 'connection reset'}${tries} (${f.code})`, {
          ...base,
          kind: 'unreachable',
          fix: transport.fix('unreachable'),
        });
      case 'timeout':
        return new EmbeddingError(`no response within ${this.settings.timeoutMs} ms${tries}`, { ...base, kind: 'timeout', fix: transport.fix('timeout') });
      case 'malformed':
        return new EmbeddingError(`malformed response: ${quoted(f.detail)}`, { ...base, kind: 'malformed', fix: transport.fix('malformed') });
    }
  }
}
