// parseIndex over hand-written index.json text: JSON that is valid and fits the contract in
// shapes a built tree rarely has (s47 probe).
import { describe, expect, it } from 'vitest';
import { DocsClient } from './client.js';
import { ContractError, parseIndex, type TopicIndex } from './contract.js';
import { FolderSource } from './source.js';
import type { LoadedTopic } from './walk.js';

function topicText(doc: string): string {
  const items = [0, 1].map((i) => ({ index: i, href: `_chunks/g/${i}.md`, title: `Chunk ${i}`, is_code: false, similarity_conceptual: 1 - i / 10, keywords: [] }));
  const group = { source: 'golden-reference.md', manifest: '_chunks/g.json', count: 2, baseline_conceptual: 0, stripe_order: [1], items };
  // Written as text: an object literal's "__proto__" key would set the prototype, not a key.
  return `{"kind":"topic","id":"t","title":"T","_links":{"self":{"href":"/t/index.json"},"parent":{"href":"/index.json"}},"_embedded":{"topics":[],"chunks":{${JSON.stringify(doc)}:${JSON.stringify(group)}}}}`;
}

describe('parseIndex: document names', () => {
  it('keeps a document named like an Object.prototype member (a "__proto__" document was dropped: "expected at least one document, got {}")', () => {
    for (const doc of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const index = parseIndex(JSON.parse(topicText(doc)), 'x') as TopicIndex;
      expect(Object.keys(index._embedded.chunks), doc).toEqual([doc]);
      expect(index._embedded.chunks[doc]?.count, doc).toBe(2);
    }
  });

  it('the client finds only the documents the index lists, never a prototype member', () => {
    const index = parseIndex(JSON.parse(topicText('g')), 'x') as TopicIndex;
    const topic: LoadedTopic = { id: 't', title: 'T', url: new URL('chunkyard-docs://folder/t/index.json'), index };
    const client = new DocsClient(new FolderSource('/nonexistent'));
    expect(client.group(topic, 'g').count).toBe(2);
    for (const doc of ['constructor', 'toString', '__proto__']) expect(() => client.group(topic, doc), doc).toThrow(ContractError);
  });
});

describe('parseIndex: source_sha256', () => {
  const withSha = (sha: unknown) => JSON.parse(topicText('g').replace('"manifest":"_chunks/g.json"', `"manifest":"_chunks/g.json","source_sha256":${JSON.stringify(sha)}`)) as unknown;
  it('keeps a document\'s source_sha256 (what the rebuild check compares with the manifest), and reads an index without one', () => {
    const sha = 'ab'.repeat(32);
    expect((parseIndex(withSha(sha), 'x') as TopicIndex)._embedded.chunks['g']?.source_sha256).toBe(sha);
    expect((parseIndex(JSON.parse(topicText('g')), 'x') as TopicIndex)._embedded.chunks['g']?.source_sha256).toBeUndefined();
  });
  it('refuses one that is not 64 lowercase hex digits, naming the field', () => {
    for (const bad of ['AB'.repeat(32), 'ab', 42, null]) {
      expect(() => parseIndex(withSha(bad), 'idx.json'), String(bad)).toThrow(/^idx\.json: _embedded\.chunks\.g\.source_sha256: expected (64 lowercase hex digits|a string), got /);
    }
  });
});

describe('parseIndex: an item\'s sha256', () => {
  const withItemSha = (sha: unknown) => JSON.parse(topicText('g').replace('"href":"_chunks/g/1.md"', `"href":"_chunks/g/1.md","sha256":${JSON.stringify(sha)}`)) as unknown;
  it('keeps it (what chunkText compares the chunk file with), and reads an index without one', () => {
    const sha = 'cd'.repeat(32);
    const items = (parseIndex(withItemSha(sha), 'x') as TopicIndex)._embedded.chunks['g']!.items;
    expect(items.map((i) => i.sha256)).toEqual([undefined, sha]);
    expect('sha256' in items[0]!).toBe(false);
  });
  it('refuses one that is not 64 lowercase hex digits, naming the item', () => {
    for (const bad of ['CD'.repeat(32), 'cd'.repeat(33), '', 7, null, ['cd'.repeat(32)]]) {
      expect(() => parseIndex(withItemSha(bad), 'idx.json'), String(bad)).toThrow(/^idx\.json: _embedded\.chunks\.g\.items\[1\]\.sha256: expected (64 lowercase hex digits|a string), got /);
    }
  });
});
