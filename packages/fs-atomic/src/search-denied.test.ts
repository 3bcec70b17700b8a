// Issue 15 probe (beside readDocument's): a file or folder argument behind a folder this user
// may not search got "permission denied (EACCES); check its permissions or choose another
// location", which points at the file; the folder above it is what to fix. Root searches any
// folder, so the checks run as nobody (setpriv) in a real child process over folders of root's.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const DIST = join(REPO, 'packages/fs-atomic/dist/index.js');
const canSetpriv = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v setpriv']).status === 0;

let root: string;
beforeAll(() => {
  if (canSetpriv) execFileSync(process.execPath, ['tools/build.mjs', 'packages/fs-atomic'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
}, 60_000);
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'fs-atomic-search-denied-'));
  chmodSync(root, 0o755);
  mkdirSync(join(root, 'locked/sub'), { recursive: true });
  writeFileSync(join(root, 'locked/sub/a.md'), '# A\n');
  chmodSync(join(root, 'locked'), 0o640);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** `expr` (an expression over the dist's exports) evaluated as nobody in `root`, as JSON. */
function asNobody(expr: string): unknown {
  const script = `import * as fsa from ${JSON.stringify(DIST)};\nconsole.log(JSON.stringify(${expr}));`;
  const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 20_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const DENIED = 'permission denied (EACCES): this user (uid 65534) may not search the folder locked (mode 640, owned by uid 0), so nothing in it can be reached; give that folder search permission for this user (chmod +x, or chown) or run as a user who may read it';

describe.runIf(canSetpriv)('a path behind a folder this user may not search', () => {
  it('fileProblem and folderProblem name that folder, its mode and owner, and what to do', () => {
    expect(asNobody("fsa.fileProblem('locked/sub/a.md')")).toEqual({ problem: 'unusable', reason: DENIED });
    expect(asNobody("fsa.folderProblem('locked/sub')")).toEqual({ problem: 'unusable', reason: DENIED });
    // The folder itself is not behind itself: it can be looked at, and is a folder.
    expect(asNobody("fsa.folderProblem('locked')")).toBeNull();
    expect(asNobody("fsa.searchDeniedReason('sub/a.md') ?? null")).toBeNull();
  });
});
