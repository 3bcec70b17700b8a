// A tools/call whose arguments hold "__proto__", as the bytes on the wire (s55 probe): every
// other argument a tool does not take is named in an error, but this one was dropped without a
// word (zod copies arguments into a new object, where the key sets the prototype), so
// {"query":"x","__proto__":{"limit":1000}} searched as if it were absent. The built bin, real pipes.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt, REPO } from './test-build.js';
import { initialize, INITIALIZED, rawMcp } from './test-mcp.js';

type Reply = { id: string | number | null; result?: { isError?: boolean }; error?: { code: number; message: string } };

let ws: string;
beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-proto-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  await ensureBuilt();
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

/** Writes each raw frame after initialize, ends the input, and returns the replies by id. */
function session(frames: string[]): Map<unknown, Reply> {
  const r = rawMcp<Reply>(ws, [initialize(), INITIALIZED, ...frames], { timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return new Map(r.replies.map((reply) => [reply.id, reply]));
}

const TOOLS = {
  search_docs: '"query":"x"',
  store_stats: '',
  expand_chunk: '"chunk_id":"art_00000000"',
  ingest_artifact: '"content":"A document."',
} as const;

it('is -32602 naming the argument, for every tool, whatever the value and wherever the key stands (property)', () => {
  // Any JSON value under the key, including one holding arguments the tool takes.
  const value = fc.oneof(fc.json(), fc.constant('{"limit":1000}'), fc.constant('{"query":"y"}'), fc.constant('null'));
  const frame = fc.record({ tool: fc.constantFrom(...(Object.keys(TOOLS) as (keyof typeof TOOLS)[])), value, first: fc.boolean() });
  fc.assert(
    fc.property(fc.array(frame, { minLength: 1, maxLength: 8 }), (calls) => {
      const frames = calls.map(({ tool, value, first }, i) => {
        const own = TOOLS[tool];
        const members = first ? `"__proto__":${value}${own ? `,${own}` : ''}` : `${own ? `${own},` : ''}"__proto__":${value}`;
        return `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"${tool}","arguments":{${members}}}}`;
      });
      // Last, store_stats: tool calls run in the order they came, so an ingest that ran shows in it.
      const replies = session([...frames, '{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"store_stats","arguments":{}}}']);
      calls.forEach(({ tool }, i) => {
        expect(replies.get(i)).toEqual({ jsonrpc: '2.0', id: i, error: { code: -32602, message: `Invalid params for tools/call: "${tool}" takes no argument "__proto__"` } });
      });
      // Nothing ran: an ingest_artifact would have stored its document.
      expect(JSON.stringify(replies.get('s'))).toMatch(/\\"artifacts\\": 0/);
    }),
    { numRuns: 10 },
  );
}, 180_000);

it('other arguments are served as before, and a key merely named like it is a tool error naming it', () => {
  const replies = session([
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"store_stats","arguments":{}}}',
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"store_stats","arguments":{"__proto":1}}}',
  ]);
  expect(replies.get(1)).toMatchObject({ id: 1, result: { content: [{ type: 'text' }] } });
  expect(replies.get(1)!.result!.isError).toBeUndefined();
  expect(replies.get(2)).toMatchObject({ id: 2, result: { isError: true, content: [{ text: expect.stringContaining('Unrecognized key: "__proto"') }] } });
}, 60_000);
