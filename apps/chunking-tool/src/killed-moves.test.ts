// Issue 15 probe: file mode and --out move a document's outputs into a shared folder one
// rename at a time. A run SIGKILLed among those renames left a new manifest beside old chunk
// files (96 of 772 disagreed), and the next run in that folder swept the stage that held the
// earlier files' links, so the mix stayed until that very document was chunked again. Now the
// next run in the folder puts the earlier set back. The kill is real: strace injects SIGKILL
// into the real CLI at its k-th rename(2) (skipped without strace).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const BIN = join(REPO, 'apps/chunking-tool/bin/chunking-tool.js');
const hasStrace = spawnSync('sh', ['-c', 'command -v strace']).status === 0;

/** Sections enough for 16 chunks; `word` makes each version's chunks differ from the other's. */
const doc = (word: string) => Array.from({ length: 16 }, (_, i) => `## Part ${i}\n\n${`The ${word} setting ${i} controls how the service starts. `.repeat(12)}\n`).join('\n');

let work: string;
beforeAll(() => {
  execFileSync(process.execPath, ['tools/build.mjs', 'apps/chunking-tool'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
  work = mkdtempSync(join(tmpdir(), 'chunking-killed-'));
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

function chunk(cwd: string, args: string[], killAtRename?: number): void {
  const node = [process.execPath, BIN, ...args];
  const r = killAtRename === undefined
    ? spawnSync(node[0]!, node.slice(1), { cwd, encoding: 'utf8', timeout: 20_000 })
    : spawnSync('strace', ['-f', '-qq', '-o', '/dev/null', '-e', 'trace=rename,renameat,renameat2', '-e', `inject=rename,renameat,renameat2:signal=KILL:when=${killAtRename}`, ...node], { cwd, encoding: 'utf8', timeout: 20_000 });
  if (killAtRename === undefined) expect(r.status, r.stderr).toBe(0);
  else expect(r.status, 'killed').not.toBe(0);
}

/** Every file of `dir` (temps and other documents' outputs left out) and its text. */
function outputsOf(dir: string, doc: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).filter((n) => n === `${doc}.json` || new RegExp(`^${doc}-\\d+\\.md$`).test(n)).sort().map((n) => [n, readFileSync(join(dir, n), 'utf8')]));
}

describe.runIf(hasStrace)('a file-mode run killed among its renames', () => {
  // 17 renames: the manifest, then chunks 0..15. 2: manifest only; 9: half; 17: the last chunk.
  for (const [mode, at] of [['--out', 2], ['--out', 9], ['file', 17]] as const) {
    it(`${mode}, killed at rename ${at}: the next run in the folder (another document) puts the earlier set back`, () => {
      const ws = join(work, `${mode}-${at}`);
      mkdirSync(join(ws, 'd'), { recursive: true });
      const out = mode === '--out' ? join(ws, 'o') : join(ws, 'd/_chunks');
      const args = (file: string) => (mode === '--out' ? [file, '--out', 'o'] : [file]);
      writeFileSync(join(ws, 'd/guide.md'), doc('alpha'));
      chunk(ws, args('d/guide.md'));
      const previous = outputsOf(out, 'guide');
      expect(Object.keys(previous)).toHaveLength(17);
      writeFileSync(join(ws, 'd/guide.md'), doc('omega'));
      chunk(ws, args('d/guide.md'), at);
      writeFileSync(join(ws, 'd/other.md'), '# Other\n\nA short note.\n');
      chunk(ws, args('d/other.md'));
      expect(outputsOf(out, 'guide')).toEqual(previous);
      expect(readdirSync(out).filter((n) => n.includes('.tmp-'))).toEqual([]);
    }, 30_000);
  }

  it('a first run killed among its renames: the next run removes what landed of it', () => {
    const ws = join(work, 'first');
    mkdirSync(join(ws, 'd'), { recursive: true });
    writeFileSync(join(ws, 'd/guide.md'), doc('alpha'));
    chunk(ws, ['d/guide.md', '--out', 'o'], 6);
    writeFileSync(join(ws, 'd/other.md'), '# Other\n\nA short note.\n');
    chunk(ws, ['d/other.md', '--out', 'o']);
    expect(readdirSync(join(ws, 'o')).sort()).toEqual(['other-0.md', 'other.json']);
  }, 30_000);
});
