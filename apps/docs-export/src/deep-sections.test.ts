// docs-export --out on sections nested deep: the check that --out names no file of the docs
// finds each topic's real path with work that grows with the folders, not with the sum of
// their depths. node:fs is the real one; its lstatSync and
// realpathSync are wrapped only to count the path components they look up (issue 15).
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main } from './main.js';

const lookups = vi.hoisted(() => ({ components: 0 }));
vi.mock('node:fs', async (importOriginal) => (await import('../../../packages/fs-atomic/src/counting-fs.js')).countingFs(await importOriginal(), lookups));

const quiet = { stdout: () => {}, stderr: () => {} };
let root: string;
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-docs-export-deep-'));
  const seed = join(root, 'seed');
  mkdirSync(seed);
  writeFileSync(join(seed, 'golden-reference.md'), '# Seed\n\nSource generation reads the options at build time.\n\n## Details\n\nIt writes the serializer code.\n');
  expect(await chunk([seed], quiet)).toBe(0);
});

async function exportTo(docs: string, out: string): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await main([docs, '--format', 'jsonl', '--out', out], { stdout: () => {}, stderr: (s) => void (stderr += s), stdoutIsTTY: true, cwd: root });
  return { code, stderr };
}

describe('docs-export --out on sections nested deep', () => {
  it('looks up each folder of a chain of nested sections a bounded number of times, not once per topic below it', async () => {
    // docs/a/a/…/a, each level holding a built topic t/: 200 levels, 400 folders. realpathSync
    // per topic (its folder and its source) looked up ~2·200·203/2 ≈ 41,000 components; a folder
    // once each is ~400.
    const docs = join(root, 'chain');
    let dir = docs;
    for (let i = 0; i < 200; i++) {
      dir = join(dir, 'a');
      mkdirSync(dir, { recursive: true });
      cpSync(join(root, 'seed'), join(dir, 't'), { recursive: true });
    }
    lookups.components = 0;
    const { code, stderr } = await exportTo(docs, join(root, 'out.jsonl'));
    expect(stderr).toContain('200 chunks of 200 documents in 200 topics');
    expect(code).toBe(0);
    const folders = 2 * 200 + resolve(docs).split(sep).length;
    expect(lookups.components).toBeLessThanOrEqual(3 * folders);
    // The check still holds at the bottom of the chain: the deepest source, named through a link.
    symlinkSync(join(dir, 't'), join(root, 'deepest'));
    const clash = await exportTo(docs, join(root, 'deepest/golden-reference.md'));
    expect(clash.stderr).toContain(`the source of topic ${'a/'.repeat(200)}t`);
    expect(clash.code).toBe(2);
  }, 120_000);
});
