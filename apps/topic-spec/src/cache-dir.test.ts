// A cache folder that cannot be made (issue 15 probe): a file above --cache-dir, a dangling or
// looping link in its place or above it, a file at the default .embedding-cache. Each topic
// failed alike with exit 1, the same line once per topic, naming neither --cache-dir nor the
// cache; it is a usage error (exit 2), said once, before anything is written. The real tools
// over real files.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { snapshot } from '../../../packages/embedding-cache/src/test-helpers.js';
import { main } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const GOLDEN = readFileSync(join(REPO, 'docs/libraries/system-text-json-source-generation/golden-reference.md'), 'utf8');
const quiet = { stdout: () => {}, stderr: () => {} };

let ws: string;
let config: string;
let topics: string[];
beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-spec-cache-dir-'));
  config = join(ws, 'chunkyard.config.yaml');
  writeFileSync(config, 'chunking:\n  maxTokens: 512\n');
  topics = [join(ws, 'a'), join(ws, 'b')];
  for (const dir of topics) {
    mkdirSync(dir);
    writeFileSync(join(dir, 'golden-reference.md'), GOLDEN);
    expect(await chunk([dir, '--config', config], quiet)).toBe(0);
    expect(await keywords([dir], quiet)).toBe(0);
  }
  writeFileSync(join(ws, 'a-file'), 'x');
  symlinkSync(join(ws, 'nowhere'), join(ws, 'dangling'));
  symlinkSync(join(ws, 'loop-2'), join(ws, 'loop-1'));
  symlinkSync(join(ws, 'loop-1'), join(ws, 'loop-2'));
  return () => rmSync(ws, { recursive: true, force: true });
});
afterEach(() => rmSync(join(ws, '.embedding-cache'), { recursive: true, force: true }));

async function run(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await main([...topics, '--config', config, ...args], { stdout: () => {}, stderr: (s) => void (stderr += s) });
  return { code, stderr };
}

describe('topic-spec with a cache folder that cannot be made (issue 15 probe)', () => {
  it.each([
    ['a-file/cache', 'a-file is a file, where the cache needs a folder'],
    ['dangling', 'dangling is a dangling symlink'],
    ['dangling/cache', 'dangling is a dangling symlink'],
    ['loop-1/cache', 'loop-1 is a symlink loop'],
  ])('--cache-dir %s: exit 2, one line naming the option and what is in the way, nothing written', async (option, problem) => {
    const before = snapshot(ws);
    const r = await run(['--cache-dir', join(ws, option)]);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining(`topic-spec: --cache-dir ${join(ws, option)}: ${join(ws, problem)}`)]);
    expect(snapshot(ws)).toEqual(before);
  });

  it('a file where the default .embedding-cache goes: exit 2, naming it, nothing written', async () => {
    writeFileSync(join(ws, '.embedding-cache'), 'not a folder');
    const before = snapshot(ws);
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining(`${join(ws, '.embedding-cache')} is a file, where the cache needs a folder`)]);
    expect(snapshot(ws)).toEqual(before);
  });

  it('a --cache-dir not yet made, below folders that are there, is made as before', async () => {
    const r = await run(['--cache-dir', join(ws, 'new', 'cache')]);
    expect(r).toEqual({ code: 0, stderr: '' });
    rmSync(join(ws, 'new'), { recursive: true });
    for (const dir of topics) rmSync(join(dir, 'topic-spec.md'));
  });
});
