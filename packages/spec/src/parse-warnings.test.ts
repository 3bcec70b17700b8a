// parseTopicSpecMd is pure, but yaml reported what it met through process.emitWarning, so a
// topic-spec.md whose front matter has a mapping or list as a key (`? [a]`, what a hand edit or
// a `{{template}}` line makes) printed "(node:1234) Warning: Keys with collection values will be
// stringified…" on index-tool's stderr, with the process id, at every read (helper-85 probe).
// The keyword scan's front matter reader passes logLevel 'error' for the same reason.
import { describe, expect, it } from 'vitest';
import { formatTopicSpecMd, parseTopicSpecMd } from './format.js';
import type { TopicSpec } from './types.js';

function spec(chunks: number): TopicSpec {
  return {
    schemaVersion: 1,
    title: 'T',
    embedding: { provider: 'local', model: 'local-lexical-v1-d512', dimensions: 512 },
    promptMatching: { simhash: 'simhash64-lexical-v1', threshold: 0.3 },
    documents: [{ doc: 'g', source: 'g.md', manifest: '_chunks/g.json', strategyKey: 's', sourceSha256: '0'.repeat(64), count: chunks, baseline_conceptual: 0 }],
    chunks: Array.from({ length: chunks }, (_, i) => ({ doc: 'g', index: i, href: `_chunks/g-${i}.md`, title: `Chunk ${i} ${'x'.repeat(60)}`, is_code: false, tokens: 10, similarity_conceptual: 0.5, keywords: [{ name: 'server', score: 5 }] })),
    questions: [],
  };
}

async function warningsOf(read: () => void): Promise<string[]> {
  const seen: string[] = [];
  const listen = (w: Error) => seen.push(w.message);
  process.on('warning', listen);
  try {
    read();
    await new Promise((resolve) => setTimeout(resolve, 20)); // warnings are emitted on a later tick
  } finally {
    process.off('warning', listen);
  }
  return seen;
}

describe('parseTopicSpecMd warnings', () => {
  it.each([
    ['read whole', 3],
    ['read in parts', 3000],
  ])('emits none for a collection key (%s)', async (_how, chunks) => {
    const md = formatTopicSpecMd(spec(chunks)).replace('schemaVersion: 1', '? [a]\n: 1\nschemaVersion: 1');
    let title = '';
    expect(await warningsOf(() => (title = parseTopicSpecMd(md, 'x/topic-spec.md').title))).toEqual([]);
    expect(title).toBe('T');
  });
});
