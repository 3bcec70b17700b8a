// `docs-store mcp < docs/`: a folder as stdin failed the transport's first read with EISDIR,
// which nothing reported, and the server exited 0 at once with no line at all (s55 probe). Now
// a usage error naming stdin. The built bin, with a real folder as its fd 0.
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, ensureBuilt, REPO } from './test-build.js';

let ws: string;
beforeAll(() => {
  ensureBuilt();
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-stdin-'));
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

function mcpWithStdin(fd: number | 'pipe', input?: string) {
  return spawnSync(process.execPath, [BIN, 'mcp', '--db', join(ws, 'store.db')], { cwd: REPO, encoding: 'utf8', timeout: 30_000, stdio: [fd, 'pipe', 'pipe'], ...(input !== undefined ? { input } : {}), env: { PATH: process.env.PATH ?? '', CI: '1' } });
}

it('a folder as stdin is a usage error naming stdin (it exited 0 with nothing said), and nothing is made', () => {
  const fd = openSync(ws, 'r');
  try {
    const r = mcpWithStdin(fd);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^docs-store: mcp: stdin is a folder; .*--http/);
    expect(existsSync(join(ws, 'store.db'))).toBe(false);
  } finally {
    closeSync(fd);
  }
});

it('a pipe that ends at once is still served and closed, exit 0', () => {
  const r = mcpWithStdin('pipe', '');
  expect(r.status).toBe(0);
  expect(r.stderr).toMatch(/serving .* on stdio/);
});
