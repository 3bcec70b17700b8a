/**
 * Exporting while chunking-tool rebuilds a topic (helper-81 probe, session 60). chunking-tool
 * swaps a topic's `_chunks/` in whole (fs-atomic's StagedDir.commit): the old folder is renamed
 * aside to a hidden temp name, then the staged one is renamed into place. A survey that walked
 * the topic between those two renames saw a topic folder without `_chunks/` (an unbuilt topic,
 * skipped without a word) and the export ended exit 0 without that topic's chunks, though the
 * topic was built before and after. The interleaving is replayed here with the same renames on
 * real folders: the survey runs inside the window and fails naming the topic; once the swap
 * completes, the export has every topic.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkDocument } from '@chunkyard/chunking';
import { tempName } from '@chunkyard/fs-atomic';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './main.js';

const ws = mkdtempSync(join(tmpdir(), 'docs-export-concurrent-'));
afterAll(() => rmSync(ws, { recursive: true, force: true }));
writeFileSync(join(ws, 'nx.json'), '{}\n');

const text = '# Guide\n\nIntro text here, long enough to stand alone.\n\n## Install\n\nRun the installer and follow it.\n';
const built = chunkDocument(text, { docName: 'golden-reference', sourceFile: 'golden-reference.md' });
const manifest = { schemaVersion: 1, source: 'golden-reference.md', sourceSha256: 'x', strategy: built.strategy, strategyKey: built.strategyKey, options: built.options, fileTitle: built.fileTitle, frontMatter: built.frontMatter, chunks: built.chunks };

function tree(name: string): string {
  const root = join(ws, name);
  for (const topic of ['a', 'b', 'c']) {
    mkdirSync(join(root, topic, '_chunks'), { recursive: true });
    writeFileSync(join(root, topic, 'golden-reference.md'), text);
    writeFileSync(join(root, topic, '_chunks/golden-reference.json'), JSON.stringify(manifest));
    built.chunks.forEach((c, i) => writeFileSync(join(root, topic, `_chunks/golden-reference-${i}.md`), c.originalText));
  }
  return root;
}

/**
 * Opens StagedDir.commit's window on `root/b/_chunks`: the rebuilt folder staged beside it, the
 * old one moved aside. The returned function completes the swap, as the commit's second rename.
 */
function openSwapWindow(root: string): () => void {
  const target = join(root, 'b/_chunks');
  const staged = tempName(target);
  cpSync(target, staged, { recursive: true });
  const aside = tempName(target, 'aside');
  renameSync(target, aside);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    renameSync(staged, target);
    rmSync(aside, { recursive: true, force: true });
  };
}

describe('a topic whose _chunks/ is swapped in while the docs are surveyed', () => {
  // Since b8e5e17 the survey itself sees the window (no _chunks/, the previous folder moved
  // aside beside the staged one) and fails at once naming the topic and what to do, before any
  // record is written; the first version of this test saw the topic vanish and come back.
  const failedOnTopicB = (root: string, code: number, stderr: string): void => {
    expect(code, stderr).toBe(1);
    expect(stderr).toContain(`docs-export: ${join(root, 'b')}: this topic has no _chunks/, only ._chunks.aside-`);
    expect(stderr).toContain('export again');
    expect(stderr.split('\n')).toHaveLength(2);
  };

  it.each(['langchain', 'llamaindex', 'jsonl'] as const)('%s to stdout: exit 1 naming the topic, not exit 0 without it', async (format) => {
    const root = tree(`stdout-${format}`);
    const completeSwap = openSwapWindow(root);
    let stdout = '';
    let stderr = '';
    const code = await main([root, '--format', format], {
      stdout: (s) => void (stdout += s),
      stderr: (s) => void (stderr += s),
      cwd: ws,
      stdoutIsTTY: true,
    });
    failedOnTopicB(root, code, stderr);
    expect(stdout).toBe('');
    // Once the swap completes, the export has every topic.
    completeSwap();
    let again = '';
    expect(await main([root, '--format', format], { stdout: (s) => void (again += s), stderr: () => undefined, cwd: ws, stdoutIsTTY: true })).toBe(0);
    expect(again.length).toBeGreaterThan(0);
  });

  it('with --out, the file is left as it was, and exporting again gets every topic', async () => {
    const root = tree('out');
    const out = join(ws, 'out.jsonl');
    writeFileSync(out, 'previous\n');
    const completeSwap = openSwapWindow(root);
    let stderr = '';
    const code = await main([root, '--format', 'jsonl', '--out', out], {
      stdout: () => undefined,
      stderr: (s) => void (stderr += s),
      cwd: ws,
      stdoutIsTTY: false,
      progressIntervalMs: 0,
    });
    failedOnTopicB(root, code, stderr);
    expect(readFileSync(out, 'utf8')).toBe('previous\n');
    completeSwap();
    const again = await main([root, '--format', 'jsonl', '--out', out], { stdout: () => undefined, stderr: () => undefined, cwd: ws, stdoutIsTTY: true });
    expect(again).toBe(0);
    const ids = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: string }).id);
    expect(new Set(ids.map((id) => id.split('/')[0]))).toEqual(new Set(['a', 'b', 'c']));
  });
});
