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
