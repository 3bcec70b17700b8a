// A --db that is a short file which is not a database (s57 probe): SQLite reads a file of one
// byte (`echo > notes`, any byte) as an empty database, so search said "an empty database …
// store some first" and an ingest overwrote the file with a store. SQLite writes whole pages
// (512 bytes at least), so no database is shorter; real files, the real SQLite.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { StoreError } from './errors.js';
import { DocStore } from './store.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkyard-store-tiny-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a file of 1 to 511 bytes is refused for reading and for writing, and left as it was (property)', () => {
  const path = join(dir, 'notes');
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 1, maxLength: 511 }), fc.boolean(), (bytes, readonly) => {
      writeFileSync(path, bytes);
      let err: unknown = null;
      try {
        DocStore.open(path, { readonly }).close();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(StoreError);
      expect((err as Error).message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not a docs-store database \\(`));
      expect(Buffer.from(readFileSync(path)).equals(Buffer.from(bytes))).toBe(true);
      expect(existsSync(`${path}-wal`) || existsSync(`${path}-journal`)).toBe(false);
    }),
    { numRuns: 60, examples: [[new Uint8Array([0x0a]), false], [new Uint8Array([0x61]), true]] },
  );
});

it('an empty file is still a new store: written to, then read', () => {
  const path = join(dir, 'empty.db');
  writeFileSync(path, '');
  DocStore.open(path).close();
  DocStore.open(path, { readonly: true }).close();
  expect(readFileSync(path).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
});
