// Two ingests into one store at once (issue 15 probe, "two at once"): an ingest decides which
// documents are unchanged before it embeds, and another ingest can commit in between. Two
// real connections to one real SQLite file; the second ingest runs to completion at exactly
// that moment, inside the first one's vector source (the place a second process's commit
// lands while the first is embedding).
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DocStore, type VectorSource } from './store.js';
import { embedPlans } from './ingest.js';
import { planArtifact } from './plan.js';
import { DOCS, localProvider, makeTempDir, readDoc } from './test-helpers.js';
import type { ArtifactInput } from './types.js';

let temp: ReturnType<typeof makeTempDir>;
beforeAll(() => {
  temp = makeTempDir();
});
afterAll(() => temp.cleanup());

const provider = localProvider();
let n = 0;

/** Each stored artifact's content hash, by id, read through a connection of its own. */
function stored(path: string): Record<string, string> {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.prepare('SELECT id, content_hash AS hash FROM artifacts ORDER BY id').all() as { id: string; hash: string }[];
    return Object.fromEntries(rows.map((r) => [r.id, r.hash]));
  } finally {
    db.close();
  }
}

/** What a store holds after `inputs` alone were ingested into it last. */
const complete = (inputs: readonly ArtifactInput[]): Record<string, string> =>
  Object.fromEntries(inputs.map((i) => planArtifact(i)).map((p) => [p.id, p.contentHash]).sort(([a], [b]) => (a! < b! ? -1 : 1)));

/** A vector source that first has `other` run a whole ingest of `inputs` (once), then embeds. */
function interleaved(other: DocStore, inputs: readonly ArtifactInput[], times = 1): VectorSource {
  let left = times;
  return async (plans, onProgress) => {
    if (left-- > 0) await other.ingest(inputs, provider);
    return embedPlans(plans, provider, onProgress);
  };
}

const docs = (texts: readonly string[]): ArtifactInput[] => texts.map((content, i) => ({ content, sourceSystem: 'file', sourceId: `doc-${i}.md`, topic: 't' }));

it('an ingest that another ingest overtakes while it embeds still leaves its own documents whole (B then C changed different files)', async () => {
  const path = join(temp.dir, `s${n++}.db`);
  const base = [readDoc(DOCS.nativeAot), readDoc(DOCS.collections), readDoc(DOCS.reflection)];
  const b = docs([`${base[0]}\n\nOnly in variant B.\n`, base[1]!, base[2]!]);
  const c = docs([base[0]!, `${base[1]}\n\nOnly in variant C.\n`, base[2]!]);
  const first = DocStore.open(path);
  const second = DocStore.open(path);
  try {
    await first.ingest(docs(base), provider);
    const outcomes = await first.ingestPlans(
      b.map((i) => planArtifact(i)),
      provider.model,
      interleaved(second, c),
    );
    // B committed last, so the store is B's: C's change to doc-1 was undone, as a run of C
    // and then B one after the other leaves it (it was kept: doc-1 read as C's).
    expect(stored(path)).toEqual(complete(b));
    expect(outcomes.map((o) => o.status)).toEqual(['replaced', 'replaced', 'unchanged']);
    // What B's connection searches is its own state too.
    const hits = await first.search('Only in variant C', { mode: 'fts', limit: 50 });
    expect(hits.some((h) => h.content.includes('variant B'))).toBe(true);
    expect(hits.filter((h) => h.content.includes('variant C'))).toEqual([]);
  } finally {
    first.close();
    second.close();
  }
});

it('an ingest overtaken at every attempt gives up with one message naming the store and the document, having written nothing', async () => {
  const path = join(temp.dir, `s${n++}.db`);
  const first = DocStore.open(path);
  const second = DocStore.open(path);
  try {
    const texts = ['alpha one.', 'beta two.', 'gamma three.', 'delta four.', 'epsilon five.', 'zeta six.'];
    await first.ingest(docs(texts), provider);
    let round = 0;
    // Each time B embeds, another ingest changes the next document B had found unchanged.
    const source: VectorSource = async (plans, onProgress) => {
      round++;
      await second.ingest([{ content: `changed by the other ingest ${round}.`, sourceSystem: 'file', sourceId: `doc-${round}.md`, topic: 't' }], provider);
      return embedPlans(plans, provider, onProgress);
    };
    const mine = docs(['alpha changed.', ...texts.slice(1)]);
    const err = await first.ingestPlans(mine.map((i) => planArtifact(i)), provider.model, source).catch((e: unknown) => e);
    expect(round).toBe(5);
    expect(String(err)).toMatch(new RegExp(`^StoreError: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: file:doc-5\\.md changed in the store 5 times .*; nothing was written: run the ingest again$`));
    // B wrote nothing: doc-0 is still the old text; doc-1 to doc-5 are the other ingest's.
    const other = docs(texts.map((t, i) => (i === 0 ? t : `changed by the other ingest ${i}.`)));
    expect(stored(path)).toEqual(complete(other));
  } finally {
    first.close();
    second.close();
  }
});

// Hostile texts: empty-ish, unicode, repeated, and variants equal to the base or to each other.
const text = fc.oneof(
  fc.constantFrom('a.', 'x', '東京 🙂.', 'same text.', '# Heading\n\nbody.'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter((s) => s.trim().length > 0),
);

it('property: whatever documents two ingests change, the store after them is the last writer\'s whole input', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(text, fc.option(text), fc.option(text)), { minLength: 1, maxLength: 5 }),
      fc.integer({ min: 1, max: 2 }),
      async (rows, times) => {
        const path = join(temp.dir, `p${n++}.db`);
        const base = docs(rows.map(([t]) => t));
        const b = docs(rows.map(([t, vb]) => vb ?? t));
        const c = docs(rows.map(([t, , vc]) => vc ?? t));
        const first = DocStore.open(path);
        const second = DocStore.open(path);
        try {
          await first.ingest(base, provider);
          await first.ingestPlans(b.map((i) => planArtifact(i)), provider.model, interleaved(second, c, times));
          expect(stored(path)).toEqual(complete(b));
        } finally {
          first.close();
          second.close();
        }
      },
    ),
    { numRuns: 40 },
  );
});
