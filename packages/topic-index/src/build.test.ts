import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { TopicSpec } from '@chunkyard/spec';
import { describe, expect, it } from 'vitest';
import { childEntry, chunkTextSha256, formatIndexJson, indexHref, parentId, sectionIndex, topicIndex } from './build.js';
import { stripeOrder } from './stripe.js';

function spec(sims: number[], technical: number[] | null): TopicSpec {
  return {
    schemaVersion: 1,
    title: 'Widgets',
    embedding: { provider: 'local', model: 'local-lexical-v1-d512', dimensions: 512 },
    promptMatching: { simhash: 'simhash64-lexical-v1', threshold: 0.3 },
    documents: [
      {
        doc: 'golden-reference',
        source: 'golden-reference.md',
        manifest: '_chunks/golden-reference.json',
        strategyKey: 'semantic-64-400-512',
        sourceSha256: 'a'.repeat(64),
        count: sims.length,
        baseline_conceptual: 0,
        ...(technical ? { baseline_technical: 1 as const } : {}),
      },
    ],
    chunks: sims.map((s, index) => ({
      doc: 'golden-reference',
      index,
      href: `_chunks/golden-reference-${index}.md`,
      title: `Chunk ${index}`,
      is_code: index % 3 === 0,
      tokens: 100 + index,
      similarity_conceptual: s,
      ...(technical ? { similarity_technical: technical[index]! } : {}),
      keywords: [{ name: 'widget', score: 7 }],
      ...(index === 2 ? { prompt_hashes: ['00000000000000ff'] } : {}),
    })),
    questions: [{ hash: '00000000000000ff', question: 'What is a widget?' }],
  };
}

describe('topicIndex', () => {
  it("has seed 001's shape: links, _embedded.chunks.{doc} with stripe order and items", () => {
    const sims = [1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2];
    const index = topicIndex(spec(sims, null), 'libraries/widgets');
    expect(index.id).toBe('libraries/widgets');
    expect(index.kind).toBe('topic');
    expect(index._links).toEqual({ self: { href: '/libraries/widgets/index.json' }, parent: { href: '/libraries/index.json' } });
    expect(index._embedded.topics).toEqual([]);
    const d = index._embedded.chunks!['golden-reference']!;
    expect(d).toMatchObject({ source: 'golden-reference.md', manifest: '_chunks/golden-reference.json', count: 9, baseline_conceptual: 0 });
    expect(d.baseline_technical).toBeUndefined();
    // The manifest's hash the index was built from, so a reader can tell a rebuild under way (issue 15).
    expect(d.source_sha256).toBe('a'.repeat(64));
    expect(d.stripe_order_technical).toBeUndefined();
    expect(d.stripe_order).toEqual([1, 4, 7, 2, 5, 8, 3, 6]);
    expect(d.items[2]).toEqual({
      index: 2,
      href: '_chunks/golden-reference-2.md',
      title: 'Chunk 2',
      is_code: false,
      tokens: 102,
      similarity_conceptual: 0.8,
      keywords: [{ name: 'widget', score: 7 }],
      prompt_hashes: ['00000000000000ff'],
    });
    expect('prompt_hashes' in d.items[1]!).toBe(false);
    expect('similarity_technical' in d.items[1]!).toBe(false);
  });

  it('adds the technical baseline and its order when the spec has one', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 2, maxLength: 40 }).chain((c) => fc.tuple(fc.constant(c), fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: c.length, maxLength: c.length }))), ([c, t]) => {
        const d = topicIndex(spec(c, t), 'x')._embedded.chunks!['golden-reference']!;
        expect(d.baseline_technical).toBe(1);
        expect(d.stripe_order).toEqual(stripeOrder(c, [0]));
        expect(d.stripe_order_technical).toEqual(stripeOrder(t, [0, 1]));
        expect(d.items.map((i) => i.similarity_technical)).toEqual(t);
      }),
    );
  });

  it('embeds the questions behind the prompt hashes, and leaves them out when there are none', () => {
    const s = spec([1, 0.5, 0.4], null);
    const index = topicIndex(s, 'x');
    expect(index._embedded.questions).toEqual([{ hash: '00000000000000ff', question: 'What is a widget?' }]);
    const hashes = index._embedded.chunks!['golden-reference']!.items.flatMap((i) => i.prompt_hashes ?? []);
    for (const h of hashes) expect(index._embedded.questions!.some((q) => q.hash === h)).toBe(true);
    expect('questions' in topicIndex({ ...s, questions: [] }, 'x')._embedded).toBe(false);
  });

  it("gives each item the sha256 textSha256 says for its href, and none without it (issue 15: a reader checks the chunk file it reads against it)", () => {
    const s = spec([1, 0.5, 0.4, 0.3], null);
    const asked: string[] = [];
    const d = topicIndex(s, 'x', [], '', (href) => (asked.push(href), createHash('sha256').update(href).digest('hex')))._embedded.chunks!['golden-reference']!;
    expect(asked).toEqual(s.chunks.map((c) => c.href));
    for (const item of d.items) expect(item.sha256).toBe(createHash('sha256').update(item.href).digest('hex'));
    expect(topicIndex(s, 'x')._embedded.chunks!['golden-reference']!.items.some((i) => 'sha256' in i)).toBe(false);
  });

  it('lists children sorted by id', () => {
    const index = topicIndex(spec([1, 0.5], null), 'a', [childEntry('a/z', 'topic', 'Z'), childEntry('a/b', 'section', 'b')]);
    expect(index._embedded.topics.map((t) => t.id)).toEqual(['a/b', 'a/z']);
  });
});

describe('sectionIndex and links', () => {
  it('gives the root no parent and a top-level section the root as parent', () => {
    expect(sectionIndex('', 'docs', [])._links).toEqual({ self: { href: '/index.json' } });
    expect(sectionIndex('libraries', 'libraries', [])._links).toEqual({ self: { href: '/libraries/index.json' }, parent: { href: '/index.json' } });
    expect(sectionIndex('a', 'a', [])._embedded).toEqual({ topics: [] });
  });

  it('URL-encodes each path segment, so any folder name resolves', () => {
    expect(indexHref('guides/c# & f#')).toBe('/guides/c%23%20%26%20f%23/index.json');
    const url = new URL(indexHref('guides/c# & f#'), 'http://h/');
    expect(decodeURIComponent(url.pathname)).toBe('/guides/c# & f#/index.json');
    expect(parentId('a/b/c')).toBe('a/b');
    expect(parentId('a')).toBe('');
    expect(parentId('')).toBeNull();
  });

  it('formats deterministically with a trailing newline', () => {
    const i = topicIndex(spec([1, 0.3, 0.2], null), 'x');
    expect(formatIndexJson(i)).toBe(formatIndexJson(structuredClone(i)));
    expect(JSON.parse(formatIndexJson(i))).toEqual(i);
    expect(formatIndexJson(i).endsWith('}\n')).toBe(true);
  });
});

describe('chunkTextSha256', () => {
  // What a reader hashes: the text a TextDecoder gives for the file's UTF-8 bytes (it drops one leading BOM).
  const asRead = (text: string) => new TextDecoder().decode(Buffer.from(text, 'utf8'));
  const hostile = fc.tuple(
    fc.constantFrom('', '\ufeff', '\ufeff\ufeff', '\r\n', '\0'),
    fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ unit: fc.constantFrom('\ufeff', '\r', '\n', '\0', '\ud800', '\udc00', 'é', '😀', 'a'), maxLength: 30 })),
  );

  it("is the SHA-256 of the file's text as a reader decodes it, whatever the text (a leading BOM, lone surrogates, NULs)", () => {
    fc.assert(
      fc.property(hostile, ([head, body]) => {
        const text = head + body;
        const onDisk = Buffer.from(text, 'utf8');
        expect(chunkTextSha256(onDisk.toString('utf8'))).toBe(createHash('sha256').update(asRead(text), 'utf8').digest('hex'));
      }),
    );
  });

  it('tells files apart that a reader reads as different texts (only one leading BOM is left out)', () => {
    fc.assert(
      fc.property(hostile, hostile, ([h1, b1], [h2, b2]) => {
        const a = Buffer.from(h1 + b1, 'utf8');
        const b = Buffer.from(h2 + b2, 'utf8');
        fc.pre(new TextDecoder().decode(a) !== new TextDecoder().decode(b));
        expect(chunkTextSha256(a.toString('utf8'))).not.toBe(chunkTextSha256(b.toString('utf8')));
      }),
    );
  });
});
