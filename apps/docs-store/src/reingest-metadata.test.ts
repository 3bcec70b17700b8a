// A stored document ingested again with another --topic or --content-type (s57 probe): it was
// "unchanged" (exit 0) and kept the old topic and chunk ids, so `search --topic guides/aot`
// then said no stored topic matches, and `--content-type api` none of that type. Now it is
// replaced with the new ones; the same command again is unchanged. Real files, a real SQLite
// store, the real local provider.
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runStore } from './test-run.js';
import { REPO } from './test-build.js';

let ws: string;
beforeAll(() => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-reingest-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  mkdirSync(join(ws, 'aot'));
  cpSync(join(REPO, 'docs/deployment/native-aot/golden-reference.md'), join(ws, 'aot', 'golden-reference.md'));
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const run = (args: string[]) => runStore(ws, args);
const status = async (args: string[]) => {
  const r = await run(['ingest', 'aot', ...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { artifacts: { status: string }[] }).artifacts.map((o) => o.status);
};
const hits = async (args: string[]) => {
  const r = await run(['search', 'native code', '--json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { hits: { topic: string | null; unitId: string }[] }).hits;
};

it('--topic and --content-type changed: replaced, and search finds the document by the new ones; the same again: unchanged', async () => {
  expect(await status([])).toEqual(['created']);
  expect(await status([])).toEqual(['unchanged']);

  expect(await status(['--topic', 'guides/aot'])).toEqual(['replaced']);
  expect((await hits(['--topic', 'guides/aot'])).map((h) => h.topic)).toContain('guides/aot');
  expect(await status(['--topic', 'guides/aot'])).toEqual(['unchanged']);

  expect(await status(['--topic', 'guides/aot', '--content-type', 'api'])).toEqual(['replaced']);
  expect((await hits(['--content-type', 'api'])).length).toBeGreaterThan(0);
  expect(await status(['--topic', 'guides/aot', '--content-type', 'api'])).toEqual(['unchanged']);

  // Back to the defaults: the old topic is gone from the store.
  expect(await status([])).toEqual(['replaced']);
  const r = await run(['search', 'native code', '--topic', 'guides/aot']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/no stored topic matches/);
});
