// docs-query over a docs folder whose root section lists 300 children, run as a user would
// with macOS's default limit of 256 open files (s46 probe): every child index was opened at
// once, and it failed with "too many open files (EMFILE); raise the open-file limit".
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = join(resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..'), 'apps/docs-query/bin/docs-query.js');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'docs-query-wide-'));
  const ref = (i: number) => ({ id: `t${i}`, kind: 'section', title: `T ${i}`, _links: { self: { href: `/t${i}/index.json` } } });
  for (let i = 0; i < 300; i++) {
    mkdirSync(join(dir, `t${i}`));
    writeFileSync(join(dir, `t${i}`, 'index.json'), JSON.stringify({ ...ref(i), _links: { self: { href: `/t${i}/index.json` }, parent: { href: '/index.json' } }, _embedded: { topics: [] } }));
  }
  const topics = Array.from({ length: 300 }, (_, i) => ref(i));
  writeFileSync(join(dir, 'index.json'), JSON.stringify({ id: '', kind: 'section', title: 'Root', _links: { self: { href: '/index.json' } }, _embedded: { topics } }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs-query over a wide section (s46 probe)', () => {
  it('walks 300 sibling sections under a limit of 256 open files', async () => {
    const r = await promisify(execFile)('sh', ['-c', 'ulimit -n 256 && exec "$0" "$@"', process.execPath, BIN, dir, '--list']).then(
      (out) => ({ code: 0, ...out }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(r.stderr).toBe('docs-query: no topics\n');
    expect(r.code).toBe(0);
  });
});
