/**
 * The docs server: the handler chain on a node:http server, listening on loopback unless told
 * otherwise, with a clean shutdown (stop accepting, finish or drop open connections).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { oneLine } from '@chunkyard/fs-atomic';
import { ALLOWED_METHODS, cors, readOnly } from './cors.js';
import { chain, type Handler } from './handlers.js';
import { inspectorRoute, inspectorStaticDir } from './inspect.js';
import { staticFiles } from './static.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;

export interface ServeOptions {
  /** The built docs root: the folder holding the root index.json. */
  root: string;
  port?: number;
  host?: string;
  /** Handlers run after CORS and the method guard, before the static files. */
  routes?: Handler[];
  /** The chunk inspector's static folder, served at /_inspect/ (default: @chunkyard/inspector's); false: none. */
  inspector?: string | false;
  onError?: (err: unknown) => void;
  /** Where a file the server cannot read is reported (one line, no trace). */
  log?: (line: string) => void;
  /** A connection on which nothing moves for this long is closed (default IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number;
}

/**
 * 2 minutes. Node times out a request's headers (60 s) and an idle keep-alive connection (5 s),
 * but nothing once an answer is being sent: a client that asked for a file and never read held
 * its connection and the open file for good, however many such clients there were.
 */
export const IDLE_TIMEOUT_MS = 120_000;

export interface RunningServer {
  server: Server;
  /** Base URL, e.g. http://127.0.0.1:8080/ */
  url: string;
  /** The docs root as named (absolute; a symlink is followed at each request, not resolved once). */
  root: string;
  /**
   * Stops accepting; idle keep-alive connections close now, busy ones after `graceMs`. Resolves
   * with how many connections were still open at `graceMs` and were cut (a download in flight).
   */
  close(graceMs?: number): Promise<number>;
}

export class ServeError extends Error {
  override name = 'ServeError';
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const real = await realpath(options.root).catch(() => {
    throw new ServeError(`${oneLine(options.root)}: no such folder`);
  });
  if (!(await stat(real)).isDirectory()) throw new ServeError(`${oneLine(options.root)}: not a folder`);
  // The path as named, not where it led at start-up: a root that is a symlink swapped to a new
  // release is followed at each request (staticFiles resolves it again).
  const root = resolve(options.root);
  const inspector = options.inspector === false ? [] : [inspectorRoute(options.inspector ?? inspectorStaticDir())];
  const handlers: Handler[] = [cors, readOnly, ...inspector, ...(options.routes ?? []), staticFiles(root, options.log)];
  const handle = chain(handlers, options.onError);
  const server = createServer((req, res) => {
    // RFC 9112 3.2.2: "A server MUST accept the absolute-form in requests" (http://host/path, what
    // a client sends to a proxy); every handler reads the origin form, so it is cut down to that
    // as text (a URL parse would resolve "..", which the static handler must see to refuse it).
    // The host it names takes the Host header's place, and no handler reads either.
    const absolute = /^https?:\/\/[^/?#]*/i.exec(req.url ?? '');
    if (absolute) req.url = req.url!.slice(absolute[0].length).replace(/^(?=[?#]|$)/, '/');
    handle(req, res);
  });
  // A client that sends its request and then shuts down its side (HTTP/1.0 clients,
  // `printf 'GET /x HTTP/1.0\r\n\r\n' | nc -N`) is still reading: by default Node aborts the
  // request and ends the connection on that half-close, so every file, read asynchronously, was
  // lost and the client got nothing. With this set, the answers in flight are sent, then the
  // connection ends. (Node's own switch; not in its type declarations.)
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // With no 'timeout' listener, Node destroys a socket that times out. Any byte read or written
  // restarts the clock, so a slow client that keeps reading is never cut off.
  server.setTimeout(options.idleTimeoutMs ?? IDLE_TIMEOUT_MS);
  // CONNECT (a tunnel, asked of a proxy) has no handler in Node but this event: without one the
  // connection was dropped without an answer.
  server.on('connect', (_req, socket) => {
    socket.on('error', () => undefined);
    socket.end(`HTTP/1.1 405 Method Not Allowed\r\nAllow: ${ALLOWED_METHODS}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 19\r\nConnection: close\r\n\r\nMethod Not Allowed\n`);
  });
  // The connections open now, so close() can say how many it cut (a download still in flight
  // after the grace period was cut without a word, and --help said requests in flight finish).
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  const host = options.host ?? DEFAULT_HOST;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const port = options.port ?? DEFAULT_PORT;
      // Node's own words ("getaddrinfo ENOTFOUND x") said neither what was wrong nor what to do.
      const code = err.code;
      reject(
        new ServeError(
          code === 'EADDRINUSE'
            ? `port ${port} on ${host} is in use (try --port 0 for any free port)`
            : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN'
              ? `${host}: not an address of this machine (${code}); use --host 127.0.0.1, or an address this machine has`
              : code === 'EINVAL' && err.syscall === 'getaddrinfo'
                ? `${host}: not a host name or address (EINVAL); use --host 127.0.0.1, or an address this machine has`
              : code === 'EACCES'
                ? `${host}:${port}: permission denied (EACCES); ports below 1024 need privileges, pick another --port`
                : `cannot listen on ${host}:${port}: ${err.message}`,
        ),
      );
    });
    // "[::1]" is how an IPv6 address is written in a URL; listen() takes it without brackets
    // (with them it was "not an address of this machine").
    server.listen(options.port ?? DEFAULT_PORT, host.replace(/^\[(.*)\]$/, '$1'), () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    server,
    root,
    url: `http://${shownHost}:${addr.port}/`,
    close: (graceMs = 2000) =>
      new Promise<number>((resolve) => {
        let cut = 0;
        server.close(() => resolve(cut));
        server.closeIdleConnections();
        setTimeout(() => {
          cut = open.size;
          server.closeAllConnections();
        }, graceMs).unref();
      }),
  };
}
