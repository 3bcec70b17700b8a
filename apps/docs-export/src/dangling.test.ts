/**
 * A manifest in _chunks/ that is a dangling symlink (s57 probe): it was "no such file or folder
 * (ENOENT); check the path", for a file the folder lists. Real files in a temp tree, the real CLI.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main } from './main.js';

const ws = mkdtempSync(join(tmpdir(), 'docs-export-dangling-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));
writeFileSync(join(ws, 'nx.json'), '{}\n');

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), cwd: ws, stdoutIsTTY: true });
  return { code, stdout, stderr };
}

it('is named as a dangling symlink, exit 1, nothing written', async () => {
  const root = join(ws, 'docs');
  mkdirSync(join(root, 't/_chunks'), { recursive: true });
  writeFileSync(join(root, 't/golden-reference.md'), '# T\n\nText.\n');
  const manifest = join(root, 't/_chunks/golden-reference.json');
  symlinkSync(join(ws, 'nowhere.json'), manifest);
  expect(await run([root, '--format', 'jsonl'])).toEqual({
    code: 1,
    stdout: '',
    stderr: `docs-export: ${manifest}: a dangling symlink (its target does not exist); fix or remove the link\n`,
  });
});

// Issue 15 probe (s66): a topic whose _chunks/ is a dangling or looping link read as "not built"
// and was left out of the export, exit 0 ("2 chunks of 2 documents in 2 topics"), without a
// word; a file there fails the run.
it('a _chunks/ that is a dangling or looping link fails the run, named, nothing written: the other topics are not exported without it', async () => {
  const root = join(ws, 'docs-chunks-link');
  mkdirSync(join(root, 'a'), { recursive: true });
  writeFileSync(join(root, 'a/golden-reference.md'), '# A\n\nText.\n');
  expect(await chunk([join(root, 'a')], { stdout: () => {}, stderr: () => {} })).toBe(0);
  expect((await run([root, '--format', 'jsonl'])).code).toBe(0);
  mkdirSync(join(root, 'b'), { recursive: true });
  writeFileSync(join(root, 'b/golden-reference.md'), '# B\n\nText.\n');
  const chunks = join(root, 'b/_chunks');
  for (const [target, said] of [
    [join(ws, 'nowhere'), 'a dangling symlink (its target does not exist); fix or remove the link'],
    [chunks, 'a symlink loop (it never reaches a file); fix or remove the link'],
  ] as const) {
    rmSync(chunks, { force: true });
    symlinkSync(target, chunks);
    expect(await run([root, '--format', 'jsonl'])).toEqual({ code: 1, stdout: '', stderr: `docs-export: ${chunks}: ${said}\n` });
  }
});
