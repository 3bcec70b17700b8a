// A manifest, index.json, chunk file or questions file too large to read is named as that,
// with its size. A file of valid UTF-8 with more characters than a string holds (2^29 - 24) was
// "not valid UTF-8 (first bad byte at offset 629145600)", a byte past its end, and one over
// 2 GiB was Node's "File size (3221225472) is greater than 2 GiB"; a chunk file of either ended
// the run with no file named ("docs-score: Cannot create a string longer than 0x1fffffe8
// characters"; helper-84 probe). The files are sparse (truncate), so they take no disk; the
// 600 MiB ones are read whole, as docs-score reads them.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main } from './main.js';

let root: string;
let topic: string;
const quiet = { stdout: () => {}, stderr: () => {} };
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'docs-score-huge-'));
  topic = join(root, 'docs', 't');
  mkdirSync(topic, { recursive: true });
  writeFileSync(join(topic, 'golden-reference.md'), '# Install\n\nRun npm install to get the tool.\n');
  expect(await chunk([topic], quiet)).toBe(0);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function score(): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const code = await main([join(root, 'docs')], { stdout: (s) => void out.push(s), stderr: (s) => void out.push(s) });
  return { code, out: out.join('') };
}

it('a manifest of valid UTF-8 too long for a string, and one over 2 GiB: too large, with its size (not "not valid UTF-8" at a byte past its end)', async () => {
  const manifest = join(topic, '_chunks', 'golden-reference.json');
  const built = readFileSync(manifest);
  expect((await score()).code).toBe(0);
  for (const [size, shown, limit] of [
    [600 * 2 ** 20, '600.0 MiB', 'into at most 512 Mi characters'],
    [3 * 2 ** 30, '3072.0 MiB', 'and at most 2 GiB'],
  ] as const) {
    truncateSync(manifest, size);
    const r = await score();
    expect(r.code, shown).toBe(1);
    expect(r.out, shown).toContain(
      `  checksum: ${manifest}: manifest unreadable: too large to read (${shown}; a file is read whole, ${limit}); the build writes none this large, so it was damaged or replaced after the build: rebuild it\n`,
    );
    expect(r.out).not.toMatch(/not valid UTF-8|greater than 2 GiB/);
  }
  // A damaged byte is still what it was.
  writeFileSync(manifest, Buffer.concat([built.subarray(0, 40), Buffer.from([0xff]), built.subarray(40)]));
  expect((await score()).out).toMatch(/manifest unreadable: not valid UTF-8 \(first bad byte at offset 40\b/);
  writeFileSync(manifest, built);
}, 120_000);

it('a chunk file too long for a string, or over 2 GiB: a finding naming it, and the other checks still run', async () => {
  const file = join(topic, '_chunks', 'golden-reference-0.md');
  const built = readFileSync(file);
  for (const [size, shown, limit] of [
    [600 * 2 ** 20, '600.0 MiB', 'into at most 512 Mi characters'],
    [3 * 2 ** 30, '3072.0 MiB', 'and at most 2 GiB'],
  ] as const) {
    truncateSync(file, size);
    const r = await score();
    expect(r.code, shown).toBe(1);
    expect(r.out, shown).toContain(
      `  offsets: ${file}: unreadable: too large to read (${shown}; a file is read whole, ${limit}); the build writes none this large, so it was damaged or replaced after the build: rebuild it\n`,
    );
    // The run went on: the table and the score are there, and only that file failed.
    expect(r.out).toMatch(/^offsets +\d+ +1  FAIL$/m);
    expect(r.out).toContain('Pagination Integrity Score: 100.0');
  }
  writeFileSync(file, built);
  expect((await score()).code).toBe(0);
}, 120_000);

it('a --questions CSV of valid UTF-8 too long for a string: too large, exit 2 (not "not valid UTF-8" at a byte past its end)', async () => {
  const csv = join(root, 'q.csv');
  writeFileSync(csv, '');
  truncateSync(csv, 600 * 2 ** 20);
  const err: string[] = [];
  const code = await main([join(root, 'docs'), '--questions', csv], { stdout: () => {}, stderr: (s) => void err.push(s) });
  expect(code).toBe(2);
  expect(err.join('')).toBe(`docs-score: ${csv}: too large to read (600.0 MiB; a file is read whole, into at most 512 Mi characters)\nRun docs-score --help for usage.\n`);
}, 120_000);
