// An ingest that the store's disk cannot take (s60 probe), simulated without root by a file size
// limit (`ulimit -f`, RLIMIT_FSIZE: a write past it fails with EFBIG; Node ignores SIGXFSZ, so
// the process lives to say so). Into a new --db it left a 0-byte or half-made store (and its
// -wal and -shm) and said "cannot open the store for writing (SQLITE_IOERR_WRITE: disk I/O
// error); check that the folder exists and is writable" or "input/output error …; check the
// disk". A failed run now leaves nothing it made, a store there before keeps what it held, and
// the one line names the store and the limit. The built bin, real files.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, REPO } from './test-build.js';

let ws: string;
beforeAll(ensureBuilt);
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-full-disk-'));
  cpSync(join(REPO, 'chunkyard.config.yaml'), join(ws, 'chunkyard.config.yaml'));
  for (const topic of ['native-aot', 'trimming-options']) cpSync(join(REPO, 'docs/deployment', topic), join(ws, 'docs', topic), { recursive: true });
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

/** The bin in `ws`, under a file size limit of `blocks` (as sh's ulimit -f counts them) when given. */
function bin(args: string[], blocks?: number) {
  const limit = blocks === undefined ? [] : ['sh', '-c', `ulimit -f ${blocks} && exec "$0" "$@"`];
  const [command, ...rest] = [...limit, process.execPath, BIN, ...args];
  return spawnSync(command!, rest, { cwd: ws, encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '', CI: '1' } });
}

const storeFiles = (name: string) => readdirSync(ws).filter((f) => f.startsWith(name)).sort();
const EFBIG = (db: string) =>
  new RegExp(`^docs-store: ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: a file of the store would grow past this process's file size limit of \\d+ bytes \\(EFBIG: file too large; SQLITE_(IOERR_\\w+|IOERR|FULL): [^)]*\\); raise the limit \\(ulimit -f\\) and run again\\n$`);

describe.runIf(process.platform === 'linux')('ingest under a file size limit', () => {
  it.each([0, 2, 8, 64, 400])('into a new store, limit %i blocks: one line naming the store and EFBIG, exit 1, and no store file left', (blocks) => {
    const db = join(ws, 'new.db');
    const r = bin(['ingest', 'docs/native-aot', 'docs/trimming-options', '--db', db], blocks);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(EFBIG(db));
    expect(r.stdout).toBe('');
    expect(storeFiles('new.db')).toEqual([]);
  }, 60_000);

  it('any limit: the ingest is stored whole, or it fails saying so and leaves no file (property)', () => {
    const db = join(ws, 'p.db');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1500 }), (blocks) => {
        rmSync(db, { force: true });
        const r = bin(['ingest', 'docs/native-aot', 'docs/trimming-options', '--db', db, '--json'], blocks);
        if (r.status === 0) {
          expect((JSON.parse(r.stdout) as { artifacts: unknown[] }).artifacts).toHaveLength(2);
          expect(storeFiles('p.db')).toEqual(['p.db']);
        } else {
          expect(r.status, r.stderr).toBe(1);
          expect(r.stderr).toMatch(EFBIG(db));
          expect(storeFiles('p.db')).toEqual([]);
        }
      }),
      { numRuns: 8 },
    );
  }, 180_000);

  it('into a store there before: the store keeps what it held, and the same line', () => {
    const db = join(ws, 'old.db');
    expect(bin(['ingest', 'docs/native-aot', '--db', db]).status).toBe(0);
    const before = bin(['stats', '--db', db, '--json']);
    expect(before.status, before.stderr).toBe(0);
    // Room for the store as it is, not for the second document's pages.
    const blocks = Math.ceil(statSync(db).size / 512) + 8;
    const r = bin(['ingest', 'docs/trimming-options', '--db', db], blocks);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(EFBIG(db));
    expect(storeFiles('old.db')).toContain('old.db');
    expect(bin(['stats', '--db', db, '--json']).stdout).toBe(before.stdout);
    const search = bin(['search', 'native AOT limitations', '--db', db, '--limit', '1']);
    expect(search.status, search.stderr).toBe(0);
    expect(search.stdout).toContain('docs/native-aot/golden-reference.md');
  }, 60_000);
});
