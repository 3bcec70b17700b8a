// UrlSource's options are checked when it is made (s47 probe): maxBytes NaN turned the body cap
// off, a timeout AbortSignal.timeout refuses made every request "request failed (…)", and one
// past a Node timer's 2^31 − 1 ms timed every request out at once.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_RESPONSE_BYTES, FolderSource, openSource, SourceError, UrlSource } from './source.js';

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((_req, res) => res.end('x'.repeat(1000)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('UrlSource options', () => {
  it('refuses a maxBytes or timeoutMs out of range, naming the option', () => {
    for (const maxBytes of [NaN, -1, 1.5, Infinity, DEFAULT_MAX_RESPONSE_BYTES + 1]) {
      expect(() => new UrlSource(base, { maxBytes }), String(maxBytes)).toThrow(RangeError);
      expect(() => new UrlSource(base, { maxBytes }), String(maxBytes)).toThrow(/^UrlSource maxBytes: expected a whole number of bytes from 0 to \d+, got /);
    }
    for (const timeoutMs of [NaN, 0, -5, 2.5, Infinity, 2 ** 31, 2 ** 32 - 1]) {
      expect(() => new UrlSource(base, { timeoutMs }), String(timeoutMs)).toThrow(/^UrlSource timeoutMs: expected a whole number of milliseconds from 1 to 2147483647, got /);
    }
  });

  it('the options in range work as before', async () => {
    expect(await new UrlSource(base, { maxBytes: 1000, timeoutMs: 2 ** 31 - 1 }).readText(new URL('a', base))).toHaveLength(1000);
    await expect(new UrlSource(base, { maxBytes: 999, timeoutMs: 1000 }).readText(new URL('a', base))).rejects.toThrow(/response larger than 999 bytes/);
  });

  it('a base URL with a user name or password is refused at once, the password never shown', () => {
    const port = new URL(base).port;
    for (const target of [`http://user:secret@127.0.0.1:${port}/docs/`, `http://user@127.0.0.1:${port}/docs/`, `https://:secret@127.0.0.1:${port}/docs/`]) {
      const scheme = target.slice(0, target.indexOf(':'));
      const expected = new SourceError(`${scheme}://127.0.0.1:${port}/docs/`, 'a user name or password in the URL is not sent (fetch refuses such URLs); leave it out');
      expect(() => new UrlSource(target), target).toThrow(expected);
      expect(() => openSource(target), target).toThrow(expected);
    }
  });

  it('https:// to a plain HTTP server says so and what to do, not OpenSSL internals', async () => {
    const port = new URL(base).port;
    const s = new UrlSource(`https://127.0.0.1:${port}/`);
    await expect(s.readText(s.rootIndexUrl)).rejects.toThrow(
      new SourceError(`https://127.0.0.1:${port}/index.json`, 'request failed (the server does not speak HTTPS, ERR_SSL_WRONG_VERSION_NUMBER; if it serves plain HTTP (docs-serve does), use http://)'),
    );
  });

  it("readText's maxBytes is a whole number from 0, for both sources (NaN turned the cap off and read 1000 bytes past a cap meant to hold 0)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'source-options-'));
    try {
      writeFileSync(join(dir, 'a'), 'x'.repeat(1000));
      for (const s of [new FolderSource(dir), new UrlSource(base)]) {
        for (const maxBytes of [NaN, -1, 0.5, Infinity]) {
          await expect(s.readText(new URL('/a', s.rootIndexUrl), maxBytes), `${s.constructor.name} ${maxBytes}`).rejects.toThrow(
            new RangeError(`readText maxBytes: expected a whole number of bytes from 0, got ${maxBytes}`),
          );
        }
        expect(await s.readText(new URL('/a', s.rootIndexUrl), 1000)).toHaveLength(1000);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
