// An argument given empty or blank is refused by name, never taken as a value (s55 probe):
// `docs-store ingest ""` (an unset $TOPIC) ingested the folder it ran in, exit 0 when that
// was a topic, and `expand ""` or a blank expand_chunk id was looked up and reported as
// "no chunk or artifact with id ", the id invisible. Real files, a real SQLite store, the
// real local provider; expand_chunk through the SDK's client and the built bin.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { ensureBuilt, REPO } from './test-build.js';
import { connectMcpClient } from './test-mcp-client.js';

let ws: string;
beforeAll(() => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-empty-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  mkdirSync(join(ws, 'topic'));
  writeFileSync(join(ws, 'topic', 'golden-reference.md'), '# Topic\n\nA document about zebras.\n');
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

async function run(args: string[], cwd = ws) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), cwd, env: { CI: '1' } });
  return { code, stdout, stderr };
}

describe('docs-store ingest ""', () => {
  it('in a topic folder is a usage error naming the empty argument, and nothing is stored (it ingested the folder, exit 0)', async () => {
    const db = join(ws, 'from-topic.db');
    for (const args of [[''], ['.', ''], ['', 'golden-reference.md']]) {
      const r = await run(['ingest', ...args, '--db', db], join(ws, 'topic'));
      expect(r).toEqual({ code: 2, stdout: '', stderr: 'docs-store: ingest: an empty argument (""); give a file or topic folder\n' });
    }
    expect(existsSync(db)).toBe(false);
    // The same folder named is ingested as before.
    expect((await run(['ingest', '.', '--db', db], join(ws, 'topic'))).code).toBe(0);
  });
});

describe('a blank chunk id', () => {
  it('docs-store expand: a usage error saying so, whatever the blank (it was exit 1, "no chunk or artifact with id ")', async () => {
    const db = join(ws, 'expand.db');
    expect((await run(['ingest', 'topic', '--db', db])).code).toBe(0);
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\u2003', '\ufeff'), maxLength: 6 }), async (blank) => {
        const r = await run(['expand', blank, '--db', db]);
        expect(r).toEqual({ code: 2, stdout: '', stderr: "docs-store: expand: the chunk id is blank; give one (search prints each hit's)\n" });
      }),
      { numRuns: 30 },
    );
  });

  it('expand_chunk over MCP: invalid arguments naming chunk_id (it was looked up)', async () => {
    await ensureBuilt();
    const { client } = await connectMcpClient(ws, 'empty-arguments-test', ['--db', join(ws, 'expand.db')]);
    try {
      for (const chunk_id of ['', ' ', '\t\n']) {
        const r = (await client.callTool({ name: 'expand_chunk', arguments: { chunk_id } })) as { content: { text: string }[]; isError?: boolean };
        expect(r.isError).toBe(true);
        expect(r.content[0]!.text).toMatch(/Invalid arguments for tool expand_chunk: chunk_id is blank: give a chunk id \(search_docs returns them as unit_id\)/);
      }
    } finally {
      await client.close();
    }
  }, 60_000);
});
