/**
 * One attempt of a request to a remote model (an embedding batch, a chat completion): its own
 * timeout, and abortion when the caller aborts. Shared by the embedding providers and
 * @chunkyard/llm's chat client, which classify and retry the outcome each their own way.
 */
import { isUtf8 } from 'node:buffer';
import { displayUrl } from './errors.js';

/**
 * The longest timeout or wait between attempts a client accepts, in ms: an hour, the config
 * file's ceiling. Node's timers fire at once (after 1 ms) past 2^31-1 ms.
 */
export const MAX_WAIT_MS = 3_600_000;

/**
 * The first integer setting outside its [min, max] (undefined ones are skipped), with its range
 * as messages write it (`1..3600000`, or `>= 0` for no upper bound); null when all are in range.
 * The embedding providers and the chat client check their numeric settings with it, each in
 * its own error's words.
 */
export function integerOutOfRange(
  settings: object,
  ranges: Readonly<Record<string, readonly [number, number]>>,
): { key: string; value: unknown; range: string } | null {
  for (const [key, [min, max]] of Object.entries(ranges)) {
    const value: unknown = (settings as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      return { key, value, range: max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `${min}..${max}` };
    }
  }
  return null;
}

/**
 * A setting's value in a message: a string quoted and cut at 40 characters, a number as
 * written (NaN, Infinity, which JSON.stringify made "null"), and never an exception (a BigInt
 * or a cyclic object threw JSON.stringify's TypeError instead of the setting's message).
 */
export function shownSetting(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    case 'bigint': {
      const digits = String(value);
      return digits.length > 40 ? `a ${digits.length}-digit BigInt` : `${digits}n`;
    }
    case 'object':
      return value === null ? 'null' : Array.isArray(value) ? 'a list' : 'an object';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      return String(value);
  }
}

/**
 * What a model server's address may not hold, worded for the setting it came from (`from`:
 * `embeddings.baseURL`, `llm.host`, OPENAI_BASE_URL …), or null when it holds neither. The
 * embedding providers and @chunkyard/llm's chat client each throw it as their own error; they
 * kept a copy each of this check until session 61. `address` has been checked to be an http(s)
 * address; `endpoint` is the path the client appends to it (`/embeddings`, `/api/chat`).
 *
 * - openai only, a user name or password (`http://u:p@h/v1`): fetch refuses such URLs, and its
 *   message repeated the URL, password and all. Ollama's host may carry them: they become a
 *   Basic Authorization header (ollama-host.ts).
 * - a query (`?api-key=…`) or fragment: the openai package appends the endpoint to the base URL
 *   as a string, so `http://h/v1?api-key=K` sent POST /v1 with `api-key=K%2Fembeddings`, and
 *   every error showed the key in its URL; the ollama package keeps only the address and path,
 *   so a `?token=` was dropped unsent, without a word.
 *
 * The problem never repeats the address: a query may hold a key, the user part a password.
 */
export function addressProblem(provider: 'ollama' | 'openai', from: string, address: string, endpoint: string): { problem: string; fix: string } | null {
  if (provider === 'openai' && URL.canParse(address)) {
    const url = new URL(address);
    if (url.username || url.password) return { problem: `${from} holds a user name or password, which the request cannot carry`, fix: `Remove them from ${from}; the API key goes in OPENAI_API_KEY.` };
  }
  if (!/[?#]/.test(address)) return null;
  const why = provider === 'openai' ? `the openai package appends ${endpoint} after it, so the request would go to the wrong path` : `only its address and path are used (the request goes to ${endpoint} below them), so it would never be sent`;
  const key = provider === 'openai' ? 'an API key goes in OPENAI_API_KEY' : 'credentials go in the address as http://user:password@host';
  return { problem: `${from} holds a query or fragment (?… or #…), which cannot be used: ${why}`, fix: `Remove the query and fragment from ${from}; ${key}.` };
}

/** Secrets shorter than this are not looked for: a dummy key such as `x` or `EMPTY` would mangle ordinary words. */
export const MIN_REDACTED_LENGTH = 8;

/**
 * `text` with every occurrence of each secret (an API key, a Basic-auth password or token)
 * replaced by `[redacted]`. What a message quotes of a server (an error page, a 2xx body's
 * error) is the server's to choose: a proxy or a compatible server that echoes the request's
 * Authorization header ("Incorrect API key provided: Bearer sk-…") put the whole key on stderr
 * and into CI logs. Longest secret first, so a token holding another is replaced whole.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  const long = [...secrets].filter((secret) => secret.length >= MIN_REDACTED_LENGTH).sort((a, b) => b.length - a.length);
  for (const secret of long) out = out.split(secret).join('[redacted]');
  // A quote cut short (errorInBody's 300 characters, then `…`) can end inside a secret, whose
  // whole is then nowhere to be found: the start of the key went out as it was (helper-36's
  // probe, issue 15). The longest start of a secret, of MIN_CUT_PREFIX characters or more,
  // that the quote ends with is redacted too.
  const ellipsis = out.endsWith('…') ? '…' : '';
  const body = ellipsis ? out.slice(0, -1) : out;
  for (const secret of long) {
    for (let k = secret.length - 1; k >= MIN_CUT_PREFIX; k--) {
      if (body.endsWith(secret.slice(0, k))) return `${body.slice(0, body.length - k)}[redacted]${ellipsis}`;
    }
  }
  return out;
}

/** The shortest start of a secret that a cut quote ending with it has redacted (shorter: ordinary text, and nothing of a key). */
const MIN_CUT_PREFIX = 4;

export type AttemptOutcome<T> = { ok: true; value: T } | { ok: false; error: unknown; timedOut: boolean };

/**
 * Runs `send` with a signal that aborts after `timeoutMs` or when `parent` aborts. Never
 * rejects: a failure is returned with whether the timer fired, so that a timeout is told
 * apart from the transport error the abort produced. The timer and the listener on `parent`
 * are gone when it returns.
 */
export async function runAttempt<T>(timeoutMs: number, parent: AbortSignal | undefined, send: (signal: AbortSignal) => Promise<T>): Promise<AttemptOutcome<T>> {
  // An already-aborted signal fires no more 'abort' events: without this the request went out
  // and ran until the timeout.
  if (parent?.aborted) return { ok: false, error: parent.reason, timedOut: false };
  const ctrl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctrl.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  const onAbort = () => ctrl.abort(parent?.reason);
  parent?.addEventListener('abort', onAbort, { once: true });
  try {
    return { ok: true, value: await send(ctrl.signal) };
  } catch (error) {
    return { ok: false, error, timedOut };
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onAbort);
  }
}

/**
 * A body refused while it arrives (limitResponse, limitJsonStructure), thrown from whatever
 * reads it; both clients report it as a malformed response, its message the reason.
 */
export class ResponseRefusedError extends Error {}

/** limitResponse's refusal: the body is larger than the request could need. */
export class ResponseTooLargeError extends ResponseRefusedError {}

/**
 * limitResponse's refusal of a 2xx body that is not UTF-8, as JSON must be (RFC 8259). Both
 * client packages decode bodies with replacement characters, so a reply holding a Latin-1 byte
 * was taken: a chat reply came back as "caf\uFFFD" and was cached and written into the lead
 * lines, and a page that was not JSON at all was quoted as "Gr\uFFFD\uFFFDe".
 */
export class ResponseNotUtf8Error extends ResponseRefusedError {}

/**
 * Where the first byte of `bytes` at or after `from` stands that does not begin a whole,
 * well-formed UTF-8 sequence (WHATWG's rules: no overlong forms, surrogates or code points
 * past U+10FFFF); -1 when there is none. A sequence cut short by the end counts as bad.
 */
function firstNonUtf8(bytes: Uint8Array, from: number): number {
  for (let i = from; i < bytes.length; ) {
    const c = bytes[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let more: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) more = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      more = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      more = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= more; k++) {
      const d = bytes[i + k];
      if (d === undefined || d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return i;
    }
    i += more + 1;
  }
  return -1;
}

/**
 * A TransformStream passing a body through unchanged while checking it is UTF-8 (a fatal
 * TextDecoder, native speed); at the first byte that is not, it errors with a
 * ResponseNotUtf8Error naming that byte and where it stands.
 */
function utf8Check(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  let previous: Uint8Array = new Uint8Array(0); // the last (up to) 3 bytes passed on
  const refuse = (chunk: Uint8Array, atEnd: boolean) => {
    // Up to 3 bytes before this chunk may begin the sequence it ends: scan from the first of
    // them that is not a continuation byte.
    const tail = previous;
    const joined = new Uint8Array(tail.length + chunk.length);
    joined.set(tail);
    joined.set(chunk, tail.length);
    let from = 0;
    while (from < tail.length && (joined[from]! & 0xc0) === 0x80) from++;
    const at = Math.max(0, firstNonUtf8(joined, from));
    const byte = joined[at];
    const where = offset - tail.length + at;
    const what = atEnd || byte === undefined ? `it ends inside a character, at byte ${where}` : `byte ${where}, 0x${byte.toString(16).toUpperCase().padStart(2, '0')}, is not UTF-8`;
    return new ResponseNotUtf8Error(`the body is not UTF-8 JSON (${what}: Latin-1 or another encoding)`);
  };
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      try {
        decoder.decode(chunk, { stream: true });
      } catch {
        controller.error(refuse(chunk, false));
        return;
      }
      // The last 3 bytes seen, whichever chunks they came in (a chunk may be a single byte).
      const kept = previous.subarray(Math.max(0, previous.length + chunk.length - 3));
      previous = new Uint8Array(kept.length + Math.min(3, chunk.length));
      previous.set(kept);
      previous.set(chunk.subarray(chunk.length - Math.min(3, chunk.length)), kept.length);
      offset += chunk.byteLength;
      controller.enqueue(chunk);
    },
    flush(controller) {
      try {
        decoder.decode();
      } catch {
        controller.error(refuse(new Uint8Array(0), true));
      }
    },
  });
}

/**
 * `res` with its body limited to `maxBytes` as it arrives (after any gzip or deflate is undone,
 * so a small compressed body that inflates to gigabytes is stopped too). A Content-Length over
 * the limit fails at once; a body that grows past it fails while being read, and the rest of
 * it is never downloaded. Both throw a ResponseTooLargeError from whatever reads the body. An error
 * response whose Content-Length is over the limit keeps its status and loses its body. A 2xx
 * body that is not UTF-8 throws a ResponseNotUtf8Error where it stops being UTF-8; an error
 * body that is not UTF-8 is read as Windows-1252 (Latin-1).
 */
export function limitResponse(res: Response, maxBytes: number, needs = 'a reply to this request needs'): Response {
  const tooLarge = () => new ResponseTooLargeError(`the body is larger than ${Math.floor(maxBytes / (1024 * 1024))} MiB, more than ${res.ok ? needs : 'an error message needs'}`);
  const declared = Number(res.headers.get('content-length') ?? '');
  // Content-Length counts the encoded bytes, so it only proves too large for an unencoded body.
  if (declared > maxBytes && !res.headers.get('content-encoding')) {
    void res.body?.cancel().catch(() => {});
    // An error keeps its status (what the retry loop and the message need) and loses its body.
    if (!res.ok) return new Response(null, { status: res.status, statusText: res.statusText, headers: res.headers });
    throw tooLarge();
  }
  if (!res.body) return res;
  let seen = 0;
  const limited = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  // A 2xx body is JSON, so UTF-8: one that is not is refused (ResponseNotUtf8Error). An error
  // body is only quoted, so one that is not UTF-8 is read as Windows-1252 instead.
  return new Response(limited.pipeThrough(res.ok ? utf8Check() : windows1252Unless8()), { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * A TransformStream that holds a whole (error) body and passes it on as it is when it is UTF-8,
 * else as the UTF-8 of its Windows-1252 (Latin-1) reading: a server or proxy's error page in
 * Latin-1 ("Ung\xFCltige Anfrage") was quoted "HTTP 400: Ung\uFFFDltige Anfrage". Bodies here
 * are error bodies, already held to MAX_ERROR_BODY_BYTES by the caller's limit.
 */
function windows1252Unless8(): TransformStream<Uint8Array, Uint8Array> {
  const chunks: Uint8Array[] = [];
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk) {
      chunks.push(chunk);
    },
    flush(controller) {
      const body = Buffer.concat(chunks);
      controller.enqueue(isUtf8(body) ? body : new TextEncoder().encode(new TextDecoder('windows-1252').decode(body)));
    },
  });
}

/**
 * `res` with its body refused as it arrives (a ResponseTooLargeError from whatever reads it)
 * once it opens more lists or objects (`[`, `{`) or separates more values (`,`) than `max`
 * allows. JSON.parse turns each opening into an object of some 60 bytes, so a body within its
 * byte limit could still cost dozens of times its size in heap. Counted outside JSON strings:
 * text, base64 vectors and names never count.
 */
export function limitJsonStructure(res: Response, max: { openings: number; separators: number }, needs = 'a reply to this request needs'): Response {
  if (!res.body) return res;
  let opened = 0;
  let separated = 0;
  let inString = false;
  let escaped = false;
  const limited = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (let i = 0; i < chunk.length; i++) {
          const b = chunk[i]!;
          if (inString) {
            if (escaped) escaped = false;
            else if (b === 0x5c) escaped = true;
            else if (b === 0x22) inString = false;
          } else if (b === 0x22) inString = true;
          else if (b === 0x2c) separated++;
          else if (b === 0x5b || b === 0x7b) opened++;
        }
        if (opened > max.openings || separated > max.separators) {
          const what = opened > max.openings ? `more than ${max.openings} nested lists or objects` : `more than ${max.separators} values`;
          controller.error(new ResponseTooLargeError(`the body holds ${what}, more than ${needs}`));
        } else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(limited, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * Retry-After (seconds or an HTTP date) or retry-after-ms, in ms; null when absent or unreadable.
 * Here beside runAttempt so that the chat client (@chunkyard/llm) waits by the same rule.
 */
export function retryAfterMs(headers: Headers | null | undefined, now = Date.now()): number | null {
  if (!headers) return null;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const ra = headers.get('retry-after');
  if (ra === null || ra.trim() === '') return null;
  const seconds = Number(ra);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** fetch's own limit on a chain of redirects. */
const MAX_REDIRECTS = 20;

/**
 * fetchWithinOrigin's refusal of a redirect: to another origin, to an address that is not
 * http(s), or one of a chain that never ends. `status` is the 3xx that asked for it.
 */
export class RedirectRefusedError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** `url` fit for a message: no user:password@, at most 100 characters (a Location header can be 16 KiB; messages quote 300 of a detail). */
function shownUrl(url: URL | string): string {
  const text = url instanceof URL ? displayUrl(url.href) : url;
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

/**
 * fetch(input, init), following redirects only within the origin of `input`. fetch's own
 * 'follow' resends a 307 or 308's request, body and all, to wherever the Location header
 * points: a configured model server (or whatever answers in its place) could have the text
 * of every document sent to another host. fetch drops Authorization there (the Fetch
 * standard's rule) but not the body, so the redirect is refused before anything goes out,
 * naming both addresses. Within the origin (a proxy that adds a trailing slash, say) a
 * redirect is followed as fetch would: 307/308 keep the method and body. A 303 (or 301/302 of
 * a POST) would make a request with a body a GET without one, so it is refused, naming both
 * addresses; one without a body becomes a GET. `input` is a URL, as both client packages pass it.
 */
export async function fetchWithinOrigin(input: string | URL | Request, init: RequestInit = {}, fetchImpl: typeof fetch = fetch): Promise<Response> {
  // A Request's body cannot be sent twice; neither client package passes one, so its
  // redirects are not followed at all, which is the safe side.
  if (input instanceof Request) return fetchImpl(input, { ...init, redirect: 'manual' });
  let url = new URL(input);
  const { origin } = url;
  let method = (init.method ?? 'GET').toUpperCase();
  let body = init.body;
  let headers = init.headers;
  for (let hops = 0; ; hops++) {
    const res = await fetchImpl(url, { ...init, method, body, headers, redirect: 'manual' });
    const location = res.headers.get('location');
    if (location === null || ![301, 302, 303, 307, 308].includes(res.status)) return res;
    void res.body?.cancel().catch(() => {});
    const target = URL.canParse(location, url) ? new URL(location, url) : null;
    if (!target || (target.protocol !== 'http:' && target.protocol !== 'https:')) {
      throw new RedirectRefusedError(res.status, `a redirect from ${shownUrl(url)} to ${JSON.stringify(shownUrl(location))}, which is not an http(s) address`);
    }
    if (target.origin !== origin) {
      throw new RedirectRefusedError(
        res.status,
        `a redirect from ${shownUrl(url)} to ${shownUrl(target)}, another origin: not followed, since that would send the request, and the text in it, to another server`,
      );
    }
    if (hops >= MAX_REDIRECTS) throw new RedirectRefusedError(res.status, `more than ${MAX_REDIRECTS} redirects, the last from ${shownUrl(url)} to ${shownUrl(target)}`);
    if ((res.status === 303 && method !== 'GET' && method !== 'HEAD') || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      // The request would arrive as a GET without its body, which no model server answers with
      // what was asked: a proxy adding a slash with a 301 ended in "HTTP 405" (or 404) with the
      // redirect nowhere in the message.
      if (body !== null && body !== undefined) {
        throw new RedirectRefusedError(res.status, `a redirect from ${shownUrl(url)} to ${shownUrl(target)}, which turns the ${method} into a GET without its body: not followed, since the server would never see the request`);
      }
      method = 'GET';
      body = null;
      const without = new Headers(headers);
      for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) without.delete(name);
      headers = without;
    }
    url = target;
  }
}

/**
 * What the `openai` package resolved to, as JSON: it parses a body only when its Content-Type
 * says JSON, and otherwise resolves to the text. A compatible server that sends its JSON as
 * text/plain, text/html or with no Content-Type (a small Flask or Express app, some proxies)
 * was refused with 'the body has no "data" list', and an HTML login page got the same words.
 * Now the text is parsed; text that is not JSON throws JSON.parse's SyntaxError, which both
 * clients report as "the body is not JSON (…)", quoting its start, as for Ollama.
 */
export function jsonOfTextBody(res: unknown): unknown {
  return typeof res === 'string' ? JSON.parse(res) : res;
}

/**
 * The error a 2xx body carries instead of a result, as some compatible servers and proxies
 * answer (`{"error": "…"}`, Ollama's form, or `{"error": {"message": "…"}}`, OpenAI's), cut to
 * 300 characters; null when it carries none. Without it the message said only that the result
 * was missing, not what the server said.
 */
export function errorInBody(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const error: unknown = (body as { error?: unknown }).error;
  const text = typeof error === 'string' ? error : typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : undefined;
  if (typeof text !== 'string' || text.trim() === '') return null;
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * Why fetch could not read what the server sent, when it was not a readable HTTP response:
 * headers larger than Node accepts, a status line or header that is not HTTP/1.1 (something else listens on the port: SSH, a TLS
 * server addressed as http://, a database), a chunked body that breaks the framing, or a
 * gzip/deflate/br body that does not decompress. Null for anything else. These were "cannot
 * reach the server", with the fix to start one, when a server had answered, or fetch's bare
 * "terminated".
 */
export function unreadableResponse(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; depth++, e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    // undici's refusal of headers over Node's limit (16 KiB): the server did answer.
    if (code === 'UND_ERR_HEADERS_OVERFLOW') return `its headers are larger than Node accepts (${code})`;
    if (code.startsWith('HPE_')) {
      const why = e.message.startsWith('Response does not match the HTTP/1.1 protocol ') ? e.message.slice('Response does not match the HTTP/1.1 protocol '.length) : e.message;
      return `the answer is not HTTP/1.1 ${why.startsWith('(') ? why : `(${why})`}`.slice(0, 200);
    }
    // zlib's codes (Z_DATA_ERROR, Z_BUF_ERROR…) and brotli's (ERR__ERROR_FORMAT_…).
    if (code.startsWith('Z_') || code.startsWith('ERR__ERROR_')) return `the body does not decompress as its Content-Encoding says (${e.message})`.slice(0, 200);
  }
  return null;
}
