// A request line may name the server in full ("POST http://host:port/mcp HTTP/1.1", the
// absolute form), and then HTTP says an origin server MUST take the host from there and ignore
// the Host header (RFC 9112 3.2.2). The loopback check read only Host, so
// "POST http://evil.example/mcp" with "Host: 127.0.0.1:port" was served: the DNS rebinding
// check looked at a header the request itself overrode. Raw sockets to the spawned bin.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, ensureBuilt } from './test-build.js';

let ws: string;
let child: ChildProcessWithoutNullStreams;
let port: number;
beforeAll(async () => {
  await ensureBuilt();
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-absolute-'));
  child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', '--db', join(ws, 'store.db')], { cwd: ws, env: { PATH: process.env.PATH ?? '', CI: '1' } });
  let stderr = '';
  port = await new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /:(\d+)\/mcp/.exec(stderr);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', () => reject(new Error(`exited: ${stderr}`)));
  });
}, 120_000);
afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  rmSync(ws, { recursive: true, force: true });
});

/** Sends one request as raw bytes and returns the status line's code and the body. */
function raw(target: string, host: string): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  const request =
    `POST ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
    `Accept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  return new Promise((resolve, reject) => {
    // write, not end: a client that half-closes after sending is taken as gone (README).
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1]);
      resolve({ status, body: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
  });
}

it('an absolute-form target naming another host is 403, whatever the Host header says', async () => {
  for (const target of ['http://evil.example/mcp', `http://evil.example:${port}/mcp`, 'http://127.0.0.2/mcp', `https://localhost.evil.example:${port}/mcp`]) {
    const r = await raw(target, `127.0.0.1:${port}`);
    expect(r.status, target).toBe(403);
    expect(r.body, target).toContain('is not one of');
  }
});

it('an absolute-form target naming this server is served, even with a Host header that alone would be refused', async () => {
  for (const target of [`http://127.0.0.1:${port}/mcp`, `http://LOCALHOST:${port}/mcp`, `http://[::1]:${port}/mcp?x=1`]) {
    for (const host of [`127.0.0.1:${port}`, 'evil.example']) {
      const r = await raw(target, host);
      expect(r.status, `${target} ${host}`).toBe(200);
      expect(JSON.parse(r.body.replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/g, ''))).toEqual({ result: {}, jsonrpc: '2.0', id: 1 });
    }
  }
  // The origin form is checked against Host as before.
  expect((await raw('/mcp', 'evil.example')).status).toBe(403);
  expect((await raw('/mcp', `localhost:${port}`)).status).toBe(200);
});
