// A topic saved with old Mac line ends (a lone CR each), built by the real chunking-tool, passes
// docs-score: its chunk files keep the source's CRs, and the markdown check read a table in one
// as a single line of rows without their header (exit 1 on a clean build).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main, type ScoreResult } from './main.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const quiet = { stdout: () => {}, stderr: () => {} };
const root = mkdtempSync(join(tmpdir(), 'chunkyard-score-cr-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('passes every check on a CR-only topic whose chunks hold a table and code', async () => {
  const source = readFileSync(join(REPO, 'docs/deployment/native-aot/golden-reference.md'), 'utf8');
  expect(source).toMatch(/\n\|[^\n]*\|\n\| *-/); // it holds a table
  const dir = join(root, 'native-aot');
  mkdirSync(dir);
  writeFileSync(join(dir, 'golden-reference.md'), source.replace(/\r?\n/g, '\r'));
  expect(await chunk([dir], quiet)).toBe(0);
  let stdout = '';
  const code = await main([dir, '--json'], { stdout: (s) => void (stdout += s), stderr: () => {} });
  const result = JSON.parse(stdout) as ScoreResult;
  expect(result.checks.findings).toEqual([]);
  expect(result.checks.tallies.find((t) => t.check === 'markdown')!.checked).toBeGreaterThan(0);
  expect(code).toBe(0);
}, 60_000);
