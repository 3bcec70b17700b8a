// `--prune-cache` with a --cache-dir that is not a cache folder of its own (issue 15 probe):
// `topic-spec t --cache-dir . --prune-cache` in a workspace deleted every file there the run had
// not used as a cache entry: the topic's source, its _chunks and _keywords, the config, and the
// topic-spec.md just written. The real tools over real files.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-spec-prune-root-'));
});
afterEach(() => {
  rmSync(ws, { recursive: true, force: true });
});

describe('topic-spec --prune-cache with the workspace itself as --cache-dir (issue 15 probe)', () => {
  it('removes no file that is not an unused cache entry: the topic, its build outputs, the config and the spec stay', async () => {
    const config = join(ws, 'chunkyard.config.yaml');
    writeFileSync(config, 'chunking:\n  maxTokens: 512\n');
    writeFileSync(join(ws, 'notes.txt'), 'precious');
    const dir = join(ws, 'docs', 'topic');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'golden-reference.md'), GOLDEN);
    expect(await chunk([dir, '--config', config], quiet)).toBe(0);
    expect(await keywords([dir], quiet)).toBe(0);
    // A first run with the topic's cache in the workspace, then the same run pruning it.
    expect(await main([dir, '--config', config, '--cache-dir', ws], quiet)).toBe(0);
    const before = snapshot(ws).filter((line) => !line.startsWith('_by-text/') && !line.startsWith('semantic-'));
    for (const file of ['docs/topic/golden-reference.md', 'docs/topic/topic-spec.md', 'docs/topic/_keywords/words.md', 'docs/topic/_chunks/golden-reference.json', 'chunkyard.config.yaml']) {
      expect(before.some((line) => line.startsWith(`${file} `))).toBe(true);
    }

    expect(await main([dir, '--config', config, '--cache-dir', ws, '--prune-cache'], quiet)).toBe(0);
    const after = snapshot(ws);
    for (const line of before) expect(after).toContain(line);
    expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('precious');
    // The cache still serves the topic: a third run embeds nothing.
    let out = '';
    expect(await main([dir, '--config', config, '--cache-dir', ws, '--json'], { stdout: (s) => void (out += s), stderr: () => {} })).toBe(0);
    expect((JSON.parse(out) as { topics: { embedded: number }[] }).topics[0]!.embedded).toBe(0);
  });
});
