// The /_inspect/ route serves its files with send, as the docs route does, but answered Range and
// preconditions by send's defaults (issue 15 probe): a suffix range longer than the page was 416
// (the docs route serves the whole file, RFC 9110 14.1.2), a 416 said "Error" without the
// `Content-Range: bytes */size` a client needs to retry, a failed If-Match said "Error", and a
// weak If-Range that matched served the range. The same bytes, with the same mtime (so the same
// ETag), in the inspector's folder and in the docs must get the same answers. Real HTTP.
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from './server.js';

const PAGE = `<!doctype html>\n<title>inspector</title>\n${'<p>chunk boundaries</p>\n'.repeat(40)}`;
const SIZE = Buffer.byteLength(PAGE);
let inspector: string;
let docs: string;
let srv: RunningServer;
beforeAll(async () => {
  inspector = mkdtempSync(join(tmpdir(), 'serve-inspect-range-'));
  docs = mkdtempSync(join(tmpdir(), 'serve-docs-range-'));
  const when = new Date('2026-01-02T03:04:05Z');
  for (const file of [join(inspector, 'index.html'), join(docs, 'page.html')]) {
    writeFileSync(file, PAGE);
    utimesSync(file, when, when);
  }
  srv = await startServer({ root: docs, port: 0, inspector });
});
afterAll(async () => {
  await srv?.close();
  rmSync(inspector, { recursive: true, force: true });
  rmSync(docs, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw GET (headers as given: fetch would add its own). */
function get(path: string, headers: Record<string, string>): Promise<Answer> {
  const url = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const pick = (a: Answer) => ({ status: a.status, contentRange: a.headers['content-range'], length: a.headers['content-length'], body: a.body });

describe('docs-serve /_inspect/: Range and preconditions as the docs route answers them', () => {
  it('a suffix range longer than the page is the whole page (it was 416)', async () => {
    const res = await get('/_inspect/', { Range: `bytes=-${SIZE + 1000}` });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 0-${SIZE - 1}/${SIZE}`);
    expect(res.body).toBe(PAGE);
  });

  it('an unsatisfiable range is 416 with Content-Range: bytes */size, saying so (it said "Error" without the size)', async () => {
    const res = await get('/_inspect/', { Range: `bytes=${SIZE}-` });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${SIZE}`);
    expect(res.body).toBe('Range Not Satisfiable\n');
  });

  it('a failed If-Match is 412 saying so (it said "Error")', async () => {
    const res = await get('/_inspect/', { 'If-Match': '"nothing-like-it"' });
    expect(res.status).toBe(412);
    expect(res.body).toBe('Precondition Failed\n');
  });

  it('a weak If-Range, even the ETag it was given, sends the whole page (it served the range)', async () => {
    const etag = (await get('/_inspect/', {})).headers.etag as string;
    expect(etag).toMatch(/^W\//);
    const res = await get('/_inspect/', { Range: 'bytes=0-9', 'If-Range': etag });
    expect(res.status).toBe(200);
    expect(res.body).toBe(PAGE);
  });

  it('any Range and If-Range header gets the answer the docs route gives the same file (property)', async () => {
    const n = fc.integer({ min: 0, max: SIZE + 50 });
    const part = fc.oneof(
      fc.tuple(n, n).map(([a, b]) => `${a}-${b}`),
      n.map((a) => `${a}-`),
      n.map((a) => `-${a}`),
      fc.constantFrom('', '-', '--1', '1e3-', 'x-1', ' 3 - 9 ', '99999999999999999999-'),
    );
    const range = fc.oneof(
      fc.array(part, { minLength: 1, maxLength: 4 }).map((ps) => `bytes=${ps.join(',')}`),
      fc.constantFrom('bytes=', 'items=0-1', 'bytes 0-1', 'BYTES=-5'),
      fc.string({ maxLength: 20 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
    );
    const etag = (await get('/page.html', {})).headers.etag as string;
    const modified = (await get('/page.html', {})).headers['last-modified'] as string;
    const ifRange = fc.constantFrom(undefined, etag, etag.replace(/^W\//, ''), modified, 'Thu, 01 Jan 1970 00:00:00 GMT');
    await fc.assert(
      fc.asyncProperty(range, ifRange, async (r, ir) => {
        const headers: Record<string, string> = { Range: r, ...(ir !== undefined ? { 'If-Range': ir } : {}) };
        const [page, doc] = await Promise.all([get('/_inspect/', headers), get('/page.html', headers)]);
        expect(pick(page)).toEqual(pick(doc));
      }),
      { numRuns: 80 },
    );
  });
});
