// A request whose id belongs to one still waiting for its reply, on stdio, as the bytes on the
// wire (s55 probe): a tools/call and a ping both sent as id 1 were both run and both answered
// as id 1, so the client could not tell the replies apart (MCP: a requestor MUST NOT reuse an
// id), while the same two in a batch were already refused. The built bin, real pipes.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO } from './test-build.js';
import { initialize, INITIALIZED, rawMcp, type RawReply as Reply } from './test-mcp.js';

let ws: string;
beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-reused-id-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  await ensureBuilt();
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

/**
 * Runs `docs-store mcp` with `frames` as its whole input, written at once (a few KiB: one read
 * of the pipe, so every frame is in before any reply is sent) and then closed; the replies by line.
 */
function session(frames: unknown[]): { replies: Reply[]; status: number | null; stderr: string } {
  const r = rawMcp<Reply>(ws, [initialize(), INITIALIZED, ...frames]);
  const replies = r.replies.filter((reply) => reply.id !== 'init');
  return { replies, status: r.status, stderr: r.stderr };
}

const IN_USE = (id: number | string) => ({ jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: id ${JSON.stringify(id)} belongs to a request not answered yet; give each request its own id` } });

describe('an id reused while its request waits', () => {
  it('the later request is -32600 and not run; the earlier one is answered as if alone, even when input ends at once', () => {
    const { replies, status, stderr } = session([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'store_stats', arguments: {} } },
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      // 1 and "1" are different ids (JSON compares them so).
      { jsonrpc: '2.0', id: '1', method: 'ping' },
    ]);
    expect(status, stderr).toBe(0);
    const one = replies.filter((r) => r.id === 1);
    expect(one).toHaveLength(2);
    expect(one).toContainEqual(IN_USE(1));
    // The tool call's reply, not the ping's ({}), is the one that ran.
    expect(one.find((r) => r.error === undefined)).toMatchObject({ id: 1, result: { content: [{ type: 'text' }] } });
    expect(replies.filter((r) => r.id === '1')).toEqual([{ jsonrpc: '2.0', id: '1', result: {} }]);
  }, 40_000);

  it('every request gets one reply, and of the requests sharing an id only the first runs (property)', () => {
    const request = fc.record({ id: fc.constantFrom<number | string>(1, 2, '1', 'x', 0), method: fc.constantFrom('ping', 'tools/list', 'store_stats') });
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 12 }), (requests) => {
        const frames = requests.map(({ id, method }) =>
          method === 'store_stats' ? { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'store_stats', arguments: {} } } : { jsonrpc: '2.0', id, method },
        );
        const { replies, status, stderr } = session(frames);
        expect(status, stderr).toBe(0);
        for (const id of new Set(requests.map((r) => r.id))) {
          const sent = requests.filter((r) => r.id === id);
          const got = replies.filter((r) => r.id === id);
          expect(got).toHaveLength(sent.length);
          const ran = got.filter((r) => r.error === undefined);
          expect(ran).toHaveLength(1);
          // The first request of the id is the one that ran: its reply has that method's shape.
          const shape = { ping: {}, 'tools/list': { tools: expect.any(Array) }, store_stats: { content: expect.any(Array) } }[sent[0]!.method];
          expect(ran[0]!.result).toEqual(sent[0]!.method === 'ping' ? {} : expect.objectContaining(shape));
          expect(got.filter((r) => r.error !== undefined)).toEqual(Array.from({ length: sent.length - 1 }, () => IN_USE(id)));
        }
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});
