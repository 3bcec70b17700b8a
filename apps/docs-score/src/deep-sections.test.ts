// docs-score on sections nested deep: the work of finding each topic's real path grows with
// the folders, not with the sum of their depths. node:fs is the real one; its lstatSync and
// realpathSync are wrapped only to count the path components they look up (issue 15).
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main, type ScoreResult } from './main.js';

const lookups = vi.hoisted(() => ({ components: 0 }));
vi.mock('node:fs', async (importOriginal) => (await import('../../../packages/fs-atomic/src/counting-fs.js')).countingFs(await importOriginal(), lookups));

const quiet = { stdout: () => {}, stderr: () => {} };
let root: string;
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-docs-score-deep-'));
  const seed = join(root, 'seed');
  mkdirSync(seed);
  writeFileSync(join(seed, 'golden-reference.md'), '# Seed\n\nSource generation reads the options at build time.\n\n## Details\n\nIt writes the serializer code.\n');
  expect(await chunk([seed], quiet)).toBe(0);
});

async function score(dir: string): Promise<{ code: number; result: ScoreResult }> {
  let stdout = '';
  const code = await main([dir, '--json'], { stdout: (s) => void (stdout += s), stderr: () => {} });
  return { code, result: JSON.parse(stdout) as ScoreResult };
}

describe('docs-score on sections nested deep', () => {
  it('looks up each folder of a chain of nested sections a bounded number of times, not once per topic below it', async () => {
    // docs/a/a/…/a, each level holding a built topic t/: 200 levels, 400 folders. realpathSync
    // per topic looked up 200·203/2 + … ≈ 21,000 components; a folder once each is ~400.
    const docs = join(root, 'chain');
    let dir = docs;
    for (let i = 0; i < 200; i++) {
      dir = join(dir, 'a');
      mkdirSync(dir, { recursive: true });
      cpSync(join(root, 'seed'), join(dir, 't'), { recursive: true });
    }
    lookups.components = 0;
    const { code, result } = await score(docs);
    expect(code).toBe(0);
    expect(result.topics).toHaveLength(200);
    const folders = 2 * 200 + resolve(docs).split(sep).length;
    expect(lookups.components).toBeLessThanOrEqual(3 * folders);
  }, 120_000);

  it('still scores a topic reached through a link and directly once', async () => {
    const docs = join(root, 'linked');
    mkdirSync(join(docs, 'sec'), { recursive: true });
    cpSync(join(root, 'seed'), join(docs, 'sec/t'), { recursive: true });
    symlinkSync(join(docs, 'sec'), join(root, 'sec-link'));
    const once = await score(join(docs, 'sec/t'));
    let stdout = '';
    await main([join(docs, 'sec/t'), join(root, 'sec-link/t'), '--json'], { stdout: (s) => void (stdout += s), stderr: () => {} });
    expect((JSON.parse(stdout) as ScoreResult).topics).toHaveLength(once.result.topics.length);
  });
});
