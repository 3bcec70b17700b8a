// A --db written as a folder (ending in "/", "/." or "/..") is a usage error naming it, for
// every command (s55 probe): path.resolve drops the ending, so `ingest --db out/` made a store
// file named out (a folder was meant), and `stats --db store.db/` read store.db, where any
// other program says "Not a directory". Real files, a real SQLite store, the real local provider.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runStore } from './test-run.js';
import { REPO } from './test-build.js';

let ws: string;
beforeAll(() => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-db-folder-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  mkdirSync(join(ws, 'topic'));
  writeFileSync(join(ws, 'topic', 'golden-reference.md'), '# Topic\n\nA document about zebras.\n');
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const run = (args: string[]) => runStore(ws, args);

it('ingest --db out/ stores nothing and names the folder form; out/store.db is where the store then goes', async () => {
  expect(await run(['ingest', 'topic', '--db', 'out/'])).toEqual({
    code: 2,
    stdout: '',
    stderr: 'docs-store: --db: "out/" names a folder (it ends in "/"); give the store\'s file path, such as "out/store.db"\n',
  });
  expect(existsSync(join(ws, 'out'))).toBe(false);
  mkdirSync(join(ws, 'out'));
  expect((await run(['ingest', 'topic', '--db', 'out/store.db'])).code).toBe(0);
  // A store file named with a "/" after it is not read as that file (it was).
  expect((await run(['stats', '--db', 'out/store.db/'])).code).toBe(2);
  expect((await run(['stats', '--db', 'out/store.db'])).code).toBe(0);
});

it('every command, any path written as a folder: exit 2, one line, nothing made (property)', async () => {
  const segment = fc.stringMatching(/^[a-z0-9._-]{1,8}$/).filter((s) => s !== '.' && s !== '..');
  const ending = fc.constantFrom('/', '//', '/.', '/..', '/./');
  const command = fc.constantFrom(['stats'], ['search', 'zebras', '--mode', 'fts'], ['ingest', 'topic'], ['expand', 'art_00000000']);
  const before = readdirSync(ws).sort();
  await fc.assert(
    fc.asyncProperty(fc.array(segment, { minLength: 0, maxLength: 3 }), ending, command, async (segments, end, args) => {
      const db = `${segments.join('/')}${end}`;
      const r = await run([...args, `--db=${db}`]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^docs-store: --db: ".*" names a folder \(it ends in "\/\.{0,2}"\); give the store's file path, such as ".*\/store\.db"\n$/);
      expect(readdirSync(ws).sort()).toEqual(before);
    }),
    { numRuns: 60 },
  );
});
