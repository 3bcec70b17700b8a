// Docs served under a path prefix (helper-103 probe: `docs-serve site` with the built docs in
// site/docs/, then `--base-url http://…/docs/`, the layout of a project page such as
// https://user.github.io/repo/). Built docs link root-relatively, so this cannot be read, as
// packages/retrieval's README says; but the message was only "_links.self says /index.json, but
// it was loaded from /docs/index.json", which names no cause and no fix. It now says the docs
// are under a prefix and what to serve instead. Real processes: the docs-serve and docs-query
// bins, over loopback.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const QUERY = join(REPO, 'apps/docs-query/bin/docs-query.js');
const SERVE = join(REPO, 'apps/docs-serve/bin/docs-serve.js');
const ROOT_INDEX = { id: '', kind: 'section', title: 'docs', _links: { self: { href: '/index.json' } }, _embedded: { topics: [] } };

let site: string;
let server: ChildProcess;
let base: string;

function query(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [QUERY, ...args], { encoding: 'utf8', timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  execFileSync(process.execPath, ['tools/build.mjs', 'apps/docs-query', 'apps/docs-serve'], { cwd: REPO, env: { ...process.env, CHUNKYARD_BUILD_QUIET: '1' }, stdio: 'pipe' });
  site = mkdtempSync(join(tmpdir(), 'docs-query-prefix-'));
  mkdirSync(join(site, 'docs'));
  writeFileSync(join(site, 'docs/index.json'), JSON.stringify(ROOT_INDEX));
  server = spawn(process.execPath, [SERVE, site, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  base = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (d) => {
      out += d;
      const m = /serving .* at (http:\/\/\S+\/) /.exec(out);
      if (m) resolve(m[1]!);
    });
    server.once('exit', (code) => reject(new Error(`docs-serve exited ${code}: ${out}`)));
  });
}, 60_000);
afterAll(() => {
  server?.kill('SIGTERM');
  rmSync(site, { recursive: true, force: true });
});

describe('docs-query --base-url under a path prefix', () => {
  it('names the prefix and says to serve the docs folder at / (exit 1)', async () => {
    for (const prefix of ['docs/', 'docs']) {
      const r = await query('--base-url', `${base}${prefix}`, '--list');
      expect(r.code, prefix).toBe(1);
      expect(r.stderr, prefix).toBe(
        `docs-query: ${base}docs/index.json: _links.self says /index.json, but it was loaded from /docs/index.json: the docs root is served under the path /docs/ here, and built docs link from / (their hrefs are root-relative); serve the docs folder itself at / (docs-serve <docs-dir>) and give that URL\n`,
      );
    }
  });

  it('the same docs served at / are read', async () => {
    const atRoot = spawn(process.execPath, [SERVE, join(site, 'docs'), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve) => {
        let out = '';
        atRoot.stdout!.on('data', (d) => {
          out += d;
          const m = /serving .* at (http:\/\/\S+\/) /.exec(out);
          if (m) resolve(m[1]!);
        });
      });
      const r = await query('--base-url', url, '--list', '--json');
      expect(r.stderr).not.toContain('_links.self');
      expect(JSON.parse(r.stdout)).toEqual({ topics: [] });
    } finally {
      atRoot.kill('SIGTERM');
    }
  });
});
