// `docs-store mcp --http` as a client sees it: the built bin in a child process listening on
// 127.0.0.1 (port 0, the URL read from its stderr), a real SQLite store with a real
// document, and the official SDK's Client over StreamableHTTPClientTransport. Plain fetch
// covers what the SDK client never sends: no token, a wrong token, a foreign Host, bad JSON.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { connect as netConnect, createServer as createNetServer } from 'node:net';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { BIN, ensureBuilt, REPO } from './test-build.js';

const NATIVE_AOT = 'docs/deployment/native-aot/golden-reference.md';
/** Whether this machine has an IPv6 loopback to listen on. */
const hasIpv6Loopback = await new Promise<boolean>((resolve) => {
  const probe = createNetServer();
  probe.once('error', () => resolve(false));
  probe.listen(0, '::1', () => probe.close(() => resolve(true)));
});
const TOKEN = 'test-token-0f9e8d';

let ws: string;
const children: ChildProcessWithoutNullStreams[] = [];

/** Spawns `docs-store mcp --http …` and resolves once it prints its URL. */
function serve(args: string[], env: Record<string, string> = {}): Promise<{ url: string; stderr: () => string; child: ChildProcessWithoutNullStreams }> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', ...args], { cwd: ws, env: { PATH: process.env.PATH ?? '', CI: '1', ...env } });
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 30 s; stderr: ${stderr}`)), 30_000);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = / at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, stderr: () => stderr, child });
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
}

/** The SDK's Client in its own Node process (see __fixtures__/sdk-http-client.mjs). */
interface Client {
  call<T = unknown>(method: string, args?: unknown): Promise<T>;
  close(): Promise<void>;
}

async function connect(url: string, token?: string): Promise<Client> {
  const child = spawn(process.execPath, [join(REPO, 'apps/docs-store/src/__fixtures__/sdk-http-client.mjs'), url, ...(token ? [token] : [])], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '' },
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<{ value?: unknown; error?: { message: string; code?: number } }> => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`the SDK client exited; stderr: ${stderr}`);
    return JSON.parse(value as string) as { value?: unknown; error?: { message: string; code?: number } };
  };
  const hello = await next();
  if (hello.error) throw Object.assign(new Error(hello.error.message), { code: hello.error.code });
  return {
    async call<T>(method: string, args?: unknown): Promise<T> {
      child.stdin.write(`${JSON.stringify({ method, args })}\n`);
      const r = await next();
      if (r.error) throw Object.assign(new Error(r.error.message), { code: r.error.code });
      return r.value as T;
    },
    async close() {
      child.stdin.end();
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    },
  };
}

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fetch', version: '0' } } });
const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });

let server: Awaited<ReturnType<typeof serve>>;
let client: Client;
beforeAll(async () => {
  await ensureBuilt();
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-http-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  cpSync(join(REPO, 'docs/deployment/native-aot'), join(ws, 'docs/deployment/native-aot'), { recursive: true, filter: (p) => !/_chunks|_keywords|index\.json|topic-spec/.test(p) });
  const quiet = { stdout: () => {}, stderr: () => {}, cwd: ws, env: { CI: '1' } };
  expect(await main(['ingest', 'docs/deployment/native-aot'], quiet)).toBe(0);
  server = await serve([], { DOCS_STORE_MCP_TOKEN: TOKEN });
  client = await connect(server.url, TOKEN);
}, 120_000);

afterAll(async () => {
  await client?.close();
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)));
  rmSync(ws, { recursive: true, force: true });
});

describe('the bearer token', () => {
  it('is required: none or a wrong one is 401 with WWW-Authenticate, before any MCP handling', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer wrong' }, { authorization: TOKEN }, { authorization: `Basic ${TOKEN}` }]) {
      const r = await post(server.url, initialize, headers);
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await r.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32001 } });
    }
    expect((await post(server.url, initialize, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it('the SDK client without it cannot connect', async () => {
    await expect(connect(server.url)).rejects.toThrow(/401|Unauthorized/);
  });

  it('--token works like the environment variable, and the log names the URL and the token requirement', async () => {
    const other = await serve(['--token', 'from-flag']);
    expect(other.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(other.stderr()).toMatch(/serving .*store\.db at http:\/\/127\.0\.0\.1:\d+\/mcp \(bearer token required\)/);
    expect((await post(other.url, initialize)).status).toBe(401);
    const c = await connect(other.url, 'from-flag');
    expect((await c.call<{ tools: unknown[] }>('listTools')).tools).toHaveLength(4);
    await c.close();
  });
});

describe('over Streamable HTTP with the SDK client', () => {
  it('lists and calls the tools', async () => {
    expect((await client.call<{ tools: { name: string }[] }>('listTools')).tools.map((t) => t.name).sort()).toEqual(['expand_chunk', 'ingest_artifact', 'search_docs', 'store_stats']);
    const r = await client.call<{ content: { text: string }[]; isError?: boolean }>('callTool', { name: 'search_docs', arguments: { query: 'native AOT limitations', limit: 2 } });
    expect(r.isError).toBeFalsy();
    const hits = JSON.parse(r.content[0]!.text) as { source_file: string; chunks: { from: number; to: number } }[];
    // Routed units: adjacent matching chunks merge, so 1 or 2 units, each with its chunk range.
    expect(hits.length).toBeGreaterThanOrEqual(1);
    expect(hits.length).toBeLessThanOrEqual(2);
    expect(hits[0]!.source_file).toBe(NATIVE_AOT);
    for (const h of hits) expect(h.chunks.to).toBeGreaterThanOrEqual(h.chunks.from);
  });

  it('lists chunks as chunk:// resources, publishes the template, and reads one', async () => {
    const { resourceTemplates } = await client.call<{ resourceTemplates: unknown[] }>('listResourceTemplates');
    expect(resourceTemplates).toEqual([expect.objectContaining({ name: 'chunk', uriTemplate: 'chunk://{artifact_id}/{chunk_index}', mimeType: 'text/markdown' })]);
    const { resources } = await client.call<{ resources: { uri: string; description?: string }[] }>('listResources');
    const stats = JSON.parse((await client.call<{ content: { text: string }[] }>('callTool', { name: 'store_stats', arguments: {} })).content[0]!.text) as { units: number };
    expect(resources).toHaveLength(stats.units);
    for (const r of resources) expect(r.uri).toMatch(/^chunk:\/\/art_[0-9a-f]{8}\/(\d+|whole)$/);
    expect(resources[0]!.description).toContain(NATIVE_AOT);
    const second = resources[1]!;
    const read = await client.call<{ contents: unknown[] }>('readResource', { uri: second.uri });
    const content = read.contents[0] as { uri: string; text: string; mimeType: string };
    expect(content).toMatchObject({ uri: second.uri, mimeType: 'text/markdown' });
    // The text is the chunk's own: it appears verbatim in the source document.
    expect(readFileSync(join(ws, NATIVE_AOT), 'utf8')).toContain(content.text);
  });

  it('a chunk that does not exist is -32002; a URI that is not one is -32602', async () => {
    await expect(client.call('readResource', { uri: 'chunk://art_00000000/7' })).rejects.toMatchObject({ code: -32002 });
    await expect(client.call('readResource', { uri: 'chunk://art_00000000/seven' })).rejects.toMatchObject({ code: -32002 });
    await expect(client.call('readResource', { uri: 'not a uri' })).rejects.toMatchObject({ code: -32602 });
  });

  it('the prompt answers from retrieved chunks, citing their URIs', async () => {
    const { prompts } = await client.call<{ prompts: unknown[] }>('listPrompts');
    expect(prompts).toEqual([expect.objectContaining({ name: 'answer_from_docs', arguments: expect.arrayContaining([expect.objectContaining({ name: 'question', required: true })]) })]);
    const p = await client.call<{ messages: { content: unknown }[] }>('getPrompt', { name: 'answer_from_docs', arguments: { question: 'What are the limitations of Native AOT?', limit: '3' } });
    expect(p.messages).toHaveLength(1);
    const text = (p.messages[0]!.content as { text: string }).text;
    expect(text).toMatch(/^Answer the question using only the documentation excerpts below/);
    expect(text).toContain('Question: What are the limitations of Native AOT?');
    const cited = text.match(/^\[\d\] chunk:\/\/art_[0-9a-f]{8}\/\d+ \(/gm) ?? [];
    expect(cited.length).toBeGreaterThanOrEqual(1);
    expect(cited.length).toBeLessThanOrEqual(3);
    expect(text).toMatch(/Limitations of Native AOT deployment/);
    await expect(client.call('getPrompt', { name: 'answer_from_docs', arguments: { question: 'x', limit: '500' } })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('the HTTP edge', () => {
  it('answers malformed JSON-RPC with the right codes', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const notJson = await post(server.url, 'not json', auth);
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ id: null, error: { code: -32700 } });
    const noParams = await post(server.url, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call' }), auth);
    expect(await noParams.json()).toMatchObject({ id: 7, error: { code: -32602 } });
    const unknown = await post(server.url, JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'no/such' }), auth);
    expect(await unknown.json()).toMatchObject({ id: 8, error: { code: -32601 } });
    // Not a request object: -32600 (the SDK alone said -32700 for all of these), with the id when it is valid.
    for (const [body, id] of [
      [{ jsonrpc: '2.0', id: 6, method: 'tools/list', params: 'x' }, 6],
      [{}, null],
      [42, null],
      [{ jsonrpc: '1.0', id: 9, method: 'ping' }, 9],
      [{ jsonrpc: '2.0', id: null, method: 'ping' }, null],
      [{ jsonrpc: '2.0', id: 10, method: 'ping', extra: 1 }, 10],
    ] as const) {
      const r = await post(server.url, JSON.stringify(body), auth);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(await r.json(), JSON.stringify(body)).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600 } });
    }
    const positional = await post(server.url, JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: [1] }), auth);
    expect(await positional.json()).toMatchObject({ id: 11, error: { code: -32602 } });
    // A notification, even a malformed one, gets no JSON-RPC reply: 202 and an empty body.
    const note = await post(server.url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized', params: [1] }), auth);
    expect(note.status).toBe(202);
    expect(await note.text()).toBe('');
    // Batches (issue 15): [] got 202 and no answer, [1] a -32700 "Parse error" for valid JSON.
    const empty = await post(server.url, '[]', auth);
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: an empty batch' } });
    const invalidOnly = await post(server.url, JSON.stringify([1, { jsonrpc: '2.0', id: 13 }]), auth);
    expect(invalidOnly.status).toBe(400);
    expect(await invalidOnly.json()).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a message must be a JSON object' } },
      { jsonrpc: '2.0', id: 13, error: { code: -32600, message: 'Invalid Request: no "method" (nor "result" or "error")' } },
    ]);
    // A batch of valid and invalid members: each valid request gets its result, each invalid one
    // its error (JSON-RPC 2.0 section 6); the valid ones were not run, and only the errors came back.
    const mixed = await post(
      server.url,
      JSON.stringify([
        1,
        { jsonrpc: '2.0', id: 12, method: 'ping' },
        { jsonrpc: '2.0', id: 13 },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 15, method: 'tools/call', params: { name: 'store_stats', arguments: {} } },
        { jsonrpc: '2.0', id: 16, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } },
      ]),
      auth,
    );
    expect(mixed.status).toBe(200);
    const replies = (await mixed.json()) as { id: unknown; result?: { content?: { text: string }[] }; error?: { code: number } }[];
    const byId = new Map(replies.map((r) => [JSON.stringify(r.id) + (r.error ? `:${r.error.code}` : ''), r]));
    expect(replies).toHaveLength(5);
    expect(byId.get('12')).toMatchObject({ jsonrpc: '2.0', id: 12, result: {} });
    expect(JSON.parse(byId.get('15')!.result!.content![0]!.text)).toMatchObject({ artifacts: expect.any(Number) });
    expect(byId.get('16:-32602')).toMatchObject({ id: 16, error: { code: -32602 } });
    expect(byId.get('null:-32600')).toMatchObject({ error: { message: 'Invalid Request: a message must be a JSON object' } });
    expect(byId.get('13:-32600')).toMatchObject({ error: { message: 'Invalid Request: no "method" (nor "result" or "error")' } });
    // Only a notification beside the invalid member: nothing but the errors to answer.
    const noteAndBad = await post(server.url, JSON.stringify([{ jsonrpc: '2.0', method: 'notifications/initialized' }, 2]), auth);
    expect(noteAndBad.status).toBe(200);
    expect(await noteAndBad.json()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a message must be a JSON object' } }]);
    // A batch of valid messages is answered with an array, a batch of one too (JSON-RPC 2.0
    // section 6; s37 probe: the SDK answered it with the bare object, which a client reading an
    // array cannot match to its request).
    const good = await post(server.url, JSON.stringify([{ jsonrpc: '2.0', id: 14, method: 'ping' }]), auth);
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual([{ jsonrpc: '2.0', id: 14, result: {} }]);
    // Issue 15 probe: two requests sharing an id got one reply (the SDK keys replies by id), and
    // the client waited for the other forever. Each gets its own -32600 with the id, and none
    // runs; 1 and "1" are different ids, and a request beside them still gets its result.
    const dup = await post(
      server.url,
      JSON.stringify([
        { jsonrpc: '2.0', id: 21, method: 'ping' },
        { jsonrpc: '2.0', id: 21, method: 'tools/call', params: { name: 'store_stats', arguments: {} } },
        { jsonrpc: '2.0', id: '21', method: 'ping' },
      ]),
      auth,
    );
    const dupMessage = 'Invalid Request: id 21 is used by 2 requests of this batch; give each request its own id';
    expect(dup.status).toBe(200);
    expect(await dup.json()).toEqual([
      { jsonrpc: '2.0', id: '21', result: {} },
      { jsonrpc: '2.0', id: 21, error: { code: -32600, message: dupMessage } },
      { jsonrpc: '2.0', id: 21, error: { code: -32600, message: dupMessage } },
    ]);
    const onlyDup = await post(server.url, JSON.stringify([{ jsonrpc: '2.0', id: 'a', method: 'ping' }, { jsonrpc: '2.0', id: 'a', method: 'ping' }, { jsonrpc: '2.0', method: 'notifications/initialized' }]), auth);
    expect(onlyDup.status).toBe(200);
    expect(((await onlyDup.json()) as { id: unknown; error: { code: number } }[]).map((r) => [r.id, r.error.code])).toEqual([
      ['a', -32600],
      ['a', -32600],
    ]);
  });

  it('GET and DELETE are 405 at once, as the README says (issue 15 probe)', async () => {
    // The SDK's stateless transport opened an event stream for GET that nothing wrote to and
    // that stayed open until the client left (the signal ends such a wait), and answered DELETE 200.
    const headers = { authorization: `Bearer ${TOKEN}`, accept: 'application/json, text/event-stream' };
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(server.url, { method, headers, signal: AbortSignal.timeout(5000) });
      expect(r.status, method).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
      expect(await r.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining(`Method not allowed: ${method}`) } });
    }
  });

  /** A raw POST of `body` with `headers` (fetch sets Host itself): status, headers and text. */
  const rawPost = (headers: Record<string, string>, body: string | Buffer) =>
    new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
      const u = new URL(server.url);
      const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      });
      req.on('error', reject);
      req.end(body);
    });

  it('any method but POST is 405 with Allow: POST (s37 probe: PUT, PATCH, OPTIONS, HEAD and TRACE got the SDK\'s "Allow: GET, POST, DELETE", two of which are 405 here)', async () => {
    const headers = { authorization: `Bearer ${TOKEN}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    for (const method of ['PUT', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE']) {
      const u = new URL(server.url);
      const r = await new Promise<{ status: number; allow: unknown; text: string }>((resolve, reject) => {
        const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method, headers, agent: false }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, text }));
        });
        req.on('error', reject);
        req.end(method === 'TRACE' || method === 'HEAD' ? undefined : '{"jsonrpc":"2.0","id":1,"method":"ping"}');
      });
      expect(r.status, method).toBe(405);
      expect(r.allow, method).toBe('POST');
      if (method !== 'HEAD') expect(JSON.parse(r.text), method).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining(`Method not allowed: ${method}`) } });
    }
  });

  it('answers every request of a batch by its id, initialize in a batch included (s37 probe)', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const init = JSON.parse(initialize) as { params: unknown };
    // The SDK answered a batch holding initialize and anything else with one -32600 of id null
    // and ran nothing: neither request got an answer with its id. MCP says initialize is sent
    // alone; it gets -32600 with its id, and the other requests run (the server is stateless).
    const withInit = await post(
      server.url,
      JSON.stringify([
        { jsonrpc: '2.0', id: 'i', method: 'initialize', params: init.params },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
      ]),
      auth,
    );
    expect(withInit.status).toBe(200);
    expect(await withInit.json()).toEqual([
      { jsonrpc: '2.0', id: 2, result: {} },
      { jsonrpc: '2.0', id: 'i', error: { code: -32600, message: 'Invalid Request: initialize must be sent alone, not in a batch (MCP lifecycle)' } },
    ]);
    const twoInits = await post(
      server.url,
      JSON.stringify([
        { jsonrpc: '2.0', id: 3, method: 'initialize', params: init.params },
        { jsonrpc: '2.0', id: 4, method: 'initialize', params: init.params },
      ]),
      auth,
    );
    expect(twoInits.status).toBe(400);
    expect(((await twoInits.json()) as { id: unknown; error: { code: number } }[]).map((r) => [r.id, r.error.code])).toEqual([
      [3, -32600],
      [4, -32600],
    ]);
    // Alone in a batch it initializes as it does outside one, answered in an array.
    const alone = await post(server.url, JSON.stringify([{ jsonrpc: '2.0', id: 5, method: 'initialize', params: init.params }]), auth);
    expect(alone.status).toBe(200);
    expect(await alone.json()).toMatchObject([{ jsonrpc: '2.0', id: 5, result: { serverInfo: { name: 'chunkyard-docs-store' } } }]);
    // Only notifications: nothing to answer, so no array at all (JSON-RPC: never an empty one).
    const notes = await post(server.url, JSON.stringify([{ jsonrpc: '2.0', method: 'notifications/initialized' }]), auth);
    expect(notes.status).toBe(202);
    expect(await notes.text()).toBe('');
  });

  it('answers a body that is not UTF-8 with -32700 (s37 probe: it was decoded with U+FFFD and run)', async () => {
    const body = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":41,"method":"pi'), Buffer.from([0xc3]), Buffer.from('ng"}')]);
    const r = await rawPost({}, body);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the message is not valid UTF-8 (JSON text is UTF-8, RFC 8259 8.1)' } });
    const ok = await rawPost({}, Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'é€😀', method: 'ping' })));
    expect(JSON.parse(ok.text)).toEqual({ jsonrpc: '2.0', id: 'é€😀', result: {} });
  });

  it('takes its own Host name in any case (s34 probe: LOCALHOST:port was 403)', async () => {
    const port = new URL(server.url).port;
    for (const host of [`LOCALHOST:${port}`, `LocalHost:${port}`]) {
      const r = await rawPost({ host }, initialize);
      expect(r.status, host).toBe(200);
      expect(JSON.parse(r.text)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: expect.any(String) } } });
    }
  });

  it('answers 400 to a request with two Host lines (s35 probe: Node kept the first, so a second foreign one was served)', async () => {
    const u = new URL(server.url);
    const ask = (hosts: string[]) =>
      new Promise<string>((resolve, reject) => {
        const socket = netConnect(Number(u.port), u.hostname);
        let out = '';
        socket.on('data', (d) => {
          out += d.toString('latin1');
          if (/\r\n\r\n[\s\S]*\}$/.test(out)) socket.end();
        });
        socket.on('end', () => resolve(out));
        socket.on('error', reject);
        const head = hosts.map((h) => `Host: ${h}\r\n`).join('');
        socket.write(`POST ${u.pathname} HTTP/1.1\r\n${head}Authorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(initialize)}\r\n\r\n${initialize}`);
      });
    const two = await ask([u.host, 'evil.example']);
    expect(two).toMatch(/^HTTP\/1\.1 400 /);
    expect(two).toContain('more than one Host header');
    expect(await ask([u.host])).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('refuses a body in a content coding with 415 and Accept-Encoding: identity (it was parsed as it came)', async () => {
    for (const [coding, body] of [['gzip', gzipSync(initialize)], ['gzip', Buffer.from(initialize)], ['br', Buffer.from(initialize)]] as const) {
      const r = await rawPost({ 'content-encoding': coding }, body);
      expect(r.status, coding).toBe(415);
      expect(r.headers['accept-encoding']).toBe('identity');
      expect(JSON.parse(r.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining(`Content-Encoding "${coding}"`) } });
    }
    // identity is no coding at all.
    expect((await rawPost({ 'content-encoding': 'identity' }, initialize)).status).toBe(200);
  });

  it('answers 413 at once to a body declared larger than it takes (s45 probe: it waited for the bytes, up to Node\'s 5-minute request timeout)', async () => {
    // The SDK's own readRequestBody refuses a Content-Length over its limit without reading;
    // here a client that declared 1 GB and sent two bytes was left waiting, and so was the socket.
    const u = new URL(server.url);
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = netConnect(Number(u.port), u.hostname);
      let out = '';
      const timer = setTimeout(() => (socket.destroy(), resolve(out)), 5000);
      socket.on('data', (d) => (out += d.toString('latin1')));
      socket.on('close', () => (clearTimeout(timer), resolve(out)));
      socket.on('error', reject);
      socket.write(`POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000000000\r\n\r\n{}`);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toContain('"Invalid Request: body larger than 4194304 bytes"');
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('refuses a request whose Origin is another site\'s with 403, as MCP requires (s45 probe: it was served)', async () => {
    // MCP 2025-11-25, Streamable HTTP: "If the Origin header is present and invalid, servers MUST
    // respond with HTTP 403 Forbidden." A browser sends Origin; non-browser clients send none.
    const u = new URL(server.url);
    for (const origin of ['http://evil.example', 'null', `http://evil.example:${u.port}`, `http://127.0.0.1:${Number(u.port) + 1}`, 'file://', 'garbage']) {
      const r = await rawPost({ origin }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      expect(r.status, origin).toBe(403);
      expect(JSON.parse(r.text), origin).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('Forbidden: Origin') } });
    }
    // The server's own origin, in any case, is served.
    for (const origin of [`http://${u.host}`, `HTTP://${u.host.toUpperCase()}`, `http://localhost:${u.port}`]) {
      const r = await rawPost({ origin }, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }));
      expect(r.status, origin).toBe(200);
    }
  });

  it('answers resources/read of a URI over 1,000,000 characters with -32002 (s45 probe: a 500 with an empty body)', async () => {
    const r = await post(server.url, JSON.stringify({ jsonrpc: '2.0', id: 58, method: 'resources/read', params: { uri: `chunk://${'a'.repeat(1_000_001)}/whole` } }), { authorization: `Bearer ${TOKEN}` });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ jsonrpc: '2.0', id: 58, error: { code: -32002, message: expect.stringContaining('Resource not found') } });
  });

  it('answers CONNECT with 405 and Allow: POST (s45 probe: the connection was dropped without a word)', async () => {
    const u = new URL(server.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = netConnect(Number(u.port), u.hostname);
      let out = '';
      socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
      socket.on('close', () => resolve(out));
      socket.on('error', reject);
      socket.write(`CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(answer).toContain('\r\nAllow: POST\r\n');
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('Method not allowed: CONNECT') } });
  });

  it('refuses a foreign Host header on loopback (DNS rebinding) and serves only /mcp', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(server.url);
      const req = httpRequest(
        { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { host: 'evil.example', authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(initialize);
    });
    expect(status).toBe(403);
    expect((await post(server.url.replace(/\/mcp$/, '/other'), initialize, { authorization: `Bearer ${TOKEN}` })).status).toBe(404);
  });

  // s39 probe: --host [::1], the way an IPv6 address is written in a URL, was "not an address of
  // this machine (ENOTFOUND)"; the brackets went to listen(). Skipped where ::1 is not configured.
  it.runIf(hasIpv6Loopback)('--host [::1] listens on ::1, loopback only', async () => {
    const v6 = await serve(['--host', '[::1]']);
    expect(v6.url).toMatch(/^http:\/\/\[::1\]:\d+\/mcp$/);
    expect(v6.stderr()).not.toContain('warning');
    const res = await post(v6.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 1, result: {} });
    v6.child.kill('SIGTERM');
  });

  it('warns when listening beyond loopback, and stops cleanly on SIGTERM', async () => {
    // Killed the moment the URL appears, five times: the handler must already be there (it
    // once was installed just after the URL was printed, and about half of such stops died
    // of the signal instead of exiting 0).
    for (let i = 0; i < 5; i++) {
      const open = await serve(['--host', '0.0.0.0']);
      expect(open.stderr()).toMatch(/warning: listening on 0\.0\.0\.0, which other machines can reach; anyone who reaches it can read and write the store: set --token or DOCS_STORE_MCP_TOKEN/);
      const exit = await new Promise<[number | null, string | null]>((resolve) => {
        open.child.once('exit', (code, signal) => resolve([code, signal]));
        open.child.kill('SIGTERM');
      });
      expect(exit).toEqual([0, null]);
    }
  });
});
