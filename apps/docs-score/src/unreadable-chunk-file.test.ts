// A chunk file that is a folder, a FIFO or a broken link is a finding naming it, and the other
// topics are still checked. It ended the run (exit 1, one line naming the file, no table, every
// other topic unchecked), where load.ts makes any other unreadable file "errors in that data,
// never exceptions, so one bad file does not hide the others" (helper-84 probe). Real topics
// chunked by the real chunking-tool, real file kinds.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main as chunk } from '../../chunking-tool/src/main.js';
import { main } from './main.js';

let root: string;
const topics = ['a', 'b'];
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'docs-score-chunk-kinds-'));
  for (const t of topics) {
    const dir = join(root, 'docs', t);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'golden-reference.md'), '# Install\n\nRun npm install to get the tool.\n');
    expect(await chunk([dir], { stdout: () => {}, stderr: () => {} })).toBe(0);
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('a folder, a FIFO, a dangling link or a link loop in place of a chunk file: a finding naming it, the run goes on', async () => {
  const file = join(root, 'docs', 'a', '_chunks', 'golden-reference-0.md');
  const built = readFileSync(file);
  for (const [kind, make, why] of [
    ['folder', () => mkdirSync(file), /a directory, not a regular file/],
    ['FIFO', () => execFileSync('mkfifo', [file]), /a FIFO \(named pipe\), not a regular file/],
    ['dangling link', () => symlinkSync('nowhere', file), /a dangling symlink/],
    ['link loop', () => symlinkSync('golden-reference-0.md', file), /a symlink loop/],
  ] as const) {
    rmSync(file, { recursive: true, force: true });
    make();
    const out: string[] = [];
    const code = await main([join(root, 'docs')], { stdout: (s) => void out.push(s), stderr: (s) => void out.push(s) });
    const text = out.join('');
    expect(code, kind).toBe(1);
    expect(text, kind).toMatch(/^2 topic\(s\)\n/);
    const line = text.split('\n').find((l) => l.startsWith(`  offsets: ${file}: unreadable: `));
    expect(line, `${kind}: ${text}`).toMatch(why);
    // Only that file failed: b's chunk file and a's manifest were checked.
    expect(text, kind).toMatch(/^offsets +\d+ +1  FAIL$/m);
    expect(text, kind).toMatch(/^continuity +\d+ +0  pass$/m);
  }
  rmSync(file, { recursive: true, force: true });
  writeFileSync(file, built);
  expect(await main([join(root, 'docs')], { stdout: () => {}, stderr: () => {} })).toBe(0);
});
