/**
 * One attempt of a request to a remote model (an embedding batch, a chat completion): its own
 * timeout, and abortion when the caller aborts. Shared by the embedding providers and
 * @chunkyard/llm's chat client, which classify and retry the outcome each their own way.
 */
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

/** limitResponse's refusal: the body is larger than the request could need. */
export class ResponseTooLargeError extends Error {}

/**
 * `res` with its body limited to `maxBytes` as it arrives (after any gzip or deflate is undone,
 * so a small compressed body that inflates to gigabytes is stopped too). A Content-Length over
 * the limit fails at once; a body that grows past it fails while being read, and the rest of
 * it is never downloaded. Both throw a ResponseTooLargeError from whatever reads the body. An error
 * response whose Content-Length is over the limit keeps its status and loses its body.
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
