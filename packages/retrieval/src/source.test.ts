// Docs sources: a folder (real files, real symlinks) and a URL (a real HTTP server on
// loopback, port 0). Both must stay inside the docs tree and name what failed.
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FolderSource, jsonValueCount, MAX_JSON_VALUES, openSource, readJson, SourceError, UrlSource } from './source.js';

let dir: string;
let docs: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkyard-source-'));
  docs = join(dir, 'docs');
  mkdirSync(join(docs, 'a/_chunks'), { recursive: true });
  writeFileSync(join(docs, 'index.json'), '{"id":""}');
  writeFileSync(join(docs, 'a/_chunks/x-0.md'), 'chunk zero ✓\n');
  writeFileSync(join(dir, 'secret.txt'), 'outside');
  symlinkSync(join(dir, 'secret.txt'), join(docs, 'a/out-link.md'));
  symlinkSync(join(docs, 'a/_chunks/x-0.md'), join(docs, 'a/in-link.md'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('FolderSource', () => {
  it('maps root-relative and relative URLs to files under the folder', async () => {
    const s = new FolderSource(docs);
    expect(await readJson(s, s.rootIndexUrl)).toEqual({ id: '' });
    const chunk = new URL('_chunks/x-0.md', new URL('/a/index.json', s.rootIndexUrl));
    expect(await s.readText(chunk)).toBe('chunk zero ✓\n');
    expect(await s.readText(new URL('/a/in-link.md', s.rootIndexUrl))).toBe('chunk zero ✓\n');
  });

  it('refuses paths and symlinks leading out of the folder', async () => {
    const s = new FolderSource(docs);
    await expect(s.readText(new URL('/a/out-link.md', s.rootIndexUrl))).rejects.toThrow(/a link to .*secret\.txt, outside the docs folder/);
    await expect(s.readText(new URL('/a%2F..%2F..%2Fsecret.txt', s.rootIndexUrl))).rejects.toThrow(/outside the docs folder/);
    await expect(s.readText(new URL('http://example.com/index.json'))).rejects.toThrow(/not inside the docs folder/);
    // URL parsing already folds dot segments at the root: this reads docs/secret.txt, which is absent.
    await expect(s.readText(new URL('/../secret.txt', s.rootIndexUrl))).rejects.toThrow(`${join(docs, 'secret.txt')}: no such file`);
  });

  it('says what is wrong and what to do when a file cannot be read (s33 probe: "cannot read (EACCES)", the errno alone; a folder was "a FIFO, device or socket")', async () => {
    const s = new FolderSource(docs);
    await expect(s.readText(new URL('/a/_chunks/x-0.md/index.json', s.rootIndexUrl))).rejects.toThrow(
      `${join(docs, 'a/_chunks/x-0.md/index.json')}: cannot read: a part of this path is a file where a folder is expected (ENOTDIR); remove or rename that file`,
    );
    await expect(s.readText(new URL('/a/_chunks', s.rootIndexUrl))).rejects.toThrow(`${join(docs, 'a/_chunks')}: a folder, not a regular file; replace it with the built file`);
  });

  it('names a file that is not JSON without quoting it (issue 15: JSON.parse quoted the file)', async () => {
    writeFileSync(join(docs, 'a/index.json'), 'password=hunter2-secret');
    const s = new FolderSource(docs);
    const err = await readJson(s, new URL('/a/index.json', s.rootIndexUrl)).then(() => null, (e: unknown) => e as Error);
    expect(err?.message).toBe(`${join(docs, 'a/index.json')}: not valid JSON (unexpected character at line 1, column 1)`);
    expect(err?.message).not.toMatch(/hunter2|password/);
  });

  // Session 56: a 64 MiB cap on bytes refused the manifest of a 7 MB table or 9 MB of prose that
  // index-tool had just built ("larger than a docs index or manifest can be; is this a built docs
  // tree?"). What JSON.parse's cost grows with is values, so that is what is bounded.
  it('reads a manifest-like file over 64 MiB whose bulk is text', async () => {
    const big = join(docs, 'big.json');
    const text = 'x'.repeat(1 << 16);
    writeFileSync(big, JSON.stringify({ schemaVersion: 1, chunks: Array.from({ length: 1100 }, (_, i) => ({ id: `c${i}`, originalText: text })) }));
    try {
      const s = new FolderSource(docs);
      const json = (await readJson(s, new URL('/big.json', s.rootIndexUrl))) as { chunks: unknown[] };
      expect(json.chunks).toHaveLength(1100);
    } finally {
      rmSync(big);
    }
  });

  it(`refuses a JSON file of more than ${MAX_JSON_VALUES} values before parsing it (s46 probe: 400 MB of [0,0,…] aborted docs-query), naming the count`, async () => {
    const big = join(docs, 'big.json');
    writeFileSync(big, `[${'0,'.repeat(MAX_JSON_VALUES)}0]`);
    try {
      const s = new FolderSource(docs);
      await expect(readJson(s, new URL('/big.json', s.rootIndexUrl))).rejects.toThrow(
        `${big}: holds 8,000,001 JSON values, more than a docs index or manifest may (8,000,000, some 130,000 chunks); split the document into smaller ones, or check that this is a built docs tree`,
      );
    } finally {
      rmSync(big);
    }
  });

  it('refuses a text file over the 512 MiB cap by its size, as a URL source does (s46 probe: "cannot read: Invalid string length")', async () => {
    const huge = join(docs, 'huge.md');
    writeFileSync(huge, '');
    truncateSync(huge, 600 * 1024 * 1024); // sparse: no disk used
    try {
      const s = new FolderSource(docs);
      await expect(s.readText(new URL('/huge.md', s.rootIndexUrl))).rejects.toThrow(`${huge}: 600.0 MiB, larger than a docs file can be (512 MiB); is this a built docs tree?`);
    } finally {
      rmSync(huge);
    }
  });

  it('a file just under the 512 MiB cap but past the longest string is too large, not "not valid UTF-8"', async () => {
    const huge = join(docs, 'almost.md');
    writeFileSync(huge, '');
    const size = 512 * 1024 * 1024 - 8; // NUL bytes, valid UTF-8; sparse: no disk used
    truncateSync(huge, size);
    try {
      const s = new FolderSource(docs);
      await expect(s.readText(new URL('/almost.md', s.rootIndexUrl))).rejects.toThrow(`${huge}: ${size} bytes of text, more than one JavaScript string holds; is this a built docs tree?`);
    } finally {
      rmSync(huge);
    }
  });

  it('names the folder when it does not exist', async () => {
    const s = new FolderSource(join(dir, 'nope'));
    await expect(s.readText(s.rootIndexUrl)).rejects.toThrow(/docs folder not found|no such file/);
  });

  it('a symlink that leads nowhere is named as one, not "no such file" (issue 15: reported as missing)', async () => {
    const dangling = 'a dangling symlink (its target does not exist); fix or remove the link';
    mkdirSync(join(docs, 'b'));
    symlinkSync(join(dir, 'gone.md'), join(docs, 'b/chunk.md'));
    symlinkSync(join(dir, 'gone-folder'), join(docs, 'b/linked'));
    symlinkSync(join(dir, 'gone-docs'), join(dir, 'docs-link'));
    try {
      const s = new FolderSource(docs);
      await expect(s.readText(new URL('/b/chunk.md', s.rootIndexUrl))).rejects.toThrow(new SourceError(join(docs, 'b/chunk.md'), dangling));
      await expect(s.readText(new URL('/b/linked/index.json', s.rootIndexUrl))).rejects.toThrow(
        new SourceError(join(docs, 'b/linked/index.json'), `${join(docs, 'b/linked')}, a folder on its path, is ${dangling}`),
      );
      // A file that is simply not there is still that.
      await expect(s.readText(new URL('/b/none.md', s.rootIndexUrl))).rejects.toThrow(new SourceError(join(docs, 'b/none.md'), 'no such file'));
      const linked = new FolderSource(join(dir, 'docs-link'));
      await expect(linked.readText(linked.rootIndexUrl)).rejects.toThrow(new SourceError(join(dir, 'docs-link'), dangling));
    } finally {
      rmSync(join(docs, 'b'), { recursive: true });
      rmSync(join(dir, 'docs-link'));
    }
  });
});

describe('UrlSource', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      if (req.url === '/docs/index.json') res.end('{"id":""}');
      else if (req.url === '/docs/bad.json') res.end('{oops');
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/docs`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('reads below its base URL and reports HTTP errors with the URL', async () => {
    const s = openSource(base);
    expect(s).toBeInstanceOf(UrlSource);
    expect(s.rootIndexUrl.href).toBe(`${base}/index.json`);
    expect(await readJson(s, s.rootIndexUrl)).toEqual({ id: '' });
    await expect(s.readText(new URL(`${base}/missing.md`))).rejects.toThrow(`${base}/missing.md: HTTP 404 Not Found`);
    await expect(readJson(s, new URL(`${base}/bad.json`))).rejects.toThrow(`${base}/bad.json: not valid JSON`);
  });

  it('never requests a URL above its base or on another origin', async () => {
    const s = new UrlSource(base);
    const before = seen.length;
    await expect(s.readText(new URL(base.replace('/docs', '/other.json')))).rejects.toThrow(/outside the docs at/);
    await expect(s.readText(new URL('http://localhost:1/docs/index.json'))).rejects.toThrow(/outside the docs at/);
    expect(seen.length).toBe(before);
  });

  it('says when nothing answers', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const s = new UrlSource(`http://127.0.0.1:${port}/`);
    await expect(s.readText(s.rootIndexUrl)).rejects.toThrow(/request failed \(ECONNREFUSED\); is the server running\?/);
  });

  it('says why a request failed when fetch\'s cause has no system error code (issue 15 probe)', async () => {
    // Only the cause's code was shown, else fetch's own "fetch failed": a port fetch refuses was
    // "request failed (fetch failed); is the server running?", and a connection the server
    // closed was the bare "UND_ERR_SOCKET".
    const bad = new UrlSource('http://127.0.0.1:6666/');
    await expect(bad.readText(bad.rootIndexUrl)).rejects.toThrow('http://127.0.0.1:6666/index.json: request failed (bad port: fetch refuses this port, as browsers do; serve the docs on another port)');
    const closing = createServer((req) => req.socket.destroy());
    await new Promise<void>((r) => closing.listen(0, '127.0.0.1', r));
    try {
      const s = new UrlSource(`http://127.0.0.1:${(closing.address() as AddressInfo).port}/`);
      await expect(s.readText(s.rootIndexUrl)).rejects.toThrow(/: request failed \(other side closed, UND_ERR_SOCKET\)$/);
    } finally {
      await new Promise<void>((r) => closing.close(() => r()));
    }
  });

  it('stops reading a body at its byte cap: an endless or oversized response is an error, not unbounded memory', async () => {
    const block = Buffer.alloc(64 * 1024, 'x');
    const endless = createServer((req, res) => {
      if (req.url === '/sized.json') {
        res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => {
        while (res.write(block));
      };
      res.on('drain', pump);
      res.on('close', () => res.off('drain', pump));
      pump();
    });
    await new Promise<void>((r) => endless.listen(0, '127.0.0.1', r));
    const port = (endless.address() as AddressInfo).port;
    try {
      const s = new UrlSource(`http://127.0.0.1:${port}/`, { maxBytes: 1024 * 1024 });
      await expect(s.readText(s.rootIndexUrl)).rejects.toThrow(`http://127.0.0.1:${port}/index.json: response larger than 1048576 bytes; is this a chunkyard docs server?`);
      await expect(s.readText(new URL(`http://127.0.0.1:${port}/sized.json`))).rejects.toThrow(/response larger than 1048576 bytes/);
    } finally {
      endless.closeAllConnections();
      await new Promise<void>((r) => endless.close(() => r()));
    }
  });

  it('decodes a body as res.text() does: UTF-8, BOM dropped, a body under the cap whole', async () => {
    const text = '\ufeff{"t":"chunk ✓ 日本語"}';
    const server2 = createServer((_req, res) => res.end(Buffer.from(text, 'utf8')));
    await new Promise<void>((r) => server2.listen(0, '127.0.0.1', r));
    try {
      const s = new UrlSource(`http://127.0.0.1:${(server2.address() as AddressInfo).port}/`, { maxBytes: Buffer.byteLength(text) });
      expect(await s.readText(s.rootIndexUrl)).toBe('{"t":"chunk ✓ 日本語"}');
    } finally {
      await new Promise<void>((r) => server2.close(() => r()));
    }
  });

  // Ten seconds of waiting: below about 9 s Node 20's fetch signal did end the stalled read, so
  // a shorter timeout would pass without the fix too.
  it('a server that sends its headers and then stalls is a timeout naming the URL, not a wait for good (issue 15)', async () => {
    const stalled = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
    });
    await new Promise<void>((r) => stalled.listen(0, '127.0.0.1', r));
    const port = (stalled.address() as AddressInfo).port;
    try {
      const s = new UrlSource(`http://127.0.0.1:${port}/`, { timeoutMs: 10_000 });
      await expect(s.readText(s.rootIndexUrl)).rejects.toThrow(`http://127.0.0.1:${port}/index.json: the response did not finish within 10000 ms (it began, then stalled or came too slowly)`);
    } finally {
      stalled.closeAllConnections();
      await new Promise<void>((r) => stalled.close(() => r()));
    }
  }, 25_000);

  it('a body that trickles past the timeout says the response did not finish, not that nothing answered (s46 probe)', async () => {
    const trickle = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((r) => trickle.listen(0, '127.0.0.1', r));
    const port = (trickle.address() as AddressInfo).port;
    try {
      const s = new UrlSource(`http://127.0.0.1:${port}/`, { timeoutMs: 1_000 });
      await expect(s.readText(s.rootIndexUrl)).rejects.toThrow(`http://127.0.0.1:${port}/index.json: the response did not finish within 1000 ms (it began, then stalled or came too slowly)`);
    } finally {
      trickle.closeAllConnections();
      await new Promise<void>((r) => trickle.close(() => r()));
    }
  });

  it('a redirect is refused, naming where it pointed (issue 15)', async () => {
    // It was "request failed (fetch failed); is the server running?" from a running server.
    const redirecting = createServer((req, res) => {
      res.writeHead(req.url === '/none/index.json' ? 302 : 301, req.url === '/none/index.json' ? {} : { location: req.url === '/file/index.json' ? 'file:///etc/passwd' : '/elsewhere/index.json' });
      res.end();
    });
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/`;
    try {
      for (const [path, to] of [['a/', `${base}elsewhere/index.json`], ['file/', 'file:///etc/passwd'], ['none/', 'nowhere (no Location header)']] as const) {
        const s = new UrlSource(base + path);
        const status = path === 'none/' ? 302 : 301;
        await expect(s.readText(s.rootIndexUrl)).rejects.toThrow(`${base}${path}index.json: HTTP ${status}: a redirect to ${to}, which is not followed; use the address the docs are served at`);
      }
    } finally {
      await new Promise<void>((r) => redirecting.close(() => r()));
    }
  });

  it('a 3xx that is not a redirect says what it got, not "a redirect to nowhere" (s34 probe)', async () => {
    const odd = createServer((req, res) => {
      res.writeHead(Number(req.url!.split('/')[1]));
      res.end();
    });
    await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(odd.address() as AddressInfo).port}/`;
    try {
      for (const [status, text] of [[304, 'Not Modified'], [300, 'Multiple Choices'], [305, 'Use Proxy']] as const) {
        const s = new UrlSource(`${base}${status}/`);
        await expect(s.readText(s.rootIndexUrl)).rejects.toThrow(`${base}${status}/index.json: HTTP ${status} ${text} to a plain GET; is this a chunkyard docs server?`);
      }
    } finally {
      await new Promise<void>((r) => odd.close(() => r()));
    }
  });

  it('a status line with a reason phrase of 5,000 characters is cut in the message (s46 probe: it was printed whole)', async () => {
    const wordy = createServer((req, res) => {
      res.writeHead(req.url === '/docs/index.json' ? 404 : 300, `Gone ${'x'.repeat(5000)}`);
      res.end();
    });
    await new Promise<void>((r) => wordy.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(wordy.address() as AddressInfo).port}/docs/`;
    try {
      const s = new UrlSource(base);
      const missing = await s.readText(s.rootIndexUrl).then(() => null, (err: Error) => err.message);
      expect(missing).toBe(`${base}index.json: HTTP 404 Gone ${'x'.repeat(75)}…`);
      const odd = await s.readText(new URL('a.md', base)).then(() => null, (err: Error) => err.message);
      expect(odd).toBe(`${base}a.md: HTTP 300 Gone ${'x'.repeat(75)}… to a plain GET; is this a chunkyard docs server?`);
    } finally {
      await new Promise<void>((r) => wordy.close(() => r()));
    }
  });

  it(`refuses a JSON body of more than ${MAX_JSON_VALUES} values before parsing it, and reads one over 64 MiB of text`, async () => {
    const values = `[${'0,'.repeat(MAX_JSON_VALUES)}0]`;
    // Valid JSON padded with spaces, cheap to parse: over the old 64 MiB cap, and read now.
    const pad = Buffer.alloc(64 * 1024 * 1024, 0x20);
    const server = createServer((req, res) => {
      if (req.url === '/values.json') res.end(values);
      else {
        res.write('{"id":""}');
        res.end(pad);
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const s = new UrlSource(base);
      await expect(readJson(s, new URL('values.json', base))).rejects.toThrow(`${base}values.json: holds 8,000,001 JSON values, more than a docs index or manifest may`);
      expect(await readJson(s, s.rootIndexUrl)).toEqual({ id: '' });
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('rejects URLs it cannot use', () => {
    expect(() => new UrlSource('ftp://x/')).toThrow(/only http and https/);
    expect(() => new UrlSource('http://')).toThrow(/not a valid URL/);
  });
});

describe('jsonValueCount', () => {
  /** Containers, and each container's members or elements after its first: what the commas and openers count. */
  const reference = (v: unknown): number => {
    if (Array.isArray(v)) return 1 + Math.max(0, v.length - 1) + v.reduce((n: number, x) => n + reference(x), 0);
    if (v !== null && typeof v === 'object') {
      const values = Object.values(v);
      return 1 + Math.max(0, values.length - 1) + values.reduce((n: number, x) => n + reference(x), 0);
    }
    return 0;
  };
  // Strings full of what the count must not see inside them: quotes, backslashes, brackets, commas.
  const hostile = fc.string({ unit: fc.constantFrom('"', '\\', '{', '[', ',', ']', '}', 'a', '\u2028', '😀'), maxLength: 12 });
  const value = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, hostile, fc.integer(), fc.constant(null), fc.array(tie('v'), { maxLength: 5 }), fc.dictionary(hostile, tie('v'), { maxKeys: 5 })),
  })).v;

  it('counts the containers and their values of any JSON, however its strings read, spaced or not', () => {
    fc.assert(
      fc.property(value, fc.boolean(), (v, spaced) => {
        expect(jsonValueCount(JSON.stringify(v, null, spaced ? 2 : undefined))).toBe(reference(v));
      }),
      { numRuns: 2000 },
    );
  });
});
