/**
 * Where an Ollama server is, from a host as users write it (OLLAMA_HOST, `embeddings.host`,
 * `llm.host`). Its own entry point (`@chunkyard/embeddings/ollama-host`) with no imports, so the
 * chat client in @chunkyard/llm shares it without loading the embedding providers.
 */

/**
 * The base URL the `ollama` package will use for `host`, computed the same way it does
 * (OLLAMA_HOST is often written `0.0.0.0`, `localhost:11434` or `:11434`), so messages show
 * the address that was really tried. Credentials (`user:password@`) are kept.
 */
export function ollamaBaseUrl(host: string): string {
  let h = host.trim();
  let explicit = h.includes('://');
  if (h.startsWith(':')) {
    h = `http://127.0.0.1${h}`;
    explicit = true;
  }
  if (!explicit) h = `http://${h}`;
  const url = new URL(h);
  const port = url.port || (explicit ? (url.protocol === 'https:' ? '443' : '80') : '11434');
  const auth = url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  return `${url.protocol}//${auth}${url.hostname}:${port}${url.pathname}`.replace(/\/$/, '');
}

export interface OllamaConnection {
  /** The base URL without credentials: fetch refuses URLs that carry them. */
  host: string;
  /** `Authorization: Basic …` when the host named a user, else empty. */
  headers: Record<string, string>;
  /** What must never appear in a message: the password, and the header's base64 token (user:password). */
  secrets: string[];
}

/** `ollamaBaseUrl`, with `user:password@` moved into a Basic Authorization header. Throws on an invalid address. */
export function ollamaConnection(host: string): OllamaConnection {
  const base = ollamaBaseUrl(host);
  const url = new URL(base);
  if (!url.username && !url.password) return { host: base, headers: {}, secrets: [] };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  const token = Buffer.from(`${user}:${password}`).toString('base64');
  return {
    host: url.toString().replace(/\/$/, ''),
    headers: { Authorization: `Basic ${token}` },
    secrets: [token, ...(password ? [password] : [])],
  };
}
