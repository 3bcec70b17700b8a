// A built manifest or index.json that is not UTF-8 fails docs-score (s57 probe). Read with
// replacement characters, a damaged byte in a chunk's embedText or in a topic's title passed
// every check (exit 0), while docs-export refuses the manifest and docs-query the index.json.
// A real topic built by the real chunking-tool, keyword-extractor, topic-spec and index-tool.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as index } from '../../index-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { main as spec } from '../../topic-spec/src/main.js';
import { main, type ScoreResult } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const quiet = { stdout: () => {}, stderr: () => {} };
let root: string;
let docs: string;
let topic: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-score-utf8-'));
  docs = join(root, 'docs');
  topic = join(docs, 'native-aot');
  mkdirSync(topic, { recursive: true });
  for (const f of ['golden-reference.md', 'qa-pairs.md']) cpSync(join(REPO, 'docs/deployment/native-aot', f), join(topic, f));
  const config = join(root, 'chunkyard.config.yaml');
  writeFileSync(config, 'chunking:\n  maxTokens: 512\n');
  expect(await chunk([topic, '--config', config], quiet)).toBe(0);
  expect(await keywords([topic], quiet)).toBe(0);
  expect(await spec([topic, '--config', config], quiet)).toBe(0);
  expect(await index([topic, docs, '--root', docs], quiet)).toBe(0);
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function score(): Promise<{ code: number; result: ScoreResult }> {
  let stdout = '';
  const code = await main([docs, '--json'], { stdout: (s) => void (stdout += s), stderr: () => {} });
  return { code, result: JSON.parse(stdout) as ScoreResult };
}

it('the built topic as it is passes', async () => {
  const { code, result } = await score();
  expect(result.checks.findings).toEqual([]);
  expect(code).toBe(0);
});

it.each([['_chunks/golden-reference.json'], ['index.json']])('%s with a bad byte at any ASCII position: a finding naming it and the offset, exit 1 (property)', async (rel) => {
  const file = join(topic, rel);
  const original = readFileSync(file);
  const ascii = [...original.keys()].filter((i) => original[i]! < 0x80);
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...ascii), fc.constantFrom(0xff, 0xfe, 0x80, 0xc0, 0xf8), async (at, bad) => {
      const bytes = Buffer.from(original);
      bytes[at] = bad;
      writeFileSync(file, bytes);
      try {
        const { code, result } = await score();
        expect(code).toBe(1);
        const named = result.checks.findings.filter((f) => f.file === file && f.message.includes(`not valid UTF-8 (first bad byte at offset ${at}); the build writes UTF-8`));
        expect(named, JSON.stringify(result.checks.findings.slice(0, 3))).toHaveLength(1);
      } finally {
        writeFileSync(file, original);
      }
    }),
    { numRuns: 20 },
  );
}, 60_000);
