// Issue 15 probe: a run SIGKILLed between StagedDir.commit's two renames (the target moved
// aside, the staged folder not yet in) left no target, only two temp folders; the next
// sweep (any tool writing beside it) removed both, so a topic lost its _chunks/ for good.
// The kill is real: strace injects SIGKILL into a real process at its second rename(2).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { removeStaleTemps } from './index.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const DIST = join(REPO, 'packages/fs-atomic/dist/index.js');
const hasStrace = spawnSync('sh', ['-c', 'command -v strace']).status === 0;

let root: string;
beforeAll(() => {
  if (hasStrace) execFileSync(process.execPath, ['tools/build.mjs', 'packages/fs-atomic'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
}, 60_000);
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'fs-atomic-killed-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The folder's files and their text. */
function contents(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).sort().map((n) => [n, readFileSync(join(dir, n), 'utf8')]));
}

/** Stages `files` for `target` in a child process and commits, SIGKILLed by strace at its `when`-th rename. */
function commitKilledAt(target: string, files: Record<string, string>, when: number): void {
  const script = `import { StagedDir } from ${JSON.stringify(DIST)};
const s = new StagedDir(${JSON.stringify(target)});
for (const [n, t] of Object.entries(${JSON.stringify(files)})) (await import('node:fs')).writeFileSync(s.path + '/' + n, t);
s.commit();`;
  const r = spawnSync('strace', ['-f', '-qq', '-o', '/dev/null', '-e', 'trace=rename,renameat,renameat2', '-e', `inject=rename,renameat,renameat2:signal=KILL:when=${when}`, process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  expect(r.status, r.stderr).not.toBe(0);
}

describe.runIf(hasStrace)('a commit killed between its renames', () => {
  it('the next sweep puts the previous folder back, whole, and leaves no temp', () => {
    const target = join(root, '_chunks');
    mkdirSync(target);
    const previous = { 'a.json': 'old manifest', 'a-0.md': 'old 0', 'a-1.md': 'old 1' };
    for (const [n, t] of Object.entries(previous)) writeFileSync(join(target, n), t);
    commitKilledAt(target, { 'a.json': 'new manifest', 'a-0.md': 'new 0' }, 2);
    // The kill landed in the window: only the two temp folders are there.
    expect(readdirSync(root).filter((n) => n.includes('.tmp-'))).toHaveLength(2);
    removeStaleTemps(root);
    expect(readdirSync(root)).toEqual(['_chunks']);
    expect(contents(target)).toEqual(previous);
  }, 30_000);

  it('a first run killed while committing (nothing to put back) leaves no folder and no temp', () => {
    const target = join(root, '_chunks');
    commitKilledAt(target, { 'a.json': 'new manifest' }, 1);
    removeStaleTemps(root);
    expect(readdirSync(root)).toEqual([]);
  }, 30_000);
});
