// readItems reads topic-spec.md's chunk items without the yaml library (index-tool on a
// 20,000-chunk topic: 21.8 s and 473 MB with yaml, 1.1 s and 270 MB with it, the same
// index.json). Its answer must be the yaml library's for the same text, or null: on every item
// formatTopicSpecMd writes, whatever its strings hold, and on any text at all.
import fc from 'fast-check';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatTopicSpecMd } from './format.js';
import { readItems } from './read-items.js';
import type { SpecChunk, TopicSpec } from './types.js';

/** yaml's reading of `text` as the `chunks:` list, or undefined where it finds a problem. */
function yamlItems(text: string): unknown {
  const doc = parseDocument(`chunks:\n${text}`, { uniqueKeys: false });
  if (doc.errors.length) return undefined;
  try {
    return (doc.toJS() as { chunks: unknown }).chunks;
  } catch {
    return undefined;
  }
}

/** The `chunks:` list of the spec formatTopicSpecMd writes, as text (whole items). */
function itemsText(spec: TopicSpec): string {
  const md = formatTopicSpecMd(spec);
  const from = md.indexOf('\nchunks:\n') + '\nchunks:\n'.length;
  const to = md.indexOf('\n', md.indexOf('\n---\n', from)) - 4;
  return md.slice(from, to + 1);
}

// Scalars aimed at the reader's guesses: numbers in every YAML form, nulls, booleans of 1.1 and
// 1.2, indicators, quotes, escapes, comments, colons, flow characters, controls, breaks.
const piece = fc.constantFrom('1', '0', '-', '+', '.', 'e', '5', 'x', 'a b', 'C#', ' #c', ': ', ':', ',', '[', ']', '{', '}', '"', "'", '\\', '\t', '\n', '\r', '~', 'null', 'true', 'False', 'yes', 'on', '0x1F', '0o7', '.inf', '.NaN', '1e3', '007', '-0', '?', '&a', '*a', '!t', '|', '>', '%', '@', '`', 'é', '数', '🙂', '\u2028', '\u0085', '\ufeff', '\u007f', ' ');
const scalar = fc.oneof(fc.string({ unit: piece, maxLength: 6 }), fc.string({ maxLength: 8 }), fc.constantFrom('Install', 'A generated big topic', 'Section 2: context include', 'dotnet build', '12 ways'));
const hash = fc.oneof(fc.stringMatching(/^[0-9a-f]{16}$/), fc.constantFrom('0123456789012345', '1e23456789012345', '00000000000000ff'));

const specArb: fc.Arbitrary<TopicSpec> = fc
  .array(fc.record({ title: scalar, doc: scalar, tokens: fc.nat(600), conceptual: fc.double({ min: -1, max: 1, noNaN: true }), technical: fc.option(fc.double({ min: -1, max: 1, noNaN: true })), keywords: fc.array(fc.record({ name: scalar, score: fc.nat(10) }), { maxLength: 4 }), hashes: fc.option(fc.array(hash, { minLength: 1, maxLength: 3 })) }), { minLength: 1, maxLength: 6 })
  .map((chunks) => ({
    schemaVersion: 1 as const,
    title: 't',
    embedding: { provider: 'local', model: 'm', dimensions: 8 },
    promptMatching: { simhash: 's', threshold: 0.3 },
    documents: [],
    chunks: chunks.map((c, index): SpecChunk => {
      const chunk: SpecChunk = { doc: c.doc, index, href: `_chunks/${c.doc}-${index}.md`, title: c.title, is_code: index % 2 === 0, tokens: c.tokens, similarity_conceptual: Math.round(c.conceptual * 1e4) / 1e4, keywords: c.keywords };
      if (c.technical !== null) chunk.similarity_technical = Math.round(c.technical * 1e4) / 1e4;
      if (c.hashes !== null) chunk.prompt_hashes = c.hashes;
      return chunk;
    }),
    questions: [],
  }));

describe('readItems', () => {
  it('reads the items formatTopicSpecMd writes as yaml does, or leaves them to yaml (null)', () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        const text = itemsText(spec);
        const fast = readItems(text);
        if (fast !== null) expect(fast).toStrictEqual(yamlItems(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads any text as yaml does, or answers null', () => {
    const line = fc.oneof(
      fc.constantFrom('  - doc: g', '  - title:', '  - keywords:', '  - keywords: []', '    index: 1', '    title: x', '    keywords:', '      - { name: a, score: 1 }', '    keywords: []', '    prompt_hashes: [ 0a0a0a0a0a0a0a0a ]', '  -', '    title:', '# c', '', '    title: "a', '      - x', '   title: y', '    index: 1 # c'),
      fc.tuple(fc.constantFrom('  - ', '    ', '      - '), fc.constantFrom('doc', 'index', 'title', 'tokens', 'keywords', 'prompt_hashes', 'other', '{ name'), fc.constantFrom(': ', ':', ' : ', ':  '), scalar).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), (lines) => {
        const text = `${lines.join('\n')}\n`;
        const fast = readItems(text);
        if (fast !== null) expect(fast).toStrictEqual(yamlItems(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads the layout a real topic has itself (the point of it), with a negative cosine, quoted titles and prompt hashes', () => {
    const text = [
      '  - doc: golden-reference',
      '    index: 0',
      '    href: _chunks/golden-reference-0.md',
      '    title: "Section 2: context include"',
      '    is_code: false',
      '    tokens: 36',
      '    similarity_conceptual: 1',
      '    similarity_technical: -0.0123',
      '    keywords:',
      '      - { name: allocation, score: 10 }',
      '      - { name: "C#: types", score: 9 }',
      '    prompt_hashes: [ 0a1b2c3d4e5f6071, "0123456789012345" ]',
      '  - doc: golden-reference',
      '    index: 1',
      '    href: _chunks/golden-reference-1.md',
      '    title: API reference',
      '    is_code: true',
      '    tokens: 109',
      '    similarity_conceptual: 0.2764',
      '    keywords: []',
      '',
    ].join('\n');
    const fast = readItems(text);
    expect(fast).not.toBeNull();
    expect(fast).toStrictEqual(yamlItems(text));
    expect(fast![0]!.similarity_technical).toBe(-0.0123);
    expect(fast![0]!.prompt_hashes).toEqual(['0a1b2c3d4e5f6071', '0123456789012345']);
  });

  it('leaves what it is not sure of to yaml: nulls, other number forms, escapes, a key twice, a key with nothing under it', () => {
    for (const text of ['  - title:\n', '  - title: ~\n', '  - index: 0x1F\n', '  - index: 007\n', '  - title: "a\\tb"\n', '  - doc: a\n    doc: b\n', '  - keywords:\n    doc: a\n', '  - other: 1\n', '  - doc: a # note\n', '  - title: &x a\n']) {
      expect(readItems(text), JSON.stringify(text)).toBeNull();
    }
  });
});
