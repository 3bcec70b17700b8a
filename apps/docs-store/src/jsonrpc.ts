/**
 * JSON-RPC 2.0 as the MCP spec requires it, in front of the SDK's server. The SDK's stdio
 * transport drops a line that is not JSON or not a valid message (it only calls onerror),
 * and its request handlers answer a params mismatch with -32603 and a schema dump. A client
 * then waits forever, or cannot tell its own mistake from a server fault. Here every
 * request gets a response:
 *
 *   not JSON                                      -32700 Parse error, id null
 *   not a request object (array, primitive, bad
 *   jsonrpc, method or id; params not structured;
 *   unknown members; nothing to do)               -32600 Invalid Request, the id if it is valid, else null
 *   params of the wrong shape for the method,
 *   tools/call naming no known tool, or
 *   resources/read of something not a URI         -32602 Invalid params, with the id
 *   a method the server does not serve            -32601 Method not found (the SDK's own answer)
 *
 * A well-formed notification never gets a reply (even for an unknown method), nor does a
 * response from the client. An array is a batch: over HTTP it is always taken; on stdio only
 * once initialize was answered with a version that has batches (2025-03-26, BATCH_VERSIONS),
 * and otherwise it is -32600 as above. The checks run for both transports: stdio reads through
 * `StrictStdioServerTransport`; Streamable HTTP parses the body in the SDK (which answers
 * -32700 itself) and then passes messages through `guardRequests` like stdio does.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ClientRequestSchema, InitializeRequestSchema, JSONRPCMessageSchema, JSONRPCRequestSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;

export interface ErrorReply {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string };
}

/** What one incoming line or body is: a message for the SDK, a reply to send instead, or nothing to do. */
export type Verdict = { kind: 'message'; message: JSONRPCMessage } | { kind: 'reply'; reply: ErrorReply } | { kind: 'drop'; reason: string };

const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);
const RESPONSE_MEMBERS = new Set(['jsonrpc', 'id', 'result', 'error']);

/**
 * A value from the request as an error message quotes it: JSON, cut to `max` characters. Quoted
 * whole, a 3 MB tool name came back in a 3 MB message (s45 probe).
 */
const quote = (s: string, max = 100): string => JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);
/** Up to five names quoted, and how many more there were. */
export const quoteSome = (names: readonly string[]): string => `${names.slice(0, 5).map((k) => quote(k)).join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}`;

const reply = (id: RequestId | null, code: number, message: string): Verdict => ({ kind: 'reply', reply: { jsonrpc: '2.0', id, error: { code, message } } });

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** MCP ids are strings or integers (JSON-RPC's null and fractions are not allowed). */
const isRequestId = (v: unknown): v is RequestId => typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The bytes as text, or null when they are not UTF-8. JSON text is UTF-8 (RFC 8259 8.1); a
 * lenient decode put U+FFFD in place of bad bytes and the message was served as if the client
 * had sent that. A BOM is kept, so JSON.parse refuses it as before.
 */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** The -32700 reply to a message that is not UTF-8. */
export const NOT_UTF8: ErrorReply = { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'Parse error: the message is not valid UTF-8 (JSON text is UTF-8, RFC 8259 8.1)' } };

/** Classifies one line of text as received. */
export function checkLine(line: string): Verdict {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return reply(null, PARSE_ERROR, `Parse error: ${(err as Error).message}`);
  }
  return checkMessage(value);
}

/** Classifies one parsed JSON value against JSON-RPC 2.0 as MCP uses it. */
export function checkMessage(value: unknown): Verdict {
  if (Array.isArray(value)) return reply(null, INVALID_REQUEST, 'Invalid Request: batches are not supported (MCP sends one message per line)');
  if (!isPlainObject(value)) return reply(null, INVALID_REQUEST, 'Invalid Request: a message must be a JSON object');
  const hasId = 'id' in value;
  const id = hasId && isRequestId(value.id) ? value.id : null;
  const invalid = (why: string) => reply(id, INVALID_REQUEST, `Invalid Request: ${why}`);

  // A response from the client is never answered, whatever its id or jsonrpc: a reply to a reply
  // could loop. Checked before the id, for JSON-RPC 2.0 gives an error response the id null when
  // the request's id could not be read: a peer answering one of this server's -32700 (id null)
  // with such an error got -32600 of id null back (issue 15 probe), and two such peers never stop.
  if (!('method' in value) && ('result' in value || 'error' in value)) {
    const extra = Object.keys(value).filter((k) => !RESPONSE_MEMBERS.has(k));
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (extra.length > 0 || !parsed.success || !hasId || !isRequestId(value.id) || value.jsonrpc !== '2.0') {
      return { kind: 'drop', reason: hasId && value.id === null && 'error' in value ? 'response of id null (an error not tied to a request)' : 'malformed response' };
    }
    return { kind: 'message', message: parsed.data };
  }
  if (hasId && !isRequestId(value.id)) {
    // An integer all the same: what is wrong is that its reply could not carry it exactly.
    if (typeof value.id === 'number' && Number.isInteger(value.id)) return invalid('"id" is an integer too large to echo exactly (beyond ±2^53 - 1); send it as a string');
    return invalid('"id" must be a string or an integer');
  }
  if (value.jsonrpc !== '2.0') return invalid('"jsonrpc" must be "2.0"');

  if (!('method' in value)) return invalid('no "method" (nor "result" or "error")');
  if (typeof value.method !== 'string' || value.method === '') return invalid('"method" must be a non-empty string');
  const extra = Object.keys(value).filter((k) => !REQUEST_MEMBERS.has(k));
  if (extra.length > 0) return invalid(`unexpected member${extra.length > 1 ? 's' : ''} ${quoteSome(extra)}`);
  if ('params' in value && !isPlainObject(value.params)) {
    if (!Array.isArray(value.params)) return invalid('"params" must be an object');
    // Structured, so a valid JSON-RPC notification: nothing to answer.
    if (!hasId) return { kind: 'drop', reason: `notification ${quote(value.method)} with positional params` };
    return reply(id, INVALID_PARAMS, `Invalid params: ${quote(value.method)} takes named params (an object), not an array`);
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) {
    // The envelope is right, so what the SDK's schema rejects is inside params (such as _meta).
    if (!hasId) return { kind: 'drop', reason: `notification ${quote(value.method)} with malformed params` };
    // The union's own error is one "(params): Invalid input"; the request schema alone says
    // which member is wrong and how.
    const request = JSONRPCRequestSchema.safeParse(value);
    return reply(id, INVALID_PARAMS, `Invalid params: ${issues(request.success ? parsed.error : request.error)}`);
  }
  return { kind: 'message', message: parsed.data };
}

/** The id of a member that is a request (has a method and a valid id), else undefined. */
const requestIdOf = (m: unknown): RequestId | undefined => (isPlainObject(m) && 'method' in m && isRequestId(m.id) ? m.id : undefined);

/**
 * checkMessage for each member of an HTTP batch, with -32600 for every request whose id
 * another request of the same batch carries. The SDK's transport keys its replies by id, so
 * of two requests sharing one it answered one and dropped the other, and a client waited for
 * it forever. JSON-RPC 2.0 owes each request its own response, and MCP says a requestor MUST
 * NOT reuse an id: every one of them is answered -32600 with that id and none is run, so the
 * client learns that all of them failed (one run and one refused would carry the same id,
 * and the client could not tell which was which). Ids compare as JSON does: 1 and "1" differ.
 */
export function checkBatch(members: readonly unknown[]): Verdict[] {
  // MCP sends initialize alone (it opens the lifecycle). The SDK answered a batch holding it and
  // anything else with one -32600 of id null and ran nothing, so no request of the batch was
  // answered by its id; here it is refused with its own id and the rest run.
  const initAlone = members.length < 2;
  const count = new Map<RequestId, number>();
  for (const m of members) {
    const id = requestIdOf(m);
    if (id !== undefined) count.set(id, (count.get(id) ?? 0) + 1);
  }
  return members.map((m) => {
    const id = requestIdOf(m);
    const n = id === undefined ? 1 : count.get(id)!;
    if (n < 2 && id !== undefined && !initAlone && (m as { method?: unknown }).method === 'initialize') {
      return reply(id, INVALID_REQUEST, 'Invalid Request: initialize must be sent alone, not in a batch (MCP lifecycle)');
    }
    // checkMessage's word for an array is about stdio, where MCP sends one message per line;
    // inside an HTTP batch the member is simply not a message.
    if (Array.isArray(m)) return reply(null, INVALID_REQUEST, 'Invalid Request: a batch member must be a JSON object, not an array (batches do not nest)');
    if (n < 2) return checkMessage(m);
    return reply(id!, INVALID_REQUEST, `Invalid Request: id ${typeof id === 'string' ? quote(id) : id} is used by ${n} requests of this batch; give each request its own id`);
  });
}

const CANCELLED = 'notifications/cancelled';

/** The request a cancellation notification names, else undefined. */
export const cancelledId = (m: unknown): RequestId | undefined => {
  if (!isPlainObject(m) || m.method !== CANCELLED || 'id' in m || !isPlainObject(m.params)) return undefined;
  return isRequestId(m.params.requestId) ? m.params.requestId : undefined;
};

/**
 * A batch's valid messages as they are run: without its cancellations, and without each
 * request a later cancellation of the same batch names. The SDK acts on a cancellation a
 * microtask later, by when every request of the batch is registered, so it aborted the
 * request the cancellation named, whichever came first, and sent it no reply; its HTTP
 * transport waits for a reply to every request of a batch, and the POST hung for good
 * (s47 probe). Here a request cancelled by a later member is not run (no reply, as MCP says
 * for a cancelled request), and a cancellation of a request not yet received is ignored (MCP:
 * "the receiver MAY ignore" a cancellation of an unknown request), so that request runs and
 * is answered.
 */
export function withoutCancelled(messages: readonly JSONRPCMessage[]): JSONRPCMessage[] {
  const seen = new Set<RequestId>();
  const cancelled = new Set<RequestId>();
  for (const m of messages) {
    const target = cancelledId(m);
    if (target !== undefined && seen.has(target)) cancelled.add(target);
    const id = requestIdOf(m);
    if (id !== undefined) seen.add(id);
  }
  return messages.filter((m) => (m as { method?: unknown }).method !== CANCELLED && !cancelled.has(requestIdOf(m) as RequestId));
}

type Schema = { safeParse(v: unknown): { success: true } | { success: false; error: unknown } };

/** The SDK's schema of each request a client may send, by method. */
const REQUEST_SCHEMAS: ReadonlyMap<string, Schema> = new Map(
  ClientRequestSchema.options.map((schema) => [(schema.shape.method as unknown as { value: string }).value, schema as unknown as Schema]),
);

interface Issue {
  path: PropertyKey[];
  message: string;
  code?: string;
  expected?: string;
  errors?: Issue[][];
}

/**
 * One zod issue's words. A union's is only "Invalid input" (a progressToken that is neither a
 * string nor an integer): its branches' expected types are named instead.
 */
function issueMessage(i: Issue): string {
  if (i.code !== 'invalid_union' || !Array.isArray(i.errors)) return i.message;
  const firsts = i.errors.map((branch) => branch[0]).filter((b): b is Issue => b !== undefined && b.path.length === 0);
  const expected = [...new Set(firsts.map((b) => b.expected).filter((e): e is string => typeof e === 'string'))];
  if (expected.length === 0) return i.message;
  const received = /received (\w+)/.exec(firsts[0]?.message ?? '')?.[1];
  return `Invalid input: expected ${expected.join(' or ')}${received ? `, received ${received}` : ''}`;
}

/** A short description of a zod error: each issue as `path: message`. */
function issues(error: unknown): string {
  const list = (error as { issues?: Issue[] }).issues;
  if (!list?.length) return String(error);
  return list
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(params)'}: ${issueMessage(i)}`)
    .join('; ');
}

export interface GuardOptions {
  /** Methods the server answers; params are checked for these (others get the SDK's -32601). */
  handles: (method: string) => boolean;
  /** The names tools/call accepts; an unknown name is -32602 as the MCP spec lists it. */
  tools: () => readonly string[];
  /**
   * The names prompts/get accepts, likewise. The SDK looks a prompt up in a plain object, so
   * "__proto__" or "constructor" found Object.prototype's members: "Prompt __proto__ disabled".
   */
  prompts?: () => readonly string[];
  /**
   * The argument names a prompt takes, when known. The SDK's prompt schemas drop any other
   * argument without a word (issue 15 probe), so one is -32602 here, as a missing one is.
   */
  promptArguments?: (name: string) => readonly string[] | undefined;
  /** Where dropped messages are noted (stderr for stdio: stdout is the protocol). */
  log?: (line: string) => void;
  /**
   * Whether a URI is of a form this server's resources take. resources/read of another
   * (`chunk://../../etc/passwd`, `file:///etc/passwd`) is -32002, MCP's "resource not found",
   * as for a chunk that does not exist; the SDK said -32602 (invalid params) for it.
   */
  resourceUri?: (uri: string) => boolean;
  /** The form resources take, for that message: `chunk://<artifact id>/<chunk index>`. */
  resourceForm?: string;
}

/** MCP's "resource not found". */
export const RESOURCE_NOT_FOUND = -32002;

/** The paginated list methods (MCP's pagination), whose replies here never carry a nextCursor. */
const LIST_METHODS: ReadonlySet<string> = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

/** The -32602 reply a request's params deserve, or null when they fit its method. */
export function checkParams(message: JSONRPCMessage, options: GuardOptions): ErrorReply | null {
  if (!('method' in message) || !('id' in message) || message.id === undefined) return null;
  const { method, id } = message as { method: string; id: RequestId };
  if (!options.handles(method)) return null;
  const schema = REQUEST_SCHEMAS.get(method);
  if (schema) {
    // The SDK's schemas are written for the request without the envelope members.
    const parsed = schema.safeParse({ method, ...('params' in message ? { params: message.params } : {}) });
    if (!parsed.success) return { jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message: `Invalid params for ${method}: ${issues(parsed.error)}` } };
  }
  if (method === CallToolRequestSchema.shape.method.value) {
    const name = (message.params as { name: string }).name;
    const known = options.tools();
    if (!known.includes(name)) return { jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message: `Unknown tool ${quote(name)} (tools: ${known.join(', ')})` } };
    // A tool's schema names any argument it does not take (a tool error), but "__proto__" alone
    // was dropped without a word (s55 probe: {"query":"x","__proto__":{…}} searched as if it were
    // absent): zod copies the arguments into a new object, where that key sets the prototype.
    const args = (message.params as { arguments?: unknown }).arguments;
    if (isPlainObject(args) && Object.hasOwn(args, '__proto__')) {
      return { jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message: `Invalid params for tools/call: ${quote(name)} takes no argument "__proto__"` } };
    }
  }
  // Every list of this server comes in one page (no nextCursor), so no cursor is one it gave:
  // ignoring it sent the first page again as if it were the page asked for.
  if (LIST_METHODS.has(method) && (message.params as { cursor?: unknown } | undefined)?.cursor !== undefined) {
    return { jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message: `Invalid params for ${method}: cursor ${JSON.stringify(String((message.params as { cursor: unknown }).cursor).slice(0, 100))} was not given by this server (its lists come in one page); leave it out` } };
  }
  if (method === 'prompts/get' && options.prompts) {
    const name = (message.params as { name: string }).name;
    const known = options.prompts();
    if (!known.includes(name)) return { jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message: `Unknown prompt ${quote(name)} (prompts: ${known.join(', ')})` } };
    const takes = options.promptArguments?.(name);
    const given = (message.params as { arguments?: Record<string, unknown> }).arguments;
    const unknown = takes && given ? Object.keys(given).filter((k) => !takes.includes(k)) : [];
    if (unknown.length > 0) {
      return { jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message: `Invalid params for prompts/get: ${name} takes no argument${unknown.length > 1 ? 's' : ''} ${quoteSome(unknown)} (its arguments: ${takes!.join(', ') || 'none'})` } };
    }
  }
  if (method === 'resources/read') {
    // The SDK's handler calls new URL() on it unguarded: a TypeError there would be -32603.
    const uri = (message.params as { uri: string }).uri;
    if (!URL.canParse(uri)) return { jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message: `Invalid params for resources/read: ${JSON.stringify(uri.slice(0, 200))} is not a URI` } };
    if (options.resourceUri && !options.resourceUri(uri)) {
      return { jsonrpc: '2.0', id, error: { code: RESOURCE_NOT_FOUND, message: `Resource not found: ${JSON.stringify(uri.slice(0, 200))}${options.resourceForm ? ` (resources are ${options.resourceForm})` : ''}` } };
    }
  }
  return null;
}

/**
 * Puts the params check between `transport` and the server it is connected to: call after
 * `server.connect(transport)`, which installs the server's own onmessage. What the server sends
 * goes out through `withoutCodePrefix`.
 */
export function guardRequests(transport: Transport, options: GuardOptions): void {
  const inner = transport.onmessage;
  if (!inner) throw new Error('guardRequests: connect the server to the transport first');
  const send = transport.send.bind(transport);
  transport.send = (message, sendOptions) => send(withoutCodePrefix(message), sendOptions);
  transport.onmessage = (message, extra) => {
    const answer = checkParams(message, options);
    if (answer) {
      transport.send(answer as unknown as JSONRPCMessage).catch((err: unknown) => options.log?.(`cannot send an error reply: ${String(err)}`));
      return;
    }
    inner.call(transport, message, extra);
  };
}

/**
 * An error reply with its message as said once. The SDK's McpError writes "MCP error <code>: "
 * in front of its own message, and the SDK sends that message as error.message, so a prompts/get
 * with a blank question was answered "MCP error -32602: Invalid arguments for prompt …", and a
 * client that wraps error replies the same way (the SDK's Client does) showed the prefix twice
 * (s60 probe). The code is in error.code; the message goes without it (and without more of the
 * same, where one McpError was made from another's message). Any other message, and an error
 * whose message does not start so, is returned as it is.
 */
export function withoutCodePrefix(message: JSONRPCMessage): JSONRPCMessage {
  if (!isPlainObject(message) || 'method' in message) return message;
  const error = (message as { error?: unknown }).error;
  if (!isPlainObject(error) || typeof error.message !== 'string') return message;
  const prefix = `MCP error ${String(error.code)}: `;
  let text = error.message;
  while (text.startsWith(prefix)) text = text.slice(prefix.length);
  return text === error.message ? message : ({ ...message, error: { ...error, message: text } } as JSONRPCMessage);
}

/**
 * The protocol versions whose stdio takes JSON-RPC batches. MCP 2025-03-26: "MCP implementations
 * MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches"; 2025-06-18
 * removed them, and 2024-11-05 had none.
 */
export const BATCH_VERSIONS: ReadonlySet<string> = new Set(['2025-03-26']);

/** The most messages one batch may hold: the SDK's HTTP transport refuses more (MAX_BATCH_SIZE), and stdio does alike. */
export const MAX_BATCH_MEMBERS = 100;

/** The -32600 reply to a request whose id belongs to one not answered yet. */
const inUse = (id: RequestId): ErrorReply => ({
  jsonrpc: '2.0',
  id,
  error: { code: INVALID_REQUEST, message: `Invalid Request: id ${typeof id === 'string' ? quote(id) : id} belongs to a request not answered yet; give each request its own id` },
});

/** A batch read from stdio: its replies so far, and the requests still to answer. */
interface OpenBatch {
  replies: unknown[];
  /** The requests answered in `replies`, settled once the array is written. */
  answered: RequestId[];
  waiting: Set<RequestId>;
  /** Every member has been handed on (a reply that comes sooner must not send the batch early). */
  sealed: boolean;
}

/** Longest line accepted; a longer one is answered -32600 and skipped (the SDK's own limit is 10 MiB). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * MCP's stdio transport (newline-delimited JSON on stdin/stdout) with a reply for every bad
 * line, where the SDK's `StdioServerTransport` stays silent.
 */
export class StrictStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  /**
   * The start of the current line, as the pieces of bytes it came in, and their total size.
   * Joined once its newline arrives: a line grown piece by piece and searched whole for a
   * newline each time made a 15 MiB line cost 15 s, quadratic in its length. Kept as bytes, not
   * text, so that a line that is not UTF-8 is seen as such (a newline byte never occurs inside a
   * multi-byte character, so splitting bytes at it is safe).
   */
  private pieces: Buffer[] = [];
  private pieceBytes = 0;
  /** Inside a line already answered as too long: skip up to its newline. */
  private skipping = false;
  private closed = false;
  /** Requests handed to the server and not answered yet, by id (one each: a request reusing a pending id is refused). */
  private readonly pending = new Map<RequestId, number>();
  /** Input has ended: close once every pending request is answered. */
  private ended = false;
  /** The version the server answered initialize with: whether a line may be a batch. */
  private protocolVersion: string | undefined;
  /** initialize requests not answered yet, by id. */
  private readonly initializing = new Set<RequestId>();
  /** Batch lines read while an initialize waited for its answer, in order. */
  private deferred: string[] = [];
  /** The open batch each request of a batch belongs to, by id. */
  private readonly batchOf = new Map<RequestId, OpenBatch>();
  /**
   * Sends whose write filled the pipe, resolved on its next 'drain' by one listener: one
   * listener each put an eleventh on stdout as soon as a client read late, and Node warned
   * of a leak on stderr (MaxListenersExceededWarning) though none was there.
   */
  private drainWaiters: (() => void)[] = [];
  private readonly onDrain = (): void => {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  };

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
    private readonly maxLine = MAX_LINE_BYTES,
  ) {}

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (let nl = bytes.indexOf(0x0a); nl !== -1; nl = bytes.indexOf(0x0a, start)) {
      const tail = bytes.subarray(start, nl);
      start = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      const size = this.pieceBytes + tail.length;
      const line = this.pieces.length > 0 ? Buffer.concat([...this.pieces, tail], size) : tail;
      this.pieces = [];
      this.pieceBytes = 0;
      // A whole line can arrive in one piece (a write to a pipe is not cut at 64 KiB when the
      // reader keeps up): it is held to the same limit as one that arrived in many.
      if (size > this.maxLine) this.tooLong();
      else this.handle(line.at(-1) === 0x0d ? line.subarray(0, -1) : line);
    }
    if (this.skipping || start === bytes.length) return;
    // A copy: the stream may reuse the chunk's memory once this handler returns.
    const rest = Buffer.from(bytes.subarray(start));
    this.pieces.push(rest);
    this.pieceBytes += rest.length;
    if (this.pieceBytes > this.maxLine) {
      this.pieces = [];
      this.pieceBytes = 0;
      this.skipping = true;
      this.tooLong();
    }
  };

  private tooLong(): void {
    this.reply({ jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: `Invalid Request: message longer than ${this.maxLine} bytes` } });
  }

  /**
   * End of input ends the last line too: a frame without its newline (`printf '{…}' | docs-store
   * mcp`) was left waiting for one that could no longer come, and the request went unanswered.
   */
  private readonly onEnd = (): void => {
    if (!this.skipping && this.pieces.length > 0) {
      const line = Buffer.concat(this.pieces, this.pieceBytes);
      this.pieces = [];
      this.pieceBytes = 0;
      this.handle(line.at(-1) === 0x0d ? line.subarray(0, -1) : line);
    }
    // Closing at once dropped the replies of requests still running (a search embedding its
    // query, an ingest): the client closed its end of stdin, not of stdout.
    this.ended = true;
    this.closeWhenAnswered();
  };

  /** One request with this id is answered (or cancelled); false when none was pending. */
  private settle(id: RequestId): boolean {
    const n = this.pending.get(id);
    if (n === undefined) return false;
    if (n > 1) this.pending.set(id, n - 1);
    else this.pending.delete(id);
    return true;
  }

  private closeWhenAnswered(): void {
    if (this.ended && this.pending.size === 0) void this.close();
  }

  private readonly onError = (err: Error): void => this.onerror?.(err);

  /**
   * A client that closes its end of stdout (it exited, or `| head` had enough) makes the next
   * write fail with EPIPE. Unheard, that 'error' event was an uncaught exception with a stack
   * trace; the client is gone, so the transport closes as when stdin ends.
   */
  private readonly onOutError = (err: NodeJS.ErrnoException): void => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED' || err.code === 'ECONNRESET') void this.close();
    else this.onerror?.(err);
  };

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    // Before serveStdio's own 'end' listener, which closes the server.
    this.stdin.on('end', this.onEnd);
    this.stdin.on('error', this.onError);
    this.stdout.on('error', this.onOutError);
  }

  private handle(bytes: Uint8Array): void {
    const line = decodeUtf8(bytes);
    if (line === null) return this.reply(NOT_UTF8);
    this.handleText(line);
  }

  private handleText(line: string): void {
    // Blank lines (a trailing "\n\n", keep-alives) carry no message.
    if (line.trim() === '') return;
    // A batch read while initialize waits for its answer is taken once the version is known: a
    // client may send pings before that answer (MCP lifecycle), and one that proposed 2025-03-26
    // and sent [ping] at once got "batches are not supported" (s55 probe).
    if (this.protocolVersion === undefined && this.initializing.size > 0 && /^\s*\[/.test(line)) {
      this.deferred.push(line);
      return;
    }
    if (this.protocolVersion !== undefined && BATCH_VERSIONS.has(this.protocolVersion) && /^\s*\[/.test(line)) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        // checkLine answers it -32700.
      }
      if (Array.isArray(value)) return this.handleBatch(value);
    }
    const verdict = checkLine(line);
    if (verdict.kind === 'reply') this.reply(verdict.reply);
    else if (verdict.kind === 'drop') this.log(`docs-store mcp: ignored a ${verdict.reason}`);
    else {
      // As in a batch (handleBatch): MCP says a requestor MUST NOT reuse an id, and two requests
      // in flight under one id were both run, so the client got two replies it could not tell
      // apart, and the SDK, which keys a request's cancellation by id, could stop the wrong one
      // (s55 probe: a search and a ping sent as id 1 both answered as id 1). The later one is
      // refused, not run; the earlier one is answered as if it were alone.
      const id = requestIdOf(verdict.message);
      // Written as it is: send() would count it as the earlier request's reply (or put it in that
      // request's batch), and a server whose input had ended would close before that reply.
      if (id !== undefined && (this.pending.has(id) || this.batchOf.has(id))) return void this.write(JSON.stringify(inUse(id)));
      this.deliver(verdict.message);
    }
  }

  /** Hands a valid message to the server, keeping count of the requests it owes a reply. */
  private deliver(message: JSONRPCMessage): void {
    const m = message as { method?: unknown; id?: RequestId; params?: { requestId?: RequestId } };
    // The SDK acts on a cancellation a microtask later: one read just before the request it names
    // (in the same chunk of input, or ahead of it in a batch) aborted that request, which then got
    // no reply, while nothing here had stopped waiting for it; once input ended the server never
    // closed, and the process exited 13 (an unsettled top-level await) instead of 0 (s47 probe).
    // A cancellation of a request not received yet is ignored (MCP allows that), so it runs.
    const cancelled = cancelledId(message);
    if (cancelled !== undefined && !this.pending.has(cancelled)) {
      this.log(`docs-store mcp: ignored a cancellation of request ${typeof cancelled === 'string' ? quote(cancelled) : cancelled}, which is not waiting for a reply (answered already, or not received yet)`);
      return;
    }
    // MCP's lifecycle opens a session with one initialize; the SDK's server answered another as
    // well, so a client could switch the agreed version mid-session (2025-06-18 to 2025-03-26,
    // and batches were taken from then on) and replace the capabilities it had declared (issue
    // 15 probe). A later one, once its params are right (else -32602 says what is wrong with
    // them), is -32600, as the SDK's own Streamable HTTP transport answers it ("Server already
    // initialized"). One whose answer was an error did not open the session: a retry is served.
    if (m.method === 'initialize' && m.id !== undefined && (this.protocolVersion !== undefined || this.initializing.size > 0) && InitializeRequestSchema.safeParse(message).success) {
      const agreed = this.protocolVersion === undefined ? 'an initialize is being answered' : `protocol version ${this.protocolVersion} was agreed`;
      return this.reply({ jsonrpc: '2.0', id: m.id, error: { code: INVALID_REQUEST, message: `Invalid Request: the server is already initialized (${agreed}); initialize is sent once, to open the session (MCP lifecycle)` } });
    }
    if (typeof m.method === 'string' && m.id !== undefined) {
      this.pending.set(m.id, (this.pending.get(m.id) ?? 0) + 1);
      if (m.method === 'initialize') this.initializing.add(m.id);
    }
    this.onmessage?.(message);
    // A cancelled request gets no response (MCP), so it is no longer waited for, alone or in a batch.
    if (m.method === 'notifications/cancelled' && m.params?.requestId !== undefined) {
      const id = m.params.requestId;
      // A cancelled initialize gets no answer: the batches waiting for it are taken now, under no version.
      if (this.initializing.delete(id)) this.flushDeferred();
      const batch = this.batchOf.get(id);
      if (batch) {
        this.batchOf.delete(id);
        batch.waiting.delete(id);
      }
      const settled = this.settle(id);
      if (batch) this.flushIfDone(batch);
      if (settled) this.closeWhenAnswered();
    }
  }

  /**
   * A batch (JSON-RPC 2.0 section 6), under a protocol version that has them: each member is
   * checked as HTTP's are (checkBatch) and the valid ones run; the answer is one array with a
   * reply for every request and every invalid member, written once the last request is
   * answered, and nothing at all when there is none to give. An empty batch is one -32600.
   */
  private handleBatch(members: unknown[]): void {
    if (members.length === 0) return this.reply({ jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: 'Invalid Request: an empty batch' } });
    // One line of 16 MiB holds some 400,000 requests, every one of them run at once.
    if (members.length > MAX_BATCH_MEMBERS) {
      return this.reply({ jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: `Invalid Request: a batch of ${members.length} messages; at most ${MAX_BATCH_MEMBERS}, none was run` } });
    }
    const batch: OpenBatch = { replies: [], answered: [], waiting: new Set(), sealed: false };
    const run: JSONRPCMessage[] = [];
    for (const verdict of checkBatch(members)) {
      if (verdict.kind === 'reply') batch.replies.push(verdict.reply);
      else if (verdict.kind === 'drop') this.log(`docs-store mcp: ignored a ${verdict.reason} in a batch`);
      else {
        const id = 'method' in verdict.message && 'id' in verdict.message ? (verdict.message.id as RequestId) : undefined;
        // A reply carries only its id: one still owed to an earlier request could not be told apart.
        if (id !== undefined && (this.pending.has(id) || this.batchOf.has(id))) {
          batch.replies.push(inUse(id));
          continue;
        }
        if (id !== undefined) {
          batch.waiting.add(id);
          this.batchOf.set(id, batch);
        }
        run.push(verdict.message);
      }
    }
    for (const message of run) this.deliver(message);
    batch.sealed = true;
    this.flushIfDone(batch);
  }

  /** Writes a batch's array once nothing in it is waited for (nothing when it holds no reply). */
  private flushIfDone(batch: OpenBatch): void {
    if (!batch.sealed || batch.waiting.size > 0 || batch.replies.length === 0) return;
    const { replies, answered } = batch;
    batch.replies = [];
    batch.answered = [];
    void this.write(JSON.stringify(replies)).then(() => {
      for (const id of answered) this.settle(id);
      this.closeWhenAnswered();
    });
  }

  private reply(message: ErrorReply): void {
    this.send(message as unknown as JSONRPCMessage).catch((err: unknown) => this.onerror?.(err instanceof Error ? err : new Error(String(err))));
  }

  send(message: JSONRPCMessage): Promise<void> {
    const answered = !('method' in message) && 'id' in message ? (message.id as RequestId | null) : null;
    if (answered !== null && this.initializing.delete(answered)) {
      const version = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
      if (typeof version === 'string') this.protocolVersion = version;
    }
    const batch = answered === null ? undefined : this.batchOf.get(answered);
    if (batch && answered !== null) {
      // Kept for the batch's array, which goes out with its last reply.
      this.batchOf.delete(answered);
      batch.waiting.delete(answered);
      batch.replies.push(message);
      batch.answered.push(answered);
      this.flushIfDone(batch);
      return Promise.resolve();
    }
    const written = this.write(JSON.stringify(message)).then(() => {
      if (answered !== null && this.settle(answered)) this.closeWhenAnswered();
    });
    // After the initialize answer is out, and before it is settled (so that a server whose input
    // has ended does not close first): the batches that waited for it.
    this.flushDeferred();
    return written;
  }

  /** Handles the batch lines that waited for initialize, once no initialize waits any more. */
  private flushDeferred(): void {
    if (this.initializing.size > 0 || this.deferred.length === 0) return;
    const lines = this.deferred;
    this.deferred = [];
    for (const line of lines) this.handleText(line);
  }

  /** Writes one line, resolved once stdout has taken it (or at once after the client left). */
  private write(text: string): Promise<void> {
    return new Promise((resolve) => {
      // After the client left nothing can be delivered: drop the reply rather than write into a closed pipe.
      if (this.closed) return resolve();
      if (this.stdout.write(`${text}\n`)) resolve();
      else if (this.drainWaiters.push(resolve) === 1) this.stdout.once('drain', this.onDrain);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('error', this.onError);
    this.stdin.pause();
    this.onclose?.();
  }
}
