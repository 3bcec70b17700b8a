// The /_inspect/ route over real HTTP: the inspector's own files, nothing else from its folder,
// and the docs still served behind it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectorStaticDir } from './inspect.js';
import { startServer, type RunningServer } from './server.js';

/** A raw GET (the path is sent as written, `..` included). */
function get(base: string, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

let dir: string;
let docs: string;
let srv: RunningServer;
const staticDir = inspectorStaticDir();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'docs-serve-inspect-'));
  docs = join(dir, 'docs');
  mkdirSync(join(docs, '_inspect'), { recursive: true });
  writeFileSync(join(docs, 'index.json'), '{"id":"","kind":"section"}\n');
  writeFileSync(join(docs, '_inspect/mine.txt'), 'a docs file under _inspect\n');
  srv = await startServer({ root: docs, port: 0 });
});
afterAll(async () => {
  await srv?.close(0);
  rmSync(dir, { recursive: true, force: true });
});

describe('/_inspect/', () => {
  it("finds @chunkyard/inspector's static folder through the workspace package", () => {
    expect(staticDir).not.toBeNull();
    expect(readFileSync(join(staticDir!, 'index.html'), 'utf8')).toContain('inspect.js');
  });

  it('serves the page and its modules with their content types', async () => {
    const page = await get(srv.url, '/_inspect/?topic=libraries/x');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toBe(readFileSync(join(staticDir!, 'index.html'), 'utf8'));
    const js = await get(srv.url, '/_inspect/inspect.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect((await get(srv.url, '/_inspect/inspect.css')).headers['content-type']).toMatch(/^text\/css/);
  });

  it('redirects /_inspect to /_inspect/, keeping the query', async () => {
    const r = await get(srv.url, '/_inspect?topic=a%2Fb');
    expect(r.status).toBe(301);
    expect(r.headers.location).toBe('/_inspect/?topic=a%2Fb');
  });

  it('answers 404 for anything but its own files: no path reaches the file system', async () => {
    for (const p of ['/_inspect/nope.js', '/_inspect/../index.json', '/_inspect/%2e%2e/index.json', '/_inspect/sub/inspect.js', '/_inspect/mine.txt']) {
      expect((await get(srv.url, p)).status, p).toBe(404);
    }
  });

  it('leaves the docs to the static route, and with inspector: false serves a docs folder named _inspect', async () => {
    expect((await get(srv.url, '/index.json')).status).toBe(200);
    const plain = await startServer({ root: docs, port: 0, inspector: false });
    try {
      const r = await get(plain.url, '/_inspect/mine.txt');
      expect(r.status).toBe(200);
      expect(r.body).toBe('a docs file under _inspect\n');
    } finally {
      await plain.close(0);
    }
  });
});
