// Invariants of ingest over generated documents (fast-check), on a real SQLite file with
// the real local embedder: what is read back is what was ingested, re-ingesting changes
// nothing, and the packed vector index ranks exactly as a naive sort does.
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { countTokens } from '@chunkyard/chunking';
import { bytesToVector, VectorIndex } from './vector-index.js';
import { DocStore } from './store.js';
import { localProvider, makeTempDir, snapshot } from './test-helpers.js';

let temp: ReturnType<typeof makeTempDir>;
beforeAll(() => {
  temp = makeTempDir();
});
afterAll(() => temp.cleanup());

const word = fc.constantFrom('serializer', 'options', 'trimming', 'native', 'token', 'chunk', 'vector', 'käse', '東京', 'a', 'JSON', 'über', '🙂', 'x1');
const sentence = fc.array(word, { minLength: 3, maxLength: 14 }).map((ws) => `${ws.join(' ')}.`);
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 8 }).map((ss) => ss.join(' '));
const block = fc.oneof(
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1, max: 3 }), fc.array(word, { minLength: 1, maxLength: 4 })).map(([d, ws]) => `${'#'.repeat(d)} ${ws.join(' ')}`) },
  { weight: 4, arbitrary: paragraph },
);
// From a few words to a few thousand tokens, so both sides of the 1200-token threshold occur.
const documentText = fc
  .oneof(fc.array(block, { minLength: 1, maxLength: 20 }), fc.array(block, { minLength: 80, maxLength: 160 }))
  .map((bs) => `${bs.join('\n\n')}\n`);

let n = 0;
it('ingest → read gives back the text, offsets, tokens and vectors; re-ingest is a no-op', async () => {
  const provider = localProvider();
  let sawWhole = false;
  let sawChunked = false;
  await fc.assert(
    fc.asyncProperty(documentText, async (text) => {
      const store = DocStore.open(join(temp.dir, `p${n++}.db`));
      try {
        const [out] = await store.ingest([{ content: text, sourceSystem: 'file', sourceId: 'doc.md' }], provider);
        expect(out!.tokenCount).toBe(countTokens(text));
        expect(out!.isChunked).toBe(out!.tokenCount > 1200);
        const units = out!.isChunked
          ? (store.db.prepare('SELECT content, embed_text AS embedText, start_char AS s, end_char AS e, token_count AS t, embedding FROM artifact_chunks ORDER BY chunk_index').all() as {
              content: string; embedText: string; s: number; e: number; t: number; embedding: Buffer;
            }[])
          : (store.db.prepare('SELECT content, content AS embedText, 0 AS s, -1 AS e, token_count AS t, embedding FROM artifacts').all() as {
              content: string; embedText: string; s: number; e: number; t: number; embedding: Buffer;
            }[]);
        // SQLite's length() counts code points; offsets are UTF-16 units, so whole units end at .length.
        for (const u of units) if (u.e === -1) u.e = u.content.length;
        if (out!.isChunked) sawChunked = true;
        else sawWhole = true;
        expect(units.length).toBe(Math.max(1, out!.numChunks));
        const vectors = await provider.embed(units.map((u) => u.embedText));
        units.forEach((u, i) => {
          expect(text.slice(u.s, u.e)).toBe(u.content);
          expect(u.t).toBe(countTokens(u.content));
          expect(bytesToVector(u.embedding)).toEqual(vectors[i]);
        });
        // Every non-blank line of the document is in some unit.
        for (const line of text.split('\n').filter((l) => l.trim())) expect(units.some((u) => u.content.includes(line))).toBe(true);

        const before = snapshot(store);
        const [again] = await store.ingest([{ content: text, sourceSystem: 'file', sourceId: 'doc.md' }], provider);
        expect(again!.status).toBe('unchanged');
        expect(snapshot(store)).toEqual(before);
      } finally {
        store.close();
      }
    }),
    { numRuns: 25 },
  );
  expect(sawWhole && sawChunked).toBe(true);
});

it('the index patched after our own writes answers as one freshly loaded from the file', async () => {
  const provider = localProvider();
  const op = fc.record({ source: fc.constantFrom('a.md', 'b.md', 'c.md'), text: documentText, query: fc.constantFrom('serializer options', 'native token', 'käse vector', 'chunk') });
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 6 }), async (ops) => {
      const path = join(temp.dir, `i${n++}.db`);
      const store = DocStore.open(path);
      try {
        for (const { source, text, query } of ops) {
          await store.search(query, { mode: 'vector', embedder: provider }); // loads (or keeps) the index
          const before = store.vectorIndex();
          await store.ingest([{ content: text, sourceSystem: 'file', sourceId: source }], provider);
          const after = store.vectorIndex();
          const fresh = DocStore.open(path, { readonly: true });
          try {
            const expected = await fresh.search(query, { mode: 'vector', embedder: provider, limit: 20 });
            const got = await store.search(query, { mode: 'vector', embedder: provider, limit: 20 });
            expect(got.map((h) => h.score)).toEqual(expected.map((h) => expect.closeTo(h.score, 5)));
            expect(new Set(after.units.map((u) => u.unitId))).toEqual(new Set(fresh.vectorIndex().units.map((u) => u.unitId)));
            expect(after.units).toHaveLength(fresh.vectorIndex().size);
            // Patched in place of a reload: a new index object, built without re-reading the file.
            if (before.size > 0) expect(after).not.toBe(before);
          } finally {
            fresh.close();
          }
        }
        // One load of the empty store, one once it has vectors; every later write was patched in.
        expect(store.indexLoads).toBeLessThanOrEqual(2);
      } finally {
        store.close();
      }
    }),
    { numRuns: 12 },
  );
});

it('the packed index ranks exactly as a naive cosine sort (int8 + rerank, Float32 kernel, JS loop), with and without a filter', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 33 }),
      fc.integer({ min: 0, max: 60 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer(),
      (dims, rows, k, seed) => {
        let s = seed >>> 0;
        const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
        const vecs = Array.from({ length: rows }, () => Float32Array.from({ length: dims }, rand));
        const rowsOf = () => vecs.map((v, i) => ({ unit: { unitId: `u${i}`, artifactId: 'a', topic: null, artifactType: 'doc', contentHints: i % 3 ? 'prose' : 'code' }, embedding: new Uint8Array(v.buffer) }));
        // The SIMD kernel (growing from the default capacity of 16 rows) and the JS loop.
        const simdIndex = VectorIndex.fromRows(dims, rowsOf());
        const jsIndex = VectorIndex.fromRows(dims, rowsOf(), rows, { simd: false });
        expect(simdIndex.simd).toBe(true);
        expect(jsIndex.simd).toBe(false);
        const q = Float32Array.from({ length: dims }, rand);
        const cos = (v: Float32Array) => {
          let dot = 0, nq = 0, nv = 0;
          for (let d = 0; d < dims; d++) {
            dot += q[d]! * v[d]!;
            nq += q[d]! ** 2;
            nv += v[d]! ** 2;
          }
          return nq && nv ? dot / Math.sqrt(nq * nv) : 0;
        };
        // int8 scan + exact rerank (the default), the Float32 SIMD kernel, the JS loop.
        for (const [index, quantized] of [[simdIndex, true], [simdIndex, false], [jsIndex, true]] as const) {
          for (const filter of [undefined, (u: { contentHints: string }) => u.contentHints === 'code']) {
            const expected = vecs
              .map((v, row) => ({ row, score: cos(v) }))
              .filter((m) => !filter || filter(index.units[m.row]!))
              .sort((a, b) => b.score - a.score || a.row - b.row)
              .slice(0, k);
            const got = index.search(q, k, filter, { quantized });
            expect(got.map((m) => m.score)).toEqual(expected.map((m) => expect.closeTo(m.score, 5)));
            // Rows agree except where two scores are equal to float precision.
            got.forEach((m, i) => {
              if (Math.abs(m.score - expected[i]!.score) > 1e-6 || m.row !== expected[i]!.row) {
                expect(Math.abs(cos(vecs[m.row]!) - expected[i]!.score)).toBeLessThan(1e-5);
              }
            });
          }
        }
      },
    ),
    { numRuns: 200 },
  );
});
