/**
 * A small handler chain: each handler answers the request or passes it on with `next()`.
 * docs-serve is CORS -> method guard -> (later: /_inspect/) -> static files; new routes slot in
 * without touching the others.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

export type Next = () => void;
export type Handler = (req: IncomingMessage, res: ServerResponse, next: Next) => void | Promise<void>;

/** Runs `handlers` in order; a request no handler answers gets 404, a thrown error 500. */
export function chain(handlers: readonly Handler[], onError: (err: unknown) => void = () => undefined): RequestListener {
  return (req, res) => {
    const fail = (err: unknown) => {
      onError(err);
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Internal Server Error\n');
    };
    const run = (i: number): void => {
      const h = handlers[i];
      if (!h) {
        plain(res, 404, 'Not Found');
        return;
      }
      try {
        const out = h(req, res, () => run(i + 1));
        if (out instanceof Promise) out.catch(fail);
      } catch (err) {
        fail(err);
      }
    };
    run(0);
  };
}

export function plain(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', ...headers });
  res.end(`${message}\n`);
}

/** The headers `send` sets before it opens the file: an error answer must not keep them. */
const SEND_HEADERS = ['Accept-Ranges', 'Cache-Control', 'Content-Length', 'Content-Range', 'Content-Type', 'ETag', 'Last-Modified'];

/**
 * Answers a `send` error: a plain error body without the file's headers (its Content-Length
 * left on the short body made the client wait for bytes that never came), or, when the read
 * failed part way through and the status line and some of the body are out, a cut connection
 * (no answer can follow them; writing one threw ERR_HTTP_HEADERS_SENT and ended the server).
 */
export function sendFailed(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  clearSendHeaders(res);
  plain(res, status, message, headers);
}

/** Removes the headers `send` set for a file, before the request is answered otherwise. */
export function clearSendHeaders(res: ServerResponse): void {
  for (const name of SEND_HEADERS) res.removeHeader(name);
}
