// If-Range holding the weak ETag anywhere but at its start: `"other", W/"…"` or `xW/"…"` served
// the range (206), though a weak ETag never makes If-Range hold (RFC 9110 13.1.5) and the README
// says so. send looks for its ETag anywhere in the header; only a header starting with W/ was
// caught (helper-84 probe). Real files, a real server, raw requests (fetch would not send a
// list as it is written).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from './server.js';

let dir: string;
let srv: RunningServer;
const BODY = 'hello, ranges\n';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'docs-serve-if-range-'));
  writeFileSync(join(dir, 'a.md'), BODY);
  srv = await startServer({ root: dir, port: 0, inspector: false });
});
afterAll(async () => {
  await srv?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The status of GET /a.md with `Range: bytes=0-1` and this If-Range, sent as written. */
function statusWith(ifRange: string): Promise<number> {
  const port = Number(new URL(srv.url).port);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.on('data', (d) => (reply += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0)));
    socket.end(`GET /a.md HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\nIf-Range: ${ifRange}\r\nConnection: close\r\n\r\n`);
  });
}

describe('docs-serve: If-Range that holds the weak ETag within a list or other text', () => {
  it('sends the whole file (it was 206 with the range)', async () => {
    const head = await fetch(new URL('a.md', srv.url), { method: 'HEAD' });
    const etag = head.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    // The date it was given still applies the range: the header is read, not ignored.
    expect(await statusWith(head.headers.get('last-modified')!)).toBe(206);
    for (const ifRange of [etag, `"other", ${etag}`, `x${etag}`, `${etag}, "other"`, `"${etag.slice(3, -1)}"x${etag}`]) {
      expect(await statusWith(ifRange), ifRange).toBe(200);
    }
  });

  it('never serves a range for any If-Range holding the ETag (property)', async () => {
    const etag = (await fetch(new URL('a.md', srv.url), { method: 'HEAD' })).headers.get('etag')!;
    const text = fc.stringMatching(/^[ -~]{0,12}$/).filter((s) => !/[\r\n]/.test(s));
    await fc.assert(
      fc.asyncProperty(text, text, async (before, after) => {
        expect(await statusWith(`${before}${etag}${after}`)).toBe(200);
      }),
      { numRuns: 60 },
    );
  });
});
