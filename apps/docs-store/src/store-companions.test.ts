// SQLite keeps files beside a store: <store>-journal (rollback journal), -wal (write-ahead log)
// and -shm (its shared-memory index), always regular files it makes and removes itself. One
// that is something else (left by a mistake, or a link committed under a docs repo's
// .chunkyard/) made every command fail with SQLite's "unable to open database file; check its
// permissions" or "disk I/O error", which named neither the file nor what to do; and a FIFO
// named <store>-journal made search, ingest and mcp wait forever (SQLite reads a journal it
// finds to see whether it must roll it back). Each is refused at once, naming it, with nothing
// read or written. The real bin, on real files, with a timeout that a hang would hit.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from './test-build.js';

let ws: string;
beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'chunkyard-docs-store-companions-'));
  writeFileSync(join(ws, 'nx.json'), '{}\n');
  mkdirSync(join(ws, 'docs', 't'), { recursive: true });
  writeFileSync(join(ws, 'docs', 't', 'golden-reference.md'), '# Native AOT\n\nNative AOT apps cannot load code at run time.\n');
  await ensureBuilt();
}, 300_000);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const bin = (args: string[], input = '') => spawnSync(process.execPath, [BIN, ...args], { cwd: ws, input, encoding: 'utf8', timeout: 15_000, env: { PATH: process.env.PATH ?? '', CI: '1' } });

const ROLES = { journal: 'rollback journal', wal: 'write-ahead log', shm: 'shared-memory index' } as const;
const KINDS = {
  fifo: (p: string) => (spawnSync('mkfifo', [p]), 'a FIFO (named pipe)'),
  folder: (p: string) => (mkdirSync(p), 'a folder'),
  symlink: (p: string) => (symlinkSync(join(ws, 'victim.txt'), p), `a symlink (it points to ${join(ws, 'victim.txt')})`),
} as const;

describe.runIf(process.platform !== 'win32')('a file SQLite keeps beside the store that is not a regular file', () => {
  for (const suffix of Object.keys(ROLES) as (keyof typeof ROLES)[]) {
    for (const kind of Object.keys(KINDS) as (keyof typeof KINDS)[]) {
      it(`${kind} at <store>-${suffix}: refused at once by search, ingest and mcp, naming it; nothing read or written`, () => {
        const dir = mkdtempSync(join(ws, 'db-'));
        const db = join(dir, 'store.db');
        expect(bin(['ingest', 'docs/t', '--db', db]).status).toBe(0);
        writeFileSync(join(ws, 'victim.txt'), 'precious\n');
        const companion = `${db}-${suffix}`;
        rmSync(companion, { recursive: true, force: true });
        const what = KINDS[kind](companion);
        const before = readFileSync(db);
        const expected = `docs-store: ${companion}: ${what} where SQLite keeps the store's ${ROLES[suffix]}, which is a regular file or absent; nothing was read or written: remove it\n`;
        for (const args of [
          ['search', 'native', '--mode', 'fts', '--db', db],
          ['stats', '--db', db],
          ['ingest', 'docs/t', '--db', db],
          ['mcp', '--db', db],
        ]) {
          const r = bin(args);
          expect(r.error, `${args[0]} hung`).toBeUndefined();
          expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }, args[0]).toEqual({ status: 1, stdout: '', stderr: expected });
        }
        expect(readFileSync(db).equals(before)).toBe(true);
        expect(readFileSync(join(ws, 'victim.txt'), 'utf8')).toBe('precious\n');
        // Once it is removed, the store serves again.
        rmSync(companion, { recursive: true, force: true });
        expect(bin(['search', 'native', '--mode', 'fts', '--db', db]).stdout).toContain('docs/t/golden-reference.md');
      }, 120_000);
    }
  }
});
