// A docs root named through a symlink that a deploy swaps to a new release (`current ->
// releases/2`, then the old release removed): docs-serve resolved the link once at start-up, so
// it went on serving the old release, then answered 503 "the served folder is gone" for good,
// though `current` led to a built folder (probe). Real server, real links, real fetch.
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startServer } from './server.js';

it('follows a root symlink swapped to a new release at the next request, and stays confined to where it leads', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'serve-root-link-'));
  const release = (n: number) => {
    const dir = join(parent, 'releases', String(n));
    mkdirSync(join(dir, 't'), { recursive: true });
    writeFileSync(join(dir, 'index.json'), JSON.stringify({ release: n }));
    writeFileSync(join(dir, 't', 'a.md'), `release ${n}\n`);
    return dir;
  };
  const current = join(parent, 'current');
  symlinkSync(release(1), current);
  const lines: string[] = [];
  const srv = await startServer({ root: current, port: 0, inspector: false, log: (line) => lines.push(line) });
  const get = async (path: string) => {
    const res = await fetch(`${srv.url}${path}`);
    return { status: res.status, body: await res.text() };
  };
  try {
    expect(await get('index.json')).toEqual({ status: 200, body: '{"release":1}' });
    // The deploy: a new release, the link replaced atomically (rename over it), the old removed.
    const r2 = release(2);
    symlinkSync(r2, `${current}.new`);
    renameSync(`${current}.new`, current);
    // Before: {"release":1}, the old release still served.
    expect(await get('index.json')).toEqual({ status: 200, body: '{"release":2}' });
    rmSync(join(parent, 'releases', '1'), { recursive: true });
    // Before: 503 "the served folder is gone" for every path, with the new release in place.
    expect(await get('t/a.md')).toEqual({ status: 200, body: 'release 2\n' });
    expect(await get('')).toEqual({ status: 200, body: '{"release":2}' });
    expect(lines).toEqual([]);
    // Confinement is to where the link leads now: a link inside release 2 to release 1's
    // neighbour, the releases folder, is outside it.
    writeFileSync(join(parent, 'releases', 'secret.txt'), 'secret\n');
    symlinkSync(join(parent, 'releases', 'secret.txt'), join(r2, 'out.md'));
    expect((await get('out.md')).status).toBe(403);
    // The link leading nowhere is the folder gone (503, said once); pointed back, served again.
    rmSync(r2, { recursive: true });
    expect((await get('index.json')).status).toBe(503);
    expect(lines).toEqual([`${current}: the served folder is gone (removed, renamed or no longer a folder); answering 503 until it is back`]);
    release(2);
    expect(await get('index.json')).toEqual({ status: 200, body: '{"release":2}' });
    expect(lines[1]).toBe(`${current}: the served folder is back`);
    // What the serving line names: the path as given, not where it led at start-up.
    expect(srv.root).toBe(current);
  } finally {
    await srv.close();
    rmSync(parent, { recursive: true, force: true });
  }
});
