// readInParts reads a big topic-spec.md's chunks a part at a time (issue 15: index-tool took
// 3.4 GB and 34 s on a 40,000-chunk spec, the whole syntax tree held at once). Its answer must be
// the whole read's, or null (then the whole read runs and names any problem): on every spec
// formatTopicSpecMd writes, whatever its strings hold, and on hand edits that break the layout.
import fc from 'fast-check';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatTopicSpecMd, parseTopicSpecMd, readInParts } from './format.js';
import type { SpecChunk, TopicSpec } from './types.js';

const frontMatter = (md: string): string => /^---\n([\s\S]*?)\n---\n/.exec(md)![1]!;

/** The whole read's data, or undefined where it has a problem (an error, a key set twice, an alias bomb). */
function whole(yaml: string): unknown {
  const doc = parseDocument(yaml, { uniqueKeys: false });
  if (doc.errors.length) return undefined;
  try {
    return doc.toJS();
  } catch {
    return undefined;
  }
}

// Strings aimed at the cut: item markers, indentation, line breaks, quotes, colons, comments.
const hostile = fc.string({ unit: fc.constantFrom('\n', '  - ', '- ', '    ', 'chunks:', '#', '"', "'", ': ', '|', '>', '{', '[', '\\', '\t', 'a', 'é', '\u2028', '\u0085', ' '), maxLength: 30 });

const specArb: fc.Arbitrary<TopicSpec> = fc
  .record({
    title: hostile,
    chunks: fc.array(fc.record({ title: hostile, tokens: fc.nat(600), keyword: hostile, question: hostile }), { minLength: 12, maxLength: 40 }),
  })
  .map(({ title, chunks }) => ({
    schemaVersion: 1 as const,
    title,
    embedding: { provider: 'local', model: 'local-lexical-v1-d512', dimensions: 512 },
    promptMatching: { simhash: 'simhash64-lexical-v1', threshold: 0.3 },
    documents: [{ doc: 'g', source: 'g.md', manifest: '_chunks/g.json', strategyKey: 'semantic-16-80-512', sourceSha256: 'a'.repeat(64), count: chunks.length, baseline_conceptual: 0 as const }],
    chunks: chunks.map((c, index): SpecChunk => ({ doc: 'g', index, href: `_chunks/g-${index}.md`, title: c.title, is_code: index % 2 === 0, tokens: c.tokens, similarity_conceptual: 0.5, keywords: c.keyword ? [{ name: c.keyword, score: 3 }] : [] })),
    questions: chunks.slice(0, 3).map((c, i) => ({ hash: i.toString(16).padStart(16, '0'), question: c.question || 'q?' })),
  }));

describe('readInParts', () => {
  it('reads every spec formatTopicSpecMd writes as the whole read does, whatever its strings hold', () => {
    fc.assert(
      fc.property(specArb, fc.integer({ min: 16, max: 400 }), (spec, partChars) => {
        const yaml = frontMatter(formatTopicSpecMd(spec));
        const parts = readInParts(yaml, partChars);
        if (yaml.length >= 4 * partChars) expect(parts).not.toBeNull();
        if (parts !== null) expect(parts).toEqual(whole(yaml));
      }),
      { numRuns: 300 },
    );
  });

  it('after a line inserted, removed or re-indented, answers as the whole read or null, and null wherever the whole read finds a problem', () => {
    const edit = fc.record({ at: fc.nat(), kind: fc.constantFrom('insert', 'remove', 'dedent', 'indent'), line: fc.constantFrom('  - doc: g', '  -', '- x', 'chunks:', 'chunks: []', '# note', '    title: &a x', '    title: *a', '    tokens: 1', 'title: again', '  - "open', '"', '  x: [', '') });
    fc.assert(
      fc.property(specArb, fc.array(edit, { minLength: 1, maxLength: 3 }), (spec, edits) => {
        const lines = frontMatter(formatTopicSpecMd(spec)).split('\n');
        for (const e of edits) {
          const i = e.at % lines.length;
          if (e.kind === 'insert') lines.splice(i, 0, e.line);
          else if (e.kind === 'remove') lines.splice(i, 1);
          else if (e.kind === 'dedent') lines[i] = lines[i]!.replace(/^ {1,2}/, '');
          else lines[i] = `  ${lines[i]}`;
        }
        const yaml = lines.join('\n');
        const parts = readInParts(yaml, 32);
        const expected = whole(yaml);
        // A key set twice is a problem of the whole read too (duplicateKey), which readInParts never passes.
        if (parts !== null) expect(parts).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('a big spec through parseTopicSpecMd: the same data as read whole', () => {
    const spec = fc.sample(specArb, { numRuns: 1, seed: 7 })[0]!;
    const many: TopicSpec = { ...spec, chunks: Array.from({ length: 6000 }, (_, index) => ({ ...spec.chunks[index % spec.chunks.length]!, index, href: `_chunks/g-${index}.md` })), documents: [{ ...spec.documents[0]!, count: 6000 }] };
    const md = formatTopicSpecMd(many);
    expect(frontMatter(md).length).toBeGreaterThan(4 * 65536);
    expect(readInParts(frontMatter(md))).not.toBeNull();
    expect(parseTopicSpecMd(md, 'topic-spec.md')).toEqual(many);
  });
});
