// Bodies read at once (helper-80's probe): the walk reads 16 indexes at a time and disclosure 8
// chunk files ahead, and each read could buffer up to the 512 MiB cap, so 16 topics whose
// index.json were large held 16 × 512 MiB: docs-query --list against 8 index.json of 100 MB
// peaked at 935 MB. Past LARGE_BODY_BYTES a read waits its turn: one large body at a time, from a
// server or a folder, whatever the concurrency. A real server process, real files; memory is
// sampled as this process's ArrayBuffer bytes. A compressed body is not read at all: fetch
// unpacks it ahead of the reader, so 16 gzip bombs (0.5 MB each, 512 MiB unpacked) took
// docs-query --list to 1.8 GB and 30 s even with the turns.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FolderSource, LARGE_BODY_BYTES, UrlSource } from './source.js';
import { WALK_CONCURRENCY, walkTopics } from './walk.js';

const MiB = 1024 * 1024;
const N = WALK_CONCURRENCY;
const BODY = 40 * MiB;

const ref = (i: number) => ({ id: `t${i}`, kind: 'section', title: `T ${i}`, _links: { self: { href: `/t${i}/index.json` } } });
const rootJson = JSON.stringify({ id: '', kind: 'section', title: 'Root', _links: { self: { href: '/index.json' } }, _embedded: { topics: Array.from({ length: N }, (_, i) => ref(i)) } });
const childJson = (i: number) => JSON.stringify({ ...ref(i), _links: { self: { href: `/t${i}/index.json` }, parent: { href: '/index.json' } }, _embedded: { topics: [] } });

/** Runs `fn`, sampling the process's ArrayBuffer bytes; returns its result and the peak above the start. */
async function peakBuffers<T>(fn: () => Promise<T>): Promise<{ result: T; peakMiB: number }> {
  globalThis.gc?.();
  const start = process.memoryUsage().arrayBuffers;
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 2);
  try {
    const result = await fn();
    peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    return { result, peakMiB: (peak - start) / MiB };
  } finally {
    clearInterval(timer);
  }
}

/**
 * The server, a process of its own (so that its buffers are not counted): /t<i>/index.json is
 * child i's index padded with spaces before its closing brace to BODY bytes, written with
 * backpressure; under /gz/ the same gzip-compressed (40 MiB as some 40 KB on the wire). No
 * body starts before all N children are asked for, so that the reads overlap as they do when
 * the server is slower than a loopback.
 */
const SERVER = `
const { createServer } = require('node:http');
const { createGzip } = require('node:zlib');
const [N, BODY] = [${N}, ${BODY}];
const SPACES = Buffer.alloc(1 << 20, 0x20);
const ref = (i) => ({ id: 't' + i, kind: 'section', title: 'T ' + i, _links: { self: { href: '/t' + i + '/index.json' } } });
const root = JSON.stringify({ id: '', kind: 'section', title: 'Root', _links: { self: { href: '/index.json' } }, _embedded: { topics: Array.from({ length: N }, (_, i) => ref(i)) } });
const child = (i) => JSON.stringify({ ...ref(i), _links: { self: { href: '/t' + i + '/index.json' }, parent: { href: '/index.json' } }, _embedded: { topics: [] } });
function padded(out, json) {
  let left = BODY - json.length;
  out.write(json.slice(0, -1));
  const pump = () => {
    while (left > 0) {
      const piece = left >= SPACES.length ? SPACES : SPACES.subarray(0, left);
      left -= piece.length;
      if (!out.write(piece)) return void out.once('drain', pump);
    }
    out.end('}');
  };
  pump();
}
let waiting = [];
const server = createServer((req, res) => {
  const gz = req.url.startsWith('/gz/');
  const path = gz ? req.url.slice(3) : req.url;
  const at = (json) => (gz ? json.replaceAll('"/', '"/gz/') : json);
  if (path === '/accept-encoding') return void res.end(JSON.stringify(req.headers['accept-encoding'] ?? null));
  const m = /^\\/t(\\d+)\\/index\\.json$/.exec(path);
  if (path === '/index.json') return void res.end(at(root));
  if (!m) return void res.writeHead(404).end();
  waiting.push(() => {
    if (!gz) return padded(res, child(Number(m[1])));
    res.writeHead(200, { 'content-encoding': 'gzip' });
    const z = createGzip({ level: 1 });
    z.pipe(res);
    padded(z, at(child(Number(m[1]))));
  });
  if (waiting.length === N) waiting.splice(0).forEach((go) => go());
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

// The bound: every read but one holds at most LARGE_BODY_BYTES; one holds a whole body, which
// Buffer.concat copies once. Without the turn-taking this was N × BODY (640 MiB) and more.
const BOUND_MIB = (N * LARGE_BODY_BYTES + 3 * BODY) / MiB;

describe(`${N} index.json files of ${BODY / MiB} MiB read at once`, () => {
  let server: ChildProcess;
  let base: string;
  let dir: string;
  beforeAll(async () => {
    server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<string>((r) => server.stdout!.once('data', (d: Buffer) => r(d.toString().trim())));
    base = `http://127.0.0.1:${port}/`;
    dir = mkdtempSync(join(tmpdir(), 'large-bodies-'));
    writeFileSync(join(dir, 'index.json'), rootJson);
    for (let i = 0; i < N; i++) {
      mkdirSync(join(dir, `t${i}`));
      const json = childJson(i);
      writeFileSync(join(dir, `t${i}`, 'index.json'), Buffer.concat([Buffer.from(json.slice(0, -1)), Buffer.alloc(BODY - json.length, 0x20), Buffer.from('}')]));
    }
  });
  afterAll(async () => {
    server.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`over HTTP: every one is read, and at most ${BOUND_MIB} MiB of bodies are held at once`, async () => {
    const { result, peakMiB } = await peakBuffers(() => walkTopics(new UrlSource(base)));
    expect(result).toEqual([]);
    expect(peakMiB).toBeLessThan(BOUND_MIB);
  }, 60_000);

  it('a compressed body is refused unread, naming the URL: it was asked for uncompressed, and a gzip bomb unpacks ahead of the reader', async () => {
    const source = new UrlSource(`${base}gz/`);
    expect(await source.readText(new URL(`${base}gz/accept-encoding`))).toBe('"identity"');
    const started = Date.now();
    const { result, peakMiB } = await peakBuffers(() => walkTopics(source).then(() => null, (err: Error) => err));
    expect(result?.message).toMatch(
      new RegExp(`^${base}gz/t\\d+/index\\.json: the body came with Content-Encoding: gzip, though the request asked for none \\(Accept-Encoding: identity\\); a compressed body can unpack to a thousand times its size, so it is not read: serve the docs uncompressed$`),
    );
    expect(peakMiB).toBeLessThan(N * LARGE_BODY_BYTES / MiB);
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 60_000);

  it('from a folder: the same', async () => {
    const { result, peakMiB } = await peakBuffers(() => walkTopics(new FolderSource(dir)));
    expect(result).toEqual([]);
    expect(peakMiB).toBeLessThan(BOUND_MIB);
  }, 60_000);
});
