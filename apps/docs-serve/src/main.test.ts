// docs-serve over real HTTP on loopback (port 0) against a real fixture docs tree (real
// chunking-tool output, index.json per the contract): ranges, conditional GETs, CORS,
// confinement to the root, a retrieval client walking it, concurrency, and the bin's
// start-up and signal shutdown.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, realpathSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect as netConnect, createServer as createNetServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocsClient, discloseTopics, FolderSource, search, UrlSource, walkTopics } from '@chunkyard/retrieval';
import { buildFixtureDocs, SAMPLE_QUESTIONS, type FixtureDocs } from '../../../packages/retrieval/src/test-fixture-docs.js';
import { HELP, main } from './main.js';
import { startServer, type RunningServer } from './server.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const BIN = join(REPO, 'apps/docs-serve/bin/docs-serve.js');
const SECRET = 'TOP SECRET outside the docs root\n';
const CHUNK = 'libraries/system-text-json-source-generation/_chunks/golden-reference-3.md';
/** Whether this machine has an IPv6 loopback to listen on. */
const hasIpv6Loopback = await new Promise<boolean>((resolvePromise) => {
  const probe = createNetServer();
  probe.once('error', () => resolvePromise(false));
  probe.listen(0, '::1', () => probe.close(() => resolvePromise(true)));
});

let fx: FixtureDocs;
let srv: RunningServer;
beforeAll(async () => {
  fx = await buildFixtureDocs({ questions: SAMPLE_QUESTIONS });
  // Things that must never be served: a file beside the root, links to it, dot-files.
  writeFileSync(join(fx.workspace, 'secret.txt'), SECRET);
  mkdirSync(join(fx.workspace, 'outside-dir'));
  writeFileSync(join(fx.workspace, 'outside-dir/index.json'), SECRET);
  symlinkSync(join(fx.workspace, 'secret.txt'), join(fx.docs, 'out-link.md'));
  symlinkSync(join(fx.workspace, 'outside-dir'), join(fx.docs, 'out-dir'));
  symlinkSync(join(fx.docs, CHUNK), join(fx.docs, 'in-link.md'));
  writeFileSync(join(fx.docs, '.secret'), SECRET);
  mkdirSync(join(fx.docs, '.embedding-cache'));
  writeFileSync(join(fx.docs, '.embedding-cache/x.json'), SECRET);
  srv = await startServer({ root: fx.docs, port: 0 });
});
afterAll(async () => {
  await srv?.close();
  fx?.cleanup();
});

/** A raw request, so the path reaches the server exactly as written (fetch would normalise it). */
function raw(path: string, method = 'GET', headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const url = new URL(srv.url);
  return new Promise((resolvePromise, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method, headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolvePromise({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const file = (rel: string) => readFileSync(join(fx.docs, rel));

describe('docs-serve: files', () => {
  it('serves index.json and chunk files with their content types and CORS', async () => {
    const idx = await fetch(new URL('index.json', srv.url), { headers: { Origin: 'http://example.test' } });
    expect(idx.status).toBe(200);
    expect(idx.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(idx.headers.get('access-control-allow-origin')).toBe('*');
    expect(Buffer.from(await idx.arrayBuffer())).toEqual(file('index.json'));
    const chunk = await fetch(new URL(CHUNK, srv.url));
    expect(chunk.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(chunk.headers.get('accept-ranges')).toBe('bytes');
    expect(await chunk.text()).toBe(file(CHUNK).toString('utf8'));
    const folder = await fetch(new URL('libraries/', srv.url));
    expect(Buffer.from(await folder.arrayBuffer())).toEqual(file('libraries/index.json'));
  });

  it('answers any satisfiable range with 206 and exactly that slice of the file', async () => {
    const bytes = file(CHUNK);
    const size = bytes.length;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.tuple(fc.nat(size - 1), fc.nat(size + 50)).map(([a, b]) => ({ header: `bytes=${a}-${Math.max(a, b)}`, start: a, end: Math.min(Math.max(a, b), size - 1) })),
          fc.nat(size - 1).map((a) => ({ header: `bytes=${a}-`, start: a, end: size - 1 })),
          fc.integer({ min: 1, max: size + 20 }).map((n) => ({ header: `bytes=-${n}`, start: Math.max(0, size - n), end: size - 1 })),
        ),
        async ({ header, start, end }) => {
          const res = await fetch(new URL(CHUNK, srv.url), { headers: { Range: header } });
          expect(res.status).toBe(206);
          expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
          expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes.subarray(start, end + 1));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('answers an unsatisfiable range with 416 and the size', async () => {
    const size = file(CHUNK).length;
    for (const range of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`]) {
      const res = await raw(`/${CHUNK}`, 'GET', { Range: range });
      expect(res.status).toBe(416);
      expect(res.headers['content-range']).toBe(`bytes */${size}`);
      expect(res.headers['access-control-allow-origin']).toBe('*');
    }
  });

  it('supports ETag / If-None-Match and HEAD', async () => {
    const rel = 'libraries/system-text-json-collections/_chunks/golden-reference-1.md';
    const first = await fetch(new URL(rel, srv.url));
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    await first.arrayBuffer();
    const again = await raw(`/${rel}`, 'GET', { 'If-None-Match': etag! });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const head = await raw(`/${rel}`, 'HEAD');
    expect(head.status).toBe(200);
    expect(Number(head.headers['content-length'])).toBe(file(rel).length);
    expect(head.body.length).toBe(0);
    // A changed file gets a new ETag, so the old one no longer matches.
    writeFileSync(join(fx.docs, rel), `${file(rel).toString('utf8')}\nedited\n`);
    utimesSync(join(fx.docs, rel), new Date(), new Date(Date.now() + 5000));
    const changed = await raw(`/${rel}`, 'GET', { 'If-None-Match': etag! });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('answers a CORS preflight, and refuses methods other than GET and HEAD', async () => {
    const pre = await raw('/index.json', 'OPTIONS', { Origin: 'http://example.test', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'range' });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(pre.headers['access-control-allow-methods']).toContain('GET');
    expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toContain('range');
    expect(String(pre.headers['access-control-expose-headers'])).toContain('Content-Range');
    const post = await raw('/index.json', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD, OPTIONS');
  });
});

describe('docs-serve: request targets and methods a browser never sends (s45 probe)', () => {
  it('takes the absolute form of a target, as HTTP/1.1 requires of a server (it was 400), with the same confinement', async () => {
    // RFC 9112 3.2.2: "A server MUST accept the absolute-form in requests"; its host replaces Host.
    const abs = await raw('http://evil.example/index.json');
    expect(abs.status).toBe(200);
    expect(abs.body).toEqual(file('index.json'));
    expect((await raw(`HTTPS://docs.example:8443/${CHUNK}?x=1`)).body).toEqual(file(CHUNK));
    for (const path of ['http://x/../secret.txt', 'http://x/%2e%2e/secret.txt', 'http://x/out-link.md', 'http://x/.secret']) {
      const res = await raw(path);
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
      expect(res.body.toString()).not.toContain('TOP SECRET');
    }
    expect((await raw('http://x')).status).toBe(200);
  });

  it('answers CONNECT with 405 and Allow (the connection was dropped without a word)', async () => {
    const url = new URL(srv.url);
    const answer = await new Promise<string>((resolvePromise, reject) => {
      const socket = netConnect(Number(url.port), url.hostname);
      let out = '';
      socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
      socket.on('close', () => resolvePromise(out));
      socket.on('error', reject);
      socket.write('CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n');
    });
    expect(answer).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(answer).toContain('\r\nAllow: GET, HEAD, OPTIONS\r\n');
    expect(answer.endsWith('\r\n\r\nMethod Not Allowed\n')).toBe(true);
  });
});

describe('docs-serve: nothing outside the root', () => {
  it('refuses traversal, dot-files and symlinks leading out; serves links that stay in', async () => {
    const refused: [string, number][] = [
      ['/../secret.txt', 403],
      ['/%2e%2e/secret.txt', 403],
      ['/libraries/%2E%2E/%2e%2e/secret.txt', 403],
      ['/libraries/..%2f..%2fsecret.txt', 403],
      ['/..%5csecret.txt', 403],
      ['/out-link.md', 403],
      ['/out-dir/index.json', 403],
      ['/out-dir/', 403],
      ['/.secret', 403],
      ['/.embedding-cache/x.json', 403],
      ['/%00', 400],
      ['/%E0%A4%A', 400],
    ];
    for (const [path, status] of refused) {
      const res = await raw(path);
      expect({ path, status: res.status }).toEqual({ path, status });
      expect(res.body.toString()).not.toContain('TOP SECRET');
    }
    const inLink = await raw('/in-link.md');
    expect(inLink.status).toBe(200);
    expect(inLink.body).toEqual(file(CHUNK));
  });

  it('never returns a byte from outside the root, whatever the path (property)', async () => {
    const piece = fc.constantFrom('..', '%2e%2e', '%2E%2E', '.', '%2e', 'libraries', 'deployment', '%2f', '%5c', '/', 'secret.txt', '.secret', 'out-link.md', 'out-dir', 'index.json', '%00', '%252e%252e');
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 8 }), async (pieces) => {
        const res = await raw(`/${pieces.join('/')}`);
        expect(res.body.toString()).not.toContain('TOP SECRET');
        expect([200, 301, 400, 403, 404]).toContain(res.status);
      }),
      { numRuns: 150 },
    );
  });
});

describe('docs-serve: clients', () => {
  it('a retrieval client walks from the root index to every chunk over HTTP', async () => {
    const overHttp = new DocsClient(new UrlSource(srv.url));
    const fromFolder = new DocsClient(new FolderSource(fx.docs));
    const topics = await walkTopics(new UrlSource(srv.url));
    expect(topics.map((t) => t.id)).toEqual((await fromFolder.topics()).map((t) => t.id));
    let chunks = 0;
    for (const t of topics) {
      const g = t.index._embedded.chunks['golden-reference']!;
      for (const item of g.items) {
        expect(await overHttp.chunkText(t, 'golden-reference', item.index)).toBe(file(join(t.id, item.href)).toString('utf8'));
        chunks++;
      }
      expect((await overHttp.manifest(t, 'golden-reference')).chunks).toHaveLength(g.count);
    }
    expect(chunks).toBeGreaterThan(50);
    const strip = (d: Awaited<ReturnType<typeof discloseTopics>>) => d.map((x) => ({ ...x, chunks: x.chunks.map(({ location: _location, ...c }) => c) }));
    expect(strip(await discloseTopics(overHttp, { n: 4, k: 1 }))).toEqual(strip(await discloseTopics(fromFolder, { n: 4, k: 1 })));
    const q = SAMPLE_QUESTIONS[2]!.question;
    const viaHttp = await search(overHttp, { query: q, embeddings: null });
    expect(viaHttp.method).toBe('prompt');
    expect(viaHttp.chunks[0]!.location).toBe(new URL(`${viaHttp.chunks[0]!.topic}/_chunks/golden-reference-${viaHttp.chunks[0]!.index}.md`, srv.url).href);
  });

  it('docs-query --base-url answers from the server as from the folder', async () => {
    const query = join(REPO, 'apps/docs-query/bin/docs-query.js');
    const exec = promisify(execFile);
    const args = ['-q', 'Which runtime features does trimming remove?', '--max-distance', '0', '-n', '3', '--json'];
    const http = JSON.parse((await exec(process.execPath, [query, '--base-url', srv.url, ...args], { cwd: fx.workspace })).stdout) as { method: string; chunks: { topic: string; index: number; text: string }[] };
    const folder = JSON.parse((await exec(process.execPath, [query, fx.docs, ...args], { cwd: fx.workspace })).stdout) as typeof http;
    expect(http.method).toBe('embedding');
    const pick = (r: typeof http) => r.chunks.map((c) => [c.topic, c.index, c.text]);
    expect(pick(http)).toEqual(pick(folder));
  });

  it('serves many concurrent requests correctly', async () => {
    const topics = await walkTopics(new FolderSource(fx.docs));
    const targets = topics.flatMap((t) => t.index._embedded.chunks['golden-reference']!.items.map((i) => join(t.id, i.href)));
    const results = await Promise.all(
      Array.from({ length: 120 }, async (_, n) => {
        const rel = targets[n % targets.length]!;
        const ranged = n % 3 === 0;
        const res = await fetch(new URL(rel, srv.url), ranged ? { headers: { Range: 'bytes=5-24' } } : {});
        return { rel, ranged, status: res.status, body: Buffer.from(await res.arrayBuffer()) };
      }),
    );
    for (const r of results) {
      expect(r.status).toBe(r.ranged ? 206 : 200);
      expect(r.body).toEqual(r.ranged ? file(r.rel).subarray(5, 25) : file(r.rel));
    }
  });

  it('close() stops the server, dropping idle keep-alive connections', async () => {
    const s = await startServer({ root: fx.docs, port: 0 });
    const res = await fetch(new URL('index.json', s.url)); // keep-alive connection stays open
    await res.arrayBuffer();
    await s.close();
    expect(s.server.listening).toBe(false);
    await expect(fetch(new URL('index.json', s.url))).rejects.toThrow();
  });
});

describe('docs-serve: CLI', () => {
  it('--help and usage errors', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) };
    expect(await main(['--help'], io)).toBe(0);
    expect(out.join('')).toBe(HELP);
    expect(await main([], io)).toBe(2);
    expect(await main([fx.docs, '--port', '70000'], io)).toBe(2);
    expect(await main([join(fx.docs, 'missing')], io)).toBe(2);
    expect(err.join('')).toMatch(/no docs folder given[\s\S]*--port: expected a whole number from 0 to 65535[\s\S]*missing: no such folder/);
    // Issue 15: a dangling or looping symlink was "no such folder", though it is there to fix.
    err.length = 0;
    symlinkSync(join(fx.docs, 'nowhere'), join(fx.workspace, 'dangling-docs'));
    symlinkSync(join(fx.workspace, 'loop-b'), join(fx.workspace, 'loop-a'));
    symlinkSync(join(fx.workspace, 'loop-a'), join(fx.workspace, 'loop-b'));
    expect(await main([join(fx.workspace, 'dangling-docs')], io)).toBe(2);
    expect(await main([join(fx.workspace, 'loop-a')], io)).toBe(2);
    expect(err.join('')).toBe(
      `docs-serve: ${join(fx.workspace, 'dangling-docs')}: a dangling symlink (its target does not exist); fix or remove the link\n` +
        `docs-serve: ${join(fx.workspace, 'loop-a')}: a symlink loop (it never reaches a file); fix or remove the link\n`,
    );
    // Issue 15: a negative port got util.parseArgs's "ambiguous" instead of the range message.
    err.length = 0;
    expect(await main([fx.docs, '--port', '-1'], io)).toBe(2);
    expect(err.join('')).toContain('--port: expected a whole number from 0 to 65535, got "-1"');
    // A file or a FIFO given as the docs folder: the path itself is named, not "a part of" it.
    err.length = 0;
    expect(await main([join(fx.docs, 'index.json')], io)).toBe(2);
    expect(await main(['/dev/null'], io)).toBe(2);
    expect(err.join('')).toBe(`docs-serve: ${join(fx.docs, 'index.json')}: not a folder (a regular file); give the built docs root\ndocs-serve: /dev/null: not a folder (a character device); give the built docs root\n`);
    // Issue 15 probe: a name too long was "no such folder".
    err.length = 0;
    expect(await main([join(fx.workspace, 'x'.repeat(300))], io)).toBe(2);
    expect(err.join('')).toBe(`docs-serve: ${join(fx.workspace, 'x'.repeat(300))}: name too long (ENAMETOOLONG); use a shorter path\n`);
    // s39 probe: "" (an unset $DOCS) resolved to the current folder, which was served with a
    // warning, exit 0 once stopped; every other tool refuses an empty path.
    err.length = 0;
    out.length = 0;
    expect(await main([''], io, () => Promise.resolve('test'))).toBe(2);
    expect(err.join('')).toBe('docs-serve: an empty argument (""); give a path\nRun docs-serve --help for usage.\n');
    expect(out).toEqual([]);
  });

  it('warns when it listens on a port browsers and fetch() refuse (s45 probe: it served there without a word, and docs-query, the inspector page and any browser could not reach it)', async () => {
    // The Fetch standard's "bad ports" above 1024, so the test needs no privileges; the first free one.
    let port: number | undefined;
    for (const p of [6665, 6666, 6667, 6668, 6669, 6679, 6697, 6566, 6000, 10080]) {
      const free = await new Promise<boolean>((resolvePromise) => {
        const probe = createNetServer();
        probe.once('error', () => resolvePromise(false));
        probe.listen(p, '127.0.0.1', () => probe.close(() => resolvePromise(true)));
      });
      if (free) {
        port = p;
        break;
      }
    }
    if (port === undefined) return;
    const err: string[] = [];
    const code = await main([fx.docs, '--port', String(port)], { stdout: () => {}, stderr: (s) => err.push(s) }, async () => 'test');
    expect(code).toBe(0);
    expect(err.join('')).toContain(`docs-serve: warning: port ${port} is one that browsers and fetch() refuse to connect to (a "bad port" of the Fetch standard): the chunk inspector page and docs-query --base-url cannot reach it; choose another --port\n`);
    // Any other port: no such warning.
    const quiet: string[] = [];
    expect(await main([fx.docs, '--port', '0'], { stdout: () => {}, stderr: (s) => quiet.push(s) }, async () => 'test')).toBe(0);
    expect(quiet.join('')).not.toContain('bad port');
  });

  // s39 probe: --host [::1], the way an IPv6 address is written in a URL, was "[::1]: not an
  // address of this machine (ENOTFOUND)". Skipped where ::1 is not configured.
  it.runIf(hasIpv6Loopback)('--host [::1] listens on ::1 and serves', async () => {
    const out: string[] = [];
    let url = '';
    const code = await main([fx.docs, '--port', '0', '--host', '[::1]'], { stdout: (s) => out.push(s), stderr: (s) => out.push(s) }, async (s) => {
      url = s.url;
      expect((await fetch(new URL('index.json', s.url))).status).toBe(200);
      return 'test';
    });
    expect(code, out.join('')).toBe(0);
    expect(url).toMatch(/^http:\/\/\[::1\]:\d+\/$/);
  });

  it('reports a port in use with exit 1', async () => {
    const err: string[] = [];
    const port = new URL(srv.url).port;
    const code = await main([fx.docs, '--port', port], { stdout: () => undefined, stderr: (s) => err.push(s) }, () => Promise.resolve('test'));
    expect(code).toBe(1);
    expect(err.join('')).toContain(`port ${port} on 127.0.0.1 is in use`);
  });

  it('a --host that is not an address of this machine says so and what to do, exit 1 (s37 probe: "getaddrinfo ENOTFOUND x", "listen EADDRNOTAVAIL: address not available")', async () => {
    for (const [host, code] of [
      ['nonexistent.invalid', 'ENOTFOUND'],
      ['192.0.2.1', 'EADDRNOTAVAIL'],
    ] as const) {
      const err: string[] = [];
      expect(await main([fx.docs, '--port', '0', '--host', host], { stdout: () => undefined, stderr: (s) => err.push(s) }, () => Promise.resolve('test')), host).toBe(1);
      // EAI_AGAIN is what a resolver without network answers for a name.
      expect(err.join(''), host).toMatch(new RegExp(`^docs-serve: ${host.replace(/\./g, '\\.')}: not an address of this machine \\((${code}|EAI_AGAIN)\\); use --host 127\\.0\\.0\\.1, or an address this machine has\n$`));
    }
  });

  it('a --host that is no host name at all is said so, escaped', async () => {
    // Control characters are refused before listen() (usage, exit 2: host.test.ts); a name
    // getaddrinfo refuses (EINVAL) or cannot find is exit 1.
    const err: string[] = [];
    expect(await main([fx.docs, '--port', '0', '--host', 'x\u001b[31m\u202e'], { stdout: () => undefined, stderr: (s) => err.push(s) }, () => Promise.resolve('test'))).toBe(2);
    expect(err.join('')).toBe('docs-serve: --host "x\\u001b[31m\\u202e": not a host name or address (it holds a space or control character); use --host 127.0.0.1, or an address this machine has\nRun docs-serve --help for usage.\n');
    err.length = 0;
    expect(await main([fx.docs, '--port', '0', '--host', 'x..y'], { stdout: () => undefined, stderr: (s) => err.push(s) }, () => Promise.resolve('test'))).toBe(1);
    expect(err.join('')).toMatch(/^docs-serve: x\.\.y: not (a host name or address \(EINVAL\)|an address of this machine \((ENOTFOUND|EAI_AGAIN)\)); use --host 127\.0\.0\.1, or an address this machine has\n$/);
  });

  // Root reads a file of any mode, so the bin runs as nobody (setpriv).
  const canSetpriv = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v setpriv']).status === 0;
  it.runIf(canSetpriv)('a file the server may not read (EACCES) is 403, and stderr names it with what to do (s39 probe: a bare 500, nothing logged)', async () => {
    spawnSync('chmod', ['-R', 'a+rX', fx.workspace]);
    const chunk = join(fx.docs, CHUNK);
    const index = join(dirname(chunk), '../index.json');
    chmodSync(chunk, 0o000);
    chmodSync(index, 0o000);
    const child = spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN, fx.docs, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const url = await new Promise<string>((resolvePromise, reject) => {
        child.stdout.on('data', () => {
          const m = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout);
          if (m) resolvePromise(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`exited early with ${code}: ${stderr}`)));
      });
      for (const path of [CHUNK, dirname(dirname(CHUNK)) + '/index.json', dirname(dirname(CHUNK)) + '/']) {
        const res = await fetch(new URL(path, url));
        expect(res.status, path).toBe(403);
        expect(await res.text()).toBe('Forbidden\n');
      }
      expect(stderr).toContain(`docs-serve: ${realpathSync(chunk)}: permission denied (EACCES); check its permissions`);
      expect(stderr).toContain(`docs-serve: ${realpathSync(index)}: permission denied (EACCES); check its permissions`);
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      child.kill('SIGTERM');
      chmodSync(chunk, 0o644);
      chmodSync(index, 0o644);
    }
  });

  it('the bin prints its URL, serves, and stops cleanly on SIGTERM and SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const child = spawn(process.execPath, [BIN, fx.docs, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      const url = await new Promise<string>((resolvePromise, reject) => {
        child.stdout.on('data', () => {
          const m = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout);
          if (m) resolvePromise(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
      });
      const res = await fetch(new URL('index.json', url));
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      child.kill(signal);
      expect(await exit).toBe(0);
      expect(stdout).toContain(`docs-serve: stopped (${signal})`);
    }
  });
});
