// The answer_from_docs prompt and the search_docs tool through the SDK's own Client, linked in memory to the server
// createMcpServer makes over a real SQLite store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocStore, type StoreEmbedder } from '@chunkyard/store';
import { connectGuarded, createMcpServer } from './mcp.js';

/** Every text the same direction: retrieval then rests on BM25, which these tests do not need. */
const embedder: StoreEmbedder = {
  model: 'flat-d4',
  embed: (texts) => Promise.resolve(texts.map(() => Float32Array.of(1, 0, 0, 0))),
};

let dir: string;
let store: DocStore;
let client: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chunkyard-mcp-prompt-'));
  store = DocStore.open(join(dir, 'store.db'));
  await store.ingest([{ content: '# WAL\n\nThe store runs SQLite in WAL mode.\n', sourceSystem: 'test' }], embedder);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connectGuarded(createMcpServer(store, embedder, '0.0.0'), serverSide, () => {});
  client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('answer_from_docs', () => {
  it('answers a question from the retrieved chunks', async () => {
    const p = await client.getPrompt({ name: 'answer_from_docs', arguments: { question: 'WAL mode?' } });
    expect(p.description).toBe('1 chunk retrieved for the question');
  });

  it.each(['', ' ', '  \n\t '])('refuses a blank question (%j) with -32602, as search_docs refuses a blank query', async (question) => {
    await expect(client.getPrompt({ name: 'answer_from_docs', arguments: { question } })).rejects.toMatchObject({ code: -32602 });
    await expect(client.getPrompt({ name: 'answer_from_docs', arguments: { question } })).rejects.toThrow(question === '' ? /question/ : /question is blank/);
  });
});

describe('search_docs', () => {
  const search = async (args: Record<string, unknown>) => (await client.callTool({ name: 'search_docs', arguments: args })) as { content: { text: string }[]; isError?: boolean };

  it.each(['fts', 'vector'])('refuses routes with mode %s (it has none), as the CLI refuses --no-routes there', async (mode) => {
    for (const routes of [false, true]) {
      const r = await search({ query: 'WAL', mode, routes });
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toBe(`routes is for hybrid search; mode ${mode} has no routes: leave routes out`);
    }
  });

  it('takes routes with hybrid search, said or not', async () => {
    for (const args of [{ routes: false }, { routes: true, mode: 'hybrid' }, { mode: 'fts' }]) {
      const r = await search({ query: 'WAL', ...args });
      expect(r.isError, r.content[0]!.text).toBeUndefined();
      expect(JSON.parse(r.content[0]!.text)).toHaveLength(1);
    }
  });
});

describe('resources/read of a chunk that does not exist', () => {
  const read = (uri: string) => client.readResource({ uri }).then(
    () => {
      throw new Error('read a resource that does not exist');
    },
    (err: { code: number; message: string; data?: { uri?: string } }) => err,
  );

  it('is -32002 naming the URI; a long URI is cut short in the message, not repeated (it came back three times whole)', async () => {
    const short = await read('chunk://art_00000000/3');
    expect(short).toMatchObject({ code: -32002, data: { uri: 'chunk://art_00000000/3' } });
    expect(short.message).toContain('Resource not found: chunk://art_00000000/3 (no chunk 3 in art_00000000)');
    for (const uri of [`chunk://${'a'.repeat(500_000)}/whole`, `chunk://art_00000000/${'9'.repeat(300_000)}`]) {
      const err = await read(uri);
      expect(err.code).toBe(-32002);
      expect(err.data?.uri).toBe(uri);
      expect(err.message.length).toBeLessThan(1000);
      expect(err.message).toContain(`(${uri.length} characters)`);
    }
  });
});
