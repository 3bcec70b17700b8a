// A tools/call whose arguments are large in count, as the bytes on the wire (issue 15 probe,
// helper 91). The SDK's validation message listed every argument a tool does not take, each
// whole: 300,000 of them came back as a 3.8 MB tool error, and one 3 MB name as a 3 MB one;
// 200,000 content_hints that are no hint made zod overflow the stack ("Maximum call stack size
// exceeded" was the whole answer). Names are quoted as the JSON-RPC errors quote them (five at
// most, each to 100 characters, with a count of the rest), and content_hints takes 100 entries
// at most. The built bin, real pipes, a real store.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt, REPO } from './test-build.js';
import { initialize, INITIALIZED, rawMcp } from './test-mcp.js';

type Reply = { id: string | number | null; result?: { isError?: boolean; content: { text: string }[] }; error?: { code: number; message: string } };

let ws: string;
beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-argsize-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  await ensureBuilt();
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

function session(frames: string[]): Map<unknown, Reply> {
  const r = rawMcp<Reply>(ws, [initialize(), INITIALIZED, ...frames], { timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  return new Map(r.replies.map((reply) => [reply.id, reply]));
}

const call = (id: number, name: string, args: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":{${args}}}}`;
const keys = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',');
const toolError = (reply: Reply | undefined): string => {
  expect(reply?.result?.isError).toBe(true);
  return reply!.result!.content[0]!.text;
};

it('arguments a tool does not take are named five at most, each cut to 100 characters, with a count of the rest', () => {
  const replies = session([
    call(1, 'search_docs', `"query":"x",${keys(300_000)}`),
    call(2, 'store_stats', `"${'K'.repeat(3_000_000)}":1`),
    call(3, 'expand_chunk', `"chunk_id":"x",${keys(7)}`),
    call(4, 'store_stats', '"only":1'),
  ]);
  const one = toolError(replies.get(1));
  expect(one.length).toBeLessThan(1000);
  expect(one).toContain('Unrecognized keys: "k0", "k1", "k2", "k3", "k4" and 299995 more');
  const two = toolError(replies.get(2));
  expect(two.length).toBeLessThan(1000);
  expect(two).toContain(`Unrecognized key: "${'K'.repeat(100)}…"`);
  expect(toolError(replies.get(3))).toContain('Unrecognized keys: "k0", "k1", "k2", "k3", "k4" and 2 more');
  expect(toolError(replies.get(4))).toContain('Unrecognized key: "only"');
}, 120_000);

it('content_hints of more than 100 entries is a short tool error, valid or not; up to 100 are searched (property)', () => {
  fc.assert(
    fc.property(fc.integer({ min: 101, max: 200_000 }), fc.constantFrom('"zz"', '"code"', '1'), (n, entry) => {
      const replies = session([call(1, 'search_docs', `"query":"x","content_hints":[${Array(n).fill(entry).join(',')}]`)]);
      const text = toolError(replies.get(1));
      expect(text.length).toBeLessThan(1000);
      expect(text).toContain('content_hints');
      expect(text).not.toContain('call stack');
    }),
    { numRuns: 4 },
  );
  // At the bound it is searched (an empty store says so: the arguments were taken).
  const replies = session([call(2, 'search_docs', `"query":"x","content_hints":[${Array(100).fill('"code"').join(',')}]`)]);
  expect(toolError(replies.get(2))).toContain('an empty database');
}, 240_000);
