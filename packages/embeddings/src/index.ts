/**
 * @chunkyard/embeddings — one embedding interface, three providers:
 *
 *   local   offline, deterministic, LEXICAL (hashed stems and word pairs; see local.ts)
 *   ollama  an Ollama server (default model mxbai-embed-large; OLLAMA_HOST)
 *   openai  OpenAI or a compatible server (default text-embedding-3-small; OPENAI_API_KEY, OPENAI_BASE_URL)
 *
 *   const provider = createProvider({ provider: 'local' });
 *   const vectors = await provider.embed(['first text', 'second text']);
 *
 * Every failure is an EmbeddingError naming the provider, the URL and the fix.
 */
import { addressProblem, integerOutOfRange, MAX_WAIT_MS, shownSetting } from './attempt.js';
import { kindOf } from './embed-input.js';
import { EmbeddingError } from './errors.js';
import { LOCAL_LEXICAL_VERSION, LOCAL_MIN_DIMENSIONS, LOCAL_VERSION_DEFAULT_DIMENSIONS, LocalLexicalProvider, localModelId, MAX_DIMENSIONS, type LocalLexicalVersion } from './local.js';
import { OLLAMA_DEFAULT_HOST, OLLAMA_DEFAULT_MODEL, OllamaTransport } from './ollama.js';
import { ollamaConnection } from './ollama-host.js';
import { OPENAI_DEFAULT_BASE_URL, OPENAI_DEFAULT_MODEL, OpenAITransport } from './openai.js';
import { REMOTE_DEFAULTS, RemoteProvider, type RemoteSettings } from './remote.js';
import type { EmbeddingProvider, EmbeddingSettings, ProviderName } from './types.js';

export type { EmbedOptions, EmbeddingProvider, EmbeddingSettings, ProviderName, RetryInfo } from './types.js';
export { cosine } from './cosine.js';
export { EmbeddingError, type EmbeddingErrorKind } from './errors.js';
export {
  LocalLexicalProvider,
  localModelId,
  lexicalFeatures,
  featureHash,
  wordWeight,
  STOP_WORDS,
  LOCAL_DEFAULT_DIMENSIONS,
  LOCAL_LEXICAL_VERSION,
  LOCAL_LEXICAL_VERSIONS,
  LOCAL_VERSION_DEFAULT_DIMENSIONS,
  MAX_DIMENSIONS,
  type LocalLexicalVersion,
  type LocalProviderOptions,
} from './local.js';
export { OLLAMA_DEFAULT_HOST, OLLAMA_DEFAULT_MODEL } from './ollama.js';
export { OPENAI_DEFAULT_BASE_URL, OPENAI_DEFAULT_MODEL } from './openai.js';
export { cacheBatchSize, REMOTE_DEFAULTS } from './remote.js';
export { MAX_WAIT_MS, runAttempt, type AttemptOutcome } from './attempt.js';
export { PLAIN_PROGRESS_INTERVAL_MS, plainProgress, progressReporter, type ProgressReporter } from './progress.js';

export type Env = Record<string, string | undefined>;

const PROVIDERS: readonly ProviderName[] = ['local', 'ollama', 'openai'];

function configError(provider: ProviderName, problem: string, fix: string): EmbeddingError {
  return new EmbeddingError(problem, { provider, url: null, kind: 'config', fix });
}

/** Integer settings: [min, max], the same bounds the config file enforces (plus the test-only knobs). */
const INT_RANGES = {
  dimensions: [LOCAL_MIN_DIMENSIONS, MAX_DIMENSIONS],
  batchSize: [1, 2048],
  concurrency: [1, 16],
  // An hour at most, the config's ceiling: Node's timers fire at once past 2^31-1 ms, so a
  // timeout of 2^31 ended every request after 1 ms as "no response within 2147483648 ms".
  timeoutMs: [1, MAX_WAIT_MS],
  maxRetries: [0, 10],
  backoffMs: [0, Number.MAX_SAFE_INTEGER],
  maxDelayMs: [0, MAX_WAIT_MS],
} as const satisfies Partial<Record<keyof EmbeddingSettings, readonly [number, number]>>;

function validate(settings: EmbeddingSettings): void {
  const provider = settings.provider;
  if (!PROVIDERS.includes(provider)) {
    throw configError(
      // The name is unknown, so no provider can be blamed; 'local' is the default one.
      'local',
      `unknown provider ${shownSetting(provider)}`,
      `Set embeddings.provider to one of ${PROVIDERS.join(', ')}.`,
    );
  }
  const bad = integerOutOfRange(settings, INT_RANGES);
  if (bad) {
    throw configError(provider, `${bad.key} must be an integer ${bad.range}, got ${shownSetting(bad.value)}`, `Set embeddings.${bad.key} to an integer ${bad.range}, or remove it for the default.`);
  }
  // Called only at a retry: an onRetry of 5 was taken here and threw "onRetry is not a function"
  // from inside the first retry, after a server's 429, in place of that failure's message.
  if (settings.onRetry !== undefined && typeof settings.onRetry !== 'function') {
    throw configError(provider, `onRetry must be a function, got ${shownSetting(settings.onRetry)}`, 'Pass a function (info) => void as onRetry, or leave it out.');
  }
  if (settings.model !== undefined && (typeof settings.model !== 'string' || settings.model.trim() === '')) {
    throw configError(provider, `model must be a non-empty string, got ${shownSetting(settings.model)}`, 'Set embeddings.model to a model name, or remove it for the default.');
  }
}

/**
 * The local model id names its version and dimension: accept `local-lexical-v1`,
 * `local-lexical-v2` and either with `-dN`. Without a model, the default version.
 */
function localSettings(settings: EmbeddingSettings): { version: LocalLexicalVersion; dimensions: number } {
  const configured = settings.dimensions;
  if (settings.model === undefined) return { version: LOCAL_LEXICAL_VERSION, dimensions: configured ?? LOCAL_VERSION_DEFAULT_DIMENSIONS[LOCAL_LEXICAL_VERSION] };
  const m = /^local-lexical-(v1|v2)(?:-d(\d+))?$/.exec(settings.model);
  const version = (m?.[1] ?? LOCAL_LEXICAL_VERSION) as LocalLexicalVersion;
  const fromModel = m?.[2] !== undefined ? Number(m[2]) : undefined;
  if (!m || (fromModel !== undefined && configured !== undefined && fromModel !== configured)) {
    throw configError(
      'local',
      `model ${shownSetting(settings.model)} is not a local model${m ? ` for ${configured} dimensions` : ''}`,
      `For the local provider, leave embeddings.model unset, or set it to ${localModelId(configured, version)} (or ${localModelId(configured, version === 'v1' ? 'v2' : 'v1')}).`,
    );
  }
  const d = fromModel ?? configured ?? LOCAL_VERSION_DEFAULT_DIMENSIONS[version];
  if (d < LOCAL_MIN_DIMENSIONS) {
    throw configError('local', `model ${settings.model} has fewer than ${LOCAL_MIN_DIMENSIONS} dimensions`, `Use at least ${localModelId(LOCAL_MIN_DIMENSIONS, version)}.`);
  }
  // The model id's -dN skips INT_RANGES' check of `dimensions`.
  if (d > MAX_DIMENSIONS) {
    throw configError('local', `model ${shownSetting(settings.model)} has more than ${MAX_DIMENSIONS} dimensions`, `Use at most ${localModelId(MAX_DIMENSIONS, version)}.`);
  }
  return { version, dimensions: d };
}

function remoteSettings(settings: EmbeddingSettings, model: string): RemoteSettings {
  return {
    model,
    dimensions: settings.dimensions ?? null,
    batchSize: settings.batchSize ?? REMOTE_DEFAULTS.batchSize,
    concurrency: settings.concurrency ?? REMOTE_DEFAULTS.concurrency,
    timeoutMs: settings.timeoutMs ?? REMOTE_DEFAULTS.timeoutMs,
    maxRetries: settings.maxRetries ?? REMOTE_DEFAULTS.maxRetries,
    backoffMs: settings.backoffMs ?? REMOTE_DEFAULTS.backoffMs,
    maxDelayMs: settings.maxDelayMs ?? REMOTE_DEFAULTS.maxDelayMs,
    onRetry: settings.onRetry,
  };
}

/**
 * An address as written, for a message: `user:password@` dropped, and a query or fragment
 * shown as `?…`, since either may hold a secret (`?api-key=…`); at most 200 characters.
 */
function shownAddress(address: string): string {
  const shown = JSON.stringify(address.replace(/(\/\/)[^/@\s]*@/, '$1').replace(/[?#][^]*$/, '?…'));
  return shown.length > 200 ? `${shown.slice(0, 200)}…` : shown;
}

/** addressProblem's problem, if any, as this package's config error. */
function checkAddress(provider: 'ollama' | 'openai', from: string, address: string, endpoint: string): void {
  const found = addressProblem(provider, from, address, endpoint);
  if (found) throw configError(provider, found.problem, found.fix);
}

/** A non-empty environment value, else undefined (an exported-but-empty variable counts as unset). */
function envValue(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

/**
 * The provider `settings` describe. Reads OLLAMA_HOST, OPENAI_API_KEY, OPENAI_BASE_URL,
 * OPENAI_ORG_ID and OPENAI_PROJECT_ID from `env` only (never from process.env behind its
 * back), so tests and tools can pass their own. Makes no request: a missing OpenAI key is
 * reported by the first `embed` call, before it sends anything, so runs whose embeddings
 * are all cached need no key.
 */
export function createProvider(settings: EmbeddingSettings, env: Env = process.env): EmbeddingProvider {
  // From JavaScript, nothing (or null) here failed as "Cannot read properties of null (reading 'provider')".
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
    throw configError('local', `the embedding settings must be an object, got ${kindOf(settings)}`, "Pass { provider: 'local' } (or ollama, openai) and the other settings.");
  }
  if (typeof env !== 'object' || env === null) throw new TypeError(`createProvider: env must be an object of environment variables (or left out), got ${env === null ? 'null' : typeof env}`);
  validate(settings);
  switch (settings.provider) {
    case 'local':
      return new LocalLexicalProvider(localSettings(settings));
    case 'ollama': {
      const host = settings.host ?? envValue(env, 'OLLAMA_HOST') ?? OLLAMA_DEFAULT_HOST;
      const from = settings.host !== undefined ? 'embeddings.host' : 'OLLAMA_HOST';
      const fix = `Set ${from} to a URL such as ${OLLAMA_DEFAULT_HOST}.`;
      // A scheme other than http(s) (file://, ftp://) reached fetch, or a URL parser that threw
      // a bare TypeError; so did a password whose %-escape is broken (a URIError).
      const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(host.trim())?.[1];
      if (scheme !== undefined && !/^https?$/i.test(scheme)) throw configError('ollama', `${from} must be an http(s) address, got ${shownAddress(host)}`, fix);
      try {
        ollamaConnection(host);
      } catch {
        throw configError('ollama', `${from} is not a valid address: ${shownAddress(host)}`, fix);
      }
      checkAddress('ollama', from, host, '/api/embed');
      const model = settings.model ?? OLLAMA_DEFAULT_MODEL;
      return new RemoteProvider(new OllamaTransport({ host, model, dimensions: settings.dimensions ?? null }), remoteSettings(settings, model));
    }
    case 'openai': {
      const baseURL = settings.baseURL ?? envValue(env, 'OPENAI_BASE_URL') ?? OPENAI_DEFAULT_BASE_URL;
      const from = settings.baseURL !== undefined ? 'embeddings.baseURL' : 'OPENAI_BASE_URL';
      const fix = `Set ${from} to a URL such as ${OPENAI_DEFAULT_BASE_URL}.`;
      if (!URL.canParse(baseURL)) throw configError('openai', `${from} is not a valid URL: ${shownAddress(baseURL)}`, fix);
      const url = new URL(baseURL);
      // file: and data: URLs reached fetch ("not implemented... yet...", or a data: body read as a response).
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw configError('openai', `${from} must be an http(s) URL, got ${shownAddress(baseURL)}`, fix);
      checkAddress('openai', from, baseURL, '/embeddings');
      const model = settings.model ?? OPENAI_DEFAULT_MODEL;
      const timeoutMs = settings.timeoutMs ?? REMOTE_DEFAULTS.timeoutMs;
      const transport = new OpenAITransport({
        apiKey: envValue(env, 'OPENAI_API_KEY'),
        baseURL,
        model,
        dimensions: settings.dimensions ?? null,
        timeoutMs,
        batchSize: settings.batchSize ?? REMOTE_DEFAULTS.batchSize,
        organization: envValue(env, 'OPENAI_ORG_ID'),
        project: envValue(env, 'OPENAI_PROJECT_ID'),
      });
      return new RemoteProvider(transport, remoteSettings(settings, model));
    }
  }
}
