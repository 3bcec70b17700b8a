// The MCP server as an agent sees it: the SDK's own Client over stdio, spawning the built
// `docs-store mcp` (a real child process, a real SQLite file, the local provider). The
// bundle is built by ensureBuilt, which the other test files that spawn the bin share.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureBuilt, REPO } from './test-build.js';
import { connectMcpClient } from './test-mcp-client.js';

const NATIVE_AOT = 'docs/deployment/native-aot/golden-reference.md';

let ws: string;
let client: Client;
beforeAll(async () => {
  await ensureBuilt();
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-mcp-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  ({ client } = await connectMcpClient(ws, 'docs-store-test'));
});
afterAll(async () => {
  await client?.close();
  rmSync(ws, { recursive: true, force: true });
});

type Result = { content: { type: string; text: string }[]; isError?: boolean };
async function call(name: string, args: Record<string, unknown>): Promise<{ value: unknown; isError: boolean; text: string }> {
  const r = (await client.callTool({ name, arguments: args })) as Result;
  const text = r.content[0]!.text;
  return { value: r.isError ? null : JSON.parse(text), isError: r.isError === true, text };
}

it('lists its tools with input schemas', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(['expand_chunk', 'ingest_artifact', 'search_docs', 'store_stats']);
  const search = tools.find((t) => t.name === 'search_docs')!;
  expect(search.inputSchema.required).toEqual(['query']);
  expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['query', 'limit', 'mode', 'topic', 'content_hints', 'expand']));
});

it('ingests, searches, expands; re-ingest is a no-op; bad input is a tool error and stores nothing', async () => {
  const content = readFileSync(join(REPO, NATIVE_AOT), 'utf8');
  const ingested = await call('ingest_artifact', { content, source_system: 'file', source_id: NATIVE_AOT, topic: 'native-aot' });
  expect(ingested.isError, ingested.text).toBe(false);
  const a = ingested.value as { artifact_id: string; status: string; is_chunked: boolean; num_chunks: number; stored_ids: string[] };
  expect(a).toMatchObject({ status: 'created', is_chunked: true });
  expect(a.stored_ids).toHaveLength(a.num_chunks + 1);
  const small = await call('ingest_artifact', { content: 'Trimming removes unused code from self-contained apps.', title: 'Note' });
  expect(small.value).toMatchObject({ status: 'created', is_chunked: false, num_chunks: 0 });

  // The same document with the same topic (a topic left out is stored as none: replaced).
  expect((await call('ingest_artifact', { content, source_system: 'file', source_id: NATIVE_AOT, topic: 'native-aot' })).value).toMatchObject({ status: 'unchanged' });

  // Routed (the default): each hit a unit with its chunk range; adjacent matches merge, so up to `limit` units.
  const search = await call('search_docs', { query: 'native AOT limitations', limit: 3, expand: 1 });
  const hits = search.value as { unit_id: string; chunk_index: number; source_file: string; chunks: { from: number; to: number }; merged_hits: number; text: string }[];
  expect(hits.length).toBeGreaterThanOrEqual(1);
  expect(hits.length).toBeLessThanOrEqual(3);
  expect(hits[0]!.source_file).toBe(NATIVE_AOT);
  expect(hits[0]!.unit_id).toMatch(new RegExp(`^${a.artifact_id}::chunk::\\d{3}::[0-9a-f]{8}$`));
  for (const h of hits) {
    // expand 1: the unit with a neighbour on each side (where the document has one), its best chunk inside.
    expect(h.chunks.from).toBeLessThanOrEqual(h.chunk_index);
    expect(h.chunks.to).toBeGreaterThanOrEqual(h.chunk_index);
    expect(h.text.split('\n[CHUNK BOUNDARY]\n')).toHaveLength(h.chunks.to - h.chunks.from + 1);
    expect(h.merged_hits).toBeGreaterThanOrEqual(1);
  }
  expect(hits[0]!.text).toContain('[CHUNK BOUNDARY]');
  // The same units as the store's own routed search.
  const unrouted = await call('search_docs', { query: 'native AOT limitations', limit: 3, expand: 1, routes: false });
  const rrf = unrouted.value as { unit_id: string; ranks: { fts?: number; vector?: number }; chunks?: unknown; text: string }[];
  expect(rrf).toHaveLength(3);
  for (const h of rrf) {
    expect(h.chunks).toBeUndefined();
    expect(Object.keys(h.ranks).length).toBeGreaterThan(0);
  }

  // s39 probe: a topic no document has came back [] as if the docs did not cover the question.
  const typo = await call('search_docs', { query: 'native AOT limitations', topic: 'native-ahead' });
  expect(typo).toMatchObject({ isError: true, text: 'topic "native-ahead": no stored topic matches (topics: native-aot); give a topic\'s path or its last segments' });
  const type = await call('search_docs', { query: 'native AOT limitations', content_type: 'api' });
  expect(type).toMatchObject({ isError: true, text: 'content type "api": no stored document has this content type (content types: doc)' });

  const expanded = await call('expand_chunk', { chunk_id: a.stored_ids[2]!, k: 1 });
  expect(expanded.value).toMatchObject({ artifact_id: a.artifact_id, chunk_indices: [0, 1, 2] });

  const before = (await call('store_stats', {})).value as { artifacts: number; chunks: number };
  const bad = await call('ingest_artifact', { content: 'bin\u0000ary' });
  expect(bad.isError).toBe(true);
  expect(bad.text).toMatch(/binary content \(contains NUL characters\)/);
  // artifact_type opens every chunk id: a ":" or a newline is refused by name (s37 probe).
  const badType = await client.callTool({ name: 'ingest_artifact', arguments: { content: 'Some text.', artifact_type: 'api:v2' } }).then(
    (r) => JSON.stringify(r),
    (e: unknown) => String(e),
  );
  expect(badType).toMatch(/artifact_type/);
  expect(badType).toMatch(/one word without/);
  expect((await call('store_stats', {})).value).toMatchObject({ artifacts: before.artifacts, chunks: before.chunks });
  // A 30,000-character line is documentation (a base64 image), stored as chunking-tool chunks it.
  const long = await call('ingest_artifact', { content: `# Image\n\n${'y'.repeat(30_000)}\n`, source_id: 'long.md' });
  expect(long.isError).toBe(false);
  expect((await call('store_stats', {})).value).toMatchObject({ artifacts: before.artifacts + 1 });

  // A blank query matched every chunk with score 0; now it is invalid arguments.
  const blank = await call('search_docs', { query: ' \n ' });
  expect(blank.isError).toBe(true);
  expect(blank.text).toMatch(/Invalid arguments for tool search_docs: query is blank: give the words to search for/);

  const unknown = await call('expand_chunk', { chunk_id: 'art_nope' });
  expect(unknown).toMatchObject({ isError: true, text: 'no chunk or artifact with id art_nope' });
});

it('over stdio too: chunks as chunk:// resources, the template, and the prompt answering from retrieved chunks', async () => {
  const { resourceTemplates } = await client.listResourceTemplates();
  expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['chunk://{artifact_id}/{chunk_index}']);
  const { resources } = await client.listResources();
  const stats = (await call('store_stats', {})).value as { units: number };
  expect(resources).toHaveLength(stats.units);
  const whole = resources.find((r) => r.uri.endsWith('/whole'))!;
  expect((await client.readResource({ uri: whole.uri })).contents[0]).toMatchObject({ uri: whole.uri, text: 'Trimming removes unused code from self-contained apps.' });
  const chunk = resources.find((r) => /\/2$/.test(r.uri))!;
  const read = (await client.readResource({ uri: chunk.uri })).contents[0] as unknown as { text: string; _meta: { unit_id: string; source_file: string } };
  expect(read._meta.source_file).toBe(NATIVE_AOT);
  expect(read._meta.unit_id).toMatch(/::chunk::002::/);
  expect(readFileSync(join(REPO, NATIVE_AOT), 'utf8')).toContain(read.text);

  // s40 probe: chunk://<id>/02 read chunk 2, so one chunk had many URIs (and a client that
  // compares URIs, for citations or a cache, saw different chunks). Only the form the list gives is one.
  const base = chunk.uri.slice(0, -'2'.length);
  for (const index of ['02', '002', '+2', '2.0', '2e0', '0x2', ' 2', 'Whole', 'whole/']) {
    await expect(client.readResource({ uri: `${base}${index}` }), index).rejects.toMatchObject({ code: -32002 });
  }
  await expect(client.readResource({ uri: `${base}0` })).resolves.toMatchObject({ contents: [{ uri: `${base}0` }] });

  const prompt = await client.getPrompt({ name: 'answer_from_docs', arguments: { question: 'How does trimming work?', limit: '2' } });
  const text = (prompt.messages[0]!.content as { text: string }).text;
  expect(text).toContain('Question: How does trimming work?');
  // Up to 2 routed units (adjacent matches merge into one).
  const cited = text.match(/^\[\d\] chunk:\/\/art_[0-9a-f]{8}\/(\d+|whole) \(/gm) ?? [];
  expect(cited.length).toBeGreaterThanOrEqual(1);
  expect(cited.length).toBeLessThanOrEqual(2);
  expect(text).toContain('Trimming removes unused code from self-contained apps.');
  // A topic no document has is the client's mistake (-32602), not a server fault (-32603).
  await expect(client.getPrompt({ name: 'answer_from_docs', arguments: { question: 'How does trimming work?', topic: 'native-ahead' } })).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining('topic "native-ahead": no stored topic matches (topics: native-aot)'),
  });
});

it('the bin runs the built bundle as a plain process', async () => {
  const out = await new Promise<{ code: number; text: string }>((resolve) =>
    execFile(process.execPath, [join(REPO, 'apps/docs-store/bin/docs-store.js'), 'stats', '--db', join(ws, 'none.db')], { cwd: ws, encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ code: typeof err?.code === 'number' ? err.code : 0, text: stdout + stderr }),
    ),
  );
  expect(out.code).toBe(1);
  expect(out.text).toMatch(/none\.db: cannot open the store .*run "docs-store ingest" first/);
});
