// Chunk manifests that do not belong to the topic's sources as they are (issue 15 probe): a
// source edited since chunking-tool ran, and two sources of one name (a/guide.md, b/guide.md),
// which share `_chunks/guide.json`. topic-spec wrote the spec from the old chunks, or from the
// first source's chunks twice, exit 0 and no word. The real tools over real files.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { snapshot } from '../../../packages/embedding-cache/src/test-helpers.js';
import { main } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const GOLDEN = readFileSync(join(REPO, 'docs/libraries/system-text-json-source-generation/golden-reference.md'), 'utf8');
const quiet = { stdout: () => {}, stderr: () => {} };

let ws: string;
let config: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-spec-manifest-source-'));
  config = join(ws, 'chunkyard.config.yaml');
  writeFileSync(config, 'chunking:\n  maxTokens: 512\n');
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

async function built(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(ws, name);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  expect(await chunk([dir, '--config', config], quiet)).toBe(0);
  expect(await keywords([dir], quiet)).toBe(0);
  return dir;
}

async function run(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await main([...args, '--config', config], { stdout: () => {}, stderr: (s) => void (stderr += s) });
  return { code, stderr };
}

describe('topic-spec and the sources its manifests were chunked from (issue 15 probe)', () => {
  it('a source edited since it was chunked fails its topic naming the manifest, the source and the fix; its old spec kept, the other topic written', async () => {
    const a = await built('a', { 'golden-reference.md': GOLDEN });
    const b = await built('b', { 'golden-reference.md': GOLDEN });
    expect((await run([a, b])).code).toBe(0);
    const before = readFileSync(join(a, 'topic-spec.md'), 'utf8');
    rmSync(join(b, 'topic-spec.md'));
    writeFileSync(join(a, 'golden-reference.md'), `${GOLDEN}\n## Added later\n\nText the chunks do not have.\n`);
    const r = await run([a, b]);
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      `topic-spec: ${a}: ${join(a, '_chunks', 'golden-reference.json')}: chunked from another version of ${join(a, 'golden-reference.md')} (it changed since); run chunking-tool on the topic again (nx run <topic>:chunk)`,
    ]);
    expect(readFileSync(join(a, 'topic-spec.md'), 'utf8')).toBe(before);
    expect(readFileSync(join(b, 'topic-spec.md'), 'utf8')).toBe(before.replaceAll(a, b));
    // Chunked again, it is written.
    expect(await chunk([a, '--config', config], quiet)).toBe(0);
    expect(await run([a])).toEqual({ code: 0, stderr: '' });
  });

  it('two sources of one name: a usage error naming both and the manifest they would share, exit 2, nothing written', async () => {
    const dir = await built('t', { 'golden-reference.md': GOLDEN, 'a/guide.md': '# A guide\n\nAlpha text about things.\n', 'topic.yaml': 'sources:\n  - golden-reference.md\n  - a/guide.md\n' });
    mkdirSync(join(dir, 'b'));
    writeFileSync(join(dir, 'b', 'guide.md'), '# A guide\n\nAlpha text about things.\n'); // even the same text
    writeFileSync(join(dir, 'topic.yaml'), 'sources:\n  - golden-reference.md\n  - a/guide.md\n  - b/guide.md\n');
    const before = snapshot(ws);
    const r = await run([dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`topic-spec: ${join(dir, 'a/guide.md')} and ${join(dir, 'b/guide.md')} would both use the chunk manifest ${join(dir, '_chunks', 'guide.json')}; rename one of them\n`);
    expect(snapshot(ws)).toEqual(before);
  });

  it('a source that cannot be read is no reason to refuse: the manifest is all the spec needs, as before', async () => {
    const dir = await built('t', { 'golden-reference.md': GOLDEN, 'extra.md': '# Extra\n\nMore text.\n', 'topic.yaml': 'sources:\n  - golden-reference.md\n  - extra.md\n' });
    unlinkSync(join(dir, 'extra.md'));
    expect(await run([dir])).toEqual({ code: 0, stderr: '' });
  });

  it('a source with a byte order mark and CRLF line ends, unchanged since chunked, is not taken for changed', async () => {
    const dir = await built('t', { 'golden-reference.md': `\ufeff${GOLDEN.replaceAll('\n', '\r\n')}` });
    expect(await run([dir])).toEqual({ code: 0, stderr: '' });
  });
});
