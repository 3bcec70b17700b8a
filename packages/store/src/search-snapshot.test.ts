// A search while another connection commits an ingest (issue 15 probe, "two at once"): the MCP
// server holds one connection for its whole life and answers searches while `docs-store
// ingest` writes. A search reads several statements (vector index, route index, chunk rows,
// each hit's unit); a commit landing between them must leave the search on one version of the
// store. Real SQLite file, two real connections; the second one's write is committed at
// exactly the moment the search reads its units (the statement is prepared), as in open-race.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { DocStore, type SearchOptions } from './store.js';
import { embedPlans, writeArtifacts } from './ingest.js';
import { planArtifact } from './plan.js';
import { DOCS, localProvider, makeTempDir, readDoc } from './test-helpers.js';
import type { ArtifactInput, SearchHit } from './types.js';

let temp: ReturnType<typeof makeTempDir>;
beforeAll(() => {
  temp = makeTempDir();
});
afterAll(() => temp.cleanup());
const realPrepare = Database.prototype.prepare;
afterEach(() => {
  Database.prototype.prepare = realPrepare;
});

const provider = localProvider();
let n = 0;

/** Has `writer` commit `write` the first time `reader` prepares a statement `sql` matches. */
function commitWhenPrepared(reader: DocStore, sql: RegExp, write: () => void): { fired: () => boolean } {
  let done = false;
  Database.prototype.prepare = function (this: Database.Database, text: string) {
    if (!done && this === reader.db && sql.test(text)) {
      done = true;
      write();
    }
    return realPrepare.call(this, text) as Database.Statement;
  } as typeof realPrepare;
  return { fired: () => done };
}

const doc = (content: string): ArtifactInput => ({ content, sourceSystem: 'file', sourceId: 'aot.md', sourceFile: 'aot.md', topic: 't' });
const summary = (hits: SearchHit[]) => hits.map((h) => [h.unitId, h.content, h.unit?.text ?? null]);

// Where each kind of search reads its hits' rows: routed search its chunk windows, the others each hit's unit.
it.each<[string, SearchOptions, RegExp]>([
  ['routed hybrid', {}, /chunk_index BETWEEN \? AND \? ORDER BY chunk_index/],
  ['fused hybrid (--no-routes)', { routes: false, expand: 1 }, /WHERE c\.id = \?/],
  ['vector', { mode: 'vector' }, /WHERE c\.id = \?/],
  ['fts', { mode: 'fts', expand: 2 }, /WHERE c\.id = \?/],
])('a %s search that another connection commits an ingest during answers from one version of the store', async (_, options, sql) => {
  const path = join(temp.dir, `s${n++}.db`);
  const old = readDoc(DOCS.nativeAot);
  // Every chunk of the new version differs (each chunk's id holds its content's hash).
  const changed = old.replace(/Native AOT/g, 'Native ahead-of-time').replace(/\n\n/g, '\n\nRewritten. ');
  const reader = DocStore.open(path);
  const writer = DocStore.open(path);
  try {
    await reader.ingest([doc(old)], provider);
    const query = 'Native AOT deployment platform support';
    const before = await reader.search(query, { ...options, embedder: provider, limit: 5 });
    expect(before.length).toBeGreaterThan(0);
    // The writer's rows are embedded ahead, so that its commit is one synchronous step.
    const embedded = await embedPlans([planArtifact(doc(changed))], provider);
    const hook = commitWhenPrepared(reader, sql, () => writeArtifacts(writer.db, embedded, provider.model));
    // Before: "unit … vanished during the search; search again", or old units with new text.
    const during = await reader.search(query, { ...options, embedder: provider, limit: 5 });
    expect(hook.fired()).toBe(true);
    expect(summary(during)).toEqual(summary(before));
    // The next search sees the new version whole.
    const after = await reader.search(query, { ...options, embedder: provider, limit: 5 });
    const fresh = DocStore.open(path, { readonly: true });
    try {
      expect(summary(after)).toEqual(summary(await fresh.search(query, { ...options, embedder: provider, limit: 5 })));
    } finally {
      fresh.close();
    }
    expect(after.every((h) => !h.content.includes('Native AOT'))).toBe(true);
  } finally {
    reader.close();
    writer.close();
  }
});

it('an ivf search that builds the index while another connection commits answers from its snapshot, and leaves the index to be written later', async () => {
  const path = join(temp.dir, `s${n++}.db`);
  const old = readDoc(DOCS.polymorphism);
  const changed = old.replace(/\n\n/g, '\n\nRewritten. ');
  const seed = DocStore.open(path);
  await seed.ingest([doc(old)], provider);
  seed.close();
  const query = 'polymorphic type discriminator';
  const options: SearchOptions = { routes: false, index: 'ivf', embedder: provider, limit: 5 };
  // A read-only connection builds the same index in memory and writes nothing.
  const look = DocStore.open(path, { readonly: true });
  const before = await look.search(query, options);
  look.close();
  const reader = DocStore.open(path);
  const writer = DocStore.open(path);
  try {
    const embedded = await embedPlans([planArtifact(doc(changed))], provider);
    const hook = commitWhenPrepared(reader, /FROM vector_ann WHERE kind = \?/, () => writeArtifacts(writer.db, embedded, provider.model));
    // The index is built from the search's snapshot, and persisting it there is refused
    // (SQLITE_BUSY_SNAPSHOT): the search answers from memory all the same.
    const during = await reader.search(query, options);
    expect(hook.fired()).toBe(true);
    expect(summary(during)).toEqual(summary(before));
    expect(reader.annStatus?.persisted).toBe(false);
    const after = await reader.search(query, options);
    expect(after.some((h) => h.content.includes('Rewritten. '))).toBe(true);
    expect(reader.annStatus?.persisted).toBe(true);
  } finally {
    reader.close();
    writer.close();
  }
});
