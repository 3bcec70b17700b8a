// An error the SDK's handlers throw as McpError, as the bytes on the wire (s60 probe): McpError
// writes "MCP error -32602: " into its own message and the SDK sent that message as
// error.message, so a prompts/get with a blank question came back as "MCP error -32602: Invalid
// arguments for prompt …", and a client that wraps error replies the same way (the SDK's Client
// does) showed "MCP error -32602: MCP error -32602: …". The code is error.code; the message is
// sent once, without it. The built bin, real pipes; and the SDK's Client in memory.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { DocStore, type StoreEmbedder } from '@chunkyard/store';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectGuarded, createMcpServer } from './mcp.js';
import { ensureBuilt, REPO } from './test-build.js';
import { initialize, INITIALIZED, rawMcp, type RawReply } from './test-mcp.js';

let ws: string;
beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-error-prefix-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  await ensureBuilt();
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const prompt = (id: number, args: Record<string, string>) => ({ jsonrpc: '2.0', id, method: 'prompts/get', params: { name: 'answer_from_docs', arguments: args } });

it('prompts/get with bad arguments and resources/read of no chunk: the message does not repeat the code, on stdio', () => {
  const r = rawMcp<RawReply>(ws, [
    initialize(0),
    INITIALIZED,
    prompt(1, { question: ' ' }),
    prompt(2, {}),
    prompt(3, { question: 'x', limit: '99' }),
    { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'chunk://art_00000000/3' } },
  ]);
  expect(r.status, r.stderr).toBe(0);
  const byId = new Map(r.replies.map((reply) => [reply.id, reply]));
  expect(byId.get(1)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid arguments for prompt answer_from_docs: question is blank: give the question to answer at question' } });
  expect(byId.get(2)?.error).toEqual({ code: -32602, message: expect.stringMatching(/^Invalid arguments for prompt answer_from_docs: .* at question$/) });
  expect(byId.get(3)?.error).toEqual({ code: -32602, message: 'Invalid arguments for prompt answer_from_docs: a whole number from 1 to 20 at limit' });
  expect(byId.get(4)?.error).toEqual({ code: -32002, message: 'Resource not found: chunk://art_00000000/3 (no chunk 3 in art_00000000)', data: { uri: 'chunk://art_00000000/3' } });
  for (const reply of r.replies) expect(reply.error?.message ?? '').not.toMatch(/MCP error/);
}, 60_000);

it("through the SDK's Client the prefix reads once", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-error-prefix-sdk-'));
  const embedder: StoreEmbedder = { model: 'flat-d4', embed: (texts) => Promise.resolve(texts.map(() => Float32Array.of(1, 0, 0, 0))) };
  const store = DocStore.open(join(dir, 'store.db'));
  const client = new Client({ name: 'test', version: '0.0.0' });
  try {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await connectGuarded(createMcpServer(store, embedder, '0.0.0'), serverSide, () => {});
    await client.connect(clientSide);
    const err = await client.getPrompt({ name: 'answer_from_docs', arguments: { question: ' ' } }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toBe('MCP error -32602: Invalid arguments for prompt answer_from_docs: question is blank: give the question to answer at question');
  } finally {
    await client.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
