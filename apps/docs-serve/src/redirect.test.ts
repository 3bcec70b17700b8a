// docs-serve's folder redirect (`/topic` → `/topic/`) as a careless or hostile client asks for
// it (s59 probe): the query kept, and no way to make it send a browser to another host.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from './server.js';

let dir: string;
let srv: RunningServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'docs-serve-redirect-'));
  writeFileSync(join(dir, 'index.json'), '{"kind":"section"}\n');
  // Folders named like hosts, and with a backslash: a redirect built from the request's path
  // must stay a path on this server whatever the folder is called.
  for (const d of ['topic', 'topic/sub', 'evil.example', 'back\\slash', 'sp ace', 'café']) {
    mkdirSync(join(dir, d), { recursive: true });
    writeFileSync(join(dir, d, 'index.json'), `{"id":${JSON.stringify(d)}}\n`);
  }
  srv = await startServer({ root: dir, port: 0, inspector: false });
});
afterAll(async () => {
  await srv?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A raw request, so the path reaches the server exactly as written. */
function raw(path: string): Promise<{ status: number; location: string | undefined }> {
  const url = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('docs-serve: a folder URL without its slash', () => {
  it('is redirected with its query kept (`/topic?q=x` went to `/topic/`, the query lost)', async () => {
    expect(await raw('/topic?q=x')).toEqual({ status: 301, location: '/topic/?q=x' });
    expect(await raw('/topic/sub?a=1&b=%2F%2Fevil.example')).toEqual({ status: 301, location: '/topic/sub/?a=1&b=%2F%2Fevil.example' });
    expect(await raw('/topic?')).toEqual({ status: 301, location: '/topic/?' });
    expect(await raw('/topic')).toEqual({ status: 301, location: '/topic/' });
    // The followed redirect answers with the folder's index.json.
    const res = await fetch(new URL('topic/sub?q=x', srv.url));
    expect(res.url).toBe(new URL('topic/sub/?q=x', srv.url).href);
    expect(await res.text()).toBe('{"id":"topic/sub"}\n');
  });

  it('never leads off this server: leading slashes, encoded slashes and backslashes stay one path', async () => {
    for (const [path, location] of [
      ['//evil.example', '/evil.example/'],
      ['///evil.example?x', '/evil.example/?x'],
      ['/%2F%2Fevil.example', '/evil.example/'],
      ['/%2fevil.example', '/evil.example/'],
      ['/back%5Cslash', '/back%5Cslash/'],
      ['/back\\slash', '/back%5Cslash/'],
      ['/sp%20ace?q=a%20b&c=%E9', '/sp%20ace/?q=a%20b&c=%E9'],
      ['/caf%C3%A9', '/caf%C3%A9/'],
    ] as const) {
      expect(await raw(path), path).toEqual({ status: 301, location });
    }
  });

  it('any path: a redirect is a path of this server (one leading slash, no backslash), its query kept', async () => {
    const segment = fc.oneof(fc.constantFrom('topic', 'sub', 'evil.example', 'back\\slash', '%2F', '%5C', '\\', '', '%2e', 'sp ace', 'café'), fc.string({ maxLength: 4 }));
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.option(fc.string({ maxLength: 8 }), { nil: undefined }), async (segments, query) => {
        const path = `/${segments.join('/')}`.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c));
        const q = query === undefined ? '' : `?${query.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c)).replace(/#/g, '%23')}`;
        const res = await raw(path + q);
        if (res.status !== 301) return;
        const loc = res.location!;
        expect(loc).toMatch(/^\/(?![/\\])/);
        expect(loc).not.toMatch(/\\/);
        expect(loc.endsWith(`/${q}`)).toBe(true);
        // Resolved against any base, it stays on that base's host.
        expect(new URL(loc, 'http://docs.test/a/b').host).toBe('docs.test');
      }),
      { numRuns: 150 },
    );
  });
});
