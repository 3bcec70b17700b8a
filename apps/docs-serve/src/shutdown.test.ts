// docs-serve's shutdown with a download in flight: --help said it stopped "finishing requests in
// flight", but a connection still sending 2 s after SIGTERM was cut, and the stop line said
// nothing of it (probe). Now --help says so and the stop line counts the connections cut; an idle
// keep-alive connection is no such connection. The real bin, a real slow client.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { HELP } from './main.js';

const BIN = join(import.meta.dirname, '../bin/docs-serve.js');
const SIZE = 32 * 1024 * 1024; // far more than the socket buffers hold

it('cuts a download still in flight 2 s after SIGTERM and says so; --help says the same', async () => {
  const root = mkdtempSync(join(tmpdir(), 'serve-shutdown-'));
  writeFileSync(join(root, 'index.json'), '{}');
  writeFileSync(join(root, 'big.md'), Buffer.alloc(SIZE, 0x61));
  const child = spawn(process.execPath, [BIN, root, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => {
        const m = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    // An idle keep-alive connection: closed at once, not counted.
    const agent = new Agent({ keepAlive: true });
    await new Promise<void>((resolve) => get(new URL('index.json', url), { agent }, (res) => res.resume().on('end', resolve)));
    // A client that asks for the big file and reads none of it.
    const response = await new Promise<IncomingMessage>((resolve) => get(new URL('big.md', url), { agent: false }, (res) => resolve(res.pause())));
    expect(Number(response.headers['content-length'])).toBe(SIZE);
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(1900);
    expect(took).toBeLessThan(10_000);
    // Read what arrived (a paused socket sees no end): the body stops short.
    let received = 0;
    response.on('data', (d: Buffer) => (received += d.length));
    response.on('error', () => undefined);
    await new Promise((r) => {
      response.socket.once('close', r);
      response.resume();
    });
    expect(response.complete).toBe(false);
    expect(received).toBeLessThan(SIZE);
    // Before: "docs-serve: stopped (SIGTERM)", not a word of the download cut.
    expect(stdout).toContain('docs-serve: stopped (SIGTERM); 1 connection still sending after 2 s cut off\n');
    // Before: "Stops on SIGINT (Ctrl-C) or SIGTERM, finishing requests in flight."
    expect(HELP.replace(/\s+/g, ' ')).toContain('gives requests in flight up to 2 s to finish, then cuts their connections');
    agent.destroy();
  } finally {
    child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  }
}, 30_000);
