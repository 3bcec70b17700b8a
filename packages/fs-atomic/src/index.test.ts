// Tests of @chunkyard/fs-atomic on the real file system (temp dirs, no mocks):
// writeFileAtomic writes through a temp file + rename, replaceDirAtomic swaps in a
// freshly built directory; neither leaves temp files behind, and a failed
// replaceDirAtomic leaves the previous directory exactly as it was.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeFsError, escapeControl, fileProblem, FolderGoneError, folderProblem, guardEnvironment, mkdirp, pidAlive, PinnedDir, readRegularFile, removeStaleTemps, replaceDirAtomic, STALE_TEMP_AGE_MS, StagedDir, SymlinkOutputError, isFsError, tempName, tempTarget, writeFileAtomic, writeFilesAtomic } from './index.js';
import { procFd } from './proc-fd.js';
import { commitSeam } from './commit-seam.js';
import { tempRandom } from './temp-random.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chunkyard-fs-atomic-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const sorted = (names: string[]) => [...names].sort();
/** Every entry of `dir` (recursively), as relative path → content (directories end in '/'). */
function tree(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = `${prefix}${entry.name}`;
    if (entry.isDirectory()) {
      out[`${rel}/`] = '';
      Object.assign(out, tree(join(dir, entry.name), `${rel}/`));
    } else {
      out[rel] = readFileSync(join(dir, entry.name), 'latin1');
    }
  }
  return out;
}
/** Names that look like the temp files/dirs these helpers create. */
const temps = (dir: string) => readdirSync(dir).filter((n) => n.includes('.tmp-'));

describe('tempTarget', () => {
  it('names the output a tempName is of, either kind, and nothing for other names', () => {
    for (const target of ['_chunks', 'index.json', 'words.md', '.hidden', 'a.tmp-1']) {
      expect(tempTarget(basename(tempName(join('/d', target))))).toBe(target);
      expect(tempTarget(basename(tempName(join('/d', target), 'aside')))).toBe(target);
    }
    for (const name of ['_chunks', '._chunks', '._chunks.tmp-', '._chunks.tmp-12-xyz', '_chunks.tmp-12-0123abcd']) expect(tempTarget(name)).toBeNull();
  });
});

describe('writeFileAtomic', () => {
  it('writes a string and leaves no temp file behind', () => {
    const file = join(root, 'out.json');
    writeFileAtomic(file, '{"a":1}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n');
    expect(readdirSync(root)).toEqual(['out.json']);
  });

  it('writes bytes exactly (including NUL and non-UTF-8 bytes)', () => {
    const file = join(root, 'blob.bin');
    const bytes = new Uint8Array([0, 1, 2, 0xff, 0xfe, 0x41, 0, 10]);
    writeFileAtomic(file, bytes);
    expect(new Uint8Array(readFileSync(file))).toEqual(bytes);
  });

  it('writes UTF-8 text with non-ASCII characters', () => {
    const file = join(root, 'ü.md');
    const text = '# Überschrift — 日本語 🧩\n';
    writeFileAtomic(file, text);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('replaces an existing file whole (shorter content does not leave a tail)', () => {
    const file = join(root, 'a.md');
    writeFileSync(file, 'a much longer previous content\n'.repeat(100));
    writeFileAtomic(file, 'short\n');
    expect(readFileSync(file, 'utf8')).toBe('short\n');
    expect(readdirSync(root)).toEqual(['a.md']);
  });

  it('writes an empty file', () => {
    const file = join(root, 'empty.txt');
    writeFileAtomic(file, '');
    expect(statSync(file).size).toBe(0);
  });

  it('creates missing parent folders', () => {
    const file = join(root, 'a', 'b', 'c', 'x.md');
    writeFileAtomic(file, 'x');
    expect(readFileSync(file, 'utf8')).toBe('x');
    expect(temps(join(root, 'a', 'b', 'c'))).toEqual([]);
  });

  it('with parents: false a missing folder is ENOENT and is not made (s34 probe: topic-spec re-created a topic folder removed mid-run)', () => {
    const gone = join(root, 'removed-topic');
    expect(() => writeFileAtomic(join(gone, 'topic-spec.md'), 'x', { parents: false })).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(existsSync(gone)).toBe(false);
    // A named error for the folder, not an ENOENT naming the temp file: each tool says what the
    // missing folder means for its run (topic-spec and index-tool had the same try/catch each).
    let thrown: unknown;
    try {
      writeFileAtomic(join(gone, 'topic-spec.md'), 'x', { parents: false });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(FolderGoneError);
    expect((thrown as FolderGoneError).path).toBe(gone);
    expect((thrown as Error).message).not.toMatch(/\.tmp-/);
    writeFileAtomic(join(root, 'here.md'), 'y', { parents: false });
    expect(readFileSync(join(root, 'here.md'), 'utf8')).toBe('y');
  });

  it('many writes to the same file in a row: the last one wins, no temp files', () => {
    const file = join(root, 'n.txt');
    for (let i = 0; i < 50; i++) writeFileAtomic(file, `value ${i}\n`);
    expect(readFileSync(file, 'utf8')).toBe('value 49\n');
    expect(readdirSync(root)).toEqual(['n.txt']);
  });

  it('when the rename fails (target is a non-empty directory) it throws and removes its temp file', () => {
    const target = join(root, 'taken');
    mkdirSync(target);
    writeFileSync(join(target, 'keep.md'), 'keep');
    expect(() => writeFileAtomic(target, 'data')).toThrow();
    expect(readdirSync(root)).toEqual(['taken']);
    expect(readFileSync(join(target, 'keep.md'), 'utf8')).toBe('keep');
  });

  it('when the parent path is a file it throws and writes nothing', () => {
    const parent = join(root, 'plain');
    writeFileSync(parent, 'i am a file');
    expect(() => writeFileAtomic(join(parent, 'x.md'), 'data')).toThrow();
    expect(readdirSync(root)).toEqual(['plain']);
    expect(readFileSync(parent, 'utf8')).toBe('i am a file');
  });
});

describe('names near NAME_MAX (s34 probe: --out with a 250-byte file name failed with ENAMETOOLONG)', () => {
  // The temp name adds a dot and ".tmp-<pid>-<8 hex>" to the target's name, so a legal name of
  // 234..255 bytes made a temp name the file system refuses.
  for (const [label, name] of [
    ['250 ASCII bytes', 'y'.repeat(250)],
    ['255 ASCII bytes', 'n'.repeat(255)],
    ['255 bytes of 2- and 3-byte characters', 'é'.repeat(126) + 'x' + '€'.repeat(0)],
    ['254 bytes ending in a 3-byte character', 'a'.repeat(251) + '€'],
  ] as const) {
    it(`writeFileAtomic, writeFilesAtomic and replaceDirAtomic accept a target of ${label}`, () => {
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
      writeFileAtomic(join(root, name), 'one');
      expect(readFileSync(join(root, name), 'utf8')).toBe('one');
      writeFileAtomic(join(root, name), 'two');
      expect(readFileSync(join(root, name), 'utf8')).toBe('two');
      writeFilesAtomic(new Map([[join(root, 'sub', name), 'three']]));
      expect(readFileSync(join(root, 'sub', name), 'utf8')).toBe('three');
      replaceDirAtomic(join(root, 'dirs', name), new Map([['a.md', 'four']]));
      replaceDirAtomic(join(root, 'dirs', name), new Map([['b.md', 'five']]));
      expect(readdirSync(join(root, 'dirs', name))).toEqual(['b.md']);
      expect(sorted(readdirSync(root))).toEqual(sorted(['dirs', 'sub', name]));
      expect(readdirSync(join(root, 'dirs'))).toEqual([name]);
    });
  }

  it('a shortened temp name left by a killed run is still swept', () => {
    const name = 'z'.repeat(255);
    writeFileAtomic(join(root, name), 'x');
    // what a run killed between write and rename leaves: a temp of a dead pid
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const temp = `.${'z'.repeat(255 - 1 - '.tmp-'.length - String(dead).length - 9)}.tmp-${dead}-0123abcd`;
    expect(Buffer.byteLength(temp)).toBeLessThanOrEqual(255);
    writeFileSync(join(root, temp), 'partial');
    expect(removeStaleTemps(root)).toEqual([join(root, temp)]);
  });
});

describe('writeFilesAtomic (issue 15 probe: one of a set written, the other not)', () => {
  it('writes every file, making parents, and leaves no temp', () => {
    writeFilesAtomic(new Map([[join(root, 'a.txt'), 'A'], [join(root, 'sub/b.txt'), 'B']]));
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('A');
    expect(readFileSync(join(root, 'sub/b.txt'), 'utf8')).toBe('B');
    expect(readdirSync(root).sort()).toEqual(['a.txt', 'sub']);
  });

  it('writeFileAtomic with a folder standing at the target: EISDIR naming the target, not "cannot write in this folder" of its parent (probe)', () => {
    // topic-spec with a folder named topic-spec.md said "docs/t: cannot write in this folder: is a
    // folder where a file is expected (EISDIR); remove or rename that folder": the topic folder.
    mkdirSync(join(root, 'topic-spec.md'));
    let err: unknown;
    try {
      writeFileAtomic(join(root, 'topic-spec.md'), 'x');
    } catch (e) {
      err = e;
    }
    expect(describeFsError(err)).toBe(`${join(root, 'topic-spec.md')}: is a folder where a file is expected (EISDIR); remove or rename that folder`);
    expect(readdirSync(root)).toEqual(['topic-spec.md']);
  });

  it('a staged file renamed onto a folder: EISDIR naming the output, not "<staging folder>/x -> x" (issue 15 probe)', () => {
    // chunking-tool --out notes, with a folder at notes/guide-3.md, said
    // "notes/.staged.tmp-…/guide-3.md -> notes/guide-3.md: is a folder where a file is expected".
    mkdirSync(join(root, 'guide-3.md'));
    const staged = new StagedDir(join(root, 'staged'));
    writeFileSync(join(staged.path, 'guide-3.md'), 'x');
    let err: unknown;
    try {
      renameSync(join(staged.path, 'guide-3.md'), join(root, 'guide-3.md'));
    } catch (e) {
      err = e;
    } finally {
      staged.discard();
    }
    expect(describeFsError(err)).toBe(`${join(root, 'guide-3.md')}: is a folder where a file is expected (EISDIR); remove or rename that folder`);
  });

  it('a folder standing at any target: EISDIR naming it, and no file of the set replaced', () => {
    writeFileSync(join(root, 'a.txt'), 'old');
    mkdirSync(join(root, 'b.txt'));
    let err: unknown;
    try {
      writeFilesAtomic(new Map([[join(root, 'a.txt'), 'new'], [join(root, 'b.txt'), 'B']]));
    } catch (e) {
      err = e;
    }
    expect(describeFsError(err)).toBe(`${join(root, 'b.txt')}: is a folder where a file is expected (EISDIR); remove or rename that folder`);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('old');
    expect(readdirSync(root).sort()).toEqual(['a.txt', 'b.txt']);
  });

  it.runIf(process.platform === 'linux')('a write that fails (EFBIG under ulimit -f): no file of the set replaced, the folder named', () => {
    writeFileSync(join(root, 'a.txt'), 'old');
    const script = `import { writeFilesAtomic, describeFsError } from ${JSON.stringify(join(import.meta.dirname, '../dist/index.js'))};
      try { writeFilesAtomic(new Map([[${JSON.stringify(join(root, 'a.txt'))}, 'new'], [${JSON.stringify(join(root, 'b.txt'))}, 'x'.repeat(20000)]])); } catch (e) { console.log(describeFsError(e)); }`;
    const r = spawnSync('bash', ['-c', 'ulimit -f 8; exec "$0" --input-type=module -e "$1"', process.execPath, script], { encoding: 'utf8' });
    expect(r.stdout).toBe(`${root}: cannot write in this folder: file too large for this file system (EFBIG); choose another location\n`);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('old');
    expect(readdirSync(root)).toEqual(['a.txt']);
  });
});

describe('processIo: a stdout that is a regular file', () => {
  // Node took a short write to such a stdout as done (the bytes before the file-size limit or
  // a full disk), so `tool > out.json` ended cut with exit 0 and no word.
  it.runIf(process.platform === 'linux')('is written to its last byte, or the write\'s error is one line and exit 1 (EFBIG under ulimit -f)', () => {
    const dist = JSON.stringify(join(import.meta.dirname, '../dist/index.js'));
    const script = `import { exitOnStdoutError, processIo } from ${dist};
      exitOnStdoutError('probe-tool');
      processIo.stdout('x'.repeat(3000) + '\\n');
      processIo.stdout('y'.repeat(20000) + '\\n');
      processIo.stderr('done\\n');`;
    const out = join(root, 'out.txt');
    const run = (limitKb: number) => spawnSync('bash', ['-c', `ulimit -f ${limitKb}; exec "$0" --input-type=module -e "$1" > "$2"`, process.execPath, script, out], { encoding: 'utf8' });
    const limited = run(8);
    expect(limited.stderr).toBe('probe-tool: cannot write to stdout: file too large for this file system (EFBIG); choose another location\n');
    expect(limited.status).toBe(1);
    expect(statSync(out).size).toBe(8192);
    const roomy = run(64);
    expect(roomy.stderr).toBe('done\n');
    expect(roomy.status).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(`${'x'.repeat(3000)}\n${'y'.repeat(20000)}\n`);
  });
});

describe('replaceDirAtomic', () => {
  it('creates the directory (and missing parents) with exactly the given files', () => {
    const dir = join(root, 'topic', '_chunks');
    replaceDirAtomic(
      dir,
      new Map<string, string | Uint8Array>([
        ['doc-0.md', '# A\n'],
        ['doc-1.md', 'b\n'],
        ['doc.json', '{}\n'],
        ['raw.bin', new Uint8Array([0, 0xff, 7])],
      ]),
    );
    expect(tree(dir)).toEqual({ 'doc-0.md': '# A\n', 'doc-1.md': 'b\n', 'doc.json': '{}\n', 'raw.bin': '\u0000\u00ff\u0007' });
    expect(readdirSync(join(root, 'topic'))).toEqual(['_chunks']);
  });

  it('replaces an existing directory: stale files and subfolders are gone, kept names get the new content', () => {
    const dir = join(root, '_chunks');
    mkdirSync(join(dir, 'nested'), { recursive: true });
    writeFileSync(join(dir, 'doc-0.md'), 'old 0');
    writeFileSync(join(dir, 'doc-1.md'), 'old 1');
    writeFileSync(join(dir, 'doc-99.md'), 'stale');
    writeFileSync(join(dir, 'other.txt'), 'stale too');
    writeFileSync(join(dir, '.hidden'), 'stale hidden');
    writeFileSync(join(dir, 'nested', 'deep.md'), 'stale deep');
    replaceDirAtomic(
      dir,
      new Map([
        ['doc-0.md', 'new 0'],
        ['doc.json', '{"chunks":[]}'],
      ]),
    );
    expect(tree(dir)).toEqual({ 'doc-0.md': 'new 0', 'doc.json': '{"chunks":[]}' });
    expect(readdirSync(root)).toEqual(['_chunks']);
  });

  it('an empty map leaves an empty directory', () => {
    const dir = join(root, '_chunks');
    mkdirSync(dir);
    writeFileSync(join(dir, 'stale.md'), 'x');
    replaceDirAtomic(dir, new Map());
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(root)).toEqual(['_chunks']);
  });

  it('leaves siblings of the directory alone', () => {
    const dir = join(root, '_chunks');
    writeFileSync(join(root, 'golden-reference.md'), '# source');
    mkdirSync(join(root, 'images'));
    writeFileSync(join(root, 'images', 'a.png'), 'png');
    replaceDirAtomic(dir, new Map([['golden-reference-0.md', '# source']]));
    expect(sorted(readdirSync(root))).toEqual(['_chunks', 'golden-reference.md', 'images']);
    expect(readFileSync(join(root, 'images', 'a.png'), 'utf8')).toBe('png');
  });

  describe('a failure midway leaves the previous content intact and no temp dirs', () => {
    const previous = { 'doc-0.md': 'first', 'doc-1.md': 'second', 'doc.json': '{"v":1}' };
    let dir: string;
    beforeEach(() => {
      dir = join(root, '_chunks');
      mkdirSync(dir);
      for (const [name, data] of Object.entries(previous)) writeFileSync(join(dir, name), data);
    });

    it.each([
      ['a name containing "/"', 'sub/doc-2.md'],
      ['a name containing "\\\\"', 'sub\\doc-2.md'],
      ['".."', '..'],
      ['"."', '.'],
      ['a name escaping the folder', '../escaped.md'],
    ])('%s', (_what, badName) => {
      const files = new Map([
        ['doc-0.md', 'NEW first'],
        ['doc-1.md', 'NEW second'],
        [badName, 'bad'],
        ['doc-2.md', 'never written'],
      ]);
      expect(() => replaceDirAtomic(dir, files)).toThrow(/bad output file name/);
      expect(tree(dir)).toEqual(previous);
      expect(readdirSync(root)).toEqual(['_chunks']);
    });

    it('the bad name is the first entry', () => {
      expect(() => replaceDirAtomic(dir, new Map([['a/b.md', 'x']]))).toThrow(/bad output file name: a\/b\.md/);
      expect(tree(dir)).toEqual(previous);
      expect(readdirSync(root)).toEqual(['_chunks']);
    });

    it('a write that fails inside the fresh dir (empty name) is rolled back too', () => {
      expect(() => replaceDirAtomic(dir, new Map([['doc-0.md', 'x'], ['', 'y']]))).toThrow();
      expect(tree(dir)).toEqual(previous);
      expect(readdirSync(root)).toEqual(['_chunks']);
    });

    it('a failure when nothing existed before creates nothing', () => {
      const missing = join(root, 'fresh-topic', '_chunks');
      expect(() => replaceDirAtomic(missing, new Map([['ok.md', 'x'], ['x/y.md', 'y']]))).toThrow();
      expect(existsSync(missing)).toBe(false);
      expect(readdirSync(join(root, 'fresh-topic'))).toEqual([]);
      expect(tree(dir)).toEqual(previous);
    });

    it('after a failure, a good call still replaces the directory', () => {
      expect(() => replaceDirAtomic(dir, new Map([['a/b', 'x']]))).toThrow();
      replaceDirAtomic(dir, new Map([['doc-0.md', 'recovered']]));
      expect(tree(dir)).toEqual({ 'doc-0.md': 'recovered' });
      expect(readdirSync(root)).toEqual(['_chunks']);
    });
  });

  it('two calls in sequence on the same dir end with the second call\'s content only', () => {
    const dir = join(root, '_chunks');
    replaceDirAtomic(
      dir,
      new Map([
        ['doc-0.md', 'one 0'],
        ['doc-1.md', 'one 1'],
        ['doc-2.md', 'one 2'],
        ['doc.json', 'one'],
      ]),
    );
    replaceDirAtomic(
      dir,
      new Map([
        ['doc-0.md', 'two 0'],
        ['doc.json', 'two'],
      ]),
    );
    expect(tree(dir)).toEqual({ 'doc-0.md': 'two 0', 'doc.json': 'two' });
    expect(readdirSync(root)).toEqual(['_chunks']);
  });

  it('concurrent-ish: interleaved async rounds on the same dir end with the last content, no temps', async () => {
    const dir = join(root, '_chunks');
    const round = (n: number) =>
      new Promise<void>((resolve, reject) =>
        setImmediate(() => {
          try {
            replaceDirAtomic(dir, new Map(Array.from({ length: n % 4 }, (_, i) => [`doc-${i}.md`, `round ${n} chunk ${i}`])));
            resolve();
          } catch (err) {
            reject(err as Error);
          }
        }),
      );
    await Promise.all(Array.from({ length: 20 }, (_, n) => round(n)));
    // The 20th round (n = 19) ran last: 19 % 4 = 3 files.
    expect(tree(dir)).toEqual({ 'doc-0.md': 'round 19 chunk 0', 'doc-1.md': 'round 19 chunk 1', 'doc-2.md': 'round 19 chunk 2' });
    expect(readdirSync(root)).toEqual(['_chunks']);
  });

  it('repeated replacements of a large directory each leave one complete round of files', () => {
    const dir = join(root, '_chunks');
    const big = 'x'.repeat(100_000);
    replaceDirAtomic(dir, new Map(Array.from({ length: 10 }, (_, i) => [`doc-${i}.md`, big])));
    for (let n = 0; n < 5; n++) {
      replaceDirAtomic(dir, new Map(Array.from({ length: 10 }, (_, i) => [`doc-${i}.md`, `${n}${big}`])));
      // After each call the directory is complete and consistent: 10 files of one round.
      const entries = tree(dir);
      expect(Object.keys(entries)).toHaveLength(10);
      expect(new Set(Object.values(entries).map((v) => v[0]))).toEqual(new Set([String(n)]));
    }
    expect(temps(root)).toEqual([]);
  });
});

describe('StagedDir', () => {
  // commitSeam is the package's test-only seam: it runs between a commit's two renames.
  afterEach(() => {
    commitSeam.between = () => {};
  });

  it.each([true, false])('two commits to one target interleaved (a folder there before: %s): both succeed, the last one is in place, no temp left (probe: ENOTEMPTY)', (before) => {
    const target = join(root, '_chunks');
    if (before) {
      mkdirSync(target);
      writeFileSync(join(target, 'old.md'), 'old');
    }
    const first = new StagedDir(target);
    writeFileSync(join(first.path, 'x.md'), 'first run');
    const second = new StagedDir(target);
    writeFileSync(join(second.path, 'x.md'), 'second run');
    let ran = 0;
    // The second run commits whole while the first has moved the old folder aside.
    commitSeam.between = () => {
      if (ran++ > 0) return;
      second.commit();
    };
    // Before: the first run threw ENOTEMPTY (its rename found the second run's folder there).
    first.commit();
    expect(ran).toBe(2);
    expect(tree(target)).toEqual({ 'x.md': 'first run' });
    expect(temps(root)).toEqual([]);
    first.discard();
    second.discard();
  });

  it('makes nothing until its path is used, and then one temp folder beside the target', () => {
    const target = join(root, 'sub', '_chunks');
    const staged = new StagedDir(target);
    expect(staged.created).toBe(false);
    expect(existsSync(join(root, 'sub'))).toBe(false);
    const path = staged.path;
    expect(staged.path).toBe(path);
    expect(staged.created).toBe(true);
    expect(temps(join(root, 'sub'))).toEqual([path.slice(join(root, 'sub').length + 1)]);
    expect(existsSync(target)).toBe(false);
    staged.discard();
    expect(readdirSync(join(root, 'sub'))).toEqual([]);
  });

  it('commit swaps the staged folder in whole and removes the old one; the target is untouched before', () => {
    const target = join(root, '_chunks');
    mkdirSync(target);
    writeFileSync(join(target, 'old.md'), 'old');
    const staged = new StagedDir(target);
    writeFileSync(join(staged.path, 'new.md'), 'new');
    expect(tree(target)).toEqual({ 'old.md': 'old' });
    staged.commit();
    staged.discard();
    expect(tree(target)).toEqual({ 'new.md': 'new' });
    expect(temps(root)).toEqual([]);
  });

  it('a failed swap puts the old folder back and discard removes the staged one', () => {
    // The staged folder vanishes before the swap (another process removed it): the second
    // rename (staged → target) fails after the first moved the old folder aside.
    const target = join(root, '_chunks');
    mkdirSync(target);
    writeFileSync(join(target, 'old.md'), 'old');
    const staged = new StagedDir(target);
    writeFileSync(join(staged.path, 'new.md'), 'new');
    rmSync(staged.path, { recursive: true });
    expect(() => staged.commit()).toThrow(/ENOENT/);
    staged.discard();
    expect(tree(target)).toEqual({ 'old.md': 'old' });
    expect(temps(root)).toEqual([]);
  });

  it('with parents: false a missing folder is a FolderGoneError and is not made (s34 probe: a topic removed mid-run came back holding _chunks/)', () => {
    const topic = join(root, 'removed-topic');
    const staged = new StagedDir(join(topic, '_chunks'), { parents: false });
    let thrown: unknown;
    try {
      void staged.path;
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(FolderGoneError);
    expect((thrown as FolderGoneError).path).toBe(topic);
    expect(describeFsError(thrown)).toBe(`${topic}: the folder was removed or renamed during the run; nothing written there`);
    expect(existsSync(topic)).toBe(false);
    expect(() => replaceDirAtomic(join(topic, '_keywords'), new Map([['words.md', 'x']]), { parents: false })).toThrow(FolderGoneError);
    expect(existsSync(topic)).toBe(false);
    // Where the folder is there, parents: false changes nothing.
    mkdirSync(topic);
    replaceDirAtomic(join(topic, '_keywords'), new Map([['words.md', 'x']]), { parents: false });
    expect(tree(join(topic, '_keywords'))).toEqual({ 'words.md': 'x' });
  });

  it('a write into a staging folder renamed away is reported on the folder that held it, not the temp file (s34 probe)', () => {
    const topic = join(root, 'topic');
    mkdirSync(topic);
    const staged = new StagedDir(join(topic, '_chunks'), { parents: false });
    const file = join(staged.path, 'golden-reference-74.md');
    renameSync(topic, join(root, 'renamed'));
    let thrown: unknown;
    try {
      writeFileSync(file, 'x');
    } catch (err) {
      thrown = err;
    }
    expect(describeFsError(thrown)).toBe(`${topic}: the folder was removed or renamed during the run; nothing written there`);
  });
});

describe('temps of killed runs (issue 15)', () => {
  /** The pid of a process that has exited: nothing answers to it now (until reused). */
  const deadPid = (): number => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

  it('removes temps whose pid is dead or that are older than an hour, and keeps live ones', () => {
    const dead = deadPid();
    const mk = (name: string, dir: boolean) => {
      const p = join(root, name);
      if (dir) {
        mkdirSync(p);
        writeFileSync(join(p, 'x-0.md'), 'a page');
      } else writeFileSync(p, 'partial');
      return p;
    };
    mk(`._chunks.tmp-${dead}-0123abcd`, true);
    mk(`.index.json.tmp-${dead}-89abcdef`, false);
    mk(`._chunks.tmp-${process.pid}-00000000`, true);
    const old = mk(`._keywords.tmp-${process.ppid}-11111111`, true);
    const past = (Date.now() - STALE_TEMP_AGE_MS - 60_000) / 1000;
    utimesSync(old, past, past);
    mk(`.notes.tmp-${dead}-zzzz`, false); // not a name of ours
    mk('._chunks', true);
    const removed = removeStaleTemps(root).map((p) => p.slice(root.length + 1)).sort();
    expect(removed).toEqual([`._chunks.tmp-${dead}-0123abcd`, `._keywords.tmp-${process.ppid}-11111111`, `.index.json.tmp-${dead}-89abcdef`]);
    expect(sorted(readdirSync(root))).toEqual(sorted([`._chunks.tmp-${process.pid}-00000000`, `.notes.tmp-${dead}-zzzz`, '._chunks']));
  });

  it('a write into a folder sweeps the dead temps there first', () => {
    const dir = join(root, 'fresh');
    mkdirSync(dir);
    const dead = deadPid();
    mkdirSync(join(dir, `._chunks.tmp-${dead}-0123abcd`));
    replaceDirAtomic(join(dir, '_chunks'), new Map([['a.md', 'A']]));
    expect(readdirSync(dir)).toEqual(['_chunks']);
  });
});

describe('pidAlive (the one liveness check: the temp sweep here, the embedding cache\'s sweep of its older .old-<pid>- names)', () => {
  it('this process and a running child are alive; a child that has exited is not', async () => {
    expect(pidAlive(process.pid)).toBe(true);
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      expect(pidAlive(child.pid!)).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((done) => child.once('exit', done));
    // Reaped by now (the exit event comes after waitpid), so kill(pid, 0) answers ESRCH.
    expect(pidAlive(child.pid!)).toBe(false);
    expect(pidAlive(spawnSync(process.execPath, ['-e', '0']).pid!)).toBe(false);
  });

  it.skipIf(process.getuid?.() === 0 || process.platform === 'win32')('another user\'s process (EPERM for kill(pid, 0)) is alive', () => {
    expect(pidAlive(1)).toBe(true);
  });
});

describe('environment errors for a user (issue 15)', () => {
  it('a current folder that was removed is one line saying so, from the bin of a CLI too, not a stack trace (issue 15 probe)', async () => {
    // process.cwd() in a removed folder throws ENOENT with syscall uv_cwd and no path: every
    // CLI that resolved a relative path printed Node's stack trace from inside its bootstrap.
    const cwd = Object.assign(new Error('ENOENT: no such file or directory, uv_cwd'), { code: 'ENOENT', errno: -2, syscall: 'uv_cwd' });
    const message = 'the current folder no longer exists (it was removed or renamed); cd into an existing folder and run again';
    expect(isFsError(cwd)).toBe(true);
    expect(describeFsError(cwd)).toBe(message);
    let stderr = '';
    const code = await guardEnvironment('tool', { stdout: () => {}, stderr: (s) => void (stderr += s) }, () => Promise.reject(cwd));
    expect({ code, stderr }).toEqual({ code: 1, stderr: `tool: ${message}\n` });
    const gone = mkdtempSync(join(root, 'gone-'));
    const script = `import { guardEnvironment } from ${JSON.stringify(join(import.meta.dirname, '../dist/index.js'))};
      process.exitCode = await guardEnvironment('tool', { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) }, async () => (process.cwd(), 0));`;
    // A script file: node -e itself needs the current folder.
    writeFileSync(join(root, 'cli.mjs'), script);
    const r = spawnSync('sh', ['-c', 'cd "$1" && rmdir "$1" && exec "$2" "$3"', 'sh', gone, process.execPath, join(root, 'cli.mjs')], { encoding: 'utf8' });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 1, stderr: `tool: ${message}\n` });
  });

  it('names the folder of a temp, the file standing where a folder belongs, and the fix', () => {
    writeFileSync(join(root, 'file'), 'x');
    let err: unknown;
    try {
      writeFileAtomic(join(root, 'file/deeper/out.json'), '{}');
    } catch (e) {
      err = e;
    }
    expect(describeFsError(err)).toBe(`${join(root, 'file')}: is a file where a folder is expected (ENOTDIR); remove or rename it`);
    const eacces = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES', syscall: 'open', path: join(root, '.index.json.tmp-12-0123abcd') });
    expect(describeFsError(eacces)).toBe(`${root}: cannot write in this folder: permission denied (EACCES); check its permissions or choose another location`);
    // Issue 15: an immutable _chunks/ that could not be moved aside was named "_chunks -> ._chunks.tmp-25022-4d062b52".
    const eperm = Object.assign(new Error('EPERM: operation not permitted, rename'), { code: 'EPERM', syscall: 'rename', path: join(root, '_chunks'), dest: join(root, '._chunks.tmp-25022-4d062b52') });
    expect(describeFsError(eperm)).toBe(`${join(root, '_chunks')}: operation not permitted (EPERM); check its permissions (and that it is not immutable, lsattr) or choose another location`);
    const moved = Object.assign(new Error('EXDEV'), { code: 'EXDEV', syscall: 'rename', path: join(root, 'a'), dest: join(root, 'b') });
    expect(describeFsError(moved)).toBe(`${join(root, 'a')} -> ${join(root, 'b')}: crosses file systems (EXDEV); keep the output on the same file system as its folder`);
  });

  it('an output under a dangling symlink or a loop names the link, not "no such file or folder (ENOENT)" (issue 15 probe)', () => {
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling'));
    symlinkSync('loop', join(root, 'loop'));
    const dangling = `${join(root, 'dangling')}: a dangling symlink (its target does not exist); fix or remove the link`;
    const caught = (f: () => void): string => {
      try {
        f();
      } catch (e) {
        return describeFsError(e);
      }
      return 'no error';
    };
    expect(caught(() => mkdirp(join(root, 'dangling')))).toBe(dangling);
    expect(caught(() => writeFileAtomic(join(root, 'dangling/deeper/out.json'), '{}'))).toBe(dangling);
    expect(caught(() => writeFilesAtomic(new Map([[join(root, 'dangling/a'), 'a']])))).toBe(dangling);
    expect(caught(() => replaceDirAtomic(join(root, 'dangling/_chunks'), new Map([['a.md', 'A']])))).toBe(dangling);
    expect(caught(() => mkdirp(join(root, 'loop/x')))).toBe(`${join(root, 'loop')}: a symlink loop (it never reaches a file); fix or remove the link`);
    // A plain missing path keeps its message.
    const missing = Object.assign(new Error('ENOENT'), { code: 'ENOENT', syscall: 'open', path: join(root, 'absent/x') });
    expect(describeFsError(missing)).toBe(`${join(root, 'absent/x')}: no such file or folder (ENOENT); check the path`);
  });

  it('symlink: follow (a path the user named): a symlink at an output path is written through, not replaced by a file; one that leads nowhere is named (issue 15 probe)', () => {
    mkdirSync(join(root, 'exports'));
    writeFileSync(join(root, 'exports/2026.jsonl'), 'old');
    symlinkSync('exports/2026.jsonl', join(root, 'latest.jsonl'));
    symlinkSync(join(root, 'exports'), join(root, 'out'));
    writeFileAtomic(join(root, 'latest.jsonl'), 'new', { symlink: 'follow' });
    expect(lstatSync(join(root, 'latest.jsonl')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(root, 'exports/2026.jsonl'), 'utf8')).toBe('new');
    writeFilesAtomic(new Map([[join(root, 'latest.jsonl'), 'newer'], [join(root, 'out/other.txt'), 'x']]), { symlink: 'follow' });
    expect(lstatSync(join(root, 'latest.jsonl')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(root, 'exports/2026.jsonl'), 'utf8')).toBe('newer');
    expect(readdirSync(join(root, 'exports')).sort()).toEqual(['2026.jsonl', 'other.txt']);
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling.json'));
    let err: unknown;
    try {
      writeFileAtomic(join(root, 'dangling.json'), '{}', { symlink: 'follow' });
    } catch (e) {
      err = e;
    }
    expect(describeFsError(err)).toBe(`${join(root, 'dangling.json')}: a dangling symlink (its target does not exist); fix or remove the link`);
    expect(lstatSync(join(root, 'dangling.json')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(root, 'nowhere'))).toBe(false);
  });

  it('by default (a generated output) a symlink at the output path is refused: the link named with where it points, nothing written, the target and every other file as they were', () => {
    // The decoy stands for any file the user can write (~/.npmrc, .git/hooks/pre-commit).
    const decoy = join(root, 'decoy.txt');
    writeFileSync(decoy, 'decoy');
    mkdirSync(join(root, 'topic'));
    const spec = join(root, 'topic/topic-spec.md');
    symlinkSync(decoy, spec);
    const message = (path: string, to: string) =>
      `${path}: is a symlink (it points to ${to}); a generated output is never written through a link, so nothing was written; remove the link and run again`;
    const caught = (f: () => void): unknown => {
      try {
        f();
      } catch (e) {
        return e;
      }
      throw new Error('no error');
    };
    const err = caught(() => writeFileAtomic(spec, 'generated', { parents: false }));
    expect(err).toBeInstanceOf(SymlinkOutputError);
    expect(isFsError(err)).toBe(true);
    expect(describeFsError(err)).toBe(message(spec, decoy));
    expect(caught(() => writeFileAtomic(spec, 'generated', { symlink: 'refuse' }))).toBeInstanceOf(SymlinkOutputError);
    expect(readFileSync(decoy, 'utf8')).toBe('decoy');
    expect(lstatSync(spec).isSymbolicLink()).toBe(true);
    expect(readdirSync(join(root, 'topic'))).toEqual(['topic-spec.md']);

    // A set: one link among the paths leaves every file as it was, the plain ones included.
    writeFileSync(join(root, 'topic/llms.txt'), 'old llms');
    symlinkSync('../decoy.txt', join(root, 'topic/llms-full.txt'));
    const setErr = caught(() => writeFilesAtomic(new Map([[join(root, 'topic/llms.txt'), 'new llms'], [join(root, 'topic/llms-full.txt'), 'new full']])));
    expect(describeFsError(setErr)).toBe(message(join(root, 'topic/llms-full.txt'), '../decoy.txt'));
    expect(readFileSync(join(root, 'topic/llms.txt'), 'utf8')).toBe('old llms');
    expect(readFileSync(decoy, 'utf8')).toBe('decoy');
    expect(temps(join(root, 'topic'))).toEqual([]);

    // Dangling and looping links are refused the same way (no file made where they point).
    symlinkSync(join(root, 'nowhere'), join(root, 'topic/index.json'));
    expect(describeFsError(caught(() => writeFileAtomic(join(root, 'topic/index.json'), '{}')))).toBe(message(join(root, 'topic/index.json'), join(root, 'nowhere')));
    expect(existsSync(join(root, 'nowhere'))).toBe(false);
    // A line break in the name or the target is escaped: the message stays one line.
    const odd = join(root, 'topic/a\nb.md');
    symlinkSync(`${decoy}\n`, odd);
    expect(describeFsError(caught(() => writeFileAtomic(odd, 'x')))).toBe(message(join(root, 'topic/a\\u000ab.md'), `${decoy}\\u000a`));
    expect(readFileSync(decoy, 'utf8')).toBe('decoy');

    // A link to a folder above the output (the folder of the file) is not the output path: followed as before.
    symlinkSync(join(root, 'topic'), join(root, 'linked-topic'));
    writeFileAtomic(join(root, 'linked-topic/words.md'), 'words');
    expect(readFileSync(join(root, 'topic/words.md'), 'utf8')).toBe('words');
  });

  it('readRegularFile refuses a FIFO at once instead of blocking', () => {
    const fifo = join(root, 'pipe');
    spawnSync('mkfifo', [fifo]);
    expect(() => readRegularFile(fifo)).toThrow(`${fifo}: a FIFO (named pipe), not a regular file`);
    expect(() => readRegularFile('/dev/zero')).toThrow('/dev/zero: a character device, not a regular file');
  });

  it('escapeControl: ESC, BEL, bare CR, DEL and C1 become visible; tab, newline and CRLF stay', () => {
    expect(escapeControl('a\u001b[2J\u001b]0;t\u0007b\rc\u007f\u009b\td\r\n')).toBe('a\\u001b[2J\\u001b]0;t\\u0007b\\u000dc\\u007f\\u009b\td\r\n');
    // Escaped JSON stays JSON with the same value.
    const json = JSON.stringify({ t: 'x\u009by\u007f' });
    expect(JSON.parse(escapeControl(json))).toEqual({ t: 'x\u009by\u007f' });
  });

  it('escapeControl: bidi embeddings, overrides and isolates become visible; other marks and scripts stay', () => {
    const trojan = 'title \u202eexe.txt\u202c and \u2066x\u2069 \u202a\u202b\u202d \u2067\u2068';
    expect(escapeControl(trojan)).toBe('title \\u202eexe.txt\\u202c and \\u2066x\\u2069 \\u202a\\u202b\\u202d \\u2067\\u2068');
    // Right-to-left text itself, and the left/right marks that only nudge neutral characters, are content.
    expect(escapeControl('שלום עולם \u200e\u200f مرحبا \u2065\u206a')).toBe('שלום עולם \u200e\u200f مرحبا \u2065\u206a');
    expect(JSON.parse(escapeControl(JSON.stringify({ t: 'a\u202eb' })))).toEqual({ t: 'a\u202eb' });
  });
});

describe('folderProblem (review leftover: one folder check for every CLI)', () => {
  it('null for a folder or a link to one; missing, broken links, files, FIFOs and devices each get their reason', () => {
    mkdirSync(join(root, 'd'));
    symlinkSync(join(root, 'd'), join(root, 'to-d'));
    writeFileSync(join(root, 'f.txt'), 'x');
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling'));
    symlinkSync(join(root, 'loop-b'), join(root, 'loop-a'));
    symlinkSync(join(root, 'loop-a'), join(root, 'loop-b'));
    expect(folderProblem(join(root, 'd'))).toBeNull();
    expect(folderProblem(join(root, 'to-d'))).toBeNull();
    expect(folderProblem(join(root, 'nope'))).toEqual({ problem: 'missing', reason: 'no such folder' });
    expect(folderProblem(join(root, 'nope'), { missing: 'no such file or folder' })).toEqual({ problem: 'missing', reason: 'no such file or folder' });
    // A file standing where a parent belongs: the path is missing, as existsSync said.
    expect(folderProblem(join(root, 'f.txt', 'x'))).toEqual({ problem: 'missing', reason: 'no such folder' });
    expect(folderProblem(join(root, 'dangling'))).toEqual({ problem: 'missing', reason: 'a dangling symlink (its target does not exist); fix or remove the link' });
    expect(folderProblem(join(root, 'loop-a'))).toEqual({ problem: 'missing', reason: 'a symlink loop (it never reaches a file); fix or remove the link' });
    expect(folderProblem(join(root, 'f.txt'))).toEqual({ problem: 'not-a-folder', reason: 'not a folder (a regular file)' });
    expect(folderProblem(join(root, 'f.txt'), { file: 'a file' })).toEqual({ problem: 'not-a-folder', reason: 'not a folder (a file)' });
    expect(folderProblem('/dev/null')).toEqual({ problem: 'not-a-folder', reason: 'not a folder (a character device)' });
  });

  it('a missing folder whose parent holds the same name in another Unicode form or case says so (issue 15 probe: "café: no such folder" beside café)', () => {
    mkdirSync(join(root, 'cafe\u0301'));
    mkdirSync(join(root, 'Guides'));
    expect(folderProblem(join(root, 'caf\u00e9'))).toEqual({ problem: 'missing', reason: 'no such folder; "cafe\u0301" is there instead, the same name in another Unicode form (on disk NFD, asked for NFC); rename it, or write its name as it is on disk' });
    expect(folderProblem(join(root, 'guides'))).toEqual({ problem: 'missing', reason: 'no such folder; "Guides" is there instead, which differs in case; names are case-sensitive here: write it as it is on disk' });
    expect(fileProblem(join(root, 'GUIDES'))).toEqual({ problem: 'missing', reason: 'no such file; "Guides" is there instead, which differs in case; names are case-sensitive here: write it as it is on disk' });
    expect(folderProblem(join(root, 'other'))).toEqual({ problem: 'missing', reason: 'no such folder' });
  });

  it('a name that is not UTF-8, given as an argument (read as UTF-8: U+FFFD for each bad byte), is named with its bytes (issue 15 probe: "docs/caf\ufffd: no such folder")', () => {
    mkdirSync(Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0x63, 0x61, 0x66, 0xe9])]));
    writeFileSync(Buffer.concat([Buffer.from(`${root}/x`), Buffer.from([0x1b, 0xfe]), Buffer.from('y.md')]), 'x');
    const because = 'a name that is not valid UTF-8, which no argument can name (each is read as UTF-8); rename it to UTF-8 text';
    expect(folderProblem(join(root, 'caf\ufffd'))).toEqual({ problem: 'missing', reason: `no such folder; "caf\\xe9" is there, ${because}` });
    expect(fileProblem(join(root, 'x\u001b\ufffdy.md'))).toEqual({ problem: 'missing', reason: `no such file; "x\\u001b\\xfey.md" is there, ${because}` });
    expect(folderProblem(join(root, 'cat\ufffd'))).toEqual({ problem: 'missing', reason: 'no such folder' });
  });

  it('a name too long is said so, not called missing', () => {
    // Issue 15 probe: docs-serve, docs-export and docs-score said "no such folder" for it.
    expect(folderProblem(join(root, 'a'.repeat(300)))).toEqual({ problem: 'unusable', reason: 'name too long (ENAMETOOLONG); use a shorter path' });
  });

  it.runIf(process.platform !== 'win32')('a FIFO is refused without opening it', () => {
    const fifo = join(root, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(folderProblem(fifo)).toEqual({ problem: 'not-a-folder', reason: 'not a folder (a FIFO (named pipe))' });
    expect(fileProblem(fifo)).toEqual({ problem: 'not-a-file', reason: 'a FIFO (named pipe), not a regular file' });
  });

  it('fileProblem: null for a file or a link to one; folders, devices, broken links and long names get their reason', () => {
    writeFileSync(join(root, 'f.txt'), 'x');
    symlinkSync(join(root, 'f.txt'), join(root, 'to-f'));
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling'));
    expect(fileProblem(join(root, 'f.txt'))).toBeNull();
    expect(fileProblem(join(root, 'to-f'))).toBeNull();
    expect(fileProblem(join(root, 'nope'))).toEqual({ problem: 'missing', reason: 'no such file' });
    expect(fileProblem(join(root, 'dangling'))).toEqual({ problem: 'missing', reason: 'a dangling symlink (its target does not exist); fix or remove the link' });
    expect(fileProblem(root)).toEqual({ problem: 'not-a-file', reason: 'a directory, not a regular file' });
    expect(fileProblem('/dev/zero')).toEqual({ problem: 'not-a-file', reason: 'a character device, not a regular file' });
    expect(fileProblem(join(root, 'b'.repeat(300)))).toEqual({ problem: 'unusable', reason: 'name too long (ENAMETOOLONG); use a shorter path' });
  });
});

describe('mkdirp', () => {
  it('creates missing parents, accepts an existing folder, and refuses a file like mkdirSync', () => {
    const base = mkdtempSync(join(tmpdir(), 'fs-atomic-mkdirp-'));
    try {
      mkdirp(join(base, 'a/b/c'));
      expect(statSync(join(base, 'a/b/c')).isDirectory()).toBe(true);
      mkdirp(join(base, 'a/b/c'));
      mkdirp(base);
      writeFileSync(join(base, 'file'), 'x');
      expect(() => mkdirp(join(base, 'file'))).toThrow(expect.objectContaining({ code: 'EEXIST' }));
      expect(() => mkdirp(join(base, 'file/sub/deeper'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it.runIf(process.platform === 'linux')('fails with ENOENT under /proc, where mkdirSync({ recursive }) loops forever', () => {
    expect(() => mkdirp('/proc/chunkyard-no-such/x')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(() => writeFileAtomic('/proc/chunkyard-no-such/out.json', '{}')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});

describe('a symlink planted at a temp name is not followed (issue 15 probe)', () => {
  // tempRandom is the package's test-only seam: the next temp names get these hex suffixes
  // (then random ones again), so a test can plant a link where a write will make its temp.
  const realBytes = tempRandom.bytes;
  let queue: string[] = [];
  beforeEach(() => {
    queue = [];
    tempRandom.bytes = (n) => (queue.length > 0 ? Buffer.from(queue.shift()!, 'hex') : realBytes(n));
  });
  afterEach(() => {
    tempRandom.bytes = realBytes;
  });
  // `<pid>~<pid space>`, as tempName gives it (read before the seam is replaced, so no queued bytes are used).
  const writer = /\.tmp-(\d+~[0-9a-f]{4})-/.exec(tempName('/x'))![1];
  /** The temp name a write to `target` makes when the next random bytes are `hex`. */
  const tempAt = (target: string, hex: string) => join(root, `.${target.slice(root.length + 1)}.tmp-${writer}-${hex}`);
  let decoy: string;
  beforeEach(() => {
    decoy = join(root, 'decoy');
    mkdirSync(decoy);
    writeFileSync(join(decoy, 'secret'), 'keep me');
  });

  it('writeFileAtomic: a link to a file and a dangling link at its temp names are passed over; the target is a regular file', () => {
    const file = join(root, 'out.json');
    symlinkSync(join(decoy, 'secret'), tempAt(file, '00000000'));
    symlinkSync(join(decoy, 'made-through-link'), tempAt(file, '00000001'));
    queue = ['00000000', '00000001'];
    writeFileAtomic(file, 'new');
    expect(lstatSync(file).isFile()).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(tree(decoy)).toEqual({ secret: 'keep me' });
    // The planted links are someone else's: left where they are, not removed.
    expect(lstatSync(tempAt(file, '00000000')).isSymbolicLink()).toBe(true);
    expect(lstatSync(tempAt(file, '00000001')).isSymbolicLink()).toBe(true);
    expect(temps(root)).toHaveLength(2);
  });

  it('writeFileAtomic: every name it tries taken by a link: EEXIST, nothing written through, the target untouched', () => {
    const file = join(root, 'out.json');
    writeFileSync(file, 'old');
    symlinkSync(join(decoy, 'secret'), tempAt(file, '00000000'));
    queue = Array.from({ length: 10 }, () => '00000000');
    let err: unknown;
    try {
      writeFileAtomic(file, 'new');
    } catch (e) {
      err = e;
    }
    expect((err as NodeJS.ErrnoException).code).toBe('EEXIST');
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(lstatSync(file).isFile()).toBe(true);
    expect(tree(decoy)).toEqual({ secret: 'keep me' });
    expect(temps(root)).toEqual([basename(tempAt(file, '00000000'))]);
  });

  it('writeFilesAtomic: a link at one of its temp names is passed over; every target is a regular file', () => {
    const a = join(root, 'a.txt');
    const b = join(root, 'b.txt');
    symlinkSync(join(decoy, 'secret'), tempAt(b, '00000002'));
    queue = ['00000001', '00000002'];
    writeFilesAtomic(new Map([[a, 'A'], [b, 'B']]));
    expect(readFileSync(a, 'utf8')).toBe('A');
    expect(lstatSync(b).isFile()).toBe(true);
    expect(readFileSync(b, 'utf8')).toBe('B');
    expect(tree(decoy)).toEqual({ secret: 'keep me' });
    expect(temps(root)).toEqual([basename(tempAt(b, '00000002'))]);
  });

  it('replaceDirAtomic: a link at its staging folder name is passed over; the decoy folder is untouched', () => {
    const dir = join(root, '_chunks');
    symlinkSync(decoy, tempAt(dir, '00000000'));
    queue = ['00000000'];
    replaceDirAtomic(dir, new Map([['x.md', 'X']]));
    expect(lstatSync(dir).isDirectory()).toBe(true);
    expect(tree(dir)).toEqual({ 'x.md': 'X' });
    expect(tree(decoy)).toEqual({ secret: 'keep me' });
  });

  it('StagedDir.commit: a file at the name it moves the old folder aside to is passed over', () => {
    const target = join(root, '_chunks');
    mkdirSync(target);
    writeFileSync(join(target, 'old.md'), 'old');
    symlinkSync(join(decoy, 'secret'), tempAt(target, '00000002'));
    // The staging folder, then the aside name (taken), then a free one.
    queue = ['00000001', '00000002', '00000003'];
    const staged = new StagedDir(target);
    writeFileSync(join(staged.path, 'new.md'), 'new');
    staged.commit();
    staged.discard();
    expect(tree(target)).toEqual({ 'new.md': 'new' });
    expect(tree(decoy)).toEqual({ secret: 'keep me' });
    expect(temps(root)).toEqual([basename(tempAt(target, '00000002'))]);
  });
});

describe('PinnedDir (issue 15: a derived output folder looked at once, then a link swapped in was written through)', () => {
  let decoy: string;
  let dir: string;
  beforeEach(() => {
    decoy = join(root, 'decoy');
    mkdirSync(decoy);
    writeFileSync(join(decoy, 'x.md'), 'keep me');
    dir = join(root, '_chunks');
  });
  /** Moves the pinned folder aside to `root/moved` and puts a link to the decoy at its path. */
  const swap = () => {
    renameSync(dir, join(root, 'moved'));
    symlinkSync(decoy, dir);
  };
  const linkError = () => new SymlinkOutputError(dir, decoy);

  it('refuses a link at the path, dangling or not, and makes a missing folder (never through a link)', () => {
    symlinkSync(decoy, dir);
    expect(() => PinnedDir.open(dir)).toThrow(linkError());
    rmSync(dir);
    symlinkSync(join(root, 'nowhere'), dir);
    expect(() => PinnedDir.open(dir)).toThrow(SymlinkOutputError);
    expect(existsSync(join(root, 'nowhere'))).toBe(false);
    rmSync(dir);
    const pin = PinnedDir.open(join(dir, 'deeper'));
    expect(statSync(join(dir, 'deeper')).isDirectory()).toBe(true);
    pin.close();
  });

  it('check() refuses a link or another folder swapped in after the pin', () => {
    const pin = PinnedDir.open(dir);
    pin.check();
    swap();
    expect(() => pin.check()).toThrow(linkError());
    rmSync(dir);
    mkdirSync(dir);
    expect(() => pin.check()).toThrow(new FolderGoneError(dir));
    rmSync(dir, { recursive: true });
    expect(() => pin.check()).toThrow(FolderGoneError);
    pin.close();
    expect(readdirSync(decoy)).toEqual(['x.md']);
  });

  it.runIf(existsSync('/proc/self/fd'))('at() reaches the pinned folder after a link is swapped in: a rename and an unlink land there, not where the link leads', () => {
    const pin = PinnedDir.open(dir);
    writeFileSync(join(dir, 'x.md'), 'ours, stale');
    writeFileSync(join(root, 'new.md'), 'new');
    swap();
    renameSync(join(root, 'new.md'), pin.at('new.md'));
    rmSync(pin.at('x.md'));
    expect(readdirSync(pin.at())).toEqual(['new.md']);
    expect(readdirSync(join(root, 'moved'))).toEqual(['new.md']);
    expect(readdirSync(decoy)).toEqual(['x.md']);
    // An error names the folder by its path, not by /proc/self/fd/N.
    let err: unknown;
    try {
      renameSync(pin.at('absent.md'), pin.at('b.md'));
    } catch (e) {
      err = pin.restorePaths(e);
    }
    expect(err).toMatchObject({ code: 'ENOENT', path: join(dir, 'absent.md'), dest: join(dir, 'b.md') });
    pin.close();
  });

  describe('without /proc (procFd, the test-only seam, points nowhere)', () => {
    const realPath = procFd.path;
    beforeEach(() => {
      procFd.path = () => join(root, 'no-proc');
    });
    afterEach(() => {
      procFd.path = realPath;
    });

    it('at() gives the plain path while it holds the pinned folder, and refuses once a link is swapped in', () => {
      const pin = PinnedDir.open(dir);
      expect(pin.at('a.md')).toBe(join(dir, 'a.md'));
      swap();
      expect(() => pin.at('a.md')).toThrow(linkError());
      expect(() => pin.at()).toThrow(linkError());
      pin.close();
      expect(readdirSync(decoy)).toEqual(['x.md']);
    });
  });
});
