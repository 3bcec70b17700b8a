// Issue 15: an environment problem (permissions, a file where a folder belongs, a full disk, a
// FIFO or a device instead of a document, a broken marker symlink) is one line naming the path
// and what to do, with exit 1, never a stack trace or a hang; and temp outputs of killed or
// failed runs do not stay behind. Every probe runs the built CLIs as real processes on a real
// workspace built by the real pipeline. No mocks.
//
// Root ignores permission bits, so EACCES is made real by running the tool as `nobody`
// (setpriv) on a folder of mode 555; `chattr +i` (EPERM, which root cannot bypass) and a
// small tmpfs (ENOSPC) need root too. Those probes are skipped when their tool is missing.
import { execFileSync, spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const APPS = ['chunking-tool', 'keyword-extractor', 'topic-spec', 'index-tool', 'docs-query', 'docs-score', 'docs-serve', 'inspector'] as const;
const bin = (app: (typeof APPS)[number]) => join(REPO, 'apps', app, 'bin', `${app}.js`);

const isRoot = process.getuid?.() === 0;
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const canSetpriv = isRoot && has('setpriv');
const canChattr = isRoot && has('chattr') && has('lsattr');
const canMount = isRoot && has('mount') && has('umount');

let work: string;
let ws: string;

interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The base URL a docs-serve child prints once it listens; rejects if it exits first. */
function servedUrl(server: ChildProcessByStdio<null, Readable, Readable>): Promise<string> {
  return new Promise<string>((done, fail) => {
    let out = '';
    server.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /at (http:\/\/\S+\/) /.exec(out);
      if (m) done(m[1]!);
    });
    server.on('exit', () => fail(new Error(`docs-serve exited: ${out}`)));
  });
}

function run(app: (typeof APPS)[number], args: string[], opts: { asNobody?: boolean; cwd?: string } = {}): Run {
  const cmd = opts.asNobody ? 'setpriv' : process.execPath;
  const argv = opts.asNobody ? ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, bin(app), ...args] : [bin(app), ...args];
  // A hang is a failure: 20 s is far above any of these runs.
  const r = spawnSync(cmd, argv, { cwd: opts.cwd ?? ws, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** One line on stderr, naming `path`, no stack trace, the given exit status. */
function expectMessage(r: Run, status: number, path: string | RegExp): void {
  expect(r.signal, r.stderr).toBeNull();
  expect(r.stderr, 'no stack trace').not.toMatch(/\n\s+at |Error:|node:internal/);
  const lines = r.stderr.trim().split('\n').filter((l) => !l.includes('warning:'));
  expect(lines, r.stderr).toHaveLength(1);
  if (typeof path === 'string') expect(lines[0]).toContain(path);
  else expect(lines[0]).toMatch(path);
  expect(r.status, r.stderr).toBe(status);
}

/** A full workspace: one topic built by the whole pipeline, and the docs root index. */
function buildWorkspace(into: string): void {
  mkdirSync(join(into, 'docs/t1'), { recursive: true });
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(into, 'chunkyard.config.yaml'));
  cpSync(join(REPO, 'docs/deployment/native-aot/golden-reference.md'), join(into, 'docs/t1/golden-reference.md'));
  for (const [app, args] of [
    ['chunking-tool', ['docs/t1']],
    ['keyword-extractor', ['docs/t1']],
    ['topic-spec', ['docs/t1']],
    ['index-tool', ['docs/t1', '--root', 'docs']],
    ['index-tool', ['docs', '--root', 'docs']],
  ] as const) {
    execFileSync(process.execPath, [bin(app), ...args], { cwd: into, stdio: 'pipe' });
  }
}

beforeAll(() => {
  execFileSync('node', ['tools/build.mjs', ...APPS.map((a) => `apps/${a}`), 'apps/docs-export', 'apps/docs-store'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
  work = mkdtempSync(join(tmpdir(), 'chunkyard-env-'));
  // `nobody` must be able to reach the workspace.
  chmodSync(work, 0o755);
  ws = join(work, 'ws');
  buildWorkspace(ws);
}, 180_000);

afterAll(() => {
  if (canChattr) spawnSync('chattr', ['-R', '-i', work]);
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A fresh copy of the built workspace, so probes do not disturb each other. */
function copyWs(name: string): string {
  const dir = join(work, name);
  cpSync(ws, dir, { recursive: true });
  return dir;
}

describe('a folder that cannot be written is a message, not a trace', () => {
  it.runIf(canSetpriv)('EACCES (run as nobody on a mode-555 topic folder): every writing tool names the folder, exit 1', () => {
    const dir = copyWs('eacces');
    spawnSync('chmod', ['-R', 'a+rX', dir]);
    const cache = join(work, 'eacces-cache');
    mkdirSync(cache, { mode: 0o777 });
    chmodSync(cache, 0o777);
    // A cache folder that cannot be created does not stop the run (session 60: a cache is an
    // optimization): one warning names the folder that refuses it, and the outputs are written.
    chmodSync(join(dir, 'docs/t1'), 0o777);
    const uncached = run('topic-spec', ['docs/t1', '--cache-dir', join(work, 'no-cache/here')], { asNobody: true, cwd: dir });
    expect(uncached.stderr, 'no stack trace').not.toMatch(/\n\s+at |Error:|node:internal/);
    expect(uncached.stderr.trim().split('\n').filter((l) => l.includes('warning:') && l.includes(`${work}: cannot create folders in it: permission denied (EACCES)`)), uncached.stderr).toHaveLength(1);
    expect(uncached.status, uncached.stderr).toBe(0);
    chmodSync(join(dir, 'docs/t1'), 0o555);
    chmodSync(join(dir, 'docs/t1/_chunks'), 0o555);
    for (const [app, args] of [
      ['chunking-tool', ['docs/t1']],
      ['keyword-extractor', ['docs/t1']],
      ['topic-spec', ['docs/t1', '--cache-dir', cache]],
      ['index-tool', ['docs/t1', '--root', 'docs']],
      ['inspector', ['build', '--out', 'docs/t1/inspector']],
    ] as const) {
      const r = run(app, [...args], { asNobody: true, cwd: dir });
      expectMessage(r, 1, /docs\/t1.*permission denied \(EACCES\)/);
    }
    // File mode writes into _chunks/, which is read-only too.
    expectMessage(run('chunking-tool', ['docs/t1/golden-reference.md'], { asNobody: true, cwd: dir }), 1, /_chunks.*permission denied \(EACCES\)/);
    // A failed run leaves no temp behind.
    expect(readdirSync(join(dir, 'docs/t1')).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect(readdirSync(join(dir, 'docs/t1/_chunks')).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it.runIf(canSetpriv)('EACCES on reading: docs-score, docs-query and docs-serve name the unreadable folder', () => {
    const dir = copyWs('eacces-read');
    spawnSync('chmod', ['-R', 'a+rX', dir]);
    chmodSync(join(dir, 'docs'), 0o000);
    expectMessage(run('docs-score', ['docs'], { asNobody: true, cwd: dir }), 1, /docs.*permission denied \(EACCES\)/);
    expectMessage(run('docs-serve', ['docs', '--port', '0'], { asNobody: true, cwd: dir }), 1, /docs.*permission denied \(EACCES\)/);
    chmodSync(join(dir, 'docs'), 0o755);
    chmodSync(join(dir, 'docs/t1/_chunks'), 0o000);
    expectMessage(run('docs-score', ['docs'], { asNobody: true, cwd: dir }), 1, /_chunks.*permission denied \(EACCES\)/);
  });

  // s39 probe: a file that is there but cannot be read (mode 000) was Node's own words, "EACCES:
  // permission denied, open 'docs/t1/golden-reference.md'", with nothing to do, in every topic
  // tool; a folder that cannot be read already said "permission denied (EACCES); check its
  // permissions …".
  it.runIf(canSetpriv)('EACCES on reading a file: each topic tool names the file and what to do, exit 1', () => {
    const dir = copyWs('eacces-file');
    spawnSync('chmod', ['-R', 'a+rwX', dir]);
    writeFileSync(join(dir, 'docs/t1/qa-pairs.md'), '## Q: How do I publish?\n\nWith dotnet publish.\n');
    for (const [app, args, file] of [
      ['chunking-tool', ['docs/t1'], 'docs/t1/golden-reference.md'],
      ['chunking-tool', ['docs/t1/golden-reference.md'], 'docs/t1/golden-reference.md'],
      ['keyword-extractor', ['docs/t1'], 'docs/t1/golden-reference.md'],
      ['keyword-extractor', ['docs/t1'], 'docs/t1/qa-pairs.md'],
      ['topic-spec', ['docs/t1'], 'docs/t1/qa-pairs.md'],
      ['topic-spec', ['docs/t1'], 'docs/t1/_chunks/golden-reference.json'],
      ['topic-spec', ['docs/t1'], 'docs/t1/_keywords/words.md'],
      ['index-tool', ['docs/t1', '--root', 'docs'], 'docs/t1/topic-spec.md'],
    ] as const) {
      chmodSync(join(dir, file), 0o000);
      try {
        const r = run(app, [...args], { asNobody: true, cwd: dir });
        expectMessage(r, 1, `${file}: permission denied (EACCES); check its permissions`);
        expect(r.stderr, `${app} ${file}`).not.toContain('EACCES:');
      } finally {
        chmodSync(join(dir, file), 0o644);
      }
    }
  });

  // s43 probe: a topic folder this user may not search (mode 000 or 644: no x) hides its
  // golden-reference.md, and the topic tools said "a folder, but not a topic (no
  // golden-reference.md in it)" (exit 2), index-tool "neither a topic nor a section", docs-score
  // "no topic folder at or below it": each sent the user looking for a file that is there.
  it.runIf(canSetpriv)('EACCES on a topic folder without search permission: the folder and permission denied, not "not a topic"', () => {
    const dir = copyWs('eacces-search');
    spawnSync('chmod', ['-R', 'a+rwX', dir]);
    for (const mode of [0o000, 0o644]) {
      chmodSync(join(dir, 'docs/t1'), mode);
      try {
        for (const [app, args] of [
          ['chunking-tool', ['docs/t1']],
          ['keyword-extractor', ['docs/t1']],
          ['topic-spec', ['docs/t1']],
          ['index-tool', ['docs/t1', '--root', 'docs']],
          ['docs-score', ['docs/t1']],
        ] as const) {
          const r = run(app, [...args], { asNobody: true, cwd: dir });
          expect(r.stderr, `${app} ${mode.toString(8)}`).not.toContain('not a topic');
          expectMessage(r, 1, /docs\/t1: permission denied \(EACCES\); check its permissions/);
        }
        const store = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, join(REPO, 'apps/docs-store/bin/docs-store.js'), 'ingest', 'docs/t1', '--db', join(dir, 'store.db')], { cwd: dir, encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH ?? '', CI: '1' } });
        expect(store.stderr).not.toContain('not a topic');
        expectMessage(store, 1, 'docs/t1: permission denied (EACCES)');
      } finally {
        chmodSync(join(dir, 'docs/t1'), 0o777);
      }
    }
  });

  it.runIf(canChattr)('EPERM (an immutable topic folder, which root cannot write either): a message, exit 1', () => {
    const dir = copyWs('eperm');
    expect(spawnSync('chattr', ['+i', join(dir, 'docs/t1')]).status).toBe(0);
    try {
      for (const [app, args] of [
        ['chunking-tool', ['docs/t1']],
        ['keyword-extractor', ['docs/t1']],
        ['topic-spec', ['docs/t1']],
        ['index-tool', ['docs/t1', '--root', 'docs']],
      ] as const) {
        expectMessage(run(app, [...args], { cwd: dir }), 1, /docs\/t1: cannot write in this folder: operation not permitted \(EPERM\)/);
      }
    } finally {
      spawnSync('chattr', ['-i', join(dir, 'docs/t1')]);
    }
  });

  it.runIf(canChattr)('chunking-tool: a topic that cannot be written fails alone; the other topics are still written', () => {
    const dir = join(work, 'two-topics');
    for (const t of ['a', 'b']) {
      mkdirSync(join(dir, t), { recursive: true });
      cpSync(join(ws, 'docs/t1/golden-reference.md'), join(dir, t, 'golden-reference.md'));
    }
    expect(spawnSync('chattr', ['+i', join(dir, 'b')]).status).toBe(0);
    try {
      const r = run('chunking-tool', [join(dir, 'b'), join(dir, 'a'), '--config', join(ws, 'chunkyard.config.yaml'), '--json']);
      expectMessage(r, 1, `${join(dir, 'b')}: cannot write in this folder: operation not permitted (EPERM)`);
      const out = JSON.parse(r.stdout) as { documents: { source: string }[]; errors: { source: string; error: string }[] };
      expect(out.documents.map((d) => d.source)).toEqual([join(dir, 'a/golden-reference.md')]);
      expect(out.errors).toEqual([{ source: join(dir, 'b/golden-reference.md'), error: expect.stringContaining('(EPERM)') }]);
      expect(existsSync(join(dir, 'a/_chunks/golden-reference.json'))).toBe(true);
    } finally {
      spawnSync('chattr', ['-i', join(dir, 'b')]);
    }
  });

  it.runIf(canChattr)('keyword-extractor, topic-spec, index-tool: an unwritable topic fails alone, the others are written', () => {
    const dir = copyWs('two-built');
    cpSync(join(dir, 'docs/t1'), join(dir, 'docs/t2'), { recursive: true });
    rmSync(join(dir, 'docs/t2/index.json'));
    expect(spawnSync('chattr', ['+i', join(dir, 'docs/t2')]).status).toBe(0);
    try {
      for (const [app, args, key] of [
        ['keyword-extractor', [], 'topics'],
        ['topic-spec', [], 'topics'],
        ['index-tool', ['--root', 'docs'], 'indexes'],
      ] as const) {
        const r = run(app, ['docs/t2', 'docs/t1', ...args, '--json'], { cwd: dir });
        expectMessage(r, 1, /docs\/t2: cannot write in this folder: operation not permitted \(EPERM\)/);
        const out = JSON.parse(r.stdout) as Record<string, unknown[]> & { errors: unknown[] };
        expect(out[key], app).toHaveLength(1);
        expect(out.errors, app).toHaveLength(1);
      }
    } finally {
      spawnSync('chattr', ['-i', join(dir, 'docs/t2')]);
    }
  });

  it.runIf(canChattr)('EPERM on an immutable output file in a writable folder: each tool names that file, not the folder nor a temp path', () => {
    const dir = copyWs('eperm-file');
    mkdirSync(join(dir, 'loose'));
    cpSync(join(dir, 'docs/t1/golden-reference.md'), join(dir, 'loose/l.md'));
    expect(run('chunking-tool', ['loose/l.md'], { cwd: dir }).status).toBe(0);
    expect(run('keyword-extractor', ['docs/t1', '--out', 'kout'], { cwd: dir }).status).toBe(0);
    expect(run('index-tool', ['docs', '--root', 'docs', '--llms-txt'], { cwd: dir }).status).toBe(0);
    const files = ['loose/_chunks/l-0.md', 'kout/words.md', 'docs/t1/topic-spec.md', 'docs/t1/index.json', 'docs/llms.txt'];
    for (const f of files) expect(spawnSync('chattr', ['+i', join(dir, f)]).status).toBe(0);
    try {
      for (const [app, args, file] of [
        ['chunking-tool', ['loose/l.md'], 'loose/_chunks/l-0.md'],
        ['keyword-extractor', ['docs/t1', '--out', 'kout'], join(dir, 'kout/words.md')],
        ['topic-spec', ['docs/t1'], 'docs/t1/topic-spec.md'],
        ['index-tool', ['docs/t1', '--root', 'docs'], 'docs/t1/index.json'],
        ['index-tool', ['docs', '--root', 'docs', '--llms-txt'], join(dir, 'docs/llms.txt')],
      ] as const) {
        const r = run(app, [...args], { cwd: dir });
        // Before: "docs/t1: cannot write in this folder: …" (the folder takes writes), and for
        // chunking-tool "loose/_chunks/.staged.tmp-…/l-0.md -> loose/_chunks/l-0.md: …".
        expect(r.stderr, app).toBe(`${app}: ${file}: operation not permitted (EPERM); check its permissions (and that it is not immutable, lsattr) or choose another location\n`);
        expect(r.status, app).toBe(1);
      }
    } finally {
      for (const f of files) spawnSync('chattr', ['-i', join(dir, f)]);
    }
  });

  it('a regular file where a folder is expected (ENOTDIR): names that file', () => {
    const dir = copyWs('enotdir');
    // .embedding-cache a regular file: topic-spec writes vectors there, docs-query reads them.
    rmSync(join(dir, '.embedding-cache'), { recursive: true, force: true });
    writeFileSync(join(dir, '.embedding-cache'), 'not a folder\n');
    const cache = join(dir, '.embedding-cache');
    // topic-spec refuses it before any topic, as a usage error naming the folder (e182b3a).
    expectMessage(run('topic-spec', ['docs/t1'], { cwd: dir }), 2, `${cache} is a file, where the cache needs a folder`);
    expectMessage(run('docs-query', ['docs', '-q', 'How do I publish a native AOT app with trimming?'], { cwd: dir }), 1, `${cache}: is a file where a folder is expected (ENOTDIR)`);
    // --out under a regular file.
    writeFileSync(join(dir, 'afile'), 'x');
    const afile = join(dir, 'afile');
    expectMessage(run('chunking-tool', ['docs/t1', '--out', 'afile/out'], { cwd: dir }), 1, `${afile}: is a file where a folder is expected`);
    expectMessage(run('chunking-tool', ['docs/t1/golden-reference.md', '--out', 'afile/out'], { cwd: dir }), 1, `${afile}: is a file where a folder is expected`);
    expectMessage(run('keyword-extractor', ['docs/t1', '--out', 'afile/out'], { cwd: dir }), 1, `${afile}: is a file where a folder is expected`);
    expectMessage(run('inspector', ['build', '--out', 'afile/out'], { cwd: dir }), 1, `${afile}: is a file where a folder is expected`);
  });

  it.runIf(canMount)('ENOSPC (a full tmpfs): a message, exit 1, no temp left', () => {
    const mnt = join(work, 'full');
    mkdirSync(mnt);
    // Room for the source but not for its chunks and manifest.
    const size = statSync(join(ws, 'docs/t1/golden-reference.md')).size + 8192;
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mnt]).status).toBe(0);
    try {
      mkdirSync(join(mnt, 't1'));
      cpSync(join(ws, 'docs/t1/golden-reference.md'), join(mnt, 't1/golden-reference.md'));
      expectMessage(run('chunking-tool', [join(mnt, 't1'), '--config', join(ws, 'chunkyard.config.yaml')]), 1, /full\/t1.*no space left on the device \(ENOSPC\)/);
      expect(readdirSync(join(mnt, 't1')).sort()).toEqual(['golden-reference.md']);
    } finally {
      spawnSync('umount', [mnt]);
    }
  });
});

describe('a full disk names where it ran out', () => {
  // Found by probing: a failed write(2) carries no path, so topic-spec (its embedding cache)
  // and docs-export (--out) said only "no space left on the device", and docs-store said
  // "cannot open the store (SQLITE_FULL: ...)" with nothing to do.
  it.runIf(canMount)('ENOSPC on a full tmpfs: topic-spec --cache-dir, docs-export --out, docs-store --db each name the path', () => {
    const mnt = join(work, 'full2');
    mkdirSync(mnt);
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt]).status).toBe(0);
    try {
      // Leave 4 KiB: folders fit, the data does not.
      writeFileSync(join(mnt, 'fill'), Buffer.alloc(60 * 1024));
      const runBin = (app: string, args: string[]): Run => {
        const r = spawnSync(process.execPath, [join(REPO, 'apps', app, 'bin', `${app}.js`), ...args], { cwd: ws, encoding: 'utf8', timeout: 20_000 });
        return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
      };
      // A full cache disk is a warning naming it, and the run goes on (session 60).
      const full = runBin('topic-spec', ['docs/t1', '--cache-dir', join(mnt, 'cache')]);
      expect(full.stderr, 'no stack trace').not.toMatch(/\n\s+at |Error:|node:internal/);
      expect(full.stderr).toMatch(new RegExp(`^topic-spec: warning: .*${mnt}/cache.*no space left on the device \\(ENOSPC\\)`, 'm'));
      expect(full.status, full.stderr).toBe(0);
      expectMessage(runBin('docs-export', ['docs', '--format', 'jsonl', '--out', join(mnt, 'x.jsonl')]), 1, `docs-export: ${mnt}/x.jsonl: no space left on the device (ENOSPC); free some space and run again`);
      expectMessage(runBin('docs-store', ['ingest', 'docs/t1', '--db', join(mnt, 's.db')]), 1, `docs-store: ${mnt}/s.db: the disk is full (database or disk is full); free some space and run again`);
    } finally {
      spawnSync('umount', [mnt]);
    }
  });
});

describe('non-regular files are refused at once, broken marker links are named as such', () => {
  it('a FIFO, a symlink to /dev/zero, a dangling and a looping golden-reference.md', () => {
    const base = join(work, 'special');
    const cases: [string, (p: string) => void, RegExp][] = [
      ['fifo', (p) => execFileSync('mkfifo', [p]), /a FIFO \(named pipe\), not a regular file/],
      ['zero', (p) => symlinkSync('/dev/zero', p), /a character device, not a regular file/],
      ['dangling', (p) => symlinkSync('nowhere.md', p), /a dangling symlink/],
      ['loop', (p) => symlinkSync('golden-reference.md', p), /a symlink loop/],
    ];
    for (const [name, make, message] of cases) {
      const topic = join(base, name);
      mkdirSync(topic, { recursive: true });
      make(join(topic, 'golden-reference.md'));
      for (const [app, args] of [
        ['chunking-tool', ['--config', join(ws, 'chunkyard.config.yaml')]],
        ['keyword-extractor', []],
      ] as const) {
        const r = run(app, [topic, ...args]);
        expectMessage(r, 1, message);
        expect(r.stderr).toContain(join(topic, 'golden-reference.md'));
      }
    }
    // A config file that is a FIFO is a usage error, not a hang.
    const fifo = join(base, 'config.yaml');
    execFileSync('mkfifo', [fifo]);
    expectMessage(run('chunking-tool', ['docs/t1', '--config', fifo]), 2, /config\.yaml: a FIFO \(named pipe\), not a regular file/);
  });

  it('docs-serve answers a FIFO in the tree with 403 at once instead of a request that never ends', async () => {
    const dir = copyWs('fifo-served');
    execFileSync('mkfifo', [join(dir, 'docs/t1/pipe.md')]);
    mkdirSync(join(dir, 'docs/sub'));
    execFileSync('mkfifo', [join(dir, 'docs/sub/index.json')]);
    const server = spawn(process.execPath, [bin('docs-serve'), join(dir, 'docs'), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await servedUrl(server);
      for (const path of ['t1/pipe.md', 'sub/', 'sub/index.json']) {
        const res = await fetch(new URL(path, url), { signal: AbortSignal.timeout(5000) });
        expect(res.status, path).toBe(403);
      }
      expect((await fetch(new URL('t1/golden-reference.md', url), { signal: AbortSignal.timeout(5000) })).status).toBe(200);
    } finally {
      server.kill('SIGTERM');
    }
  });

  it('docs-query and docs-score refuse a FIFO in the built tree', () => {
    const dir = copyWs('fifo-built');
    rmSync(join(dir, 'docs/index.json'));
    execFileSync('mkfifo', [join(dir, 'docs/index.json')]);
    expectMessage(run('docs-query', ['docs', '--list'], { cwd: dir }), 1, /index\.json.*not a regular file/);
    // A config that is a FIFO, read when a query falls back to embeddings.
    const fifoConfig = join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifoConfig]);
    expectMessage(run('docs-query', [join(ws, 'docs'), '-q', 'zebra quantum', '--config', fifoConfig], { cwd: dir }), 2, `${fifoConfig}: a FIFO (named pipe), not a regular file; point it at a regular file`);
    rmSync(join(dir, 'docs/t1/_chunks/golden-reference.json'));
    execFileSync('mkfifo', [join(dir, 'docs/t1/_chunks/golden-reference.json')]);
    const r = run('docs-score', ['docs/t1'], { cwd: dir });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/golden-reference\.json.*a FIFO \(named pipe\), not a regular file/);
  });
});

// s43 probe: a symlinked folder is skipped by the tree walks, but to say whether it held topics
// they walked its target. A link to ".." made docs-score recurse until "Maximum call stack size
// exceeded"; a link to "/" made docs-score walk the whole disk (killed at the timeout) and
// docs-export and index-tool fail with "/proc/1/fdinfo: permission denied (EACCES)".
describe('symlinks that lead back up the tree are skipped and named, not walked', () => {
  it('a link to ".." and a link to "/" in the docs: docs-score, index-tool and docs-export finish and name both', () => {
    const dir = copyWs('links-up');
    symlinkSync('..', join(dir, 'docs/up'));
    symlinkSync('/', join(dir, 'docs/root'));
    const runs: [string, Run][] = [
      ['docs-score', run('docs-score', ['docs'], { cwd: dir })],
      ['index-tool', run('index-tool', ['docs', '--root', 'docs'], { cwd: dir })],
    ];
    const exp = spawnSync(process.execPath, [join(REPO, 'apps/docs-export/bin/docs-export.js'), 'docs', '--format', 'jsonl', '--out', 'all.jsonl'], { cwd: dir, encoding: 'utf8', timeout: 20_000 });
    runs.push(['docs-export', { status: exp.status, signal: exp.signal, stdout: exp.stdout, stderr: exp.stderr }]);
    for (const [app, r] of runs) {
      expect(r.signal, `${app}: ${r.stderr}`).toBeNull();
      expect(r.stderr, app).not.toMatch(/\n\s+at |Maximum call stack|EACCES/);
      expect(r.status, `${app}: ${r.stderr}`).toBe(0);
      expect(r.stderr, app).toContain('docs/up');
      expect(r.stderr, app).toContain('docs/root');
    }
  });
});

describe('temp outputs of killed and failed runs', () => {
  it('a chunking-tool killed mid-write leaves a temp folder; the next run removes it', async () => {
    const dir = join(work, 'killed');
    mkdirSync(join(dir, 't1'), { recursive: true });
    // A big document (about 10 MB), so the temp folder exists for a while before the swap.
    const unit = (i: number) => `## Section ${i}\n\n${'Plain prose about deployment options and their trade-offs. '.repeat(40)}\n\n`;
    writeFileSync(join(dir, 't1/golden-reference.md'), `# Big\n\n${Array.from({ length: 4000 }, (_, i) => unit(i)).join('')}`);
    const config = join(ws, 'chunkyard.config.yaml');
    const temps = () => readdirSync(join(dir, 't1')).filter((n) => n.startsWith('._chunks.tmp-'));
    let caught = false;
    for (let attempt = 0; attempt < 8 && !caught; attempt++) {
      const child = spawn(process.execPath, [bin('chunking-tool'), join(dir, 't1'), '--config', config], { stdio: 'ignore' });
      const exited = new Promise<void>((done) => child.on('exit', () => done()));
      // Poll for the temp folder and SIGKILL the moment it appears, as a killed Nx task would be.
      await new Promise<void>((done) => {
        const timer = setInterval(() => {
          if (temps().length > 0) {
            child.kill('SIGKILL');
            caught = true;
          }
          if (caught || child.exitCode !== null) {
            clearInterval(timer);
            done();
          }
        }, 1);
      });
      await exited;
      if (caught && temps().length === 0) caught = false;
    }
    expect(caught, 'killed the run while its temp folder existed').toBe(true);
    const left = temps();
    expect(left.length).toBeGreaterThan(0);
    // The next run sweeps it (its pid is dead) and succeeds.
    const r = run('chunking-tool', [join(dir, 't1'), '--config', config]);
    expect(r.status, r.stderr).toBe(0);
    expect(temps()).toEqual([]);
    expect(existsSync(join(dir, 't1/_chunks/golden-reference.json'))).toBe(true);
  }, 180_000);
});

describe('a run in another pid namespace (a container sharing the docs)', () => {
  const canUnshare = isRoot && has('unshare') && spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0;

  it.runIf(canUnshare)('leaves a live host run\'s staging folder alone: both runs succeed (probe: the pid looked dead there, and the folder was removed mid-run)', async () => {
    const dir = join(work, 'namespaces');
    mkdirSync(join(dir, 't1'), { recursive: true });
    const unit = (i: number) => `## Section ${i}\n\n${'Plain prose about deployment options and their trade-offs. '.repeat(40)}\n\n`;
    writeFileSync(join(dir, 't1/golden-reference.md'), `# Big\n\n${Array.from({ length: 4000 }, (_, i) => unit(i)).join('')}`);
    const config = join(ws, 'chunkyard.config.yaml');
    const temps = () => readdirSync(join(dir, 't1')).filter((n) => n.startsWith('._chunks.tmp-'));
    // The host run, stopped (alive) while its staging folder is being filled.
    const host = spawn(process.execPath, [bin('chunking-tool'), join(dir, 't1'), '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    let hostErr = '';
    host.stderr.on('data', (b: Buffer) => void (hostErr += b.toString()));
    const hostExit = new Promise<number | null>((done) => host.on('exit', (code) => done(code)));
    await new Promise<void>((done) => {
      const timer = setInterval(() => {
        if (temps().length > 0 || host.exitCode !== null) {
          clearInterval(timer);
          done();
        }
      }, 1);
    });
    host.kill('SIGSTOP');
    try {
      const staging = temps();
      expect(staging, 'the host run was stopped while staging').toHaveLength(1);
      // The container's run: its own pid namespace, where the host run's pid does not exist.
      const other = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, bin('chunking-tool'), join(dir, 't1'), '--config', config], { encoding: 'utf8', timeout: 120_000 });
      expect(other.stderr).toBe('');
      expect(other.status).toBe(0);
      // Before: swept as a killed run's leftover.
      expect(temps()).toContain(staging[0]);
    } finally {
      host.kill('SIGCONT');
    }
    // Before: exit 1, "…/t1: the folder was removed or renamed during the run; nothing written there".
    expect(await hostExit, hostErr).toBe(0);
    expect(hostErr).toBe('');
    expect(temps()).toEqual([]);
  }, 240_000);
});

describe('output is safe for a terminal', () => {
  // ESC sequences (clear screen, set the window title), BEL, a bare CR, DEL and C1 controls (CSI 0x9b, OSC 0x9d).
  const EVIL = 'Evil \u001b[2J\u001b]0;pwned\u0007 title\r\u007f\u009b2J\u009d0;x\u009c end';
  const RAW_CONTROL = /[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/;

  function evilDocs(name: string): string {
    const dir = copyWs(name);
    for (const file of ['docs/t1/index.json']) {
      const path = join(dir, file);
      const json = JSON.parse(readFileSync(path, 'utf8')) as { title: string };
      json.title = EVIL;
      writeFileSync(path, JSON.stringify(json, null, 2));
    }
    const root = join(dir, 'docs/index.json');
    writeFileSync(root, readFileSync(root, 'utf8').replaceAll('"Native AOT deployment overview"', JSON.stringify(EVIL)));
    return dir;
  }

  it('docs-query escapes control characters of titles, from a folder and over --base-url', async () => {
    const dir = evilDocs('evil');
    for (const args of [['docs', '--list'], ['docs', '-n', '1'], ['docs', '--list', '--json']]) {
      const r = run('docs-query', args, { cwd: dir });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain('Evil');
      expect(r.stdout).not.toMatch(RAW_CONTROL);
      expect(r.stdout).toContain('\\u001b[2J');
      expect(r.stdout).toContain('\\u009b');
      if (args.includes('--json')) expect(JSON.stringify(JSON.parse(r.stdout))).toContain('\\u001b[2J');
    }
    const server = spawn(process.execPath, [bin('docs-serve'), join(dir, 'docs'), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await servedUrl(server);
      const r = await new Promise<Run>((done) => {
        const child = spawn(process.execPath, [bin('docs-query'), '--base-url', url, '--list'], { cwd: dir });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
        child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
        child.on('exit', (status, signal) => done({ status, signal, stdout, stderr }));
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain('Evil');
      expect(r.stdout).not.toMatch(RAW_CONTROL);
    } finally {
      server.kill('SIGTERM');
    }
  });

  it('index-tool and docs-score print a section title from a child index.json escaped', () => {
    const dir = evilDocs('evil-index');
    const r = run('index-tool', ['docs', '--root', 'docs'], { cwd: dir });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(RAW_CONTROL);
    // A heading with controls in a document: chunking-tool's messages name paths escaped too.
    const evilName = join(dir, 'docs/t1/\u001b[2Jx.md');
    const c = run('chunking-tool', [evilName], { cwd: dir });
    // Refused by its name since b420e31 (it would go into every chunk id): a usage error.
    expect(c.status).toBe(2);
    expect(c.stderr).not.toMatch(RAW_CONTROL);
    expect(c.stderr).toContain('\\u001b[2Jx.md');
  });
});

describe('numeric options are bounded, with the range in --help', () => {
  it.each([
    ['keyword-extractor', ['docs/t1', '--max', '100001'], '--max: expected a whole number from 0 to 100000, got "100001"'],
    ['docs-query', ['docs', '-k', '1001'], '-k/--k: expected a whole number from 0 to 1000, got "1001"'],
    ['docs-query', ['docs', '-n', '1e9'], '-n/--n: expected a whole number from 0 to 100000, got "1e9"'],
    ['docs-score', ['docs', '--k', '1e3'], '--k: expected a whole number from 1 to 1000, got "1e3"'],
    ['docs-score', ['docs', '--k', '1001'], '--k: expected a whole number from 1 to 1000, got "1001"'],
  ] as const)('%s %s: exit 2 naming the range', (app, args, message) => {
    const r = run(app, [...args]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('the --help texts give every range', () => {
    expect(run('keyword-extractor', ['--help']).stdout).toContain('0..100000');
    expect(run('docs-query', ['--help']).stdout).toMatch(/0\.\.100000[\s\S]*0\.\.1000 \(default 0\)/);
    expect(run('docs-score', ['--help']).stdout).toContain('1..1000 (default 5)');
    expect(run('docs-serve', ['--help']).stdout).toContain('0..65535');
    const chunking = run('chunking-tool', ['--help']).stdout;
    for (const key of ['minTokens 0..1000000', 'maxTokens 16..1000000', 'ctxSize 512..1000000', 'maxConcepts 0..10000']) expect(chunking).toContain(key);
    const spec = run('topic-spec', ['--help']).stdout;
    for (const key of ['promptThreshold 0..1', 'batchSize 1..2048', 'timeoutMs 100..3600000']) expect(spec).toContain(key);
  });

  it('a config value of 1e309 or .nan says what was given', () => {
    const dir = join(work, 'bounded');
    mkdirSync(dir, { recursive: true });
    for (const bad of ['1e309', '.nan', '1e12']) {
      writeFileSync(join(dir, 'c.yaml'), `chunking:\n  maxTokens: ${bad}\n`);
      const r = run('chunking-tool', ['docs/t1', '--config', join(dir, 'c.yaml')]);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`chunking.maxTokens: expected a whole number from 16 to 1000000, got ${bad}`);
    }
  });
});
