// Active content in the docs tree (s59 probe): an .html or .svg file (or one with no extension,
// which a browser sniffs) holding a script was served as a page of the server's own origin, the
// origin of the chunk inspector at /_inspect/ and of every other document. Over real HTTP.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from './server.js';
import { DOCS_CSP } from './static.js';

let dir: string;
let srv: RunningServer;
const SCRIPT = '<script>fetch("/_inspect/").then((r) => r.text()).then(alert)</script>\n';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'docs-serve-policy-'));
  writeFileSync(join(dir, 'index.json'), '{"kind":"section"}\n');
  mkdirSync(join(dir, 'topic'));
  writeFileSync(join(dir, 'topic/index.json'), '{"kind":"topic"}\n');
  writeFileSync(join(dir, 'topic/page.html'), SCRIPT);
  writeFileSync(join(dir, 'topic/image.svg'), `<svg xmlns="http://www.w3.org/2000/svg">${SCRIPT}</svg>\n`);
  writeFileSync(join(dir, 'topic/no-extension'), SCRIPT);
  writeFileSync(join(dir, 'topic/golden-reference.md'), `# Doc\n\n${SCRIPT}`);
  const inspector = join(dir, 'inspector-static');
  mkdirSync(inspector);
  writeFileSync(join(inspector, 'index.html'), '<!doctype html><title>Chunk inspector</title>\n');
  srv = await startServer({ root: join(dir), port: 0, inspector });
});
afterAll(async () => {
  await srv?.close();
  rmSync(dir, { recursive: true, force: true });
});

function get(path: string, method = 'GET', headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  const url = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('docs-serve: documents of the docs tree never run with the server origin', () => {
  it('every docs answer is sandboxed (an opaque origin) and never sniffed: html, svg, no extension, md, json, folders', async () => {
    expect(DOCS_CSP).toMatch(/^sandbox( |$)/);
    expect(DOCS_CSP).not.toContain('allow-same-origin');
    for (const path of ['/topic/page.html', '/topic/image.svg', '/topic/no-extension', '/topic/golden-reference.md', '/index.json', '/topic/', '/']) {
      for (const [method, headers] of [['GET', {}], ['HEAD', {}], ['GET', { Range: 'bytes=0-3' }]] as const) {
        const res = await get(path, method, headers);
        expect(res.status, `${method} ${path}`).toBeLessThan(300);
        expect(res.headers['content-security-policy'], `${method} ${path}`).toBe(DOCS_CSP);
        expect(res.headers['x-content-type-options'], `${method} ${path}`).toBe('nosniff');
      }
    }
    // A revalidation and the error answers too (a 404 page is a document a browser shows).
    const first = await get('/topic/page.html');
    const revalidated = await get('/topic/page.html', 'GET', { 'If-None-Match': String(first.headers.etag) });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers['content-security-policy']).toBe(DOCS_CSP);
    for (const path of ['/topic/missing.html', '/topic', '/topic/page.html/']) {
      const res = await get(path);
      expect(res.headers['content-security-policy'], path).toBe(DOCS_CSP);
      expect(res.headers['x-content-type-options'], path).toBe('nosniff');
    }
  });

  it('the inspector page at /_inspect/ is not sandboxed (it is ours, and needs its own origin), but not sniffed either', async () => {
    const res = await get('/_inspect/');
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
