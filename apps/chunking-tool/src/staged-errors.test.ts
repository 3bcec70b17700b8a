// Issue 15 probe (s55): file mode and --out stage a document's outputs inside the output
// folder and rename them in one by one. A failure there named the stage's own paths,
// "docs/_chunks/.staged.tmp-11046~5d31-7e53cd97/guide.json -> docs/_chunks/guide.json:
// input/output error" or ".staged.tmp-…/previous: no space left on the device", which mean
// nothing to a user. The failures are real: strace injects the error into the real CLI's k-th
// rename(2) or mkdir(2) (skipped without strace).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const BIN = join(REPO, 'apps/chunking-tool/bin/chunking-tool.js');
const hasStrace = spawnSync('sh', ['-c', 'command -v strace']).status === 0;

/** Sections enough for several chunks; `word` makes each version's chunks differ from the other's. */
const doc = (word: string) => Array.from({ length: 6 }, (_, i) => `## Part ${i}\n\n${`The ${word} setting ${i} controls how the service starts. `.repeat(12)}\n`).join('\n');

let work: string;
beforeAll(() => {
  execFileSync(process.execPath, ['tools/build.mjs', 'apps/chunking-tool'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
  work = mkdtempSync(join(tmpdir(), 'chunking-staged-errors-'));
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every output of `guide` in `dir` and its text. */
const outputsOf = (dir: string): Record<string, string> =>
  Object.fromEntries(readdirSync(dir).filter((n) => n === 'guide.json' || /^guide-\d+\.md$/.test(n)).sort().map((n) => [n, readFileSync(join(dir, n), 'utf8')]));

describe.runIf(hasStrace)('an output folder that fails a file-mode run is named, never the stage inside it', () => {
  // The first rename(2) is the manifest's, the second chunk 0's; mkdir(2) 3 makes the stage's
  // folder of links to the earlier outputs (1: _chunks exists, 2: the stage).
  for (const [syscalls, error, when, output, reason] of [
    ['rename,renameat,renameat2', 'EIO', 1, 'guide.json', 'input/output error (EIO); check the disk'],
    ['rename,renameat,renameat2', 'EIO', 2, 'guide-0.md', 'input/output error (EIO); check the disk'],
    ['mkdir,mkdirat', 'ENOSPC', 3, '', 'no space left on the device (ENOSPC); free some space and run again'],
  ] as const) {
    it(`${error} at ${syscalls.split(',')[0]} ${when}: one line naming ${output || 'the folder'}, the earlier outputs kept, no temp left`, () => {
      const ws = join(work, `${error}-${when}`);
      mkdirSync(join(ws, 'd'), { recursive: true });
      writeFileSync(join(ws, 'd/guide.md'), doc('alpha'));
      execFileSync(process.execPath, [BIN, 'd/guide.md'], { cwd: ws, stdio: 'pipe' });
      const out = join(ws, 'd/_chunks');
      const previous = outputsOf(out);
      writeFileSync(join(ws, 'd/guide.md'), doc('omega'));
      const r = spawnSync('strace', ['-f', '-qq', '-o', '/dev/null', '-e', `trace=${syscalls}`, '-e', `inject=${syscalls}:error=${error}:when=${when}`, process.execPath, BIN, 'd/guide.md'], { cwd: ws, encoding: 'utf8', timeout: 20_000 });
      expect(r.stderr).toBe(`chunking-tool: ${output ? `d/_chunks/${output}` : 'd/_chunks'}: ${reason}\n`);
      expect(r.status).toBe(1);
      expect(outputsOf(out)).toEqual(previous);
      expect(readdirSync(out).filter((n) => n.includes('.tmp-'))).toEqual([]);
    }, 30_000);
  }
});
