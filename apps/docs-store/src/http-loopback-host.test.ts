// `mcp --http --host` given a loopback address in another spelling (s60 probe): 127.1,
// 2130706433, LOCALHOST and ::ffff:127.0.0.1 bind loopback, yet the server took them for
// addresses other machines reach: it warned so, and dropped its DNS rebinding check, so a web
// page whose name resolves to 127.0.0.1 (Host: evil.example) was served the store. And on
// 127.0.0.2 the check allowed only 127.0.0.1, localhost and [::1], so a client of the URL the
// server printed got 403. Loopback is now the address bound, and the Host values allowed are
// those plus the one the printed URL names. Raw requests to the spawned bin.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, ensureBuilt } from './test-build.js';

let ws: string;
beforeAll(async () => {
  await ensureBuilt();
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-loopback-host-'));
}, 120_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

/** Runs `mcp --http --host <host>` until `use` is done; `use` gets the URL it printed and its stderr so far. */
async function serving(host: string, use: (url: URL, stderr: string) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', '--host', host, '--db', join(ws, 'store.db')], { cwd: ws, env: { PATH: process.env.PATH ?? '', CI: '1' } });
  let stderr = '';
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = / at (http:\/\/\S+\/mcp)/.exec(stderr);
        if (m) resolve(new URL(m[1]!));
      });
      child.once('exit', () => reject(new Error(`exited: ${stderr}`)));
    });
    await use(url, stderr);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

/** A ping POSTed to the URL's address with the Host header `hostHeader`; the status. */
function ping(url: URL, hostHeader: string): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port), path: '/mcp', method: 'POST', setHost: false, headers: { host: hostHeader, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

it.each(['127.1', '2130706433', 'LOCALHOST', '::ffff:127.0.0.1', '127.0.0.2', '127.0.0.1'])('--host %s: loopback, no warning; another name in Host is 403, the printed URL\'s host is served', async (host) => {
  await serving(host, async (url, stderr) => {
    expect(stderr).not.toMatch(/warning/);
    expect(await ping(url, `evil.example:${url.port}`)).toBe(403);
    // As a client of the printed URL sends it: the URL's host, and as typed. (Typed
    // [::ffff:127.0.0.1] is 400 from the SDK's HTTP layer, which takes a Host only in its one form.)
    expect(await ping(url, url.host)).toBe(200);
    if (!host.includes(':')) expect(await ping(url, `${host}:${url.port}`)).toBe(200);
    expect(await ping(url, `localhost:${url.port}`)).toBe(200);
  });
}, 60_000);

it('--host 0.0.0.0 still warns and checks no Host (other machines reach it by names of their own)', async () => {
  await serving('0.0.0.0', async (url, stderr) => {
    expect(stderr).toMatch(/warning: listening on 0\.0\.0\.0, which other machines can reach/);
    expect(await ping(url, `evil.example:${url.port}`)).toBe(200);
  });
}, 60_000);

// s60 probe: a --host with a line break in it was printed as two lines ("docs-store: local" and
// "host: not an address …"), and one with a label over 63 characters came back as getaddrinfo's
// "getaddrinfo EINVAL <host>", the host whole, twice. One line, the host quoted and cut short.
it.each([
  ['a line break', 'local\nhost', 'not an address of this machine (ENOTFOUND)'],
  ['a label of 300 characters', 'a'.repeat(300), 'not a host name (EINVAL)'],
  ['an escape sequence', '\u001b[2Jx', 'not an address of this machine (ENOTFOUND)'],
])('--host with %s: one line, exit 1, the host quoted', async (_what, host, said) => {
  const { runStore } = await import('./test-run.js');
  const r = await runStore(ws, ['mcp', '--http', '--port', '0', '--host', host, '--db', join(ws, 'store.db')]);
  expect(r.code).toBe(1);
  expect(r.stderr.split('\n')).toHaveLength(2);
  expect(r.stderr).toContain(said);
  expect(r.stderr.length).toBeLessThan(400);
  expect(r.stderr).not.toContain('\u001b');
});
