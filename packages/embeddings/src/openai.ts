/**
 * The `openai` provider: OpenAI's embeddings API, or any server that speaks it (vLLM,
 * llama.cpp, LM Studio, LocalAI, …) through OPENAI_BASE_URL, via the `openai` package with
 * its own retries off (the shared loop in remote.ts retries, with the same policy as ollama).
 *
 * `encoding_format: 'base64'` is sent explicitly. It is what the library asks for by default
 * anyway (a quarter of the JSON), but when it picks the format itself it decodes every
 * `embedding` as base64 — a compatible server that ignores the field and answers with floats
 * would come back as garbage. Asking explicitly hands us the body as sent, and we decode
 * either form.
 */
import type OpenAI from 'openai';
import { displayUrl, EmbeddingError, type EmbeddingErrorKind } from './errors.js';
import { BATCH_NEEDS, batchNeeds, classifyNetwork, limitBatchStructure, limitResponse, MalformedResponseError, MAX_ERROR_BODY_BYTES, maxResponseBytes, rootMessage, type Failure, type Transport } from './remote.js';
import { errorInBody, fetchWithinOrigin, jsonOfTextBody, retryAfterMs } from './attempt.js';

export const OPENAI_DEFAULT_MODEL = 'text-embedding-3-small';
/** The `openai` package's own default, spelled out so that it never reads process.env itself. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * The `openai` package, loaded on the first request: it is about 0.1 s of module loading, which
 * every tool that bundles this provider (topic-spec, index-tool, docs-query…) paid at start-up,
 * and each Nx batch thread once per tool, whatever provider the config named.
 */
type OpenAIModule = typeof import('openai');
let openaiModule: OpenAIModule | null = null;
async function loadOpenAI(): Promise<OpenAIModule> {
  return (openaiModule ??= await import('openai'));
}

/**
 * Where `text` stops being base64 (the standard or URL-safe alphabet, `=` padding only at the
 * end; line breaks and spaces, which encoders that wrap lines add, are allowed), or -1 when it
 * is base64. Node's decoder skips any other character without a word, so a compatible server
 * that sent its vector as a string of numbers ("0.1,0.2,…,0.8") came back as three
 * meaningless floats, cached and used.
 */
export function notBase64At(text: string): number {
  let padding = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (c === 0x3d) {
      padding = true;
      continue;
    }
    const inAlphabet = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f || c === 0x2d || c === 0x5f;
    if (padding || !inAlphabet) return i;
  }
  return -1;
}

/** Little-endian float32s in base64 → Float32Array; null when it is not base64, or the byte count is not a multiple of 4. */
export function decodeBase64Floats(b64: string): Float32Array | null {
  if (notBase64At(b64) >= 0) return null;
  const buf = Buffer.from(b64, 'base64');
  if (buf.length % 4 !== 0) return null;
  const out = new Float32Array(buf.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}

export interface OpenAITransportOptions {
  apiKey: string | undefined;
  baseURL: string;
  model: string;
  dimensions: number | null;
  timeoutMs: number;
  /** Texts per request, which bounds the size of a response. */
  batchSize: number;
  organization?: string | undefined;
  project?: string | undefined;
}

export class OpenAITransport implements Transport {
  readonly provider = 'openai' as const;
  readonly url: string;
  #client: OpenAI | null = null;
  readonly secrets: readonly string[];

  constructor(readonly options: OpenAITransportOptions) {
    this.secrets = options.apiKey ? [options.apiKey] : [];
    // A configured base URL, short and trusted; trimmed by a loop, as /\/+$/ is quadratic in a run of slashes not at the end.
    let end = options.baseURL.length;
    while (end > 0 && options.baseURL.charCodeAt(end - 1) === 0x2f) end--;
    this.url = displayUrl(`${options.baseURL.slice(0, end)}/embeddings`);
  }

  /** Throws kind 'auth' when there is no key, so the check comes before any request. */
  beforeRequest(): void {
    if (!this.options.apiKey) {
      throw new EmbeddingError('no API key: OPENAI_API_KEY is not set', {
        provider: 'openai',
        url: this.url,
        kind: 'auth',
        fix: 'Set OPENAI_API_KEY to your API key (for a compatible server that needs no key, any non-empty value works).',
      });
    }
    // It goes in an Authorization header, which fetch refused with a bare TypeError quoting it.
    if (!/^[\x20-\x7e]+$/.test(this.options.apiKey)) {
      throw new EmbeddingError('OPENAI_API_KEY holds characters an HTTP header cannot carry (a line break, or a character outside ASCII)', {
        provider: 'openai',
        url: this.url,
        kind: 'auth',
        fix: 'Set OPENAI_API_KEY to the key alone, as your provider shows it.',
      });
    }
  }

  async #getClient(): Promise<OpenAI> {
    this.beforeRequest();
    const { default: OpenAIClient } = await loadOpenAI();
    this.#client ??= new OpenAIClient({
      apiKey: this.options.apiKey ?? '',
      baseURL: this.options.baseURL,
      organization: this.options.organization ?? null,
      project: this.options.project ?? null,
      timeout: this.options.timeoutMs,
      maxRetries: 0,
      // One client serves every batch, so the limit is the largest batch's. An error page larger
      // than an error message is refused too: the message shows 300 characters of it. A
      // redirect to another origin is refused, not followed with the texts.
      fetch: async (input, init) => {
        const res = await fetchWithinOrigin(input, init);
        if (!res.ok) return limitResponse(res, MAX_ERROR_BODY_BYTES, BATCH_NEEDS);
        const { batchSize, dimensions } = this.options;
        return limitBatchStructure(limitResponse(res, maxResponseBytes(batchSize, dimensions), batchNeeds(dimensions)), batchSize, dimensions);
      },
    });
    return this.#client;
  }

  async send(texts: string[], signal: AbortSignal): Promise<unknown[]> {
    const { model, dimensions } = this.options;
    const res: unknown = jsonOfTextBody(await (await this.#getClient()).embeddings.create(
      // text-embedding-3-* shorten to `dimensions` on request; other models may reject it, which
      // is why it is only sent when configured.
      { model, input: texts, encoding_format: 'base64', ...(dimensions !== null ? { dimensions } : {}) },
      { signal },
    ));
    const data = (res as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) {
      const error = errorInBody(res);
      throw new MalformedResponseError(error !== null ? `a success status with an error instead of embeddings: ${error}` : 'the body has no "data" list');
    }
    const out = new Array<unknown>(data.length);
    for (let i = 0; i < data.length; i++) {
      const item = data[i] as { index?: unknown; embedding?: unknown } | null;
      // `index` says which input an embedding belongs to; the API does not promise order.
      const index = typeof item?.index === 'number' ? item.index : i;
      if (!Number.isInteger(index) || index < 0 || index >= data.length || out[index] !== undefined) {
        throw new MalformedResponseError(`data[${i}] has a bad or repeated index ${JSON.stringify(item?.index)}`);
      }
      const embedding = item?.embedding;
      if (typeof embedding === 'string') {
        const at = notBase64At(embedding);
        if (at >= 0) throw new MalformedResponseError(`data[${i}].embedding is a string that is not base64 (character ${at + 1} of ${embedding.length} is outside its alphabet), where a list of numbers or base64 float32s belongs`);
        const decoded = decodeBase64Floats(embedding);
        if (!decoded) throw new MalformedResponseError(`data[${i}].embedding is base64 whose length is not a whole number of float32s`);
        out[index] = decoded;
      } else {
        out[index] = embedding;
      }
    }
    return out;
  }

  classify(err: unknown): Failure {
    // The library's errors exist only once a request loaded it (and only a request fails).
    const { APIConnectionError, APIConnectionTimeoutError, APIError } = openaiModule ?? {};
    if (APIConnectionTimeoutError && err instanceof APIConnectionTimeoutError) return { kind: 'timeout' };
    if (APIConnectionError && err instanceof APIConnectionError) return classifyNetwork(err) ?? { kind: 'unreachable', code: 'fetch failed', detail: rootMessage(err) };
    if (APIError && err instanceof APIError && typeof err.status === 'number') {
      const body = err.error as { message?: unknown } | undefined;
      const detail = typeof body?.message === 'string' ? body.message : err.message;
      return { kind: 'http', status: err.status, detail, retryAfterMs: retryAfterMs(err.headers) };
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
        return 'Check OPENAI_BASE_URL (or embeddings.baseURL) and the network connection.';
      case 'auth':
        return 'Set OPENAI_API_KEY to a valid API key for this server.';
      case 'http':
        if (status === 404) return `Check embeddings.model (${model}), and that OPENAI_BASE_URL ends in /v1 for a compatible server.`;
        if (status !== undefined && status >= 300 && status < 400) return 'If that server is the one you mean to use, set OPENAI_BASE_URL (or embeddings.baseURL) to its address.';
        if (status === 429) return 'The server is rate-limiting: lower embeddings.concurrency or embeddings.batchSize, check your quota, or try again later.';
        if (status !== undefined && status >= 500) return "The server kept failing: try again later, or check a compatible server's log.";
        return `Check embeddings.model (${model}) and embeddings.dimensions against what the server supports.`;
      case 'timeout':
        return 'Raise embeddings.timeoutMs or lower embeddings.batchSize.';
      case 'malformed':
        return 'Check that OPENAI_BASE_URL (or embeddings.baseURL) points at an OpenAI-compatible API that serves POST /embeddings.';
      case 'dimensions':
        return "Set embeddings.dimensions to the model's vector size, or remove it so the size is learned from the first response.";
      case 'config':
        return 'Fix the embeddings settings.';
    }
  }
}
