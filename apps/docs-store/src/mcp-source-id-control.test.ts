// ingest_artifact with a source_id holding a control character (an id in the agent's source
// system: a newline, ESC, U+202E). Since chunkDocument refuses such a docName (3b8ba08), the tool
// answered 'docName must hold no control character (it goes into every chunk id), got
// "a\u001b[2Jb"', naming a parameter the agent never gave, and nothing was stored. The store now
// shows the character as U+FFFD in the chunks' derived name; the source id is kept as given.
// The built bin over raw stdio frames.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './test-build.js';
import { initialize, INITIALIZED, rawMcp } from './test-mcp.js';

type Reply = { id: string | number | null; result?: { isError?: boolean; content: { text: string }[]; structuredContent?: unknown } };

let ws: string;
beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-source-id-'));
  writeFileSync(join(ws, 'chunkyard.config.yaml'), 'chunking: {}\n');
  await ensureBuilt();
}, 240_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const call = (id: number, name: string, args: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('docs-store mcp: ingest_artifact with a source_id holding a control character', () => {
  it('stores it, and search_docs finds it by that source id', () => {
    const ids = ['notes/a\u001b[2Jb', 'page\nid', 'rtl\u202eid', 'tab\tid'];
    const r = rawMcp<Reply>(ws, [initialize(), INITIALIZED, ...ids.map((id, i) => call(i + 1, 'ingest_artifact', { content: `# Page ${i}\n\nThe reindex${i} command rebuilds a page.\n`, source_id: id }))], { timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    for (let i = 0; i < ids.length; i++) {
      const reply = r.replies.find((x) => x.id === i + 1);
      expect(reply?.result?.isError, reply?.result?.content[0]?.text).toBeFalsy();
      expect(JSON.parse(reply!.result!.content[0]!.text)).toMatchObject({ status: 'created', is_chunked: false });
    }
    const s = rawMcp<Reply>(ws, [initialize(), INITIALIZED, call(9, 'search_docs', { query: 'reindex1 command', mode: 'fts', limit: 1 })], { timeout: 120_000 });
    const hit = s.replies.find((x) => x.id === 9);
    expect(hit?.result?.isError, hit?.result?.content[0]?.text).toBeFalsy();
    expect(hit!.result!.content[0]!.text).toContain(JSON.stringify('page\nid').slice(1, -1));
  });
});
