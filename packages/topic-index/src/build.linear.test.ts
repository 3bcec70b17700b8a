// Issue 15: every stage runs in linear time. topicIndex took each document's chunks with a
// filter over all of the spec's chunks, documents × chunks: a topic.yaml listing 80,000 one-chunk
// sources (a generated API reference) made 6.4 billion comparisons: 40,000 took 27 s and 80,000 runs past
// vitest's 60 s limit against that code. Grouped once, it is a pass over each.
import type { TopicSpec } from '@chunkyard/spec';
import { expect, it } from 'vitest';
import { topicIndex } from './build.js';

it('a topic of 80,000 documents of one chunk each', () => {
  const n = 80_000;
  const docs = Array.from({ length: n }, (_, i) => `ref-${i}`);
  const spec: TopicSpec = {
    schemaVersion: 1,
    title: 'API',
    embedding: { provider: 'local', model: 'local-lexical-v1-d512', dimensions: 512 },
    promptMatching: { simhash: 'simhash64-lexical-v1', threshold: 0.3 },
    documents: docs.map((doc) => ({ doc, source: `${doc}.md`, manifest: `_chunks/${doc}.json`, strategyKey: 'semantic-16-80-512', sourceSha256: 'a'.repeat(64), count: 1, baseline_conceptual: 0 })),
    // Listed last document first, so no document's chunk sits where its document does.
    chunks: docs.reverse().map((doc) => ({ doc, index: 0, href: `_chunks/${doc}-0.md`, title: doc, is_code: false, tokens: 10, similarity_conceptual: 1, keywords: [] })),
    questions: [],
  };
  const index = topicIndex(spec, 'api');
  const documents = index._embedded.chunks!;
  expect(Object.keys(documents)).toHaveLength(n);
  expect(documents['ref-0']!.items).toEqual([expect.objectContaining({ href: '_chunks/ref-0-0.md', title: 'ref-0' })]);
  expect(documents[`ref-${n - 1}`]!.items.map((i) => i.href)).toEqual([`_chunks/ref-${n - 1}-0.md`]);
});
