// The served folder removed under a running docs-serve (a clean, a rebuild that replaces the
// folder): every request was a 404 and the operator heard nothing (s55 probe). Now 503, one log
// line naming the folder, and one more when it is back. Real server, real folder, real fetch.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startServer } from './server.js';

it('answers 503 while its folder is gone, says so once, and serves again when it is back', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'serve-root-gone-'));
  const root = join(parent, 'docs');
  mkdirSync(root);
  writeFileSync(join(root, 'index.json'), '{"ok":true}');
  const lines: string[] = [];
  const srv = await startServer({ root, port: 0, inspector: false, log: (line) => lines.push(line) });
  const real = realpathSync(root);
  try {
    expect((await fetch(`${srv.url}index.json`)).status).toBe(200);
    expect((await fetch(`${srv.url}missing.json`)).status).toBe(404);
    expect(lines).toEqual([]);
    rmSync(root, { recursive: true });
    for (const path of ['index.json', 'missing.json', '']) {
      const res = await fetch(`${srv.url}${path}`);
      expect(res.status, path).toBe(503);
      expect(await res.text()).toMatch(/folder is gone/);
    }
    expect(lines).toEqual([`${real}: the served folder is gone (removed, renamed or no longer a folder); answering 503 until it is back`]);
    // A file where the folder was is not a folder to serve either.
    writeFileSync(root, 'x');
    expect((await fetch(`${srv.url}index.json`)).status).toBe(503);
    rmSync(root);
    mkdirSync(root);
    writeFileSync(join(root, 'index.json'), '{"ok":2}');
    const back = await fetch(`${srv.url}index.json`);
    expect(back.status).toBe(200);
    expect(await back.json()).toEqual({ ok: 2 });
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(`${real}: the served folder is back`);
  } finally {
    await srv.close();
    rmSync(parent, { recursive: true, force: true });
  }
});

it('names a gone folder holding a line break on one line (helper-78 probe: its CR LF went out raw, the rest of the name a line of its own)', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'serve-root-gone-'));
  const root = join(parent, 'docs\r\nFAKE: line\u001b[2J\u202e');
  mkdirSync(root);
  writeFileSync(join(root, 'index.json'), '{"ok":true}');
  const lines: string[] = [];
  const srv = await startServer({ root, port: 0, inspector: false, log: (line) => lines.push(line) });
  const shown = realpathSync(parent) + '/docs\\u000d\\u000aFAKE: line\\u001b[2J\\u202e';
  try {
    rmSync(root, { recursive: true });
    expect((await fetch(`${srv.url}index.json`)).status).toBe(503);
    mkdirSync(root);
    writeFileSync(join(root, 'index.json'), '{"ok":2}');
    expect((await fetch(`${srv.url}index.json`)).status).toBe(200);
    expect(lines).toEqual([`${shown}: the served folder is gone (removed, renamed or no longer a folder); answering 503 until it is back`, `${shown}: the served folder is back`]);
  } finally {
    await srv.close();
    rmSync(parent, { recursive: true, force: true });
  }
});
