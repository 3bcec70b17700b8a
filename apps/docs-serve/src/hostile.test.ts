// docs-serve under raw-socket clients that a browser never is (s46 probe): requests whose
// sender half-closes its side, and other things HTTP allows and Node's defaults get wrong.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from './server.js';

let dir: string;
let srv: RunningServer;
const HELLO = 'hello docs\n';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'docs-serve-hostile-'));
  writeFileSync(join(dir, 'index.json'), '{"kind":"section"}\n');
  writeFileSync(join(dir, 'a.md'), HELLO);
  srv = await startServer({ root: dir, port: 0, inspector: false });
});
afterAll(async () => {
  await srv?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Writes `data` on a fresh connection (then half-closes it when `half`), and resolves with all
 * the server sent once it closes the connection.
 */
function exchange(data: string, half: boolean): Promise<string> {
  const { port } = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const parts: Buffer[] = [];
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(parts).toString('latin1')));
    socket.on('connect', () => (half ? socket.end(data) : socket.write(data)));
  });
}

describe('docs-serve: a client that half-closes after its request (s46 probe)', () => {
  it('gets its file, then the connection closes (it got nothing: the connection was dropped)', async () => {
    // `printf 'GET /a.md HTTP/1.0\r\n\r\n' | nc -N host port` and HTTP/1.0 clients send the
    // request and shut down their side; every file, being read asynchronously, was lost.
    for (const request of ['GET /a.md HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /a.md HTTP/1.0\r\n\r\n', 'GET /a.md HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']) {
      const reply = await exchange(request, true);
      expect(reply, request).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(reply.endsWith(`\r\n\r\n${HELLO}`), request).toBe(true);
    }
    expect(await exchange('GET /nope.md HTTP/1.1\r\nHost: x\r\n\r\n', true)).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
  });

  it('pipelined requests then a half-close: every one is answered, in order', async () => {
    const reply = await exchange('GET /a.md HTTP/1.1\r\nHost: x\r\n\r\nHEAD /a.md HTTP/1.1\r\nHost: x\r\n\r\nGET /nope.md HTTP/1.1\r\nHost: x\r\n\r\nGET /a.md HTTP/1.1\r\nHost: x\r\nRange: bytes=0-4\r\n\r\n', true);
    expect(reply.match(/^HTTP\/1\.1 \d+/gm)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 404', 'HTTP/1.1 206']);
    expect(reply.endsWith('\r\n\r\nhello')).toBe(true);
  });
});

describe('docs-serve: a file that shrinks while it is sent (s46 probe)', () => {
  it('the connection is closed after the bytes there were, never reused for the next answer', async () => {
    // 64 MB, far more than the socket buffers hold while the client stops reading; the file is
    // cut to 1,000 bytes once the first bytes arrive. Content-Length promised 64 MB: the short
    // body was ended as if whole and the connection kept, so the answer to the next pipelined
    // request arrived as the rest of this file's body.
    const big = join(dir, 'shrinking.md');
    const size = 64 * 1024 * 1024;
    writeFileSync(big, Buffer.alloc(size, 0x61));
    const { port } = new URL(srv.url);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      const parts: Buffer[] = [];
      let cut = false;
      socket.on('data', (d: Buffer) => {
        parts.push(d);
        if (cut) return;
        cut = true;
        socket.pause();
        writeFileSync(big, 'x'.repeat(1000));
        setTimeout(() => socket.resume(), 100);
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(parts).toString('latin1')));
      socket.on('connect', () => socket.write('GET /shrinking.md HTTP/1.1\r\nHost: x\r\n\r\nGET /a.md HTTP/1.1\r\nHost: x\r\n\r\n'));
    });
    rmSync(big);
    expect(reply).toMatch(new RegExp(`^HTTP/1\\.1 200 OK\\r\\n[^]*?Content-Length: ${size}\\r\\n`));
    const body = reply.slice(reply.indexOf('\r\n\r\n') + 4);
    expect(body.length).toBeLessThan(size);
    expect(body).not.toContain('HTTP/1.1');
  });
});

describe('docs-serve: a precondition that fails (s46 probe)', () => {
  it('If-Match or If-Unmodified-Since that fails is 412 saying so (the body said "Error")', async () => {
    for (const header of ['If-Match: "not-this-one"', 'If-Unmodified-Since: Thu, 01 Jan 1970 00:00:00 GMT']) {
      const reply = await exchange(`GET /a.md HTTP/1.1\r\nHost: x\r\n${header}\r\nConnection: close\r\n\r\n`, false);
      expect(reply, header).toMatch(/^HTTP\/1\.1 412 Precondition Failed\r\n/);
      expect(reply.endsWith('Precondition Failed\n\r\n0\r\n\r\n'), header).toBe(true);
    }
  });
});

describe('docs-serve: a client that asks for a file and never reads it (s46 probe)', () => {
  it('is disconnected once nothing has moved for idleTimeoutMs (it held the connection and the file for good)', async () => {
    const quick = await startServer({ root: dir, port: 0, inspector: false, idleTimeoutMs: 300 });
    const big = join(dir, 'big.md');
    writeFileSync(big, Buffer.alloc(32 * 1024 * 1024, 0x62)); // more than the socket buffers hold
    const client = connect(Number(new URL(quick.url).port), '127.0.0.1');
    try {
      let bytes = 0;
      // The server's side of the connection closing is what counts: the client, reading no
      // more, would not see it until it read again.
      await new Promise<void>((resolve, reject) => {
        quick.server.once('connection', (socket) => socket.on('close', () => resolve()));
        client.on('data', (d: Buffer) => {
          bytes += d.length;
          client.pause(); // reads no more
        });
        client.on('error', reject);
        client.on('connect', () => client.write('GET /big.md HTTP/1.1\r\nHost: x\r\n\r\n'));
      });
      expect(bytes).toBeGreaterThan(0);
      expect(bytes).toBeLessThan(32 * 1024 * 1024);
    } finally {
      client.destroy();
      await quick.close();
      rmSync(big);
    }
  });

  it('a client that reads slowly but steadily gets the whole file', async () => {
    const quick = await startServer({ root: dir, port: 0, inspector: false, idleTimeoutMs: 2000 });
    const big = join(dir, 'steady.md');
    writeFileSync(big, Buffer.alloc(4 * 1024 * 1024, 0x63));
    try {
      const { port } = new URL(quick.url);
      const reply = await new Promise<Buffer>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        const parts: Buffer[] = [];
        socket.on('data', (d: Buffer) => {
          parts.push(d);
          // 50 ms pauses, far under the 2 s idle limit.
          socket.pause();
          setTimeout(() => socket.resume(), 50);
        });
        socket.on('error', reject);
        socket.on('close', () => resolve(Buffer.concat(parts)));
        socket.on('connect', () => socket.write('GET /steady.md HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
      });
      const text = reply.toString('latin1');
      expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(text.length - text.indexOf('\r\n\r\n') - 4).toBe(4 * 1024 * 1024);
    } finally {
      await quick.close();
      rmSync(big);
    }
  });
});

describe('docs-serve: If-Range (s46 probe)', () => {
  it('with the weak ETag it was given, a range is not served: HTTP compares If-Range strongly, so the whole file comes (it was 206)', async () => {
    const first = await exchange('GET /a.md HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', false);
    const etag = /\r\nETag: (W\/"[^"]*")\r\n/.exec(first)![1]!;
    const reply = await exchange(`GET /a.md HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\nIf-Range: ${etag}\r\nConnection: close\r\n\r\n`, false);
    expect(reply).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(reply.endsWith(`\r\n\r\n${HELLO}`)).toBe(true);
    // A date that matches still makes the range apply, as does no If-Range at all.
    const lastModified = /\r\nLast-Modified: ([^\r]*)\r\n/.exec(first)![1]!;
    expect(await exchange(`GET /a.md HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\nIf-Range: ${lastModified}\r\nConnection: close\r\n\r\n`, false)).toMatch(/^HTTP\/1\.1 206 Partial Content\r\n[^]*\r\n\r\nhe$/);
    expect(await exchange('GET /a.md HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1\r\nConnection: close\r\n\r\n', false)).toMatch(/^HTTP\/1\.1 206 Partial Content\r\n[^]*\r\n\r\nhe$/);
  });
});
