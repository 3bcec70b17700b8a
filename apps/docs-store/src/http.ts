/**
 * `docs-store mcp --http`: the same MCP server over the SDK's Streamable HTTP transport.
 *
 * Stateless: each POST to /mcp gets its own McpServer and transport, so no session state
 * lives in this process (the store is the state) and a restart loses nothing. GET and DELETE
 * are answered 405 here, which the spec allows for a server that offers no server-initiated
 * stream and no sessions: the SDK's stateless transport opened an SSE stream for a GET that
 * nothing ever wrote to and that stayed open until the client left, and answered DELETE 200.
 *
 * Loopback by default. With a bearer token (--token, or DOCS_STORE_MCP_TOKEN), a request
 * without `Authorization: Bearer <token>` gets 401 before any MCP handling. On loopback the
 * Host header must name the loopback address (DNS rebinding protection): a web page on
 * another origin cannot drive the server through a name that resolves to 127.0.0.1.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { DocStore, StoreEmbedder } from '@chunkyard/store';
import { checkBatch, checkMessage, decodeUtf8, NOT_UTF8, withoutCancelled, type ErrorReply } from './jsonrpc.js';
import { connectGuarded, createMcpServer, tolerateClosedStderr } from './mcp.js';
import { WorkQueue } from './work-queue.js';

export const MCP_PATH = '/mcp';
export const TOKEN_ENV = 'DOCS_STORE_MCP_TOKEN';
/** Largest request body read (the SDK's own default is the same order). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The body's bytes, or null when it is larger than `limit` (reading stops there). */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export interface HttpOptions {
  host: string;
  port: number;
  /** Required as `Authorization: Bearer <token>` when set. */
  token?: string;
  log: (line: string) => void;
}

/**
 * Whether `host` is a loopback name or address as written: localhost (any case), 127.x.x.x,
 * ::1 or ::ffff:127.x.x.x. Other spellings of them (127.1, 2130706433) are loopback too, which
 * only the address they bind tells: serveHttp judges by that.
 */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  const v4 = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h;
  return h === 'localhost' || h === '::1' || (isIP(v4) === 4 && v4.startsWith('127.'));
}

/** A Host value as hostOf reads it (lower case, an IPv4 or IPv6 address in its one form); null for one holding more than a host and port. */
const hostValue = (value: string): string | null => (/^[^/?#@\\\s]+$/.test(value) ? hostOf(value) : null);

/**
 * The credentials of an `Authorization: Bearer …` value, trimmed; null when it is not one.
 * The same as `/^Bearer[ ]+(.+)$/i.exec(header)?.[1].trim()`, in linear time: that pattern
 * backtracked quadratically over a run of spaces followed by a line break (which Node's
 * header parser refuses, so it was out of a client's reach, but not of a caller's).
 */
export function bearerCredentials(header: string): string | null {
  const scheme = /^Bearer +/i.exec(header);
  if (!scheme) return null;
  const rest = header.slice(scheme[0].length);
  // `.` matches no line terminator and `$` is the end of the value.
  if (/[\n\r\u2028\u2029]/.test(rest)) return null;
  // Spaces only: `.+` takes the last one, so there must be two.
  if (rest === '') return scheme[0].length - 'Bearer'.length >= 2 ? '' : null;
  return rest.trim();
}

/** Compares in constant time (hashing first gives both sides one length). */
export function tokenMatches(header: string | undefined, token: string): boolean {
  const credentials = bearerCredentials(header ?? '');
  if (credentials === null) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(credentials), digest(token));
}

/**
 * Aborts when `res` can no longer reach its client: the client ended the connection (this
 * server is not half-open, so Node ends its side too and nothing written after arrives), or
 * the connection closed before the response was written. A half-closed connection's 'end'
 * comes a turn before its 'close', which is what lets the work queue drop the request's job.
 */
function clientGone(req: IncomingMessage, res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  const socket = req.socket;
  const leave = () => gone.abort(new Error('the client closed the connection before the answer'));
  if (socket.readableEnded || socket.destroyed) leave();
  else socket.once('end', leave);
  res.once('close', () => {
    socket.off('end', leave);
    if (!res.writableFinished) leave();
  });
  return gone.signal;
}

function jsonError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/** How many Host header lines a request came with (rawHeaders alternates names and values). */
function hostLines(rawHeaders: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'host') n++;
  return n;
}

/**
 * `value` without the slashes it ends with: `value.replace(/\/+$/, '')` in linear time. That
 * backtracked quadratically over a run of slashes not at the end: a 16 KB Origin header of
 * them cost 0.36 s of CPU per request, before the bearer token was checked.
 */
export function withoutTrailingSlashes(value: string): string {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 0x2f) end--;
  return value.slice(0, end);
}

/** The host:port of an http(s) origin or Host value, lower case, default port left out; null when it is none. */
export function hostOf(value: string, scheme = false): string | null {
  try {
    const u = new URL(scheme ? value : `http://${value}`);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    if (scheme && withoutTrailingSlashes(value).toLowerCase() !== `${u.protocol}//${u.host}`) return null;
    return u.host;
  } catch {
    return null;
  }
}

/**
 * Whether a request's Origin is the server's own: one of `loopbackHosts` on loopback, else the
 * host its Host header names (the address a client, or a TLS proxy in front, reached it by).
 */
function originAllowed(origin: string, host: string | undefined, loopbackHosts: readonly string[] | null): boolean {
  const from = hostOf(origin, true);
  if (from === null) return false;
  if (loopbackHosts) return loopbackHosts.some((h) => hostOf(h) === from);
  return host !== undefined && hostOf(host) === from;
}

/** Starts serving; resolves with the listening server and the URL clients use. */
export async function serveHttp(store: DocStore, embedder: StoreEmbedder, version: string, options: HttpOptions): Promise<{ server: Server; url: string; queue: WorkQueue; loopback: boolean }> {
  // Its log lines go to stderr too: one written after stderr closed must not stop the server.
  tolerateClosedStderr();
  // Set once listening, from the address bound: --host 127.1, 2130706433 or LOCALHOST bind
  // loopback too, and judged by their spelling they went without the rebinding check (s60 probe).
  let loopback = false;
  // One queue for every request: each request's McpServer is its own, but the store and the
  // CPU are shared, and the queue is what lets a closed request's work be dropped.
  const queue = new WorkQueue();
  /**
   * Waits for the request's turn in the queue; false when its client left first. An MCP
   * server and a transport are built for each request, which cost more than reading it:
   * built only in its turn, a request whose client hung up right after sending costs the
   * parse of its body and nothing more.
   */
  const yourTurn = (gone: AbortSignal): Promise<boolean> =>
    queue.run(gone, () => true).catch(() => false);
  const handle = async (req: IncomingMessage, res: ServerResponse, gone: AbortSignal): Promise<void> => {
    const target = new URL(req.url ?? '/', 'http://x');
    if (target.pathname !== MCP_PATH) return jsonError(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);
    // A request line that names the server in full (absolute form) overrides Host: an origin
    // server MUST take the host from it (RFC 9112 3.2.2). Checked as Host alone, a request for
    // http://evil.example/mcp with a loopback Host header passed the rebinding check below.
    const absolute = /^[a-z][a-z\d+.-]*:\/\//i.test(req.url ?? '');
    const host = absolute ? target.host : req.headers.host;
    // Node keeps the first of several Host lines and drops the rest, so "Host: 127.0.0.1, Host:
    // evil.example" passed the rebinding check below; HTTP/1.1 says such a request is a 400
    // (RFC 9112 3.2).
    if (hostLines(req.rawHeaders) > 1) return jsonError(res, 400, -32600, 'Bad Request: more than one Host header');
    // DNS rebinding: on loopback only loopback names are served. Checked here, not by the SDK's
    // transport, because host names are case-insensitive (RFC 9110 7.2) and the SDK compares
    // them exactly: "LOCALHOST:port" was 403.
    if (loopback) {
      const allowed = loopbackHosts();
      if (!allowed.includes(hostValue(host ?? '') ?? '')) {
        const named = absolute ? `the request line's host ${JSON.stringify(host)}` : `Host ${JSON.stringify(host ?? '')}`;
        return jsonError(res, 403, -32000, `Forbidden: ${named} is not one of ${allowed.join(', ')} (this server listens on loopback only)`);
      }
    }
    // MCP (Streamable HTTP): "If the Origin header is present and invalid, servers MUST respond
    // with HTTP 403 Forbidden." A browser names the page's origin there; a page of another site
    // (or a sandboxed one, "null") is refused, whatever its Host header says.
    const origin = req.headers.origin;
    if (origin !== undefined && !originAllowed(origin, host, loopback ? loopbackHosts() : null)) {
      return jsonError(res, 403, -32000, `Forbidden: Origin ${JSON.stringify(origin.slice(0, 200))} is not this server's; web pages of other origins are refused`);
    }
    if (options.token !== undefined && !tokenMatches(req.headers.authorization, options.token)) {
      return jsonError(res, 401, -32001, 'Unauthorized: send "Authorization: Bearer <token>"', { 'www-authenticate': 'Bearer realm="docs-store"' });
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      return jsonError(res, 405, -32000, `Method not allowed: ${req.method} (this server is stateless and sends no stream of its own; POST messages to ${MCP_PATH})`, { allow: 'POST' });
    }
    // Any other method: the SDK's answer said "Allow: GET, POST, DELETE", two of which are 405 above.
    if (req.method !== 'POST') return jsonError(res, 405, -32000, `Method not allowed: ${req.method} (POST messages to ${MCP_PATH})`, { allow: 'POST' });
    // A body in a content coding (gzip…) was read as it came: a compressed one answered -32700,
    // and a plain one labelled gzip was served as if unlabelled. Neither is decoded here, so the
    // coding is refused as HTTP says (RFC 9110 15.5.16), naming the one this server takes.
    const coding = req.headers['content-encoding'];
    if (coding !== undefined && coding.trim().toLowerCase() !== 'identity') {
      return jsonError(res, 415, -32600, `Unsupported Media Type: Content-Encoding ${JSON.stringify(coding)}; send the body uncompressed`, { 'accept-encoding': 'identity' });
    }
    // The SDK answers any body that is not a valid message with -32700, where JSON-RPC says
    // -32600 (an invalid request object) or -32602: a single JSON message goes through the
    // same checks as a stdio line first. Batches and other content types are the SDK's.
    let parsedBody: unknown;
    if (req.method === 'POST' && /^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      const tooLarge = () => jsonError(res, 413, -32600, `Invalid Request: body larger than ${MAX_BODY_BYTES} bytes`, { connection: 'close' });
      // A declared length over the limit is refused before any of it is read, as the SDK's own
      // reader does: waiting for it held the socket until Node's request timeout (5 minutes).
      // The connection closes after the answer, since the body is not read.
      if (Number(req.headers['content-length']) > MAX_BODY_BYTES) return tooLarge();
      const body = await readBody(req, MAX_BODY_BYTES);
      if (body === null) return tooLarge();
      const text = decodeUtf8(body);
      if (text === null) return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(NOT_UTF8));
      try {
        parsedBody = JSON.parse(text);
      } catch (err) {
        return jsonError(res, 400, -32700, `Parse error: ${(err as Error).message}`);
      }
      // A batch: JSON-RPC answers an empty one with one -32600 and each invalid member with its own
      // error; the SDK gave 202 and no answer for [], and -32700 ("Parse error") for [1]. The
      // valid members still run and get their results in the same answer (JSON-RPC 2.0 section
      // 6); MCP 2025-06-18 has no batches, but the SDK still takes them, as before.
      if (Array.isArray(parsedBody)) {
        if (parsedBody.length === 0) return jsonError(res, 400, -32600, 'Invalid Request: an empty batch');
        const verdicts = checkBatch(parsedBody);
        const errors = verdicts.flatMap((v) => (v.kind === 'reply' ? [v.reply] : []));
        const valid = verdicts.flatMap((v) => (v.kind === 'message' ? [v.message] : []));
        if (errors.length > 0 && valid.length === 0) return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(errors));
        const run = withoutCancelled(valid);
        // Every request cancelled: only the errors (if any) to answer.
        if (run.length === 0) return errors.length > 0 ? void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(errors)) : void res.writeHead(202).end();
        // Every batch, not only a mixed one: the SDK answers a batch of one request with the
        // bare reply, where JSON-RPC answers a batch with an array.
        return answerBatch(req, res, gone, run, errors);
      } else {
        const verdict = checkMessage(parsedBody);
        if (verdict.kind === 'reply') return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(verdict.reply));
        // A malformed notification or response: accepted and ignored, as the transport does for valid ones.
        if (verdict.kind === 'drop') return void res.writeHead(202).end();
        parsedBody = verdict.message;
      }
    }
    if (!(await yourTurn(gone))) return;
    const transport = new StreamableHTTPServerTransport(transportOptions());
    const mcp = createMcpServer(store, embedder, version, queue);
    // Closing the transport aborts the signal of every request it carries: one whose client
    // left before the answer is dropped from the queue, and sends nothing.
    const close = () => {
      void transport.close();
      void mcp.close();
    };
    gone.addEventListener('abort', close, { once: true });
    res.on('close', close);
    await connectGuarded(mcp, transport, options.log);
    await transport.handleRequest(req, res, parsedBody);
  };
  /**
   * The Host values a loopback server answers, as hostValue reads them: the usual loopback
   * names, and the host of the URL it printed (on 127.0.0.2 that one was refused).
   */
  const loopbackHosts = (): string[] => {
    const { port, address } = server.address() as AddressInfo;
    const named = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${inUrl(options.host)}:${port}`, `${inUrl(address)}:${port}`];
    return [...new Set(named.map(hostValue).filter((h): h is string => h !== null))];
  };
  /** The SDK transport's options: stateless, JSON replies (the Host check is handle's). */
  const transportOptions = () => ({
    sessionIdGenerator: undefined,
    // JSON replies rather than an SSE stream: every tool answers in one piece.
    enableJsonResponse: true,
  });
  /**
   * A batch: the valid members go to the SDK as a batch of their own, through its web-standard
   * transport (which hands back the Response instead of writing it), and the answer is an
   * array of the SDK's replies followed by the invalid members' errors. A reply the SDK makes
   * to the request as a whole (406 for the Accept header, 400 for more than 100 members) is
   * passed on as it is.
   */
  const answerBatch = async (req: IncomingMessage, res: ServerResponse, gone: AbortSignal, valid: JSONRPCMessage[], errors: ErrorReply[]): Promise<void> => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
      else if (Array.isArray(value)) headers.set(name, value.join(', '));
    }
    if (!(await yourTurn(gone))) return;
    const transport = new WebStandardStreamableHTTPServerTransport(transportOptions());
    const mcp = createMcpServer(store, embedder, version, queue);
    // As for a single message: a batch whose client left is dropped with its transport.
    const leave = () => {
      void transport.close();
      void mcp.close();
    };
    gone.addEventListener('abort', leave, { once: true });
    try {
      await connectGuarded(mcp, transport, options.log);
      const answer = await transport.handleRequest(new Request(new URL(req.url ?? MCP_PATH, 'http://127.0.0.1'), { method: 'POST', headers }), { parsedBody: valid });
      const text = await answer.text();
      if (answer.status !== 200 && answer.status !== 202) {
        res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(text);
        return;
      }
      // 202: every valid member was a notification, which gets no reply.
      const replies: unknown[] = answer.status === 202 || text === '' ? [] : ([] as unknown[]).concat(JSON.parse(text) as unknown);
      // Nothing to answer (notifications and responses only): JSON-RPC sends no empty array.
      if (replies.length + errors.length === 0) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([...replies, ...errors]));
    } finally {
      gone.removeEventListener('abort', leave);
      void transport.close();
      void mcp.close();
    }
  };
  const server = createServer((req, res) => {
    const gone = clientGone(req, res);
    handle(req, res, gone).catch((err: unknown) => {
      // A client that hung up in the middle of its body made the read fail ("aborted"), and
      // each such request logged a line as if the server had failed: there is no one to
      // answer and nothing wrong here.
      if (gone.aborted) return;
      options.log(`docs-store mcp: ${req.method} ${req.url}: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) jsonError(res, 500, -32603, 'Internal error');
      else res.end();
    });
  });
  // CONNECT (a tunnel, asked of a proxy) reaches no request handler in Node, only this event:
  // without it the connection was dropped without an answer.
  server.on('connect', (_req, socket) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: `Method not allowed: CONNECT (POST messages to ${MCP_PATH})` } });
    socket.on('error', () => undefined);
    socket.end(`HTTP/1.1 405 Method Not Allowed\r\nAllow: POST\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // "[::1]" is how an IPv6 address is written in a URL; listen() takes it without brackets
    // (with them it was "not an address of this machine").
    server.listen(options.port, options.host.replace(/^\[(.*)\]$/, '$1'), () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  loopback = isLoopback(address);
  return { server, url: `http://${inUrl(options.host)}:${port}${MCP_PATH}`, queue, loopback };
}

/** A host as a URL writes it: an IPv6 address in brackets. */
const inUrl = (host: string): string => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
