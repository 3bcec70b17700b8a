// Routed search's order among units of exactly the same score: docs-query's (retrieval's
// search()) sorts by score, then by its chunks' order, topics by id. The store broke such a tie
// by artifact id (8 hex of a hash of the source id), so the same built docs gave docs-query
// copy/one first and the store copy/two. Two topics holding the same page tie on every score.
// Real chunking-tool output, the real local embedder, a real SQLite file.
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBackend, DocsClient, openSource, search as retrievalSearch, type EmbeddingBackend } from '@chunkyard/retrieval';
import { buildFixtureDocs, type FixtureDocs } from '../../retrieval/src/test-fixture-docs.js';
import { DocStore } from './store.js';
import { ingestBuiltTopics } from './test-helpers.js';

const PAGE = '# Cache guide\n\nEnable response compression in production to save bandwidth.\n\nThe cache keeps compressed responses for an hour.\n';
// Topic order copy/one, copy/two; artifact ids (sha256 of `${topic}:golden-reference.md`) the other way.
const TOPICS = ['copy/one', 'copy/two', 'deployment/native-aot'];

let fx: FixtureDocs;
let backend: EmbeddingBackend;
let store: DocStore;

beforeAll(async () => {
  fx = await buildFixtureDocs({ topics: ['deployment/native-aot'], pages: { 'copy/two': PAGE, 'copy/one': PAGE } });
  backend = createBackend({ folder: fx.docs });
  store = DocStore.open(join(fx.workspace, 'store.db'));
  // Ingested in reverse topic order: the order of ingest decides nothing either.
  await ingestBuiltTopics(store, fx.docs, [...TOPICS].reverse(), backend.provider);
}, 120_000);

afterAll(() => {
  store?.close();
  fx?.cleanup();
});

it.each(['response compression', 'cache', 'compressed responses bandwidth'])('%s: units of the same score come in docs-query order (topics by id), not by artifact id', async (query) => {
  const r = await retrievalSearch(new DocsClient(openSource(fx.docs)), { query, n: 3, maxDistance: 0, embeddings: () => backend });
  const hits = await store.search(query, { limit: 3, embedder: backend.provider });
  const ours = hits.map((h) => [h.sourceFile, h.chunkIndex, h.unit?.chunks, h.unit?.text]);
  const theirs = r.chunks.map((c) => [`${c.topic}/${c.doc}.md`, c.index, c.span, c.text]);
  expect(ours).toEqual(theirs);
  // The case this is about: the two copies tie, and their artifact ids sort the other way.
  const [a, b] = hits;
  expect([a?.sourceFile, b?.sourceFile]).toEqual(['copy/one/golden-reference.md', 'copy/two/golden-reference.md']);
  expect(a!.score).toBe(b!.score);
  expect(a!.artifactId > b!.artifactId).toBe(true);
});
