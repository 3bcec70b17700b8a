// A store path that is another store's -wal, -shm or -journal (s60 probe: `docs-store ingest …
// --db store.db-wal`, a tab completion away). SQLite read the 0-byte -wal as an empty database,
// the ingest wrote a store into it and said "1 written", and the next open of store.db removed
// it with its WAL; a -journal likewise. While a process has store.db open, the two SQLite
// connections write the one file as two things. Refused now, for reading and for writing,
// naming the store; nothing is made or changed. Real files, the real SQLite.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { StoreError } from './errors.js';
import { DocStore } from './store.js';
import type { StoreEmbedder } from './ingest.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkyard-store-companion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const embedder: StoreEmbedder = { model: 'flat-d4', embed: (texts) => Promise.resolve(texts.map(() => Float32Array.of(1, 0, 0, 0))) };
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

it('a -wal, -shm or -journal beside a store, there or not yet, open or not: refused and left as it was (property)', async () => {
  const store = join(dir, 'store.db');
  const s = DocStore.open(store);
  await s.ingest([{ content: '# WAL\n\nThe store runs SQLite in WAL mode.\n', sourceSystem: 'test' }], embedder);
  s.close();
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('-wal', '-shm', '-journal'), fc.boolean(), fc.boolean(), async (suffix, readonly, holding) => {
      // A process with the store open keeps its -wal and -shm there.
      const holder = holding ? DocStore.open(store, { readonly: true }) : null;
      try {
        const companion = `${store}${suffix}`;
        const had = existsSync(companion) ? readFileSync(companion) : null;
        let err: unknown = null;
        try {
          DocStore.open(companion, { readonly }).close();
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(StoreError);
        expect((err as Error).message).toMatch(new RegExp(`^${escape(companion)}: .*${escape(store)}.*: pass --db ${escape(store)}$`));
        expect(existsSync(companion) ? readFileSync(companion) : null).toEqual(had);
        for (const more of ['-wal', '-shm', '-journal']) expect(existsSync(`${companion}${more}`)).toBe(false);
      } finally {
        holder?.close();
      }
      const r = DocStore.open(store, { readonly: true });
      try {
        expect((await r.search('WAL', { mode: 'fts', limit: 5 })).length).toBe(1);
      } finally {
        r.close();
      }
    }),
    { numRuns: 30 },
  );
});

it('a name ending so beside no store, or beside a file that is not one, is a store of its own', () => {
  const lone = join(dir, 'lone.db-wal');
  DocStore.open(lone).close();
  DocStore.open(lone, { readonly: true }).close();
  const notes = join(dir, 'notes');
  writeFileSync(notes, 'not a database, and longer than that: '.repeat(40));
  DocStore.open(`${notes}-wal`).close();
});
