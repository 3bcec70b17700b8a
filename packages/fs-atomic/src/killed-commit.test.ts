// Issue 15 probe: a run SIGKILLed between StagedDir.commit's two renames (the target moved
// aside, the staged folder not yet in) left no target, only two temp folders; the next
// sweep (any tool writing beside it) removed both, so a topic lost its _chunks/ for good.
// The kill is real: strace injects SIGKILL into a real process at its second rename(2).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { removeStaleTemps, tempName, unfinishedBuild } from './index.js';

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
    expect(readdirSync(root).filter((n) => /\.(?:tmp|aside)-/.test(n))).toHaveLength(2);
    removeStaleTemps(root);
    expect(readdirSync(root)).toEqual(['_chunks']);
    expect(contents(target)).toEqual(previous);
  }, 30_000);

  // The aside was told from the stage by mtime (the older taken for the previous folder): an old
  // folder copied with its times from a machine whose clock was ahead (or a clock set back since)
  // lost, and the new folder went in instead of the previous one.
  it('puts the previous folder back when its mtime is later than the new folder\'s', () => {
    const target = join(root, '_chunks');
    mkdirSync(target);
    const previous = { 'a.json': 'old manifest', 'a-0.md': 'old 0' };
    for (const [n, t] of Object.entries(previous)) writeFileSync(join(target, n), t);
    const ahead = new Date(Date.now() + 24 * 3600_000);
    utimesSync(target, ahead, ahead);
    commitKilledAt(target, { 'a.json': 'new manifest', 'a-0.md': 'new 0', 'a-1.md': 'new 1' }, 2);
    // What a reader is told meanwhile: the previous folder is aside, under the target's name.
    expect(unfinishedBuild(root, '_chunks')).toEqual({ temp: expect.stringMatching(/\/\._chunks\.aside-\d+~[0-9a-f]{4}-[0-9a-f]{8}$/), aside: true });
    removeStaleTemps(root);
    expect(readdirSync(root)).toEqual(['_chunks']);
    expect(contents(target)).toEqual(previous);
    expect(unfinishedBuild(root, '_chunks')).toBeNull();
  }, 30_000);

  it('a first run killed while committing (nothing to put back) leaves no folder and no temp', () => {
    const target = join(root, '_chunks');
    commitKilledAt(target, { 'a.json': 'new manifest' }, 1);
    expect(unfinishedBuild(root, '_chunks')).toEqual({ temp: expect.stringMatching(/\/\._chunks\.tmp-/), aside: false });
    removeStaleTemps(root);
    expect(readdirSync(root)).toEqual([]);
  }, 30_000);
});

// Leftovers of killed runs as the sweep finds them (names of a dead pid, real folders, any
// mtimes): the target is kept when it is there, else an aside (never a stage) goes back in its
// place, whatever the folders' times; nothing with a temp name stays.
describe('the sweep of killed runs\' temps', () => {
  const deadPid = Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim());
  const hex = (i: number) => (0x10000000 + i).toString(16);
  const when = fc.integer({ min: 0, max: 3 * 24 * 3600 }).map((s) => new Date(Date.now() - 24 * 3600_000 + s * 1000));

  it('puts an aside back only where the target is missing, and leaves no temp', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(when, { maxLength: 3 }), fc.array(when, { maxLength: 3 }), fc.boolean(), (present, asides, stages, legacy) => {
        const dir = mkdtempSync(join(root, 'p-'));
        const target = join(dir, '_keywords');
        const made = (path: string, text: string, at: Date) => {
          mkdirSync(path);
          writeFileSync(join(path, 'words.md'), text);
          utimesSync(path, at, at);
        };
        if (present) made(target, 'current', new Date());
        // This host's pid space (a name of another space is judged by its age alone), or none (earlier versions).
        const space = legacy ? '' : `~${/~([0-9a-f]{4})-/.exec(tempName(target))![1]}`;
        asides.forEach((at, i) => made(join(dir, `._keywords.aside-${deadPid}${space}-${hex(i)}`), `aside ${i}`, at));
        stages.forEach((at, i) => made(join(dir, `._keywords.tmp-${deadPid}${space}-${hex(i)}`), `stage ${i}`, at));
        removeStaleTemps(dir);
        expect(readdirSync(dir)).toEqual(present || asides.length > 0 ? ['_keywords'] : []);
        if (present) expect(readFileSync(join(target, 'words.md'), 'utf8')).toBe('current');
        else if (asides.length > 0) expect(readFileSync(join(target, 'words.md'), 'utf8')).toMatch(/^aside \d$/);
        else expect(existsSync(target)).toBe(false);
      }),
      { numRuns: 60 },
    );
  });
});
