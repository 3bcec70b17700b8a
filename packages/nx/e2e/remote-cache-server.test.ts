// The Nx self-hosted remote cache server (remote-cache-server.mjs): first its HTTP protocol, then
// real Nx runs on two "machines" sharing it: workspace A builds and uploads, B (a git clone with
// an empty .nx and no outputs) restores every task from it, byte for byte.
//
// Nx is run with child_process.spawn, never spawnSync: the server lives in this process, and a
// blocked event loop would leave Nx's requests unanswered.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneWorkspace, nxTaskCacheStatuses, remoteCacheEnv, startRemoteCacheServer } from './remote-cache-server.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const TOKEN = 'rw-' + randomBytes(8).toString('hex');
const READ_ONLY_TOKEN = 'ro-' + randomBytes(8).toString('hex');

type Server = Awaited<ReturnType<typeof startRemoteCacheServer>>;

function auth(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe('remote cache server: Nx OpenAPI protocol over HTTP', () => {
  let server: Server;
  let root: string;
  let cache: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'nx-remote-cache-protocol-'));
    cache = join(root, 'store');
    server = await startRemoteCacheServer({ dir: cache, token: TOKEN, readOnlyTokens: [READ_ONLY_TOKEN], maxBodyBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const at = (hash: string) => `${server.url}/v1/cache/${hash}`;

  it('listens on loopback by default', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('PUT stores a record (200) and GET returns the identical bytes as application/octet-stream', async () => {
    server.resetStats();
    const body = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(5000)]);
    const put = await fetch(at('1111'), { method: 'PUT', headers: { ...auth(TOKEN), 'Content-Type': 'application/octet-stream' }, body });
    expect(put.status).toBe(200);
    const get = await fetch(at('1111'), { headers: { ...auth(TOKEN), Accept: 'application/octet-stream' } });
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await get.arrayBuffer()).equals(body)).toBe(true);
    expect(server.stats).toMatchObject({ puts: 1, getHits: 1, getMisses: 0 });
  });

  it('GET of an unknown hash is 404', async () => {
    server.resetStats();
    const res = await fetch(at('9999'), { headers: auth(TOKEN) });
    expect(res.status).toBe(404);
    expect(server.stats).toMatchObject({ getMisses: 1, getHits: 0 });
  });

  it('a missing or wrong token is 401 with a text/plain message, on GET and PUT', async () => {
    server.resetStats();
    const attempts: Array<[string, RequestInit]> = [
      ['GET, no token', {}],
      ['GET, wrong token', { headers: auth('nope') }],
      ['GET, not a bearer token', { headers: { Authorization: `Basic ${TOKEN}` } }],
      ['PUT, no token', { method: 'PUT', body: 'x' }],
      ['PUT, wrong token', { method: 'PUT', headers: auth('nope'), body: 'x' }],
    ];
    for (const [what, init] of attempts) {
      const res = await fetch(at('1111'), init);
      expect(res.status, what).toBe(401);
      // Exactly text/plain: Nx 22 shows the body only then (else "Misconfigured remote cache endpoint").
      expect(res.headers.get('content-type'), what).toBe('text/plain');
      expect(await res.text(), what).toMatch(/authentication token/);
    }
    expect(server.stats.unauthorized).toBe(attempts.length);
    expect(listFiles(cache)).toEqual(['1111']);
  });

  it('a read-only token may GET but gets 403 (text/plain) on PUT', async () => {
    const get = await fetch(at('1111'), { headers: auth(READ_ONLY_TOKEN) });
    expect(get.status).toBe(200);
    await get.arrayBuffer();
    const put = await fetch(at('2222'), { method: 'PUT', headers: auth(READ_ONLY_TOKEN), body: 'data' });
    expect(put.status).toBe(403);
    expect(put.headers.get('content-type')).toBe('text/plain');
    expect(existsSync(join(cache, '2222'))).toBe(false);
  });

  it('a second PUT of a hash is 409 and never overwrites the record', async () => {
    server.resetStats();
    const first = Buffer.from('first');
    expect((await fetch(at('3333'), { method: 'PUT', headers: auth(TOKEN), body: first })).status).toBe(200);
    const again = await fetch(at('3333'), { method: 'PUT', headers: auth(TOKEN), body: 'second, different' });
    expect(again.status).toBe(409);
    expect(await again.text()).toBe('Cannot override an existing record');
    expect(readFileSync(join(cache, '3333')).equals(first)).toBe(true);
    expect(server.stats).toMatchObject({ puts: 1, putConflicts: 1 });
  });

  it('concurrent PUTs of one new hash store exactly one record; the others get 409', async () => {
    const bodies = Array.from({ length: 6 }, (_, i) => Buffer.alloc(20_000, i));
    const statuses = await Promise.all(
      bodies.map((body) => fetch(at('4444'), { method: 'PUT', headers: auth(TOKEN), body }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    const stored = readFileSync(join(cache, '4444'));
    expect(bodies.some((b) => b.equals(stored))).toBe(true);
  });

  it('a body above maxBodyBytes is 413 and nothing is stored', async () => {
    const res = await fetch(at('5555'), { method: 'PUT', headers: auth(TOKEN), body: Buffer.alloc(64 * 1024 + 1) });
    expect(res.status).toBe(413);
    expect(existsSync(join(cache, '5555'))).toBe(false);
  });

  it('an upload cut short (fewer bytes than Content-Length) stores nothing and leaves no temp file', async () => {
    await new Promise<void>((done) => {
      const { hostname, port } = new URL(server.url);
      const req = request({ hostname, port, method: 'PUT', path: '/v1/cache/6666', headers: { ...auth(TOKEN), 'Content-Length': 10_000 } });
      req.on('error', () => done());
      req.on('response', () => done());
      req.write(Buffer.alloc(100));
      setTimeout(() => req.destroy(), 50);
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(listFiles(cache).filter((f) => f.includes('6666'))).toEqual([]);
  });

  it('a PUT without Content-Length is refused (411)', async () => {
    const status = await new Promise<number>((done, fail) => {
      const { hostname, port } = new URL(server.url);
      const req = request({ hostname, port, method: 'PUT', path: '/v1/cache/7777', headers: { ...auth(TOKEN), 'Transfer-Encoding': 'chunked' } });
      req.on('error', fail);
      req.on('response', (res) => {
        res.resume();
        done(res.statusCode ?? 0);
      });
      req.end('chunk');
    });
    expect(status).toBe(411);
    expect(existsSync(join(cache, '7777'))).toBe(false);
  });

  it('hashes that are not plain file names never reach the file system', async () => {
    const put = await fetch(`${server.url}/v1/cache/..%2Fescape`, { method: 'PUT', headers: auth(TOKEN), body: 'x' });
    expect(put.status).toBe(400);
    const get = await fetch(`${server.url}/v1/cache/..%2Fstore%2F1111`, { headers: auth(TOKEN) });
    expect(get.status).toBe(404);
    expect(existsSync(join(root, 'escape'))).toBe(false);
  });

  it('other paths are 404 and other methods 405', async () => {
    expect((await fetch(`${server.url}/v1/cache`, { headers: auth(TOKEN) })).status).toBe(404);
    expect((await fetch(`${server.url}/v2/cache/1111`, { headers: auth(TOKEN) })).status).toBe(404);
    const del = await fetch(at('1111'), { method: 'DELETE', headers: auth(TOKEN) });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, PUT');
  });

  it('with no token configured the server is open', async () => {
    const open = await startRemoteCacheServer({ dir: join(root, 'open') });
    try {
      expect((await fetch(`${open.url}/v1/cache/1`, { method: 'PUT', body: 'x' })).status).toBe(200);
      expect(await (await fetch(`${open.url}/v1/cache/1`)).text()).toBe('x');
    } finally {
      await open.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Real Nx, two machines.

const nxPackageDir = join(repoRoot, 'node_modules', 'nx');
const nxPackage = JSON.parse(readFileSync(join(nxPackageDir, 'package.json'), 'utf8')) as { version: string; bin: { nx: string } };
const nxBin = join(nxPackageDir, nxPackage.bin.nx);

/** Projects of the throwaway workspaces. gamma's build reads alpha's output (dependsOn ^build) and hashes it. */
const PROJECTS = ['alpha', 'beta', 'gamma'] as const;
const BUILD_TASKS = PROJECTS.map((p) => `${p}:build`).sort();

/**
 * A build that writes text and binary outputs from its input, plus random bytes: a rerun would
 * produce different files, so byte-identical outputs on B prove they came from A via the cache.
 */
function buildScript(project: string): string {
  const readsAlpha = project === 'gamma' ? "+fs.readFileSync('libs/alpha/dist/out.txt','utf8')" : '';
  return [
    "const fs=require('fs'),c=require('crypto');",
    `const d='libs/${project}/dist';fs.mkdirSync(d+'/nested',{recursive:true});`,
    `fs.writeFileSync(d+'/out.txt',fs.readFileSync('libs/${project}/src/input.txt','utf8').toUpperCase()${readsAlpha}+'\\n'+c.randomUUID());`,
    "fs.writeFileSync(d+'/nested/blob.bin',c.randomBytes(4096));",
    `console.log('built ${project}');`,
  ].join('');
}

async function createWorkspaceA(root: string): Promise<void> {
  mkdirSync(root, { recursive: true });
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name: 'remote-cache-ws', version: '0.0.0', private: true, devDependencies: { nx: nxPackage.version } }, null, 2),
  );
  writeFileSync(join(root, 'nx.json'), JSON.stringify({ neverConnectToCloud: true, analytics: false }, null, 2));
  writeFileSync(join(root, '.gitignore'), 'node_modules\n.nx\ndist\n');
  for (const p of PROJECTS) {
    mkdirSync(join(root, 'libs', p, 'src'), { recursive: true });
    writeFileSync(join(root, 'libs', p, 'src', 'input.txt'), `source of ${p}\n`);
    const build = {
      command: `node -e "${buildScript(p)}"`,
      cache: true,
      // gamma also hashes alpha's output as restored on disk: on B it must be byte-identical for
      // gamma's hash (and so its remote hit) to match A's.
      inputs: ['{projectRoot}/src/**/*', ...(p === 'gamma' ? [{ dependentTasksOutputFiles: '**/out.txt' }] : [])],
      outputs: ['{projectRoot}/dist'],
      ...(p === 'gamma' ? { dependsOn: ['^build'] } : {}),
    };
    writeFileSync(
      join(root, 'libs', p, 'project.json'),
      JSON.stringify({ name: p, root: `libs/${p}`, ...(p === 'gamma' ? { implicitDependencies: ['alpha'] } : {}), targets: { build } }, null, 2),
    );
  }
  // Only nx and its @nx/* packages (the native binding among them) are needed: Node resolves the
  // rest of nx's dependencies from the links' real location in the repo's node_modules.
  mkdirSync(join(root, 'node_modules', '@nx'), { recursive: true });
  symlinkSync(nxPackageDir, join(root, 'node_modules', 'nx'));
  for (const name of readdirSync(join(repoRoot, 'node_modules', '@nx'))) {
    symlinkSync(join(repoRoot, 'node_modules', '@nx', name), join(root, 'node_modules', '@nx', name));
  }
  await git(root, ['init', '-q', '-b', 'main']);
  await git(root, ['add', '-A']);
  await git(root, ['commit', '-q', '--no-gpg-sign', '-m', 'workspace A']);
}

function git(cwd: string, args: string[]): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', ...args], { cwd, stdio: 'ignore' });
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`git ${args.join(' ')} exited ${code}`))));
  });
}

/** The environment of every nx run: nothing inherited from NX_*, state kept inside the workspace. */
function nxEnv(root: string, extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('NX_') && k !== 'CI') env[k] = v;
  return {
    ...env,
    CI: 'true',
    NX_DAEMON: 'false',
    NX_NO_CLOUD: 'true',
    NX_ISOLATE_PLUGINS: 'false',
    NX_TUI: 'false',
    NX_CACHE_DIRECTORY: join(root, '.nx', 'cache'),
    NX_WORKSPACE_DATA_DIRECTORY: join(root, '.nx', 'workspace-data'),
    ...extra,
  };
}

interface NxRun {
  code: number | null;
  output: string;
  ms: number;
}

/** Runs nx asynchronously (the server shares this event loop); output goes through a file. */
async function runNx(root: string, args: string[], extraEnv: Record<string, string>): Promise<NxRun> {
  const log = join(root, '.nx', `run-${Date.now()}-${randomBytes(3).toString('hex')}.log`);
  mkdirSync(dirname(log), { recursive: true });
  const fd = openSync(log, 'w');
  const started = performance.now();
  try {
    const code = await new Promise<number | null>((done, fail) => {
      const child = spawn(process.execPath, [nxBin, ...args], { cwd: root, env: nxEnv(root, extraEnv), stdio: ['ignore', fd, fd] });
      const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
      child.on('error', fail);
      child.on('exit', (c) => {
        clearTimeout(timer);
        done(c);
      });
    });
    return { code, output: readFileSync(log, 'utf8'), ms: performance.now() - started };
  } finally {
    closeSync(fd);
    rmSync(log, { force: true });
  }
}

const build = ['run-many', '-t', 'build', '--outputStyle=static'];

function outputsOf(root: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const p of PROJECTS) {
    const dist = join(root, 'libs', p, 'dist');
    for (const f of listFiles(dist)) files.set(`libs/${p}/dist/${f}`, readFileSync(join(dist, f)));
  }
  return files;
}

describe(`remote cache server: real Nx ${nxPackage.version}, machine A builds, machine B restores`, () => {
  let server: Server;
  let tmp: string;
  let wsA: string;
  let wsB: string;
  const cacheEnv = () => remoteCacheEnv(server, TOKEN);

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'nx-remote-cache-e2e-'));
    server = await startRemoteCacheServer({ dir: join(tmp, 'server-store'), token: TOKEN, readOnlyTokens: [READ_ONLY_TOKEN] });
    wsA = join(tmp, 'A');
    await createWorkspaceA(wsA);
  });
  afterAll(async () => {
    await server?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('A: every task misses the remote cache, runs, and is uploaded', async () => {
    server.resetStats();
    const run = await runNx(wsA, build, cacheEnv());
    expect(run.code, run.output).toBe(0);
    expect(nxTaskCacheStatuses(run.output)).toEqual(Object.fromEntries(BUILD_TASKS.map((t) => [t, 'run'])));
    expect(server.stats).toMatchObject({ getHits: 0, puts: PROJECTS.length, unauthorized: 0 });
    expect(new Set(server.stats.requests.filter((r) => r.method === 'GET').map((r) => r.hash)).size).toBe(PROJECTS.length);
    expect(listFiles(server.dir)).toHaveLength(PROJECTS.length);
  });

  it('B (a fresh clone, empty .nx): every task is a remote cache hit and the outputs are byte-identical', async () => {
    wsB = cloneWorkspace(wsA, join(tmp, 'B'));
    expect(readdirSync(join(wsB, '.nx'))).toEqual([]);
    expect(outputsOf(wsB).size).toBe(0);
    server.resetStats();
    const run = await runNx(wsB, build, cacheEnv());
    expect(run.code, run.output).toBe(0);
    expect(nxTaskCacheStatuses(run.output)).toEqual(Object.fromEntries(BUILD_TASKS.map((t) => [t, 'remote'])));
    expect(run.output).toContain(`Nx read the output from the cache instead of running the command for ${PROJECTS.length} out of ${PROJECTS.length} tasks`);
    // Nothing ran, so nothing new was uploaded.
    expect(server.stats).toMatchObject({ getHits: PROJECTS.length, getMisses: 0, puts: 0 });
    const a = outputsOf(wsA);
    const b = outputsOf(wsB);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    expect(a.size).toBe(PROJECTS.length * 2);
    for (const [file, bytes] of a) expect(b.get(file)?.equals(bytes), file).toBe(true);
  });

  it('B again: served from its own local cache, without a single request to the server', async () => {
    server.resetStats();
    const run = await runNx(wsB, build, cacheEnv());
    expect(run.code, run.output).toBe(0);
    for (const status of Object.values(nxTaskCacheStatuses(run.output))) expect(['local', 'kept']).toContain(status);
    expect(server.stats.requests).toEqual([]);
  });

  it('a wrong or missing token fails the run (exit 1, "Unauthorized: …") before any task runs', async () => {
    for (const token of ['wrong-token', undefined]) {
      const ws = cloneWorkspace(wsA, join(tmp, `C-${token ?? 'no-token'}`));
      server.resetStats();
      const run = await runNx(ws, build, remoteCacheEnv(server, token));
      expect(run.code, run.output).toBe(1);
      expect(run.output).toContain('Unauthorized: Missing or invalid authentication token.');
      // Nx 22.7 still prints its "Successfully ran target build" banner before the error; no task ran.
      expect(outputsOf(ws).size).toBe(0);
      expect(server.stats.unauthorized).toBeGreaterThan(0);
      expect(server.stats.getHits + server.stats.puts).toBe(0);
    }
  });

  it('a read-only token restores hits, runs what changed, and its 403 upload is no error', async () => {
    const ws = cloneWorkspace(wsA, join(tmp, 'D'));
    writeFileSync(join(ws, 'libs', 'beta', 'src', 'input.txt'), 'beta, edited on a pull request\n');
    const stored = listFiles(server.dir);
    server.resetStats();
    const run = await runNx(ws, build, remoteCacheEnv(server, READ_ONLY_TOKEN));
    expect(run.code, run.output).toBe(0);
    expect(nxTaskCacheStatuses(run.output)).toEqual({ 'alpha:build': 'remote', 'beta:build': 'run', 'gamma:build': 'remote' });
    // Nx may look a missed hash up more than once in a run (here: beta's, before it runs).
    const misses = new Set(server.stats.requests.filter((r) => r.method === 'GET' && r.status === 404).map((r) => r.hash));
    expect(misses.size).toBe(1);
    expect(server.stats.requests.filter((r) => r.method === 'PUT')).toEqual([{ method: 'PUT', hash: [...misses][0], status: 403 }]);
    expect(server.stats).toMatchObject({ getHits: 2, puts: 0, forbidden: 1 });
    expect(listFiles(server.dir)).toEqual(stored);
  });

  it('a 409 on upload (another machine stored the hash first) is no error', async () => {
    // beta's build here stores a record for its own hash (NX_TASK_HASH) in the server's folder
    // while it runs: Nx's GET missed, so Nx then PUTs and gets 409.
    const ws = cloneWorkspace(wsA, join(tmp, 'F'));
    const command = `node -e "require('fs').mkdirSync('libs/beta/dist',{recursive:true});require('fs').writeFileSync(process.env.PLANT_DIR+'/'+process.env.NX_TASK_HASH,'planted');require('fs').writeFileSync('libs/beta/dist/out.txt','F')"`;
    writeFileSync(
      join(ws, 'libs', 'beta', 'project.json'),
      JSON.stringify({ name: 'beta', root: 'libs/beta', targets: { build: { command, cache: true, inputs: ['{projectRoot}/src/**/*'], outputs: ['{projectRoot}/dist'] } } }),
    );
    server.resetStats();
    const run = await runNx(ws, ['run', 'beta:build', '--outputStyle=static'], { ...cacheEnv(), PLANT_DIR: server.dir });
    expect(run.code, run.output).toBe(0);
    expect(server.stats).toMatchObject({ puts: 0, putConflicts: 1 });
    const planted = server.stats.requests.find((r) => r.method === 'PUT')?.hash ?? '';
    expect(readFileSync(join(server.dir, planted), 'utf8')).toBe('planted');
  });

  it('an unreachable server fails the run in Nx 22.7; NX_SKIP_REMOTE_CACHE=true builds locally instead', async () => {
    const ws = cloneWorkspace(wsA, join(tmp, 'E'));
    const down = await startRemoteCacheServer({ dir: join(tmp, 'down-store') });
    const env = remoteCacheEnv(down, TOKEN);
    await down.close();
    const run = await runNx(ws, build, env);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain('Failed to send request');
    expect(outputsOf(ws).size).toBe(0);
    // The fallback the GitHub Actions example switches to when its probe cannot reach the server.
    const local = await runNx(ws, build, { ...env, NX_SKIP_REMOTE_CACHE: 'true' });
    expect(local.code, local.output).toBe(0);
    expect(nxTaskCacheStatuses(local.output)).toEqual(Object.fromEntries(BUILD_TASKS.map((t) => [t, 'run'])));
  });
});
