/**
 * The `ollama` provider: a local or remote Ollama server, through the `ollama` package's
 * `embed` (POST /api/embed, `{ model, input: string[] }` → `{ embeddings: number[][] }`).
 *
 * The library's `embed` takes no AbortSignal and turns error responses into a bare message,
 * so each request gets its own client whose `fetch` (a documented constructor option) adds
 * the request's signal and keeps the status and headers of a failed response; that is what
 * timeouts, cancellation and Retry-After need. A client is a few fields, so this is cheap.
 */
import { displayUrl, type EmbeddingErrorKind } from './errors.js';
import { ollamaConnection } from './ollama-host.js';
import { batchNeeds, classifyNetwork, HttpStatusError, limitBatchStructure, limitResponse, MalformedResponseError, MAX_ERROR_BODY_BYTES, maxResponseBytes, type Failure, type Transport } from './remote.js';
import { errorInBody, fetchWithinOrigin, retryAfterMs } from './attempt.js';

/** The `ollama` package, loaded on the first request (module loading every tool paid at start-up). */
let ollamaModule: typeof import('ollama') | null = null;

export const OLLAMA_DEFAULT_MODEL = 'mxbai-embed-large';
export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434';
export { ollamaBaseUrl } from './ollama-host.js';

/** The `error` field of Ollama's JSON error body, else the body text. */
function errorText(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    const msg = (parsed as { error?: unknown } | null)?.error;
    if (typeof msg === 'string') return msg;
  } catch {
    // Not JSON (a proxy's HTML page, say): the text itself is the best detail there is.
  }
  return body.trim();
}

export interface OllamaTransportOptions {
  host: string;
  model: string;
  dimensions: number | null;
}

export class OllamaTransport implements Transport {
  readonly provider = 'ollama' as const;
  readonly url: string;
  readonly #host: string;
  /** Basic auth from user:password@ in the host: fetch refuses URLs that carry credentials. */
  readonly #headers: Record<string, string>;
  readonly secrets: readonly string[];

  constructor(readonly options: OllamaTransportOptions) {
    const { host, headers, secrets } = ollamaConnection(options.host);
    this.#headers = headers;
    this.secrets = secrets;
    this.#host = host;
    this.url = displayUrl(`${host}/api/embed`);
  }

  async send(texts: string[], signal: AbortSignal): Promise<unknown[]> {
    const fetchWithSignal = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      // A redirect to another origin is refused, not followed with the texts.
      const res = await fetchWithinOrigin(input, { ...init, signal });
      if (!res.ok) {
        // An error page larger than an error message is dropped, not buffered.
        const body = await Promise.resolve()
          .then(() => limitResponse(res, MAX_ERROR_BODY_BYTES).text())
          .catch(() => '');
        throw new HttpStatusError(res.status, res.headers, errorText(body));
      }
      const { dimensions } = this.options;
      return limitBatchStructure(limitResponse(res, maxResponseBytes(texts.length, dimensions), batchNeeds(dimensions)), texts.length, dimensions);
    };
    const { Ollama } = (ollamaModule ??= await import('ollama'));
    const client = new Ollama({ host: this.#host, fetch: fetchWithSignal, headers: this.#headers });
    const { model, dimensions } = this.options;
    // Ollama truncates to `dimensions` for models that support it; servers that do not ignore
    // the field, and the length check catches the mismatch.
    const res: unknown = await client.embed({ model, input: texts, ...(dimensions !== null ? { dimensions } : {}) });
    const embeddings = (res as { embeddings?: unknown } | null)?.embeddings;
    if (!Array.isArray(embeddings)) {
      const error = errorInBody(res);
      throw new MalformedResponseError(error !== null ? `a success status with an error instead of embeddings: ${error}` : 'the body has no "embeddings" list');
    }
    return embeddings;
  }

  classify(err: unknown): Failure {
    if (err instanceof HttpStatusError) {
      return { kind: 'http', status: err.status, detail: err.body, retryAfterMs: retryAfterMs(err.headers) };
    }
    const network = classifyNetwork(err);
    if (network) return network;
    if (err instanceof SyntaxError) return { kind: 'malformed', detail: `the body is not JSON (${err.message})` };
    throw err;
  }

  fix(kind: EmbeddingErrorKind, status?: number): string {
    const { model } = this.options;
    switch (kind) {
      case 'unreachable':
        return 'Start Ollama with `ollama serve`, or set OLLAMA_HOST (or embeddings.host) to the address it listens on.';
      case 'auth':
        return 'The server refused the request: if Ollama sits behind a proxy, check the credentials in the host URL.';
      case 'http':
        if (status !== undefined && status >= 300 && status < 400) return 'If that server is the one you mean to use, set OLLAMA_HOST (or embeddings.host) to its address.';
        if (status === 404) return `Pull the model with \`ollama pull ${model}\`, or set embeddings.model to one that \`ollama list\` shows.`;
        if (status !== undefined && (status === 429 || status >= 500)) {
          return 'Ollama kept failing: check its log (the terminal running `ollama serve`, or `journalctl -u ollama`), or lower embeddings.concurrency and embeddings.batchSize.';
        }
        return `Check that embeddings.model (${model}) is an embedding model, e.g. \`ollama pull ${OLLAMA_DEFAULT_MODEL}\`.`;
      case 'timeout':
        return 'Raise embeddings.timeoutMs or lower embeddings.batchSize; the first request after Ollama starts also waits for the model to load.';
      case 'malformed':
        return 'Check that OLLAMA_HOST (or embeddings.host) points at an Ollama server that serves POST /api/embed (Ollama 0.3.4 or newer).';
      case 'dimensions':
        return "Set embeddings.dimensions to the model's vector size, or remove it so the size is learned from the first response.";
      case 'config':
        return 'Fix the embeddings settings.';
    }
  }
}
