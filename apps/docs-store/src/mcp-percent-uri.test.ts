// chunk:// URIs with percent-escapes, read through the SDK's own Client over stdio from the
// built `docs-store mcp`. RFC 3986 (§2.3, §6.2.2.2) makes a percent-encoded unreserved character
// (letters, digits, `-._~`) the same as the character: chunk://<id>/%33 is chunk://<id>/3. The
// server took the escape as it was and said "no chunk %33". Any other escape (`%2F`, a `/` that
// is data; a byte of a non-ASCII character) or a malformed one (`%zz`, `%E0%A4` cut short) names
// no resource: -32002 saying why, never an exception, and the server goes on answering.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt, REPO } from './test-build.js';
import { connectMcpClient, ingestArtifact, readResource } from './test-mcp-client.js';

const NATIVE_AOT = 'docs/deployment/native-aot/golden-reference.md';

let ws: string;
let client: Client;
let id = '';
let chunks = 0;
beforeAll(async () => {
  await ensureBuilt();
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-percent-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  ({ client } = await connectMcpClient(ws, 'docs-store-percent-test'));
  const a = await ingestArtifact(client, readFileSync(join(REPO, NATIVE_AOT), 'utf8'), NATIVE_AOT);
  id = a.artifact_id;
  chunks = a.num_chunks;
}, 120_000);
afterAll(async () => {
  await client?.close();
  rmSync(ws, { recursive: true, force: true });
});

const read = (uri: string) => readResource(client, uri);

it('a percent-encoded digit or letter reads the chunk it encodes, answered with the URI the list gives', async () => {
  expect(chunks).toBeGreaterThan(10);
  const three = await read(`chunk://${id}/3`);
  // Before: -32002 "Resource not found: chunk://art_…/%33 (no chunk %33 in art_…)".
  expect(await read(`chunk://${id}/%33`)).toEqual(three);
  expect(await read(`chunk://%61${id.slice(1)}/%33`)).toEqual(three);
  expect((await read(`chunk://${id}/%31%30`)).uri).toBe(`chunk://${id}/10`);
  // Still one spelling of the index itself (s40): an encoded leading zero is a leading zero.
  await expect(read(`chunk://${id}/%303`)).rejects.toMatchObject({ code: -32002 });
});

it('property: any of the characters of a listed URI\'s id and index percent-encoded (either hex case) reads the same chunk', async () => {
  await fc.assert(
    fc.asyncProperty(fc.nat({ max: chunks - 1 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 13 }), fc.boolean(), async (n, picks, upper) => {
      const plain = await read(`chunk://${id}/${n}`);
      // Only the escapes' hex digits change case: the id's own letters are kept as they are.
      const hex = (c: string) => c.charCodeAt(0).toString(16)[upper ? 'toUpperCase' : 'toLowerCase']();
      const enc = (s: string) => [...s].map((c, i) => (picks[i % picks.length] ? `%${hex(c)}` : c)).join('');
      expect(await read(`chunk://${enc(id)}/${enc(String(n))}`)).toEqual(plain);
    }),
    { numRuns: 40 },
  );
});

it('an encoded "/", "..", a non-ASCII byte or a malformed escape is -32002 naming why; the server answers on', async () => {
  const cases: [string, RegExp][] = [
    ['%2F3', /chunk index "%2F3": %2F encodes "\/" as data, which no chunk index holds/],
    ['3%2f', /chunk index "3%2f": %2f encodes "\/" as data/],
    ['..%2F3', /%2F encodes "\/" as data/],
    ['%2E%2E', /resources are chunk:\/\/<artifact id>\/<chunk index>/],
    ['%2E%2E%2F3', /%2F encodes "\/" as data/],
    ['%zz', /chunk index "%zz": "%zz" is a malformed percent-escape/],
    ['%3', /"%3" is a malformed percent-escape/],
    ['3%', /"%" is a malformed percent-escape/],
    ['%E0%A4', /chunk index "%E0%A4": %E0 is a byte of a non-ASCII character, which no chunk index holds/],
    ['%C3%A9', /%C3 is a byte of a non-ASCII character/],
    ['%00', /%00 encodes "\\u0000" as data/],
  ];
  for (const [index, message] of cases) {
    const err = await read(`chunk://${id}/${index}`).then(
      () => null,
      (e: { code: number; message: string }) => e,
    );
    expect(err, index).toMatchObject({ code: -32002 });
    expect(err!.message, index).toMatch(message);
  }
  await expect(read(`chunk://%zz${id}/3`)).rejects.toMatchObject({ code: -32002, message: expect.stringMatching(/artifact id "%zzart_[0-9a-f]{8}": "%zz" is a malformed percent-escape/) });
  await expect(read(`chunk://${id}%2F3/3`)).rejects.toMatchObject({ code: -32002, message: expect.stringMatching(/artifact id "art_[0-9a-f]{8}%2F3": %2F encodes "\/" as data/) });
  expect((await read(`chunk://${id}/3`)).uri).toBe(`chunk://${id}/3`);
});

it('property: an index of any characters and escapes, well formed or not, is a chunk or -32002, and the server answers on', async () => {
  const piece = fc.oneof(fc.constantFrom('%', '%2', '%zz', '%2F', '%2f', '%2E', '%33', '%E0', '%A4', '%C3%A9', '%00', '%25', '.', '..', '3', '0', 'whole', '~'), fc.string({ maxLength: 3 }).map(encodeURIComponent));
  await fc.assert(
    fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 5 }), async (pieces) => {
      const uri = `chunk://${id}/${pieces.join('')}`;
      const r = await read(uri).then(
        (c) => ({ ok: c }),
        (e: { code: number }) => ({ code: e.code }),
      );
      if ('ok' in r) expect(r.ok.uri).toMatch(new RegExp(`^chunk://${id}/(\\d+|whole)$`));
      else expect(r.code).toBe(-32002);
    }),
    { numRuns: 80 },
  );
  expect((await read(`chunk://${id}/0`)).uri).toBe(`chunk://${id}/0`);
});
