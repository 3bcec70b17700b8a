/**
 * Chat completions from the configured provider, through the real client packages:
 *
 *   ollama  `ollama`'s chat (POST /api/chat, stream: false), host from settings or OLLAMA_HOST
 *   openai  `openai`'s chat.completions.create (POST {baseURL}/chat/completions), OPENAI_API_KEY,
 *           OPENAI_BASE_URL for compatible servers (vLLM, llama.cpp, LM Studio, …)
 *
 * Both client packages are imported on first use, not at load: a tool that only might talk to a
 * model (chunking-tool, docs-score) does not pay their start-up cost on every run.
 *
 * Every failure is one LlmError whose message names the provider, the URL and the fix.
 */
import { ollamaConnection, type OllamaConnection } from '@chunkyard/embeddings/ollama-host';
import { addressProblem, errorInBody, fetchWithinOrigin, integerOutOfRange, jsonOfTextBody, limitJsonStructure, limitResponse, MAX_WAIT_MS, RedirectRefusedError, redactSecrets, ResponseRefusedError, retryAfterMs, runAttempt, shownSetting, unreadableResponse } from '@chunkyard/embeddings/attempt';
import { escapeControl } from '@chunkyard/fs-atomic';

export { ollamaBaseUrl } from '@chunkyard/embeddings/ollama-host';

export type LlmProviderName = 'ollama' | 'openai';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmSettings {
  provider: LlmProviderName;
  /** Default: ollama llama3.2, openai gpt-4o-mini (the model seed 000's scorer names). */
  model?: string;
  /** ollama only: server address; else env OLLAMA_HOST, else http://127.0.0.1:11434. */
  host?: string;
  /** openai only: API base URL; else env OPENAI_BASE_URL, else https://api.openai.com/v1. */
  baseURL?: string;
  /** Default 0.2: seed 000's "low-temperature (T=0.2) mode to maximize determinism". */
  temperature?: number;
  /** Per request (default 120000: a chat answer over a whole document takes a while). */
  timeoutMs?: number;
  /** Retries after the first attempt on 429, 5xx, timeouts and connection resets (default 2). */
  maxRetries?: number;
  /** Base of the exponential backoff in ms (default 500). Not a config key; tests set it. */
  backoffMs?: number;
  /** Cap on any wait between attempts, the server's Retry-After included (default 30000, as for embeddings). Not a config key. */
  maxDelayMs?: number;
}

export const LLM_DEFAULT_MODELS: Record<LlmProviderName, string> = { ollama: 'llama3.2', openai: 'gpt-4o-mini' };
export const LLM_DEFAULT_TEMPERATURE = 0.2;
export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434';
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface ChatClient {
  readonly provider: LlmProviderName;
  readonly model: string;
  readonly temperature: number;
  /** The endpoint, for messages (no credentials). */
  readonly url: string;
  /** The assistant's reply text. */
  chat(messages: readonly ChatMessage[], options?: { temperature?: number; signal?: AbortSignal }): Promise<string>;
}

export class LlmError extends Error {
  override name = 'LlmError';
  constructor(
    readonly provider: LlmProviderName,
    readonly url: string | null,
    problem: string,
    readonly fix: string,
    readonly status: number | null = null,
  ) {
    // The problem may quote the server (an error page): its control characters are escaped, so a
    // page holding ESC sequences cannot clear or retitle the terminal that shows the message.
    super(`${provider} chat${url ? ` (${url})` : ''}: ${escapeControl(problem.replace(/\s+/g, ' ').trim())}. ${fix}`);
  }
}

export type Env = Record<string, string | undefined>;

/** `url` without its trailing slashes, in linear time (/\/+$/ tried from every slash of a run). */
function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 0x2f) end--;
  return url.slice(0, end);
}

function envValue(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

/** addressProblem's problem (shared with packages/embeddings), if any, as an LlmError naming `from`, the llm setting or variable the address came from. */
function checkAddress(provider: LlmProviderName, from: string, address: string, endpoint: string): void {
  const found = addressProblem(provider, from, address, endpoint);
  if (found) throw new LlmError(provider, null, found.problem, found.fix);
}

/** A non-2xx response, with what the retry loop needs. */
class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Headers | null = null,
  ) {
    super(`HTTP ${status}${detail ? `: ${detail}` : ''}`);
  }
}

/**
 * The largest reply body read: a one-sentence lead line or a short answer is a few KB, so 8 MiB
 * is far above any real reply. Without it a server could stream until the timeout, and past
 * about 512 MB the body failed inside fetch with "Cannot create a string longer than …",
 * reported as an unreachable server.
 */
const MAX_REPLY_BYTES = 8 * 1024 * 1024;
/** The largest error body read: the message shows 300 characters of it. */
const MAX_ERROR_BYTES = 1024 * 1024;

/**
 * The most list or object openings and value separators outside strings a chat reply's JSON
 * holds: a few dozen in a real one (choices, message, usage), so these are far above any. The
 * byte limit alone let 8 MiB of nested `[` parse into about 480 MB of arrays.
 */
const MAX_REPLY_STRUCTURE = { openings: 65_536, separators: 1_000_000 };

/** limitResponse for a chat reply (and its structure), or for an error page when `res` is not ok. */
const limitReply = (res: Response): Response =>
  res.ok ? limitJsonStructure(limitResponse(res, MAX_REPLY_BYTES, 'a chat reply needs'), MAX_REPLY_STRUCTURE, 'a chat reply needs') : limitResponse(res, MAX_ERROR_BYTES, 'a chat reply needs');

/** limitResponse's refusal (too large, not UTF-8) along an error's cause chain (the openai client wraps what its fetch throws). */
function refusedBody(err: unknown): ResponseRefusedError | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; depth++, e = e.cause) {
    if (e instanceof ResponseRefusedError) return e;
  }
  return null;
}

/** fetchWithinOrigin's refusal along an error's cause chain (the openai client wraps it too). */
function refusedRedirect(err: unknown): RedirectRefusedError | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; depth++, e = e.cause) {
    if (e instanceof RedirectRefusedError) return e;
  }
  return null;
}

/** Whether fetch failed while reading the body ("terminated"), not before the response came. */
function bodyCut(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; depth++, e = e.cause) {
    if (e instanceof TypeError && e.message === 'terminated') return true;
  }
  return false;
}

const RETRY_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** The first system error code along an error's cause chain (fetch wraps them). */
function networkCode(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_\w+)$/.test(code)) return code;
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors)) for (const inner of errors) if (networkCode(inner)) return networkCode(inner);
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** Waits `ms`, or rejects with the abort reason as soon as `signal` aborts (as the embedding providers wait). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}


/** The message of the first cause along `err`'s chain that is not fetch's or openai's opaque one. */
function causeMessage(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; depth++, e = e.cause) {
    if (e.message && e.message !== 'fetch failed' && e.message !== 'Connection error.') return e.message;
  }
  return null;
}

interface Attempt {
  send(messages: readonly ChatMessage[], temperature: number, signal: AbortSignal): Promise<string>;
  /** HTTP status of a failed attempt, when the error carries one. */
  status(err: unknown): { status: number; detail: string; headers: Headers | null } | null;
  fix(kind: 'unreachable' | 'auth' | 'http' | 'timeout' | 'malformed' | 'redirect', status?: number): string;
}

/**
 * A reply without the reasoning a thinking model puts before its answer: `<think>…</think>`
 * (DeepSeek-R1, Qwen3, QwQ through Ollama without `think`, vLLM or llama.cpp without a
 * reasoning parser), or only the closing tag where the chat template opened it in the prompt.
 * That block became the lead line (its first words, "<think> Okay, the user wants me to…") and
 * docs-score's answer. A reply that opens a block and never closes it (the model ran out of
 * tokens thinking) holds no answer: ''. Any other reply is returned as it came.
 */
export function withoutReasoning(text: string): string {
  const open = /^\s*<think>/.exec(text);
  const close = text.indexOf('</think>', open ? open[0].length : 0);
  if (close < 0) return open ? '' : text;
  // Without an opening tag, only a block the template opened: no `<think>` before the close.
  if (!open && text.lastIndexOf('<think>', close) >= 0) return text;
  return text.slice(close + '</think>'.length).trim();
}

class Client implements ChatClient {
  constructor(
    readonly provider: LlmProviderName,
    readonly model: string,
    readonly temperature: number,
    readonly url: string,
    readonly settings: { timeoutMs: number; maxRetries: number; backoffMs: number; maxDelayMs: number },
    readonly attempt: Attempt,
    readonly before: () => void = () => {},
    /** The API key or password the requests carry: replaced in what a message quotes of the server. */
    readonly secrets: readonly string[] = [],
  ) {}

  async chat(messages: readonly ChatMessage[], options: { temperature?: number; signal?: AbortSignal } = {}): Promise<string> {
    this.before();
    const { timeoutMs, maxRetries, backoffMs, maxDelayMs } = this.settings;
    const temperature = options.temperature ?? this.temperature;
    if (options.temperature !== undefined) checkTemperature(this.provider, temperature, 'the temperature passed to chat()');
    for (let attempt = 1; ; attempt++) {
      options.signal?.throwIfAborted();
      const outcome = await runAttempt(timeoutMs, options.signal, async (signal) => {
        const text = await this.attempt.send(messages, temperature, signal);
        if (typeof text !== 'string') throw new LlmError(this.provider, this.url, 'malformed response: no message content', this.attempt.fix('malformed'));
        return withoutReasoning(text);
      });
      if (outcome.ok) return outcome.value;
      const err = outcome.error;
      if (err instanceof LlmError) throw err;
      // Whatever the server wrote (an error page, a body's error) may echo the key it was sent.
      const quoted = (text: string) => redactSecrets(text, this.secrets);
      if (options.signal?.aborted) throw options.signal.reason;
      let error: LlmError;
      let retry = false;
      let hinted: number | null = null;
      const tries = attempt > 1 ? ` after ${attempt} attempts` : '';
      const http = this.attempt.status(err);
      const code = networkCode(err);
      const large = refusedBody(err);
      const redirect = refusedRedirect(err);
      const unreadable = unreadableResponse(err);
      if (outcome.timedOut) {
        error = new LlmError(this.provider, this.url, `no response within ${timeoutMs} ms${tries}`, this.attempt.fix('timeout'));
        retry = true;
      } else if (http) {
        const kind = http.status === 401 || http.status === 403 ? 'auth' : 'http';
        error = new LlmError(this.provider, this.url, `HTTP ${http.status}${tries}${http.detail ? `: ${quoted(http.detail).slice(0, 300)}` : ''}`, this.attempt.fix(kind, http.status), http.status);
        retry = http.status === 429 || http.status >= 500;
        hinted = retryAfterMs(http.headers);
      } else if (redirect) {
        error = new LlmError(this.provider, this.url, `HTTP ${redirect.status}: ${redirect.message}`, this.attempt.fix('redirect'), redirect.status);
      } else if (unreadable) {
        error = new LlmError(this.provider, this.url, `malformed response: ${unreadable}`, this.attempt.fix('malformed'));
      } else if (large) {
        error = new LlmError(this.provider, this.url, `malformed response: ${large.message}`, this.attempt.fix('malformed'));
      } else if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || bodyCut(err)) {
        // The server did answer, then closed mid-body (an HTTP/1.0 server, a proxy, a crash): a
        // dropped connection, retried as one. It was "cannot reach the server" (not retried
        // for a Content-Length mismatch), or fetch's bare "terminated".
        error = new LlmError(this.provider, this.url, `the connection closed before the whole reply arrived (${code ?? 'terminated'})${tries}`, this.attempt.fix('unreachable'));
        retry = true;
      } else if (code) {
        error = new LlmError(this.provider, this.url, `cannot reach the server (${code})${tries}`, this.attempt.fix('unreachable'));
        retry = RETRY_CODES.has(code);
      } else if (err instanceof SyntaxError) {
        error = new LlmError(this.provider, this.url, `malformed response: the body is not JSON (${quoted(err.message)})`, this.attempt.fix('malformed'));
      } else {
        const msg = err instanceof Error ? err.message : String(err);
        // fetch's "fetch failed" and openai's "Connection error." say nothing of why: the first
        // cause that does (a redirect loop is "redirect count exceeded") goes in the message.
        const opaque = msg === 'fetch failed' || msg === 'Connection error.';
        const why = opaque ? causeMessage(err) : null;
        error = new LlmError(this.provider, this.url, quoted(opaque ? `cannot reach the server${why ? ` (${why})` : ''}` : msg), this.attempt.fix('unreachable'));
      }
      if (!retry || attempt > maxRetries) throw error;
      // The server's Retry-After when it gave one, as the embedding providers wait; capped alike.
      await sleep(Math.min(maxDelayMs, hinted ?? backoffMs * 2 ** (attempt - 1)), options.signal);
    }
  }
}

/**
 * The numeric settings' bounds, the config file's (temperature 0..2, as OpenAI's API takes;
 * timeoutMs and maxRetries) plus the test-only knobs. Unchecked, a timeoutMs past 2^31-1 ms
 * reached setTimeout, which fires after 1 ms ("no response within 2147483648 ms" at once), and
 * a maxRetries of NaN retried a failing server for ever.
 */
const INT_RANGES = {
  timeoutMs: [1, MAX_WAIT_MS],
  maxRetries: [0, 10],
  backoffMs: [0, Number.MAX_SAFE_INTEGER],
  maxDelayMs: [0, MAX_WAIT_MS],
} as const satisfies Partial<Record<keyof LlmSettings, readonly [number, number]>>;

/** A setting's value for a message: NaN as NaN (JSON.stringify says null), strings quoted and cut. */
function checkTemperature(provider: LlmProviderName, value: unknown, where: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 2) {
    throw new LlmError(provider, null, `${where} must be a number from 0 to 2, got ${shownSetting(value)}`, 'Set llm.temperature from 0 to 2, or remove it for the default 0.2.');
  }
}

function validate(settings: LlmSettings): void {
  const provider = settings.provider === 'openai' ? 'openai' : 'ollama';
  const bad = integerOutOfRange(settings, INT_RANGES);
  if (bad) {
    throw new LlmError(provider, null, `${bad.key} must be an integer ${bad.range}, got ${shownSetting(bad.value)}`, `Set llm.${bad.key} to an integer ${bad.range}, or remove it for the default.`);
  }
  if (settings.temperature !== undefined) checkTemperature(provider, settings.temperature, 'temperature');
}

/**
 * The chat client `settings` describe. Reads OLLAMA_HOST, OPENAI_API_KEY and OPENAI_BASE_URL
 * from `env` only, so tests and tools pass their own. Makes no request: a missing OpenAI key
 * is reported by the first `chat` call, so runs served from the cache need no key.
 */
export function createChatClient(settings: LlmSettings, env: Env = process.env): ChatClient {
  validate(settings);
  const temperature = settings.temperature ?? LLM_DEFAULT_TEMPERATURE;
  const retry = { timeoutMs: settings.timeoutMs ?? 120_000, maxRetries: settings.maxRetries ?? 2, backoffMs: settings.backoffMs ?? 500, maxDelayMs: settings.maxDelayMs ?? 30_000 };
  if (settings.provider === 'ollama') {
    const model = settings.model ?? LLM_DEFAULT_MODELS.ollama;
    const from = settings.host !== undefined ? 'llm.host' : 'OLLAMA_HOST';
    const hostText = settings.host ?? envValue(env, 'OLLAMA_HOST') ?? OLLAMA_DEFAULT_HOST;
    // ftp:// and the like reached fetch, which said only "cannot reach the server".
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(hostText.trim())?.[1];
    if (scheme !== undefined && !/^https?$/i.test(scheme)) throw new LlmError('ollama', null, `${from} must be an http(s) address`, `Set ${from} to a URL such as ${OLLAMA_DEFAULT_HOST}.`);
    let connection: OllamaConnection;
    try {
      connection = ollamaConnection(hostText);
    } catch {
      throw new LlmError('ollama', null, `${from} is not a valid address`, `Set ${from} to a URL such as ${OLLAMA_DEFAULT_HOST}.`);
    }
    checkAddress('ollama', from, hostText, '/api/chat');
    const { host, headers, secrets } = connection;
    const url = `${host}/api/chat`;
    const attempt: Attempt = {
      async send(messages, t, signal) {
        const { Ollama } = await import('ollama');
        const fetchWithSignal = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
          // A redirect to another origin is refused, not followed with the messages.
          const res = limitReply(await fetchWithinOrigin(input, { ...init, signal }));
          if (!res.ok) {
            const body = await res.text().catch(() => '');
            let detail = body.trim();
            try {
              const e = (JSON.parse(body) as { error?: unknown }).error;
              if (typeof e === 'string') detail = e;
            } catch {
              // Not JSON: the text is the detail.
            }
            throw new HttpStatusError(res.status, detail, res.headers);
          }
          return res;
        };
        const client = new Ollama({ host, fetch: fetchWithSignal, headers });
        const res: unknown = await client.chat({ model, messages: messages.map((m) => ({ ...m })), stream: false, options: { temperature: t } });
        const content = (res as { message?: { content?: unknown } } | null)?.message?.content;
        const error = typeof content === 'string' ? null : errorInBody(res);
        if (error !== null) throw new LlmError('ollama', url, `malformed response: a success status with an error instead of a reply: ${redactSecrets(error, secrets)}`, attempt.fix('malformed'));
        return content as string;
      },
      status: (err) => (err instanceof HttpStatusError ? { status: err.status, detail: err.detail, headers: err.headers } : null),
      fix(kind, status) {
        if (kind === 'unreachable') return 'Start Ollama with `ollama serve`, or set OLLAMA_HOST (or llm.host) to the address it listens on.';
        if (kind === 'redirect') return 'If that server is the one you mean to use, set OLLAMA_HOST (or llm.host) to its address.';
        if (kind === 'timeout') return 'Raise llm.timeoutMs; the first request after Ollama starts also waits for the model to load.';
        if (kind === 'http' && status === 404) return `Pull the model with \`ollama pull ${model}\`, or set llm.model to one that \`ollama list\` shows.`;
        if (kind === 'malformed') return 'Check that OLLAMA_HOST (or llm.host) points at an Ollama server that serves POST /api/chat.';
        return `Check llm.model (${model}) and the Ollama log.`;
      },
    };
    return new Client('ollama', model, temperature, url, retry, attempt, undefined, secrets);
  }
  if (settings.provider === 'openai') {
    const model = settings.model ?? LLM_DEFAULT_MODELS.openai;
    const baseURL = withoutTrailingSlashes(settings.baseURL ?? envValue(env, 'OPENAI_BASE_URL') ?? OPENAI_DEFAULT_BASE_URL);
    const from = settings.baseURL !== undefined ? 'llm.baseURL' : 'OPENAI_BASE_URL';
    if (!URL.canParse(baseURL)) throw new LlmError('openai', null, `${from} is not a valid URL`, `Set ${from} to a URL such as ${OPENAI_DEFAULT_BASE_URL}.`);
    const parsed = new URL(baseURL);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new LlmError('openai', null, `${from} must be an http(s) URL`, `Set ${from} to a URL such as ${OPENAI_DEFAULT_BASE_URL}.`);
    checkAddress('openai', from, baseURL, '/chat/completions');
    const url = `${baseURL}/chat/completions`;
    const apiKey = envValue(env, 'OPENAI_API_KEY');
    // One client per ChatClient; the library's own retries are off (the loop above retries).
    let client: import('openai').OpenAI | null = null;
    let errors: typeof import('openai') | null = null;
    const attempt: Attempt = {
      async send(messages, t, signal) {
        if (!client) {
          errors = await import('openai');
          client = new errors.OpenAI({
            apiKey: apiKey ?? '',
            baseURL,
            timeout: retry.timeoutMs,
            maxRetries: 0,
            organization: null,
            project: null,
            // A redirect to another origin is refused, not followed with the messages.
            fetch: async (input, init) => limitReply(await fetchWithinOrigin(input, init)),
          });
        }
        const res: unknown = jsonOfTextBody(await client.chat.completions.create({ model, messages: messages.map((m) => ({ ...m })), temperature: t }, { signal }));
        const content = (res as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message?.content;
        const error = typeof content === 'string' ? null : errorInBody(res);
        if (error !== null) throw new LlmError('openai', url, `malformed response: a success status with an error instead of a reply: ${redactSecrets(error, apiKey ? [apiKey] : [])}`, attempt.fix('malformed'));
        return content as string;
      },
      status(err) {
        if (errors && err instanceof errors.APIError && typeof err.status === 'number') {
          const body = err.error as { message?: unknown } | undefined;
          return { status: err.status, detail: typeof body?.message === 'string' ? body.message : err.message, headers: err.headers instanceof Headers ? err.headers : null };
        }
        return null;
      },
      fix(kind, status) {
        if (kind === 'unreachable') return 'Check OPENAI_BASE_URL (or llm.baseURL) and the network connection.';
        if (kind === 'redirect') return 'If that server is the one you mean to use, set OPENAI_BASE_URL (or llm.baseURL) to its address.';
        if (kind === 'auth') return 'Set OPENAI_API_KEY to a valid API key for this server.';
        if (kind === 'timeout') return 'Raise llm.timeoutMs.';
        if (kind === 'http' && status === 404) return `Check llm.model (${model}), and that OPENAI_BASE_URL ends in /v1 for a compatible server.`;
        if (kind === 'http' && status === 429) return 'The server is rate-limiting: check your quota, or try again later.';
        if (kind === 'malformed') return 'Check that OPENAI_BASE_URL (or llm.baseURL) points at an OpenAI-compatible API that serves POST /chat/completions.';
        return `Check llm.model (${model}) against what the server supports.`;
      },
    };
    const before = () => {
      if (!apiKey) throw new LlmError('openai', url, 'no API key: OPENAI_API_KEY is not set', 'Set OPENAI_API_KEY (for a compatible server that needs no key, any non-empty value works).');
      // It goes in an Authorization header: fetch's TypeError for such a value quoted the key.
      if (!/^[\x20-\x7e]+$/.test(apiKey)) {
        throw new LlmError('openai', url, 'OPENAI_API_KEY holds characters an HTTP header cannot carry (a line break, or a character outside ASCII)', 'Set OPENAI_API_KEY to the key alone, as your provider shows it.');
      }
    };
    return new Client('openai', model, temperature, url, retry, attempt, before, apiKey ? [apiKey] : []);
  }
  throw new LlmError(settings.provider as LlmProviderName, null, `unknown provider ${JSON.stringify(settings.provider)}`, 'Set llm.provider to ollama or openai.');
}
