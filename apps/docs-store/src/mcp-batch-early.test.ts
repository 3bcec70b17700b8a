// A batch sent right behind initialize, before its answer, on stdio, as the bytes on the wire
// (s55 probe): MCP lets a client send pings before the initialize answer, and 2025-03-26 says a
// server MUST take batches, yet a client that proposed 2025-03-26 and sent [ping] at once got
// -32600 "batches are not supported": the line was read before the version was agreed. Such
// lines now wait for the answer. The built bin, real pipes.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt, REPO } from './test-build.js';
import { initialize, rawMcp, type RawReply as Reply } from './test-mcp.js';

let ws: string;
beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-batch-early-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  await ensureBuilt();
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const NOT_SUPPORTED = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: batches are not supported (MCP sends one message per line)' } };

/** initialize with `version`, then `lines` at once, in one write, and the end of input; every reply line. */
function pipelined(version: string, lines: string[]): (Reply | Reply[])[] {
  const r = rawMcp(ws, [initialize('init', version), ...lines]);
  expect(r.status, r.stderr).toBe(0);
  const replies = r.replies;
  expect(replies.filter((l) => !Array.isArray(l) && l.id === 'init')).toMatchObject([{ result: { protocolVersion: version } }]);
  return replies.filter((l) => Array.isArray(l) || l.id !== 'init');
}

it('2025-03-26: each batch is answered as a batch, an empty one and a broken one as ever', () => {
  const lines = pipelined('2025-03-26', [
    '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"tools/list"},5]',
    '[]',
    '[1',
    '{"jsonrpc":"2.0","id":4,"method":"ping"}',
  ]);
  expect(lines).toHaveLength(5);
  expect(lines).toContainEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  const three = lines.find((l): l is Reply[] => Array.isArray(l) && l.length === 3);
  expect(three?.map((r) => [r.id, r.error?.code ?? 'ok'])).toEqual(expect.arrayContaining([[null, -32600], [2, 'ok'], [3, 'ok']]));
  expect(lines).toContainEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: an empty batch' } });
  expect(lines).toContainEqual(expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32700 }) }));
  expect(lines).toContainEqual({ jsonrpc: '2.0', id: 4, result: {} });
}, 60_000);

it('any version, any batches of pings right behind initialize: arrays where the agreed version has batches, -32600 where not (property)', () => {
  const batches = fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 });
  fc.assert(
    fc.property(fc.constantFrom('2025-03-26', '2025-06-18', '2024-11-05', '2025-11-25'), batches, (version, sizes) => {
      let next = 1;
      const sent = sizes.map((n) => Array.from({ length: n }, () => next++));
      const lines = pipelined(version, sent.map((ids) => JSON.stringify(ids.map((id) => ({ jsonrpc: '2.0', id, method: 'ping' })))));
      if (version === '2025-03-26') {
        const got = lines.map((l) => (Array.isArray(l) ? l.map((r) => r.id).sort((a, b) => Number(a) - Number(b)) : l));
        expect(got.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(sent.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))));
      } else {
        expect(lines).toEqual(sent.map(() => NOT_SUPPORTED));
      }
    }),
    { numRuns: 12 },
  );
}, 120_000);
