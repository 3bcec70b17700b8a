// topic-spec.md's front matter written a chunk at a time (itemwise) must be byte for byte what
// one yaml Document of the whole spec writes (wholeYaml), or null, whatever the strings hold.
// On a 20,000-chunk topic the whole Document was most of topic-spec's time and memory.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTopicSpecMd, frontMatterYaml, itemwise, parseTopicSpecMd, wholeYaml } from './format.js';
import type { SpecChunk, TopicSpec } from './types.js';

// Strings aimed at the writer's choices: quoting, YAML 1.1's booleans and numbers, flow
// indicators, comments, line breaks (block scalars), PyYAML's raw characters, `<<` and `=`.
const piece = fc.constantFrom('1', '0', '-', '+', '.', 'e', 'x', 'a b', 'C#', ' #c', ': ', ':', ',', '[', ']', '{', '}', '"', "'", '\\', '\t', '\n', '\r', '~', 'null', 'true', 'yes', 'on', 'No', 'y', '1:20', '2001-12-14', '0x1F', '.inf', '007', '?', '&a', '*a', '!t', '|', '>', '%', '@', '`', '<<', '=', 'é', '数', '🙂', '\u2028', '\u0085', '\ufeff', '\u007f', ' ', '  - ', 'keywords: []');
const scalar = fc.oneof(fc.string({ unit: piece, maxLength: 6 }), fc.string({ maxLength: 8 }), fc.constantFrom('Install', 'Section 2: context include', '12 ways'));

const spec = (chunks: { title: string; doc: string; keywords: { name: string; score: number }[]; hashes: string[] | null; technical: number | null }[], questions: string[]): TopicSpec => ({
  schemaVersion: 1,
  title: 'A topic',
  embedding: { provider: 'local', model: 'local-lexical-v1-d512', dimensions: 512 },
  promptMatching: { simhash: 'simhash64-lexical-v1', threshold: 0.3 },
  documents: [{ doc: 'g', source: 'g.md', manifest: '_chunks/g.json', strategyKey: 'semantic-16-80-512', sourceSha256: 'a'.repeat(64), count: chunks.length, baseline_conceptual: 0 }],
  chunks: chunks.map((c, index): SpecChunk => {
    const chunk: SpecChunk = { doc: c.doc, index, href: `_chunks/g-${index}.md`, title: c.title, is_code: index % 3 === 0, tokens: index * 7, similarity_conceptual: index === 0 ? 1 : index % 2 ? -0.0123 : 0.25, keywords: c.keywords };
    if (c.technical !== null) chunk.similarity_technical = c.technical;
    if (c.hashes !== null) chunk.prompt_hashes = c.hashes;
    return chunk;
  }),
  questions: questions.map((question, i) => ({ hash: i.toString(16).padStart(16, '0'), question })),
});

const chunkArb = fc.record({
  title: scalar,
  doc: fc.oneof(fc.constant('g'), scalar),
  keywords: fc.array(fc.record({ name: scalar, score: fc.nat(10) }), { maxLength: 4 }),
  hashes: fc.option(fc.array(fc.oneof(fc.stringMatching(/^[0-9a-f]{16}$/), fc.constant('0123456789012345')), { minLength: 1, maxLength: 2 })),
  technical: fc.option(fc.double({ min: -1, max: 1, noNaN: true })),
});

describe('the front matter written a chunk at a time', () => {
  it('is byte for byte the whole document\'s, or left to it', () => {
    fc.assert(
      fc.property(fc.array(chunkArb, { minLength: 1, maxLength: 8 }), fc.array(scalar, { maxLength: 2 }), (chunks, questions) => {
        const s = spec(chunks, questions);
        const written = itemwise(s);
        if (written !== null) expect(written).toBe(wholeYaml(s));
        expect(frontMatterYaml(s, 1)).toBe(wholeYaml(s));
      }),
      { numRuns: 1500 },
    );
  });

  it('is used for a topic of ordinary strings (the point of it), and reads back as written', () => {
    const chunks = Array.from({ length: 70 }, (_, i) => ({ title: `Section ${i}: setup`, doc: 'g', keywords: [{ name: 'stream', score: 10 - (i % 10) }, { name: 'C#', score: 3 }], hashes: i % 5 === 0 ? ['0a1b2c3d4e5f6071'] : null, technical: null }));
    const s = spec(chunks, ['How do I build?']);
    expect(itemwise(s)).not.toBeNull();
    const md = formatTopicSpecMd(s);
    expect(md.startsWith(`---\n${wholeYaml(s)}---\n`)).toBe(true);
    expect(parseTopicSpecMd(md, 'topic-spec.md').chunks).toEqual(s.chunks);
  });
});
