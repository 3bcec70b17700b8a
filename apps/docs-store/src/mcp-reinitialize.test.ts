// A second initialize on stdio, as the bytes on the wire (issue 15 probe): MCP's lifecycle opens a
// session with one initialize, yet the SDK's server answered every one, so a client could switch
// the agreed version mid-session (2025-06-18 to 2025-03-26, after which batches were taken) and
// replace the capabilities it had declared. A later initialize is now -32600, as the SDK's own
// Streamable HTTP transport answers it; one whose answer was an error opened nothing, so a retry
// is served. The built bin, real pipes.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt, REPO } from './test-build.js';
import { initialize as init, rawMcp } from './test-mcp.js';

type Reply = { jsonrpc: string; id: string | number | null; result?: { protocolVersion?: string }; error?: { code: number; message: string } };

let ws: string;
beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-reinit-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  await ensureBuilt();
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18'];

/** `frames` as the whole input of `docs-store mcp`, one per line, in one write; every reply line. */
function session(frames: unknown[]): (Reply | Reply[])[] {
  const r = rawMcp<Reply | Reply[]>(ws, frames);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return r.replies;
}

it('a second initialize is -32600 with its id, and the version agreed first still holds (no batches under 2025-06-18)', () => {
  const replies = session([
    init(0, '2025-06-18'),
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    init(1, '2025-03-26'),
    '[{"jsonrpc":"2.0","id":2,"method":"ping"}]',
    '[{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}]',
    { jsonrpc: '2.0', id: 4, method: 'ping' },
  ]);
  expect(replies).toHaveLength(5);
  expect(replies).toContainEqual(expect.objectContaining({ id: 0, result: expect.objectContaining({ protocolVersion: '2025-06-18' }) }));
  // Read in the same chunk as the first, it may come before that one is answered.
  expect(replies).toContainEqual({
    jsonrpc: '2.0',
    id: 1,
    error: { code: -32600, message: expect.stringMatching(/^Invalid Request: the server is already initialized \((protocol version 2025-06-18 was agreed|an initialize is being answered)\); initialize is sent once/) },
  });
  // Both batches are refused as 2025-06-18 has no batches: the version was not switched.
  expect(replies.filter((r) => !Array.isArray(r) && r.id === null && r.error?.code === -32600)).toHaveLength(2);
  expect(replies).toContainEqual({ jsonrpc: '2.0', id: 4, result: {} });
}, 60_000);

it('an initialize sent before the first is answered is -32600 too; a batch holding one under 2025-03-26 answers it in the array', () => {
  const replies = session([init('a', '2025-03-26'), init('b', '2025-06-18'), '[{"jsonrpc":"2.0","id":"c","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}},{"jsonrpc":"2.0","id":"d","method":"ping"}]']);
  expect(replies).toContainEqual(expect.objectContaining({ id: 'a', result: expect.objectContaining({ protocolVersion: '2025-03-26' }) }));
  expect(replies).toContainEqual(expect.objectContaining({ id: 'b', error: expect.objectContaining({ code: -32600, message: expect.stringContaining('already initialized') }) }));
  const batch = replies.find((r): r is Reply[] => Array.isArray(r));
  expect(batch?.map((r) => [r.id, r.error?.code ?? 'ok'])).toEqual(expect.arrayContaining([['c', -32600], ['d', 'ok']]));
  expect(replies).toHaveLength(3);
}, 60_000);

it('an initialize answered with an error opened no session: the next one is served', () => {
  const replies = session([{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } }, init(2, '2025-06-18'), init(3, '2025-06-18')]);
  // In the order of their ids: a refusal is written at once, before an answer the server works out.
  expect(replies.map((r) => [(r as Reply).id, (r as Reply).error?.code ?? 'ok']).sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual([
    [1, -32602],
    [2, 'ok'],
    [3, -32600],
  ]);
}, 60_000);

it('any run of initialize requests: exactly the first is answered with a version, each other gets one -32600 (property)', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...VERSIONS), { minLength: 1, maxLength: 5 }), fc.boolean(), (versions, pingBetween) => {
      const frames = versions.flatMap((v, i) => [init(i, v), ...(pingBetween ? [{ jsonrpc: '2.0', id: `p${i}`, method: 'ping' }] : [])]);
      const replies = session(frames) as Reply[];
      expect(replies).toHaveLength(frames.length);
      const inits = replies.filter((r) => typeof r.id === 'number');
      expect(inits.map((r) => r.id).sort()).toEqual(versions.map((_, i) => i));
      expect(inits.filter((r) => r.result)).toEqual([expect.objectContaining({ id: 0, result: expect.objectContaining({ protocolVersion: versions[0] }) })]);
      expect(inits.filter((r) => r.error?.code === -32600)).toHaveLength(versions.length - 1);
    }),
    { numRuns: 8 },
  );
}, 120_000);
