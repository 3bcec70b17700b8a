// If-Match holding the file's own weak ETag (or that tag written as a strong one) held, and the
// file was sent (200, or 206 with a Range). RFC 9110 13.1.1: If-Match uses the strong
// comparison, and a weak ETag (every ETag this server sends: size and mtime, not the bytes)
// never matches strongly, so the answer is 412. send compares loosely (`W/` + tag, either way
// round), so a client that made its Range conditional on If-Match could splice bytes of a file
// rewritten at the same size within the same millisecond; the README already says so of
// If-Range (helper-103 probe). `If-Match: *` still holds for a file that exists. Real files, a
// real server, raw requests (fetch would rewrite nothing here, but a list is sent as written).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from './server.js';

let dir: string;
let srv: RunningServer;
let etag: string;
const BODY = 'hello, preconditions\n';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'docs-serve-if-match-'));
  writeFileSync(join(dir, 'a.md'), BODY);
  srv = await startServer({ root: dir, port: 0, inspector: false });
  etag = (await fetch(new URL('a.md', srv.url))).headers.get('etag')!;
});
afterAll(async () => {
  await srv?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** GET /a.md with these extra header lines, sent as written: status and body. */
function get(headers: string): Promise<{ status: number; body: string }> {
  const port = Number(new URL(srv.url).port);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.on('data', (d) => (reply += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0), body: reply.split('\r\n\r\n').slice(1).join('\r\n\r\n') }));
    socket.end(`GET /a.md HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`);
  });
}

describe('docs-serve: If-Match is a strong comparison', () => {
  it('the weak ETag, or its tag written as strong, is 412 and sends no byte of the file', async () => {
    expect(etag).toMatch(/^W\/"/);
    for (const h of [`If-Match: ${etag}\r\n`, `If-Match: ${etag.slice(2)}\r\n`, `If-Match: "x", ${etag}\r\n`, `If-Match: ${etag}\r\nRange: bytes=0-4\r\n`]) {
      const r = await get(h);
      expect(r.status, h).toBe(412);
      expect(r.body, h).not.toContain('hello');
    }
  });

  it('If-Match: * holds for a file that exists, and a request without If-Match is served', async () => {
    expect(await get('If-Match: *\r\n')).toMatchObject({ status: 200, body: BODY });
    expect(await get('X-Other: 1\r\n')).toMatchObject({ status: 200, body: BODY });
    expect(await get('If-Match: *\r\nRange: bytes=0-4\r\n')).toMatchObject({ status: 206, body: 'hello' });
  });

  it('the inspector route (/_inspect/) is held to the same rule', async () => {
    const withPage = await startServer({ root: dir, port: 0 });
    try {
      const page = new URL('_inspect/', withPage.url);
      const tag = (await fetch(page)).headers.get('etag')!;
      expect(tag).toMatch(/^W\/"/);
      for (const t of [tag, tag.slice(2)]) expect((await fetch(page, { headers: { 'If-Match': t } })).status, t).toBe(412);
      expect((await fetch(page, { headers: { 'If-Match': '*' } })).status).toBe(200);
    } finally {
      await withPage.close();
    }
  });

  it('property: any If-Match list but * is 412 with no byte of the file', async () => {
    const tag = fc.oneof(
      fc.constant(etag),
      fc.constant(etag.slice(2)),
      fc.stringMatching(/^[a-z0-9-]{0,12}$/).map((s) => `"${s}"`),
      fc.stringMatching(/^[a-z0-9-]{0,12}$/).map((s) => `W/"${s}"`),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(tag, { minLength: 1, maxLength: 4 }), fc.boolean(), async (tags, ranged) => {
        const r = await get(`If-Match: ${tags.join(', ')}\r\n${ranged ? 'Range: bytes=0-4\r\n' : ''}`);
        expect(r.status).toBe(412);
        expect(r.body).not.toContain('hello');
      }),
      { numRuns: 60 },
    );
  });
});
