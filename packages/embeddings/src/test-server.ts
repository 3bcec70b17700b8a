/**
 * Test support (not exported by the package): a real HTTP server on 127.0.0.1, port 0, that
 * the provider tests point the real `ollama` and `openai` clients at. It records every
 * request and counts how many are in flight at once.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { EmbeddingError } from './index.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}

/** Handles request number `n` (0-based); may delay, or never answer. */
export type Handler = (req: RecordedRequest, res: ServerResponse, n: number) => void | Promise<void>;

export interface TestServer {
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  readonly requests: RecordedRequest[];
  /** Requests open now (received, response not yet closed). */
  readonly inFlight: number;
  /** Most requests that were open at the same moment. */
  readonly maxInFlight: number;
  /** Requests whose connection closed before a response was sent (aborted by the client). */
  readonly abandoned: number;
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let abandoned = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Kept as text: a test may assert on a body the client should not have sent.
      }
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      const n = requests.push(recorded) - 1;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      res.on('close', () => {
        inFlight--;
        if (!res.writableFinished) abandoned++;
      });
      // Through an async function, so a handler that throws synchronously still gets a 599.
      void (async () => handler(recorded, res, n))().catch((err: unknown) => {
        res.writeHead(599).end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    get abandoned() {
      return abandoned;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Requests left hanging on purpose (timeout tests) would otherwise keep it open.
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** A port on 127.0.0.1 with nothing listening (it was bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/**
 * The fake model: a 4-dimensional vector whose first component is the number at the end of
 * the text ("text-7" → 7), so a test can tell which input each output belongs to.
 */
export function fakeVector(text: string, dims = 4): number[] {
  // The trailing digits, found by a loop: /(\d+)$/ is quadratic in a run of digits not at the end.
  let start = text.length;
  while (start > 0 && text.charCodeAt(start - 1) >= 0x30 && text.charCodeAt(start - 1) <= 0x39) start--;
  const id = start < text.length ? Number(text.slice(start)) : -1;
  return Array.from({ length: dims }, (_, i) => (i === 0 ? id : 1 / (i + 1)));
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const texts = (n: number) => Array.from({ length: n }, (_, i) => `text-${i}`);

/**
 * A latch for `size` requests: each call waits until `size` calls are waiting, then all go
 * on together. `limitMs` releases a caller regardless, so a bug fails an assertion instead of
 * hanging the test.
 */
export function barrier(size: number, limitMs = 2000): () => Promise<void> {
  let waiting: (() => void)[] = [];
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (waiting.length >= size) {
        const group = waiting;
        waiting = [];
        for (const release of group) release();
      } else {
        setTimeout(resolve, limitMs).unref();
      }
    });
}

/** The EmbeddingError `p` rejects with; throws when it resolves or rejects with anything else. */
export async function failure(p: Promise<unknown>): Promise<EmbeddingError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof EmbeddingError) return err;
    throw new Error(`expected an EmbeddingError, got ${String(err)}`);
  }
  throw new Error('expected an EmbeddingError');
}

/**
 * For "one batch fails while another comes back": the failing request's handler awaits `held()`,
 * which resolves once an answer passed to `release(res)` was sent in full and `settleMs` more
 * passed (time for the client to read it), whichever request the client sent first. `limitMs`
 * releases it regardless, so a bug fails an assertion instead of hanging the test.
 */
export function afterAnswer(settleMs = 200, limitMs = 3000): { release(res: ServerResponse): void; held(): Promise<void> } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
    setTimeout(resolve, limitMs).unref();
  });
  return {
    release: (res) => void res.on('finish', () => setTimeout(open, settleMs)),
    held: () => gate,
  };
}

/**
 * A server that answers every request with `status`, that content-type and `body`, byte for
 * byte: for bodies in any encoding (a Latin-1 page, a JSON reply holding a byte that is not
 * UTF-8). Shared by the embedding providers' and the chat client's tests.
 */
export function serveBytes(status: number, contentType: string, body: Buffer): Promise<TestServer> {
  return startServer((_req, res) => {
    res.writeHead(status, { 'content-type': contentType }).end(body);
  });
}

/**
 * A server that answers every request 200, application/json, with `body` one byte a write and
 * a turn of the event loop between writes, so every character of more than one byte reaches
 * the client split between chunks.
 */
export function serveByteByByte(body: Buffer): Promise<TestServer> {
  return startServer(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    for (const b of body) {
      res.write(Buffer.from([b]));
      await new Promise((r) => setImmediate(r));
    }
    res.end();
  });
}

/** A text page in Latin-1 ("Größe überschritten"): byte 2, 0xF6, is where it stops being UTF-8. */
export const LATIN1_PAGE = Buffer.from('Gr\xf6\xdfe \xfcberschritten', 'latin1');

/**
 * "Ungültige Anfrage" in Latin-1 as each API's error body: as plain text, and in its JSON error
 * shape (ollama `{"error": "…"}`, openai `{"error": {"message": "…"}}`). Rows for `it.each`:
 * what it is, the bytes, the content-type.
 */
export function latin1ErrorBodies(provider: 'ollama' | 'openai'): [what: string, body: Buffer, contentType: string][] {
  return [
    ['text', Buffer.from('Ung\xfcltige Anfrage', 'latin1'), 'text/plain; charset=iso-8859-1'],
    ['JSON', Buffer.from(provider === 'ollama' ? '{"error":"Ung\xfcltige Anfrage"}' : '{"error":{"message":"Ung\xfcltige Anfrage"}}', 'latin1'), 'application/json'],
  ];
}

/** A raw TCP server started by rawServe: its origin, its request count, and how to stop it. */
export interface RawServer {
  readonly origin: string;
  requests(): number;
  close(): Promise<void>;
}

/**
 * A TCP server that answers every request with `response`, byte for byte, then closes the
 * connection: for answers a real HTTP server would not send (a body cut short, another
 * protocol on the port, a body that does not decompress). Shared by the embedding providers'
 * and the chat client's tests.
 */
export async function rawServe(response: string | Buffer): Promise<RawServer> {
  let requests = 0;
  const raw = createNetServer((socket) => {
    socket.on('error', () => {});
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0 || head.length < end + 4 + Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0)) return;
      head = '';
      requests++;
      socket.end(response);
    });
  });
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(raw.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => raw.close(() => resolve())),
  };
}
