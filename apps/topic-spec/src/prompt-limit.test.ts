// A topic whose questions × chunks reach the prompt threshold more often than one topic-spec.md
// can hold: 12,500 questions on 167 chunks, all alike, store over two million pairs. It was
// written (a file of tens of MB; at 10,000 questions on 2,594 chunks, 144 s and a RangeError
// stack trace); now the topic fails with one line, its old file kept, the other topics written.
// Real chunking-tool, keyword-extractor and local embedder, in-process.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main as keywords } from '../../keyword-extractor/src/main.js';
import { MAX_PROMPT_HASHES } from '@chunkyard/spec';
import { main } from './main.js';

const quiet = { stdout: () => {}, stderr: () => {} };
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-spec-limit-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function topic(name: string, sections: number, questions: number): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  let source = '# Widgets\n\n';
  for (let i = 0; i < sections; i++) source += `## Widget section ${i}\n\nThe widget alpha configures the beta gamma setting in section ${i}, and the widget keeps it.\n\n`;
  writeFileSync(join(dir, 'golden-reference.md'), source);
  let qa = '# Questions\n';
  for (let i = 0; i < questions; i++) qa += `\n## Does the widget alpha configure beta gamma ${i}?\n\nYes.\n`;
  writeFileSync(join(dir, 'qa-pairs.md'), qa);
  expect(await chunk([dir], quiet)).toBe(0);
  expect(await keywords([dir], quiet)).toBe(0);
  return dir;
}

it('fails a topic over MAX_PROMPT_HASHES pairs with one line naming its topic-spec.md, keeps the old file and writes the others', async () => {
  const big = await topic('big', 500, 12_500);
  const small = await topic('small', 5, 3);
  const old = '---\nold: spec\n---\n';
  writeFileSync(join(big, 'topic-spec.md'), old);
  let stdout = '';
  let stderr = '';
  const started = performance.now();
  const code = await main([big, small], { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  const seconds = (performance.now() - started) / 1000;
  expect(code).toBe(1);
  expect(stderr).toBe(
    `topic-spec: ${big}: ${join(big, 'topic-spec.md')}: not written (a previous one is kept as it was): more than ${MAX_PROMPT_HASHES.toLocaleString('en-US')} (question, chunk) pairs reach the prompt threshold 0.3 (12,500 questions, 167 chunks), over what one topic-spec.md holds (about 25 characters a pair, and 35 more in index.json); raise spec.promptThreshold (or --prompt-threshold), or split the topic or its qa-pairs.md\n`,
  );
  expect(readFileSync(join(big, 'topic-spec.md'), 'utf8')).toBe(old);
  expect(stdout).toContain(`${small}: `);
  expect(readFileSync(join(small, 'topic-spec.md'), 'utf8')).toMatch(/^---\nschemaVersion: 1\n/);
  // It stops at the limit: no file to format, no pair past the two millionth compared.
  expect(seconds).toBeLessThan(60);
}, 180_000);
