// chunk:// URIs in any letter case of the scheme and the artifact id, read through the SDK's own
// Client over stdio from the built `docs-store mcp`. The artifact id is the URI's host, which
// RFC 3986 (3.2.2, 6.2.2.1) makes case-insensitive, like the scheme: chunk://ART_BCE4897F/3
// names chunk://art_bce4897f/3, but the server looked the id up as written and answered -32002.
// The path (the chunk index, `whole`) stays case-sensitive, as RFC 3986 has it.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt, REPO } from './test-build.js';
import { connectMcpClient, ingestArtifact, readResource } from './test-mcp-client.js';

const NATIVE_AOT = 'docs/deployment/native-aot/golden-reference.md';
const SHORT = '# Short\n\nA document small enough to be stored whole.\n';

let ws: string;
let client: Client;
let id = '';
let wholeId = '';
let chunks = 0;
beforeAll(async () => {
  await ensureBuilt();
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-uri-case-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  ({ client } = await connectMcpClient(ws, 'docs-store-uri-case-test'));
  const ingest = (content: string, sourceId: string) => ingestArtifact(client, content, sourceId);
  const a = await ingest(readFileSync(join(REPO, NATIVE_AOT), 'utf8'), NATIVE_AOT);
  id = a.artifact_id;
  chunks = a.num_chunks;
  const w = await ingest(SHORT, 'short.md');
  expect(w.is_chunked).toBe(false);
  wholeId = w.artifact_id;
}, 120_000);
afterAll(async () => {
  await client?.close();
  rmSync(ws, { recursive: true, force: true });
});

const read = (uri: string) => readResource(client, uri);

it('an artifact id in upper case reads the chunk, answered with the URI the list gives', async () => {
  expect(id).toMatch(/^art_[0-9a-f]{8}$/);
  const three = await read(`chunk://${id}/3`);
  // Before: -32002 "Resource not found: chunk://ART_…/3 (no chunk 3 in ART_…)".
  expect(await read(`chunk://${id.toUpperCase()}/3`)).toEqual(three);
  expect(await read(`CHUNK://${id.toUpperCase()}/3`)).toEqual(three);
  expect(await read(`chunk://${wholeId.toUpperCase()}/whole`)).toEqual(await read(`chunk://${wholeId}/whole`));
  // An escape of an upper-case letter is that letter (RFC 3986 2.3), so the same chunk too.
  expect(await read(`chunk://%41${id.slice(1)}/3`)).toEqual(three);
});

it('property: any letter case of the scheme and the id reads the same chunk', async () => {
  await fc.assert(
    fc.asyncProperty(fc.nat({ max: chunks - 1 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 17 }), async (n, picks) => {
      const mix = (s: string) => [...s].map((c, i) => (picks[i % picks.length] ? c.toUpperCase() : c)).join('');
      expect(await read(`${mix('chunk')}://${mix(id)}/${n}`)).toEqual(await read(`chunk://${id}/${n}`));
    }),
    { numRuns: 40 },
  );
});

it('the path keeps its case, and an id that is another id in no case is still -32002', async () => {
  await expect(read(`chunk://${wholeId}/WHOLE`)).rejects.toMatchObject({ code: -32002 });
  await expect(read(`chunk://${wholeId}/Whole`)).rejects.toMatchObject({ code: -32002 });
  await expect(read('chunk://ART_00000000/3')).rejects.toMatchObject({ code: -32002, message: expect.stringContaining('no chunk 3 in ART_00000000') });
  // Only ASCII letters fold: the Kelvin sign (U+212A) lower-cases to "k" in Unicode, not in a URI host.
  await expect(read(`chunk://\u212a${id}/3`)).rejects.toMatchObject({ code: -32002 });
  expect((await read(`chunk://${id}/3`)).uri).toBe(`chunk://${id}/3`);
});
