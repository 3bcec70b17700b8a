// `search --index exact --probes N` (s57 probe): --probes names how many lists of the ivf index
// a query scans, and exact search has none; it was ignored without a word, where routed and fts
// search say so. Real files, a real SQLite store, the real local provider.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runStore } from './test-run.js';
import { REPO } from './test-build.js';

let ws: string;
beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-probes-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  mkdirSync(join(ws, 'topic'));
  writeFileSync(join(ws, 'topic', 'golden-reference.md'), '# Topic\n\nA document about zebras.\n\n## More\n\nAnd one about lions.\n');
  expect((await run(['ingest', 'topic'])).code).toBe(0);
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const run = (args: string[]) => runStore(ws, args);

it('says --probes is not used, and searches as without it', async () => {
  for (const mode of [['--mode', 'vector'], ['--no-routes']]) {
    const plain = await run(['search', 'zebras', ...mode, '--index', 'exact', '--json']);
    expect(plain).toMatchObject({ code: 0, stderr: '' });
    const r = await run(['search', 'zebras', ...mode, '--index', 'exact', '--probes', '8', '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(plain.stdout);
    expect(r.stderr).toBe('docs-store: --probes not used: --index exact scans every vector; --probes goes with --index ivf (or auto on a store large enough for ivf)\n');
  }
  // With ivf it is used, and nothing is said.
  expect((await run(['search', 'zebras', '--mode', 'vector', '--index', 'ivf', '--probes', '8'])).stderr).toBe('');
});
