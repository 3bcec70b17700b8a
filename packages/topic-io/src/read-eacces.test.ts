// Issue 15 probe: readDocument of a file inside a folder this user may not search (EACCES on
// the folder) said "no such file", so the author looked for a file that is there. It must
// name the permission problem, the folder, and what to do. Root searches any folder, so the
// reads run as nobody (setpriv) in a real child process over real folders of root's.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const DIST = join(REPO, 'packages/topic-io/dist/index.js');
const canSetpriv = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v setpriv']).status === 0;

let root: string;
beforeAll(() => {
  if (canSetpriv) execFileSync(process.execPath, ['tools/build.mjs', 'packages/fs-atomic', 'packages/config', 'packages/topic-io'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
}, 60_000);
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'topic-io-eacces-'));
  chmodSync(root, 0o755);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

interface Read {
  text?: string;
  code?: string;
  message?: string;
}

/** readDocument(path) as nobody, with `root` as the current folder: the text, or the DocumentReadError's code and message. */
function readAsNobody(path: string): Read {
  const script = `import { readDocument } from ${JSON.stringify(DIST)};
try {
  console.log(JSON.stringify({ text: readDocument(${JSON.stringify(path)}) }));
} catch (err) {
  console.log(JSON.stringify({ code: err.code, message: err.message }));
}`;
  const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 20_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Read;
}

/** Makes root/<names…>/doc.md, each folder of the given mode (root-owned, so nobody is "other"). */
function nest(folders: readonly [name: string, mode: number][]): string {
  let dir = root;
  for (const [name] of folders) {
    dir = join(dir, name);
    mkdirSync(dir);
  }
  writeFileSync(join(dir, 'doc.md'), '# Doc\n\ntext\n');
  chmodSync(join(dir, 'doc.md'), 0o644);
  // Modes last, deepest first: a folder closed early would keep root out of nothing, but reads clearer.
  for (let i = folders.length; i > 0; i--) chmodSync(join(root, ...folders.slice(0, i).map(([n]) => n)), folders[i - 1]![1]);
  return join(...folders.map(([n]) => n), 'doc.md');
}

describe.runIf(canSetpriv)('readDocument: a file behind a folder this user may not search (issue 15 probe)', () => {
  it('names EACCES, the folder with its mode and owner, and what to do; not "no such file"', () => {
    const doc = nest([['locked', 0o644], ['sub', 0o755]]);
    const r = readAsNobody(doc);
    expect(r.code).toBe('unreadable');
    expect(r.message).toBe('permission denied (EACCES): this user (uid 65534) may not search the folder locked (mode 644, owned by uid 0), so nothing in it can be reached; give that folder search permission for this user (chmod +x, or chown) or run as a user who may read it');
    // The same by an absolute path.
    expect(readAsNobody(join(root, doc)).message).toContain(`may not search the folder ${join(root, 'locked')} (mode 644, owned by uid 0)`);
  });

  it('a missing file in a folder it may search is still "no such file"; a folder it may search but not list (311) still reads', () => {
    nest([['open', 0o755]]);
    expect(readAsNobody('open/other.md')).toMatchObject({ code: 'missing', message: 'no such file' });
    const doc = nest([['blind', 0o311]]);
    expect(readAsNobody(doc)).toEqual({ text: '# Doc\n\ntext\n' });
  });

  it('property: over any chain of folder modes, the text when every folder is searchable, else EACCES naming the outermost one that is not', () => {
    const mode = fc.constantFrom(0o755, 0o711, 0o311, 0o701, 0o750, 0o700, 0o644, 0o000, 0o1777, 0o444);
    let n = 0;
    fc.assert(
      fc.property(fc.array(mode, { minLength: 1, maxLength: 4 }), (modes) => {
        const folders = modes.map((m, i) => [i === 0 ? `case-${n++}` : `d${i}`, m] as [string, number]);
        const doc = nest(folders);
        const r = readAsNobody(doc);
        // nobody is neither owner nor group here: the "other" x bit decides.
        const blocked = folders.findIndex(([, m]) => (m & 0o001) === 0);
        if (blocked === -1) {
          expect(r).toEqual({ text: '# Doc\n\ntext\n' });
        } else {
          const folder = join(...folders.slice(0, blocked + 1).map(([name]) => name));
          expect(r.code).toBe('unreadable');
          expect(r.message).toContain(`may not search the folder ${folder} (mode ${modes[blocked]!.toString(8)}, owned by uid 0)`);
        }
      }),
      { numRuns: 30 },
    );
  }, 120_000);
});
