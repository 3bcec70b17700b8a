// The stdio transport's line framing on its own, with in-memory streams: how long lines are
// split into frames, refused, and how fast.
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { checkBatch, checkLine, checkMessage, StrictStdioServerTransport, withoutCodePrefix } from './jsonrpc.js';

/** A started transport and what it hands on or answers. */
async function transport(maxLine?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let written = '';
  stdout.on('data', (d: Buffer) => (written += d.toString()));
  const t = new StrictStdioServerTransport(stdin, stdout, () => {}, maxLine);
  const messages: JSONRPCMessage[] = [];
  t.onmessage = (m) => messages.push(m);
  await t.start();
  return { t, messages, replies: () => written.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: unknown; error?: { code: number } }) };
}

/** Feeds `text` to the transport's data handler in pipe-sized pieces, as a 64 KiB pipe delivers it. */
function feed(t: StrictStdioServerTransport, text: string, piece = 64 * 1024): void {
  // The handler is what stdin's 'data' event calls; calling it directly keeps the test synchronous.
  const onData = (t as unknown as { onData: (chunk: Buffer | string) => void }).onData;
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += piece) onData(bytes.subarray(i, i + piece));
}

describe('StrictStdioServerTransport framing', () => {
  it('a line of almost 16 MiB arriving in 64 KiB pieces is handled in linear time (issue 15 probe: 15 MiB took 15 s, the whole line rescanned per piece)', async () => {
    const { t, messages } = await transport();
    const frame = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { pad: 'p'.repeat(16 * 1024 * 1024 - 200) } } });
    const start = performance.now();
    feed(t, `${frame}\n`);
    const ms = performance.now() - start;
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ id: 1, method: 'ping' });
    // Linear is well under a second here; the quadratic scan was over ten.
    expect(ms).toBeLessThan(4000);
  }, 60_000);

  it('a line over the limit is answered once, -32600 with id null, and the next line is served', async () => {
    const { t, messages, replies } = await transport(1000);
    feed(t, `"${'a'.repeat(5000)}"\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`, 100);
    expect(replies()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: message longer than 1000 bytes' } }]);
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('a line over the limit that arrives in one piece is refused too, and frames around it are served', async () => {
    const { t, messages, replies } = await transport(1000);
    feed(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}\n"${'a'.repeat(5000)}"\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`, 1 << 20);
    expect(replies()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: message longer than 1000 bytes' } }]);
    expect(messages.map((m) => (m as { id: number }).id)).toEqual([1, 2]);
  });

  it('a frame split inside a multi-byte character, and several frames in one piece, arrive whole', async () => {
    const { t, messages } = await transport();
    feed(t, `{"jsonrpc":"2.0","id":"é€😀","method":"ping"}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\r\n`, 1);
    expect(messages.map((m) => (m as { id: unknown }).id)).toEqual(['é€😀', 3]);
  });
});

describe('messages that say what is wrong', () => {
  it('a batch member that is itself an array is refused as such, not with the stdio rule "one message per line"', () => {
    // HTTP takes batches; `[[]]` was told "batches are not supported (MCP sends one message per line)".
    for (const member of [[], [{ jsonrpc: '2.0', id: 1, method: 'ping' }]]) {
      const [v] = checkBatch([member]);
      expect(v).toEqual({ kind: 'reply', reply: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a batch member must be a JSON object, not an array (batches do not nest)' } } });
    }
    // On stdio a top-level array is still a batch, which MCP does not send there.
    expect(checkLine('[]')).toMatchObject({ reply: { error: { message: 'Invalid Request: batches are not supported (MCP sends one message per line)' } } });
  });

  it('a malformed _meta says where and what, not "(params): Invalid input"', () => {
    const check = (meta: unknown) => (checkMessage({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: meta } }) as { reply: { id: unknown; error: { code: number; message: string } } }).reply;
    expect(check(5)).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Invalid params: params._meta: Invalid input: expected object, received number' } });
    expect(check(null).error.message).toBe('Invalid params: params._meta: Invalid input: expected object, received null');
    expect(check({ progressToken: {} }).error.message).toBe('Invalid params: params._meta.progressToken: Invalid input: expected string or number, received object');
    expect(check({ progressToken: 1.5 }).error.message).toBe('Invalid params: params._meta.progressToken: Invalid input: expected string or int, received number');
  });
});

describe('a shared id in a batch', () => {
  it('is quoted cut short in the message (s45 probe: a 100,000-character id came back twice whole, in the id and in the message)', () => {
    const id = 'i'.repeat(100_000);
    const verdicts = checkBatch([
      { jsonrpc: '2.0', id, method: 'ping' },
      { jsonrpc: '2.0', id, method: 'ping' },
    ]);
    for (const v of verdicts) {
      expect(v).toMatchObject({ kind: 'reply', reply: { id, error: { code: -32600 } } });
      expect((v as { reply: { error: { message: string } } }).reply.error.message.length).toBeLessThan(400);
    }
  });
});

describe('checkMessage and responses', () => {
  it('an object with "result" or "error" and no "method" is never answered, whatever its id, jsonrpc or other members (property; issue 15 probe: id null got -32600, a reply to a reply)', () => {
    const id = fc.oneof(fc.constant(null), fc.integer(), fc.double(), fc.string(), fc.jsonValue(), fc.constant(undefined));
    const member = fc.constantFrom('result', 'error', 'both');
    fc.assert(
      fc.property(id, fc.oneof(fc.constant('2.0'), fc.jsonValue(), fc.constant(undefined)), member, fc.jsonValue(), fc.dictionary(fc.string().filter((k) => k !== 'method' && k !== '__proto__'), fc.jsonValue(), { maxKeys: 2 }), (idValue, jsonrpc, which, payload, extra) => {
        const message: Record<string, unknown> = { ...extra };
        if (jsonrpc !== undefined) message.jsonrpc = jsonrpc;
        else delete message.jsonrpc;
        if (idValue !== undefined) message.id = idValue;
        else delete message.id;
        if (which !== 'error') message.result = payload;
        if (which !== 'result') message.error = payload;
        expect(checkMessage(message).kind).not.toBe('reply');
      }),
    );
  });

  it('an error response of id null is dropped, a well-formed one with an integer id still goes to the server', () => {
    expect(checkLine('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}')).toMatchObject({ kind: 'drop' });
    expect(checkLine('{"jsonrpc":"2.0","id":3,"error":{"code":-32700,"message":"Parse error"}}')).toMatchObject({ kind: 'message' });
    expect(checkLine('{"jsonrpc":"2.0","id":3,"result":{}}')).toMatchObject({ kind: 'message' });
    // Not a response: nothing to do, so still -32600.
    expect(checkLine('{"jsonrpc":"2.0","id":3}')).toMatchObject({ kind: 'reply', reply: { id: 3, error: { code: -32600 } } });
  });
});

describe('withoutCodePrefix', () => {
  it("an McpError's reply says its message once, whatever the code and message; any other message is left as it is (property)", () => {
    fc.assert(
      fc.property(fc.integer(), fc.string(), fc.oneof(fc.integer(), fc.string()), (code, text, id) => {
        fc.pre(!text.startsWith(`MCP error ${code}: `));
        const thrown = new McpError(code, text);
        // What the SDK sends for a handler that threw it.
        const sent = { jsonrpc: '2.0', id, error: { code: thrown.code, message: thrown.message } } as JSONRPCMessage;
        const out = withoutCodePrefix(sent) as unknown as { error: { code: number; message: string } };
        expect(out.error.code).toBe(code);
        expect(`MCP error ${code}: ${out.error.message}`).toBe(thrown.message);
        expect(out.error.message.startsWith(`MCP error ${code}: `)).toBe(false);
        // Once without it, nothing more comes off.
        expect(withoutCodePrefix(out as unknown as JSONRPCMessage)).toBe(out);
      }),
    );
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const m = value as unknown as JSONRPCMessage;
        const text = JSON.stringify(value);
        if (!/MCP error/.test(text)) expect(withoutCodePrefix(m)).toBe(m);
        expect(JSON.stringify(value)).toBe(text);
      }),
    );
  });

  it('a request or notification carrying such text is not touched; another code\'s prefix stays', () => {
    const request = { jsonrpc: '2.0', id: 1, method: 'x', params: { error: { code: 1, message: 'MCP error 1: y' } } } as unknown as JSONRPCMessage;
    expect(withoutCodePrefix(request)).toBe(request);
    const other = { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'MCP error -32603: y' } } as JSONRPCMessage;
    expect(withoutCodePrefix(other)).toBe(other);
    // An McpError made from another's message.
    const twice = new McpError(-32602, new McpError(-32602, 'y').message);
    expect(withoutCodePrefix({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: twice.message } } as JSONRPCMessage)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'y' } });
  });
});
