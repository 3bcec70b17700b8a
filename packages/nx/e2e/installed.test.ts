// chunkyard as a docs team gets it: every package packed with `npm pack --workspaces`, installed
// with nx into a fresh docs repo outside this workspace, set up by the init generator with a docs
// root other than `docs`, then built, checked, rebuilt, edited and extended the way its users
// do. Then a second machine (a clone with an empty .nx and no outputs) shares the first one's
// cache through a real self-hosted remote cache server on 127.0.0.1. Nothing is mocked: real
// npm, real Nx, the real tools from the tarballs.
//
// Needs the npm registry for nx and the tools' npm dependencies (npm's cache, filled by `npm
// ci`, serves most of them: --prefer-offline). better-sqlite3 (docs-store) compiles from source
// during the install, which is most of this file's time.
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextMtimeSecond, readTree, repoRoot, runMany, runNx, type TempWorkspace } from './temp-workspace.mjs';

const KEEP = process.env.CHUNKYARD_KEEP_TEMP === '1';
const NX_VERSION = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies.nx!;
const TOKEN = 'chunkyard-e2e-token';
const sorted = (s: Iterable<string>) => [...s].sort();

let temp: string;
let tarballs: string;
let server: { url: string; process: ChildProcess };
let a: TempWorkspace;

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env, timeout = 600_000): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r;
}

function git(cwd: string, ...args: string[]) {
  return run('git', ['-c', 'user.name=chunkyard-e2e', '-c', 'user.email=e2e@chunkyard.invalid', '-c', 'commit.gpgsign=false', ...args], cwd);
}

/**
 * The remote cache server in its own process, as it runs in real life: runMany() blocks this
 * process (spawnSync) while Nx talks to the server, so the server cannot share its event loop.
 */
function startServerProcess(dir: string): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'remote-cache-server.mjs'), '--dir', dir, '--port', '0', '--token', TOKEN], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolvePromise, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolvePromise({ url: m[1]!, process: child });
    });
    child.on('exit', (code) => reject(new Error(`remote cache server exited ${code}: ${out}`)));
  });
}

/** The environment of a CI machine: no inherited Nx state, this workspace's own cache folders, the remote cache. */
function machine(root: string): TempWorkspace {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('NX_') && !k.startsWith('npm_')) env[k] = v;
  Object.assign(env, {
    CI: 'true',
    NX_DAEMON: 'false',
    NX_NO_CLOUD: 'true',
    NX_TUI: 'false',
    NX_CACHE_DIRECTORY: join(root, '.nx', 'cache'),
    NX_WORKSPACE_DATA_DIRECTORY: join(root, '.nx', 'workspace-data'),
    NX_SELF_HOSTED_REMOTE_CACHE_SERVER: server.url,
    NX_SELF_HOSTED_REMOTE_CACHE_ACCESS_TOKEN: TOKEN,
    NO_COLOR: '1',
  });
  return { root, cacheDir: join(root, '.nx', 'cache'), env, lastRunEndedAt: 0 };
}

/** Sample topics: real docs from this repo's docs/, one nested a level deeper. */
const TOPICS: Record<string, string> = {
  'content/deployment/native-aot': 'docs/deployment/native-aot',
  'content/deployment/trimming/options': 'docs/deployment/trimming-options',
  'content/libraries/collections': 'docs/libraries/system-text-json-collections',
};
const PROJECTS: Record<string, string> = {
  'content/deployment/native-aot': 'topic-deployment-native-aot',
  'content/deployment/trimming/options': 'topic-deployment-trimming-options',
  'content/libraries/collections': 'topic-libraries-collections',
};
const SECTIONS = ['content', 'section-deployment', 'section-deployment-trimming', 'section-libraries'];
/** The root's llms.txt: it lists every topic, so it reruns whenever a topic's index.json changes. */
const LLMS = 'content:llms-txt';
const STEPS = ['chunk', 'keywords', 'spec', 'index-json'];

beforeAll(async () => {
  temp = realpathSync(mkdtempSync(join(tmpdir(), 'chunkyard-installed-')));
  expect(relative(repoRoot, temp).startsWith('..')).toBe(true);
  tarballs = join(temp, 'tarballs');
  mkdirSync(tarballs);
  run('npm', ['pack', '--workspaces', '--pack-destination', tarballs, '--silent'], repoRoot);
  server = await startServerProcess(join(temp, 'remote-cache'));
}, 300_000);

afterAll(() => {
  server?.process.kill();
  if (temp && !KEEP) rmSync(temp, { recursive: true, force: true });
  else if (temp) console.log(`temp folders kept at ${temp}`);
});

describe('@chunkyard/nx in a docs team\'s own repo, installed from packed tarballs', () => {
  it('installs with nx into an empty folder outside the workspace, and init sets it up with docsRoot content', () => {
    const root = join(temp, 'machine-a');
    mkdirSync(root);
    git(root, 'init', '-q', '-b', 'main');
    run('npm', ['init', '-y'], root);
    const tgz = readdirSync(tarballs).filter((f) => f.endsWith('.tgz')).map((f) => join(tarballs, f));
    expect(tgz.length).toBeGreaterThanOrEqual(20);
    run('npm', ['i', '-D', `nx@${NX_VERSION}`, ...tgz, '--prefer-offline', '--no-audit', '--no-fund'], root);
    a = machine(root);
    // Nothing installed leads back into this workspace.
    for (const name of readdirSync(join(root, 'node_modules/@chunkyard'))) {
      const p = join(root, 'node_modules/@chunkyard', name);
      expect(lstatSync(p).isSymbolicLink(), p).toBe(false);
      expect(relative(repoRoot, realpathSync(p)).startsWith('..'), p).toBe(true);
    }
    const g = runNx(a, ['g', '@chunkyard/nx:init', '--docsRoot', 'content', '--no-interactive']);
    expect(g.status, g.output).toBe(0);
    const nxJson = JSON.parse(readFileSync(join(root, 'nx.json'), 'utf8')) as { plugins: unknown[] };
    expect(nxJson.plugins).toEqual([{ plugin: '@chunkyard/nx', options: { docsRoot: 'content' } }]);
    expect(readFileSync(join(root, '.gitignore'), 'utf8')).toContain('/content/**/_chunks');
    expect(existsSync(join(root, 'chunkyard.config.yaml'))).toBe(true);

    for (const [to, from] of Object.entries(TOPICS)) {
      mkdirSync(join(root, to), { recursive: true });
      for (const f of ['golden-reference.md', 'qa-pairs.md']) cpSync(join(repoRoot, from, f), join(root, to, f));
    }
    writeFileSync(join(root, '.gitignore'), `${readFileSync(join(root, '.gitignore'), 'utf8')}node_modules\n/.nx/nx-output-*.log\n`);
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'docs repo');
  }, 900_000);

  it('nx run-many -t index builds every topic and section with the installed tools; docs-score passes', () => {
    const r = runMany(a, ['-t', 'index']);
    const expected = [...Object.values(PROJECTS).flatMap((p) => STEPS.map((s) => `${p}:${s}`)), ...SECTIONS.map((s) => `${s}:index-json`), LLMS];
    expect(sorted(r.ran)).toEqual(sorted(expected));
    // One batch process ran every task of the pipeline (all stages, every index.json and
    // llms.txt, and the `index` tasks, which run nothing) with the installed tools, never code
    // from this repo.
    // eslint-disable-next-line no-control-regex
    const batches = [...r.output.replace(/\u001b\[[0-9;]*m/g, '').matchAll(/Running (\d+) tasks with (\S+)/g)].map((m) => `${m[1]} ${m[2]}`);
    const indexTasks = Object.keys(PROJECTS).length + SECTIONS.length;
    expect(batches).toEqual([`${expected.length + indexTasks} @chunkyard/nx:tool`]);
    expect(r.output).toContain('content/libraries/collections/golden-reference.md: ');
    expect(r.output).not.toContain(repoRoot);
    // The plugin found what it loads from the installed index-tool (the stale-outputs entry).
    expect(r.output).not.toContain('@chunkyard/nx: warning');
    const root = JSON.parse(readFileSync(join(a.root, 'content/index.json'), 'utf8')) as { _embedded: { topics: { id: string }[] } };
    expect(root._embedded.topics.map((t) => t.id)).toEqual(['deployment', 'libraries']);
    // llms.txt at the docs root links every topic's markdown, which exists.
    const llms = readFileSync(join(a.root, 'content/llms.txt'), 'utf8');
    const links = [...llms.matchAll(/^- \[[^\]]+\]\(([^)]+)\)/gm)].map((m) => m[1]!);
    expect(sorted(links)).toEqual(sorted(Object.keys(TOPICS).map((t) => `${t.slice('content/'.length)}/golden-reference.md`)));
    for (const l of links) expect(existsSync(join(a.root, 'content', l)), l).toBe(true);
    const score = spawnSync(join(a.root, 'node_modules/.bin/docs-score'), ['content'], { cwd: a.root, encoding: 'utf8' });
    expect(score.status, `${score.stdout}\n${score.stderr}`).toBe(0);
    // Every topic's vectors were written into its cache folder, and packed into the one file
    // spec declares as its output.
    for (const p of Object.values(PROJECTS)) {
      expect(existsSync(join(a.root, '.embedding-cache', p)), p).toBe(true);
      expect(existsSync(join(a.root, '.embedding-cache', `${p}.pack`)), p).toBe(true);
    }
  });

  it('a second run is served wholly from the cache', () => {
    const r = runMany(a, ['-t', 'index']);
    expect(sorted(r.ran)).toEqual([]);
    expect(r.cached.size).toBe(Object.keys(PROJECTS).length * STEPS.length + SECTIONS.length + 1);
  });

  it('an edit reruns only that topic and the indexes above it', async () => {
    await nextMtimeSecond(a);
    const file = join(a.root, 'content/libraries/collections/golden-reference.md');
    appendFileSync(file, '\n## Changelog\n\nThe collections page gained a changelog section in this edit.\n');
    const r = runMany(a, ['-t', 'index']);
    const topic = PROJECTS['content/libraries/collections']!;
    // Every index.json above the topic hashes the sources below it, so each reruns (in
    // milliseconds, in the same batch); nothing beside the edited path does.
    expect(sorted(r.ran)).toEqual(sorted([...STEPS.map((s) => `${topic}:${s}`), 'section-libraries:index-json', 'content:index-json', LLMS]));
    git(a.root, 'commit', '-qam', 'edit collections');
  });

  it('a topic that fails ends the run with status 1 (not 130), naming it in every task it stops; the rest is built', async () => {
    await nextMtimeSecond(a);
    const broken = join(a.root, 'content/libraries/broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'golden-reference.md'), '---\ntitle: Broken\n---\n');
    try {
      const r = runNx(a, ['run-many', '-t', 'index', '--outputStyle=static']);
      // eslint-disable-next-line no-control-regex
      const out = r.output.replace(/\u001b\[[0-9;]*m/g, '');
      expect(r.status, out).toBe(1);
      expect(out).toMatch(/chunking-tool: content\/libraries\/broken\/golden-reference\.md: no content to chunk/);
      expect(out).toMatch(/> nx run section-libraries:index-json\s*\n+@chunkyard\/nx: not run: it needs topic-libraries-broken:chunk, which failed/);
      expect(existsSync(join(broken, 'index.json'))).toBe(false);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it('an author adds a topic and runs only its index: its section now links it, and docs-score passes', async () => {
    await nextMtimeSecond(a);
    const g = runNx(a, ['g', '@chunkyard/nx:topic', 'libraries/polymorphism', '--title', 'Polymorphic serialization', '--no-interactive']);
    expect(g.status, g.output).toBe(0);
    cpSync(join(repoRoot, 'docs/libraries/system-text-json-polymorphism/golden-reference.md'), join(a.root, 'content/libraries/polymorphism/golden-reference.md'));
    const r = runNx(a, ['run', 'topic-libraries-polymorphism:index', '--outputStyle=static']);
    expect(r.status, r.output).toBe(0);
    const section = JSON.parse(readFileSync(join(a.root, 'content/libraries/index.json'), 'utf8')) as { _embedded: { topics: { id: string }[] } };
    expect(section._embedded.topics.map((t) => t.id)).toEqual(['libraries/collections', 'libraries/polymorphism']);
    expect(readFileSync(join(a.root, 'content/llms.txt'), 'utf8')).toContain('](libraries/polymorphism/golden-reference.md)');
    const score = spawnSync(join(a.root, 'node_modules/.bin/docs-score'), ['content'], { cwd: a.root, encoding: 'utf8' });
    expect(score.status, `${score.stdout}\n${score.stderr}`).toBe(0);
    git(a.root, 'add', '-A');
    git(a.root, 'commit', '-qm', 'add polymorphism');
    // Bring every task of the final tree into the (remote) cache for machine B.
    runMany(a, ['-t', 'index']);
  });
});

describe('CI across machines on Nx\'s self-hosted remote cache', () => {
  let b: TempWorkspace;

  it('machine B, a fresh clone with an empty .nx and no outputs, gets every task from the remote cache, byte-identical', () => {
    const root = join(temp, 'machine-b');
    git(temp, 'clone', '-q', a.root, root);
    // Same lockfile, same packages: share machine A's install instead of compiling it again.
    symlinkSync(join(a.root, 'node_modules'), join(root, 'node_modules'));
    b = machine(root);
    expect(existsSync(join(root, '.nx/cache'))).toBe(false);
    expect(existsSync(join(root, '.nx/workspace-data'))).toBe(false);
    expect(existsSync(join(root, 'content/index.json'))).toBe(false);
    const r = runMany(b, ['-t', 'index']);
    expect(sorted(r.ran)).toEqual([]);
    expect(r.output).toContain('[remote cache]');
    expect(readTree(join(b.root, 'content'))).toEqual(readTree(join(a.root, 'content')));
    // The vectors come as one pack per topic (the folders are unpacked when spec next runs).
    const packs = (root: string) => Object.fromEntries(Object.entries(readTree(join(root, '.embedding-cache'))).filter(([f]) => f.endsWith('.pack')));
    expect(Object.keys(packs(b.root))).toEqual(expect.arrayContaining(Object.values(PROJECTS).map((p) => `${p}.pack`)));
    expect(packs(b.root)).toEqual(packs(a.root));
  });

  it('on machine B, editing one paragraph re-embeds only the changed chunk: the vectors travelled with the cache', async () => {
    await nextMtimeSecond(b);
    const file = join(b.root, 'content/deployment/native-aot/golden-reference.md');
    const text = readFileSync(file, 'utf8');
    const paragraph = text.split('\n\n').find((p) => /^[A-Z][^\n]{80,}$/.test(p) && !p.includes('|'))!;
    writeFileSync(file, text.replace(paragraph, `${paragraph} This sentence was added on machine B.`));
    const r = runMany(b, ['-t', 'index']);
    expect(r.ran.has('topic-deployment-native-aot:spec')).toBe(true);
    // topic-spec's summary: "<topic>: N chunks…; embedded E, cached C -> …". One paragraph sits
    // in one chunk, or two when it is also the overlap at the start of the next.
    const m = /content\/deployment\/native-aot: (\d+) chunks[^\n]*; embedded (\d+), cached (\d+)/.exec(r.output);
    expect(m, r.output).not.toBeNull();
    const [chunks, embedded, cached] = [Number(m![1]), Number(m![2]), Number(m![3])];
    expect(embedded).toBeGreaterThanOrEqual(1);
    expect(embedded).toBeLessThanOrEqual(2);
    expect(cached).toBeGreaterThanOrEqual(chunks - 2);
  });
});

describe('what an install changes', () => {
  it('an unrelated lockfile change reruns nothing; upgrading chunkyard reruns every task', async () => {
    await nextMtimeSecond(a);
    // picocolors is in this repo's lockfile, so npm's cache has it.
    run('npm', ['i', '-D', 'picocolors', '--prefer-offline', '--no-audit', '--no-fund'], a.root);
    expect(sorted(runMany(a, ['-t', 'index']).ran)).toEqual([]);

    // chunkyard one patch version up, as a release would ship it: every tarball unpacked, its
    // version and its @chunkyard dependencies bumped, packed again. The code is the same, so
    // only the version can make a task rerun.
    const upgrade = join(temp, 'upgrade');
    mkdirSync(upgrade);
    const bump = (v: string) => v.replace(/\d+$/, (n) => String(Number(n) + 1));
    const next: string[] = [];
    for (const tgz of readdirSync(tarballs).filter((f) => f.endsWith('.tgz'))) {
      const dir = join(upgrade, tgz.replace(/\.tgz$/, ''));
      mkdirSync(dir);
      run('tar', ['-xzf', join(tarballs, tgz), '-C', dir], temp);
      const pkgFile = join(dir, 'package', 'package.json');
      const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { name: string; version: string; dependencies?: Record<string, string> };
      pkg.version = bump(pkg.version);
      for (const [dep, range] of Object.entries(pkg.dependencies ?? {})) if (dep.startsWith('@chunkyard/')) pkg.dependencies![dep] = bump(range);
      writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));
      run('npm', ['pack', '--pack-destination', upgrade, '--ignore-scripts', '--silent'], join(dir, 'package'));
      next.push(join(upgrade, `${pkg.name.slice(1).replace('/', '-')}-${pkg.version}.tgz`));
    }
    await nextMtimeSecond(a);
    run('npm', ['i', '-D', ...next, '--prefer-offline', '--no-audit', '--no-fund'], a.root);
    const r = runMany(a, ['-t', 'index']);
    const topics = [...Object.values(PROJECTS), 'topic-libraries-polymorphism'];
    expect(sorted(r.ran)).toEqual(sorted([...topics.flatMap((p) => STEPS.map((s) => `${p}:${s}`)), ...SECTIONS.map((s) => `${s}:index-json`), LLMS]));
  }, 300_000);
});

describe('a second docs root with its own marker', () => {
  it('init --docsRoot kb --topicMarker README.md adds a root whose topics are READMEs; the tools read the marker from the task', async () => {
    await nextMtimeSecond(a);
    const g = runNx(a, ['g', '@chunkyard/nx:init', '--docsRoot', 'kb', '--topicMarker', 'README.md', '--no-interactive']);
    expect(g.status, g.output).toBe(0);
    const nxJson = JSON.parse(readFileSync(join(a.root, 'nx.json'), 'utf8')) as { plugins: unknown[] };
    expect(nxJson.plugins).toContainEqual({ plugin: '@chunkyard/nx', options: { docsRoot: 'kb', topicMarker: 'README.md' } });
    mkdirSync(join(a.root, 'kb/guides/aot'), { recursive: true });
    cpSync(join(repoRoot, 'docs/deployment/native-aot/golden-reference.md'), join(a.root, 'kb/guides/aot/README.md'));
    // A README.md in the root itself is not a topic of content/ (whose marker is golden-reference.md).
    writeFileSync(join(a.root, 'content/README.md'), '# About these docs\n');
    // Two entries, two roots: names below a root carry its name (d59a56c), as with two roots in one entry.
    const r = runMany(a, ['-t', 'index', '--projects', 'kb,section-kb-guides,topic-kb-guides-aot']);
    expect(sorted(r.ran)).toEqual(sorted(['topic-kb-guides-aot:chunk', 'topic-kb-guides-aot:keywords', 'topic-kb-guides-aot:spec', 'topic-kb-guides-aot:index-json', 'section-kb-guides:index-json', 'kb:index-json', 'kb:llms-txt']));
    expect(existsSync(join(a.root, 'kb/guides/aot/_chunks/README.json'))).toBe(true);
    const kb = JSON.parse(readFileSync(join(a.root, 'kb/index.json'), 'utf8')) as { _embedded: { topics: { id: string }[] } };
    expect(kb._embedded.topics.map((t) => t.id)).toEqual(['guides']);
    const score = spawnSync(join(a.root, 'node_modules/.bin/docs-score'), ['kb'], { cwd: a.root, encoding: 'utf8', env: { ...process.env, CHUNKYARD_TOPIC_MARKER: 'README.md' } });
    expect(score.status, `${score.stdout}\n${score.stderr}`).toBe(0);
  });
});
