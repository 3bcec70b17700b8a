// JSON-RPC as the bytes on the wire, not through the SDK's client (which never sends a
// malformed message): spawn the built `docs-store mcp`, write newline-delimited frames to
// its stdin, and read its stdout line by line. After each frame a `ping` sentinel with a
// fresh id is written; everything that arrives before the sentinel's reply is the answer
// to that frame, so "no reply" is observed, not waited for until a timeout.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, REPO } from './test-build.js';
import { rawMcp } from './test-mcp.js';

type Reply = { jsonrpc: string; id: string | number | null; result?: unknown; error?: { code: number; message: string } };

let ws: string;
let child: ChildProcessWithoutNullStreams;
let stderr = '';
const waiting: ((r: Reply) => void)[] = [];
const inbox: Reply[] = [];

function nextReply(timeoutMs = 10_000): Promise<Reply> {
  const ready = inbox.shift();
  if (ready) return Promise.resolve(ready);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no reply within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
    waiting.push((r) => {
      clearTimeout(timer);
      resolve(r);
    });
  });
}

/** What the server advertised in its initialize reply. */
let capabilities: Record<string, { listChanged?: boolean } | undefined>;

let sentinel = 0;
/** Writes `frame` (raw text, no newline) and returns every reply it caused. */
async function exchange(frame: string): Promise<Reply[]> {
  const id = `sentinel-${++sentinel}`;
  child.stdin.write(`${frame}\n${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`);
  const replies: Reply[] = [];
  for (;;) {
    const r = await nextReply();
    if (r.id === id) {
      expect(r.result).toEqual({});
      return replies;
    }
    replies.push(r);
  }
}

beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-jsonrpc-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  await ensureBuilt();
  child = spawn(process.execPath, [BIN, 'mcp'], { cwd: ws, env: { PATH: process.env.PATH ?? '', CI: '1' } });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const r = JSON.parse(line) as Reply;
    const w = waiting.shift();
    if (w) w(r);
    else inbox.push(r);
  });
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })}\n`,
  );
  const init = await nextReply(30_000);
  expect(init).toMatchObject({ id: 0, result: { serverInfo: { name: 'chunkyard-docs-store' } } });
  capabilities = (init.result as { capabilities: typeof capabilities }).capabilities;
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
});

afterAll(() => {
  child?.stdin.end();
  child?.kill();
  rmSync(ws, { recursive: true, force: true });
});

/** Writes a request and waits for the reply with its id (a tool call may finish after a later ping). */
async function request(frame: string, id: number): Promise<Reply> {
  child.stdin.write(`${frame}\n`);
  for (;;) {
    const r = await nextReply();
    if (r.id === id) return r;
  }
}

const call = (id: number, method: string, params?: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });

describe('every malformed request gets exactly one JSON-RPC error reply', () => {
  it.each([
    // -32700: not JSON at all; the id cannot be known.
    ['not json', 'hello', null, -32700],
    ['truncated JSON', '{"jsonrpc":"2.0","id":1,"method":"ping"', null, -32700],
    ['a lone comma', ',', null, -32700],
    // -32600: JSON, but not a request object.
    ['an empty array (batch)', '[]', null, -32600],
    ['a batch', `[${call(2, 'ping')}]`, null, -32600],
    ['a number', '42', null, -32600],
    ['a string', '"ping"', null, -32600],
    ['null', 'null', null, -32600],
    ['an empty object', '{}', null, -32600],
    ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":3,"method":"ping"}', 3, -32600],
    ['no jsonrpc member', '{"id":4,"method":"ping"}', 4, -32600],
    ['a numeric method', '{"jsonrpc":"2.0","id":5,"method":7}', 5, -32600],
    ['an object id', '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', null, -32600],
    ['a null id', '{"jsonrpc":"2.0","id":null,"method":"ping"}', null, -32600],
    ['a fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', null, -32600],
    ['an integer id beyond 2^53', '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}', null, -32600],
    ['params: "x" with a valid id', call(6, 'tools/list', 'x'), 6, -32600],
    ['params: 1 on tools/call', call(16, 'tools/call', 1), 16, -32600],
    ['an unknown member', '{"jsonrpc":"2.0","id":12,"method":"ping","extra":1}', 12, -32600],
    ['an id and nothing to do', '{"jsonrpc":"2.0","id":13}', 13, -32600],
    ['an invalid notification (method 1, params "bar")', '{"jsonrpc":"2.0","method":1,"params":"bar"}', null, -32600],
    // -32602: a request object whose params do not fit the method.
    ['positional params', call(7, 'tools/call', [1]), 7, -32602],
    ['tools/call without params', call(8, 'tools/call'), 8, -32602],
    ['tools/call without a name', call(9, 'tools/call', {}), 9, -32602],
    ['tools/call of an unknown tool', call(10, 'tools/call', { name: 'nope' }), 10, -32602],
    ['tools/call with arguments "x"', call(14, 'tools/call', { name: 'search_docs', arguments: 'x' }), 14, -32602],
    ['a string _meta', call(15, 'tools/list', { _meta: 'x' }), 15, -32602],
    ['initialize without clientInfo', call(17, 'initialize', { protocolVersion: '2025-06-18', capabilities: {} }), 17, -32602],
    // s37 probe: a cursor this server never handed out (its lists come in one page) was ignored
    // and the first page sent again; MCP: "Invalid cursors SHOULD result in an error with code -32602".
    ['tools/list with a cursor', call(37, 'tools/list', { cursor: 'zzz' }), 37, -32602],
    ['resources/list with a cursor', call(38, 'resources/list', { cursor: 'zzz' }), 38, -32602],
    ['resources/templates/list with a cursor', call(39, 'resources/templates/list', { cursor: '' }), 39, -32602],
    ['prompts/list with a cursor', call(40, 'prompts/list', { cursor: 'x' }), 40, -32602],
    // -32002 (resource not found): a URI of another form; the SDK said -32602 (issue 15 probe).
    ['resources/read of chunk://../../etc/passwd', call(19, 'resources/read', { uri: 'chunk://../../etc/passwd' }), 19, -32002],
    ['resources/read of file:///etc/passwd', call(20, 'resources/read', { uri: 'file:///etc/passwd' }), 20, -32002],
    // -32601: well-formed, but not a method this server serves.
    ['an unknown method', call(11, 'no/such/method'), 11, -32601],
    ['a method of the spec it does not serve', call(18, 'sampling/createMessage', {}), 18, -32601],
  ])('%s', async (_name, frame, id, code) => {
    const replies = await exchange(frame);
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
    expect(replies[0]!.error!.message.length).toBeLessThan(400);
  });
});

describe('resources/read of a URI longer than the SDK matches', () => {
  // s45 probe: the SDK's UriTemplate.match throws for a URI over 1,000,000 characters, and the
  // guard called it unprotected: an uncaught exception with a stack trace stopped the server (over
  // HTTP, a 500 with no body). No resource has such a URI: -32002, the URI cut short.
  it('is -32002 "resource not found", and the server goes on', async () => {
    const uri = `chunk://${'a'.repeat(1_000_001)}/whole`;
    const replies = await exchange(call(57, 'resources/read', { uri }));
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ jsonrpc: '2.0', id: 57, error: { code: -32002, message: expect.stringContaining('Resource not found: "chunk://aaa') } });
    expect(replies[0]!.error!.message.length).toBeLessThan(400);
    expect(child.exitCode).toBeNull();
  });
});

describe('error messages that quote the request', () => {
  // s45 probe: a 3 MB tool name came back in a 3 MB "Unknown tool" message; so did a prompt's name,
  // an unknown member's key (and every one of 10,000 unknown members), and a method given
  // positional params. What is quoted is cut short, as URIs and cursors already were.
  const long = (c: string) => c.repeat(100_000);
  it.each([
    ['an unknown tool', call(61, 'tools/call', { name: long('t') }), 61, -32602],
    ['an unknown prompt', call(62, 'prompts/get', { name: long('p') }), 62, -32602],
    ['an unknown member with a long key', `{"jsonrpc":"2.0","id":63,"method":"ping","${long('k')}":1}`, 63, -32600],
    ['10,000 unknown members', `{"jsonrpc":"2.0","id":64,"method":"ping",${Array.from({ length: 10_000 }, (_, i) => `"m${i}":1`).join(',')}}`, 64, -32600],
    ['positional params on a long method name', call(65, long('n'), [1]), 65, -32602],
    ['an unknown argument with a long name', call(66, 'prompts/get', { name: 'answer_from_docs', arguments: { question: 'x', [long('a')]: 'y' } }), 66, -32602],
  ])('%s: the message stays short', async (_name, frame, id, code) => {
    const replies = await exchange(frame);
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
    expect(replies[0]!.error!.message.length).toBeLessThan(400);
  });
});

describe('an integer id too large to echo', () => {
  // s45 probe: 9007199254740993 or 1e30 got "\"id\" must be a string or an integer", which it is;
  // what is wrong is that a JSON number past 2^53 cannot be echoed exactly, so the client could
  // not match the reply to its request.
  it.each(['9007199254740993', '123456789012345678901234567890', '-9007199254740993'])('%s: -32600 saying why, and to use a string', async (id) => {
    const replies = await exchange(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: "id" is an integer too large to echo exactly (beyond ±2^53 - 1); send it as a string' } },
    ]);
  });
});

describe('prompts/get of a name the server has not', () => {
  // The SDK looks prompts up in a plain object, so "__proto__" or "constructor" found
  // Object.prototype's members and was answered "Prompt __proto__ disabled" (s37 probe).
  it.each(['__proto__', 'constructor', 'toString', 'nope'])('%s is -32602 "Unknown prompt", naming the prompts there are', async (name) => {
    expect(await exchange(call(36, 'prompts/get', { name }))).toEqual([
      { jsonrpc: '2.0', id: 36, error: { code: -32602, message: `Unknown prompt ${JSON.stringify(name)} (prompts: answer_from_docs)` } },
    ]);
  });
});

describe('a frame that is not UTF-8', () => {
  // JSON text is UTF-8 (RFC 8259 8.1). A frame with other bytes was decoded with U+FFFD in
  // their place and served as if it said that: a ping answered, "pi\xc3ng" called an unknown
  // method, and ingest_artifact would store text the sender never wrote (the CLI's ingest
  // refuses a file that is not UTF-8). s37 probe.
  it.each([
    ['0xff inside a string', [Buffer.from('{"jsonrpc":"2.0","id":31,"method":"ping","params":{"_meta":{"x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}}')]],
    ['a lead byte without its continuation, in the method', [Buffer.from('{"jsonrpc":"2.0","id":32,"method":"pi'), Buffer.from([0xc3]), Buffer.from('ng"}')]],
    ['an overlong "/"', [Buffer.from('{"jsonrpc":"2.0","id":33,"method":"ping","params":{"_meta":{"x":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}}}')]],
    ['a surrogate encoded on its own (CESU-8)', [Buffer.from('{"jsonrpc":"2.0","id":34,"method":"ping","params":{"_meta":{"x":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}}')]],
  ])('%s is -32700 with id null, and the server goes on', async (_name, parts) => {
    const id = `sentinel-${++sentinel}`;
    child.stdin.write(Buffer.concat([...(parts as Buffer[]), Buffer.from(`\n${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`)]));
    const replies: Reply[] = [];
    for (let r = await nextReply(); r.id !== id; r = await nextReply()) replies.push(r);
    expect(replies).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the message is not valid UTF-8 (JSON text is UTF-8, RFC 8259 8.1)' } }]);
  });

  it('valid multi-byte text is served as before', async () => {
    expect(await exchange(JSON.stringify({ jsonrpc: '2.0', id: 'é€😀', method: 'ping' }))).toEqual([{ jsonrpc: '2.0', id: 'é€😀', result: {} }]);
  });
});

describe('what gets no reply, and what still works', () => {
  it.each([
    ['a notification of an unknown method', '{"jsonrpc":"2.0","method":"notifications/whatever"}'],
    ['a notification with positional params', '{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}'],
    ['a response from the client', '{"jsonrpc":"2.0","id":99,"result":{}}'],
    ['an error response from the client', '{"jsonrpc":"2.0","id":98,"error":{"code":-1,"message":"x"}}'],
    // Issue 15 probe: these got -32600 of id null, a reply to a reply. JSON-RPC 2.0 gives an error
    // response the id null when it could not read the request's: a client answering this server's
    // -32700 so was answered in turn, and two such peers never stop.
    ['an error response of id null', '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'],
    ['a response with a fractional id', '{"jsonrpc":"2.0","id":1.5,"result":{}}'],
    ['a response of jsonrpc 1.0', '{"jsonrpc":"1.0","id":97,"result":{}}'],
    ['a response with an object id', '{"jsonrpc":"2.0","id":{"a":1},"error":{"code":-1,"message":"x"}}'],
    ['a blank line', ''],
    ['a cancellation of nothing', '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345}}'],
  ])('%s gets none', async (_name, frame) => {
    expect(await exchange(frame)).toEqual([]);
  });

  it('string ids, CRLF line ends and a real tool call are answered normally after all that', async () => {
    expect(await exchange(`${JSON.stringify({ jsonrpc: '2.0', id: 'text-id', method: 'ping' })}\r`)).toEqual([{ jsonrpc: '2.0', id: 'text-id', result: {} }]);
    const stats = await request(call(20, 'tools/call', { name: 'store_stats', arguments: {} }), 20);
    expect(stats).toMatchObject({ id: 20, result: { content: [{ type: 'text' }] } });
    expect(JSON.parse((stats.result as { content: { text: string }[] }).content[0]!.text)).toMatchObject({ artifacts: 0 });
    // Bad arguments of a known tool stay a tool error the model can read (MCP 2025-11-25).
    const bad = await request(call(21, 'tools/call', { name: 'search_docs', arguments: { query: 5 } }), 21);
    expect(bad).toMatchObject({ id: 21, result: { isError: true } });
    // Issue 15 probe: an empty topic or content type searched (or stored) "", without a word.
    for (const [id, name, args] of [
      [22, 'search_docs', { query: 'x', topic: '' }],
      [23, 'search_docs', { query: 'x', content_type: '' }],
      [24, 'ingest_artifact', { content: '# x\n\nhello', topic: '' }],
    ] as const) {
      const empty = await request(call(id, 'tools/call', { name, arguments: args }), id);
      expect(empty, JSON.stringify(args)).toMatchObject({ id, result: { isError: true, content: [{ text: expect.stringContaining('empty: give a value, or leave the field out') }] } });
    }
    expect(child.exitCode).toBeNull();
  });
});

describe('the last frame of the input without its newline', () => {
  // s37 probe: `printf '{…"ping"}' | docs-store mcp` got no reply: the line was waiting for a
  // newline that end of input ruled out, and the request was dropped without a word.
  it('is served when it is a message, answered -32700 when it is not, and other frames before it as always', () => {
    const input = `${call(1, 'ping')}\n${call(2, 'tools/call', { name: 'store_stats', arguments: {} })}`;
    for (const [stdin, expected] of [
      [input, [{ id: 1, result: {} }, { id: 2, result: { content: [{ type: 'text' }] } }]],
      [`${call(1, 'ping')}\n{"jsonrpc":"2.0","id":3,"meth`, [{ id: 1, result: {} }, { id: null, error: { code: -32700 } }]],
    ] as const) {
      const r = rawMcp<Reply>(ws, stdin);
      expect(r.status, r.stderr).toBe(0);
      const replies = r.replies;
      expect(replies, r.stdout).toMatchObject(expected);
      expect(replies).toHaveLength(expected.length);
    }
    // A request cancelled before the input ends is not waited for (it gets no response): the server still stops.
    const cancelled = rawMcp(ws, [call(5, 'tools/call', { name: 'search_docs', arguments: { query: 'native aot publishing' } }), { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } }]);
    expect(cancelled.status, cancelled.stderr).toBe(0);
  }, 60_000);
});

describe('a client that closes stdout', () => {
  it.runIf(process.platform !== 'win32')('stops the server quietly, exit 0 (issue 15 probe: EPIPE was an uncaught error with a stack trace)', () => {
    // `| head -c 10` closes the pipe after the first bytes; the replies after that hit EPIPE.
    const frames = [
      JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }),
      ...Array.from({ length: 200 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'ping' })),
    ].join('\n');
    const script = `"${process.execPath}" "${BIN}" mcp 2>"${join(ws, 'mcp.err')}" | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}"`;
    const r = spawnSync('bash', ['-c', script], { cwd: ws, input: `${frames}\n`, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '', CI: '1' } });
    const err = readFileSync(join(ws, 'mcp.err'), 'utf8');
    expect(r.stdout.trim(), err).toBe('0');
    expect(err).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
  }, 40_000);
});

describe('a client that reads its replies late', () => {
  it.runIf(process.platform !== 'win32')('gets every reply and no warning on stderr (s39 probe: a drain listener per reply waiting, MaxListenersExceededWarning)', () => {
    // The reader sleeps before it reads, so the pipe fills and each later reply waits for 'drain'.
    const frames = [
      JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }),
      ...Array.from({ length: 5000 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'ping' })),
    ].join('\n');
    writeFileSync(join(ws, 'late.in'), `${frames}\n`);
    // The server has read every frame before the reader wakes: it starts in well under 3 s.
    const script = `"${process.execPath}" "${BIN}" mcp <"${join(ws, 'late.in')}" 2>"${join(ws, 'late.err')}" | { sleep 3; wc -l; }`;
    const r = spawnSync('bash', ['-c', script], { cwd: ws, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '', CI: '1' } });
    const err = readFileSync(join(ws, 'late.err'), 'utf8');
    expect(r.stdout.trim(), err).toBe('5001');
    expect(err).toBe(`docs-store mcp: serving ${join(ws, '.chunkyard', 'store.db')} on stdio\n`);
  }, 40_000);
});

describe('what the server logs about a client\'s message', () => {
  it('escapes control characters: a method name cannot drive the terminal that shows stderr (s45 probe)', async () => {
    // A dropped notification is noted on stderr with its method; "\u001b]0;…\u0007" set the
    // terminal's title and "\u001b[2J" cleared it, as they came from the client.
    const before = stderr.length;
    expect(await exchange('{"jsonrpc":"2.0","method":"\\u001b]0;owned\\u0007x\\u001b[2J\\u009b\\u202e","params":[1]}')).toEqual([]);
    // stderr is its own pipe: its line may come after the sentinel's reply.
    for (let i = 0; i < 100 && !stderr.slice(before).includes('positional params'); i++) await new Promise((r) => setTimeout(r, 20));
    const logged = stderr.slice(before);
    expect(logged).toContain('\\u001b]0;owned\\u0007x\\u001b[2J\\u009b\\u202e');
    expect(logged).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });
});

describe('arguments a tool or the prompt does not take', () => {
  // s45 probe: `limt: 2` (a typo of limit) was dropped without a word and five hits came back;
  // store_stats took `{ x: 1 }`, and prompts/get an argument the prompt does not list.
  it.each([
    [51, 'search_docs', { query: 'native aot', limt: 2 }, '"limt"'],
    [52, 'store_stats', { x: 1 }, '"x"'],
    [53, 'expand_chunk', { chunk_id: 'a', K: 2 }, '"K"'],
    [54, 'ingest_artifact', { content: '# x\n\nhello', sourceId: 'a' }, '"sourceId"'],
  ])('tools/call %#: a tool error naming the argument, nothing done', async (id, name, args, key) => {
    const r = await request(call(id, 'tools/call', { name, arguments: args }), id);
    expect(r).toMatchObject({ id, result: { isError: true } });
    expect((r.result as { content: { text: string }[] }).content[0]!.text).toContain(key);
  });

  it('tools/list says so in each input schema (additionalProperties: false)', async () => {
    const r = await request(call(55, 'tools/list'), 55);
    const tools = (r.result as { tools: { name: string; inputSchema: { additionalProperties?: unknown } }[] }).tools;
    expect(tools.map((t) => [t.name, t.inputSchema.additionalProperties])).toEqual(tools.map((t) => [t.name, false]));
  });

  it('prompts/get with an argument the prompt does not list is -32602 naming it and the ones it takes', async () => {
    expect(await exchange(call(56, 'prompts/get', { name: 'answer_from_docs', arguments: { question: 'x', limt: '2' } }))).toEqual([
      { jsonrpc: '2.0', id: 56, error: { code: -32602, message: 'Invalid params for prompts/get: answer_from_docs takes no argument "limt" (its arguments: question, topic, limit)' } },
    ]);
  });
});

describe('batches on stdio, as the negotiated protocol version allows', () => {
  // MCP 2025-03-26 (a version the server negotiates): "MCP implementations MAY support sending
  // JSON-RPC batches, but MUST support receiving JSON-RPC batches." s45 probe: a client that had
  // negotiated it got -32600 "batches are not supported" for every batch, and none of its
  // requests ran. Later versions removed batches, and there a batch is still -32600.
  /** A server of its own: initialize with `version`, wait for its answer, then send `frames` and end the input. */
  const session = async (version: string, frames: unknown[]): Promise<(Reply | Reply[])[]> => {
    const c = spawn(process.execPath, [BIN, 'mcp'], { cwd: ws, env: { PATH: process.env.PATH ?? '', CI: '1' } });
    let err = '';
    c.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const lines: (Reply | Reply[])[] = [];
    let initialized!: () => void;
    const init = new Promise<void>((resolve) => (initialized = resolve));
    createInterface({ input: c.stdout }).on('line', (line) => {
      lines.push(JSON.parse(line) as Reply | Reply[]);
      if (lines.length === 1) initialized();
    });
    const exited = new Promise<number | null>((resolve) => c.once('exit', resolve));
    c.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })}\n`);
    await init;
    expect(lines[0]).toMatchObject({ id: 0, result: { protocolVersion: version } });
    c.stdin.end(`${[{ jsonrpc: '2.0', method: 'notifications/initialized' }, ...frames].map((f) => (typeof f === 'string' ? f : JSON.stringify(f))).join('\n')}\n`);
    expect(await exited, err).toBe(0);
    return lines.slice(1);
  };
  const byId = (replies: Reply[]) => [...replies].sort((a, b) => JSON.stringify(a.id).localeCompare(JSON.stringify(b.id)));

  it('2025-03-26: a batch is answered with one array holding a reply for each request, and nothing for notifications', async () => {
    const lines = await session('2025-03-26', [
      [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'store_stats', arguments: {} } },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'nope' } },
        { jsonrpc: '2.0', id: 4, method: 'no/such' },
        7,
      ],
      '[]',
      [{ jsonrpc: '2.0', method: 'notifications/initialized' }],
      `[${JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' })}, {"jsonrpc":"2.0","id":5,"method":"ping"}]`,
      [{ jsonrpc: '2.0', id: 6, method: 'ping' }],
      { jsonrpc: '2.0', id: 7, method: 'ping' },
      // More than HTTP takes (the SDK's 100): one -32600, and none runs.
      Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: 1000 + i, method: 'ping' })),
    ]);
    expect(lines).toHaveLength(6);
    expect(lines).toContainEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a batch of 101 messages; at most 100, none was run' } });
    // Each line by what it answers: a batch waiting for a tool call may be written after later lines.
    const arrays = lines.filter((l): l is Reply[] => Array.isArray(l));
    const find = <T extends Reply | Reply[]>(found: T | undefined, what: string): T => found ?? expect.fail(`no reply for ${what}: ${JSON.stringify(lines)}`);
    const batch = find(arrays.find((a) => a.length === 5), 'the batch');
    const dup = find(arrays.find((a) => a.some((r) => r.id === 5)), 'the batch with a shared id');
    const one = find(arrays.find((a) => a.some((r) => r.id === 6)), 'the batch of one');
    const empty = find(lines.find((l): l is Reply => !Array.isArray(l) && l.id === null && l.error?.message === 'Invalid Request: an empty batch'), '[]');
    const single = find(lines.find((l): l is Reply => !Array.isArray(l) && l.id === 7), 'the single request');
    expect(byId(batch)).toMatchObject([
      { id: 1, result: {} },
      { id: 2, result: { content: [{ type: 'text' }] } },
      { id: 3, error: { code: -32602 } },
      { id: 4, error: { code: -32601 } },
      { id: null, error: { code: -32600, message: 'Invalid Request: a message must be a JSON object' } },
    ]);
    expect(empty).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: an empty batch' } });
    expect(dup.map((r) => [r.id, r.error?.code])).toEqual([
      [5, -32600],
      [5, -32600],
    ]);
    expect(one).toEqual([{ jsonrpc: '2.0', id: 6, result: {} }]);
    expect(single).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  }, 60_000);

  it.each(['2025-06-18', '2025-11-25', '2024-11-05'])('%s: a batch is still -32600 (this version has no batches), and the server goes on', async (version) => {
    const lines = await session(version, [[{ jsonrpc: '2.0', id: 1, method: 'ping' }], { jsonrpc: '2.0', id: 2, method: 'ping' }]);
    expect(lines).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: batches are not supported (MCP sends one message per line)' } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  }, 60_000);
});

describe('a client that closes stderr', () => {
  it.runIf(process.platform !== 'win32')('keeps the server answering (s45 probe: the next log line was an unhandled EPIPE with a stack trace, exit 1, and replies still owed were lost)', async () => {
    const c = spawn(process.execPath, [BIN, 'mcp'], { cwd: ws, env: { PATH: process.env.PATH ?? '', CI: '1' } });
    const replies: Reply[] = [];
    createInterface({ input: c.stdout }).on('line', (line) => replies.push(JSON.parse(line) as Reply));
    // The client reads the first line, then stops reading stderr and closes its end.
    await new Promise<void>((resolve) => c.stderr.once('data', () => resolve()));
    c.stderr.destroy();
    const exited = new Promise<[number | null, string | null]>((resolve) => c.once('exit', (code, signal) => resolve([code, signal])));
    c.stdin.write(`${call(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } })}\n`);
    // A dropped notification is a log line on stderr.
    for (let i = 0; i < 3; i++) c.stdin.write('{"jsonrpc":"2.0","method":"notifications/whatever","params":[1]}\n');
    await new Promise((r) => setTimeout(r, 300));
    c.stdin.end(`${call(1, 'tools/call', { name: 'store_stats', arguments: {} })}\n${call(2, 'ping')}\n`);
    expect(await exited).toEqual([0, null]);
    expect(replies.map((r) => r.id)).toEqual(expect.arrayContaining([0, 1, 2]));
    expect(replies).toHaveLength(3);
  }, 30_000);
});

// Last: it stores a document, and the tests above count an empty store.
describe('what the server advertises, it does', () => {
  // s46 probe: the SDK advertised resources.listChanged ("the server will emit notifications
  // when the list of available resources changes", MCP spec), but an ingest_artifact that
  // added resources sent no notifications/resources/list_changed, and nothing here watches for
  // another process's ingest into the same store.
  it('resources: an ingest that adds resources sends notifications/resources/list_changed, or listChanged is not advertised', async () => {
    expect(capabilities.resources).toBeDefined();
    const before = await exchange(call(70, 'resources/list'));
    // Everything up to the tool's reply (it may come after a later ping), and all sent before a ping after it.
    child.stdin.write(`${call(71, 'tools/call', { name: 'ingest_artifact', arguments: { content: '# Listed\n\nA new document about quokkas.', source_id: 'listed.md' } })}\n`);
    const frames: Reply[] = [];
    while (!frames.some((f) => f.id === 71)) frames.push(await nextReply());
    frames.push(...(await exchange(call(73, 'ping'))).filter((f) => f.id !== 73));
    const reply = frames.find((f) => f.id === 71);
    expect(reply?.result, JSON.stringify(frames)).toMatchObject({ content: [{ type: 'text' }] });
    expect(JSON.parse((reply!.result as { content: { text: string }[] }).content[0]!.text)).toMatchObject({ status: 'created' });
    const after = await exchange(call(72, 'resources/list'));
    const count = (r: Reply[]) => (r[0]!.result as { resources: unknown[] }).resources.length;
    expect(count(after)).toBe(count(before) + 1);
    const notified = frames.some((f) => (f as { method?: string }).method === 'notifications/resources/list_changed');
    expect(capabilities.resources!.listChanged === true, `listChanged advertised ${String(capabilities.resources!.listChanged)}, notification sent ${notified}`).toBe(notified);
  });
});
