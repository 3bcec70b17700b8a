// buildTopicSpec over real chunks of a real sample document, embedded by the real local
// embedder; the keyword table is the real extractor's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkDocument } from '@chunkyard/chunking';
import { LocalLexicalProvider } from '@chunkyard/embeddings';
import { extractKeywords, matchKeywords } from '@chunkyard/keywords';
import { simhash64, toHex } from '@chunkyard/simhash';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTopicSpec, type BuildSpecInput, type SpecInputDocument } from './build.js';
import { cosine } from './similarity.js';

const DOCS = join(import.meta.dirname, '../../../docs');
const provider = new LocalLexicalProvider();
const embedding = { provider: 'local', model: provider.model, dimensions: 512 };

async function document(markdown: string, doc = 'golden-reference'): Promise<SpecInputDocument> {
  const r = chunkDocument(markdown, { docName: doc });
  return {
    doc,
    source: `${doc}.md`,
    strategyKey: r.strategyKey,
    sourceSha256: '0'.repeat(64),
    fileTitle: r.fileTitle,
    chunks: r.chunks,
    vectors: await provider.embed(r.chunks.map((c) => c.embedText)),
  };
}

describe('buildTopicSpec', () => {
  let source: string;
  let input: BuildSpecInput;
  beforeAll(async () => {
    source = readFileSync(join(DOCS, 'libraries/system-text-json-source-generation/golden-reference.md'), 'utf8');
    input = {
      title: 'T',
      embedding,
      documents: [await document(source)],
      keywords: extractKeywords([{ name: 'golden-reference.md', text: source }]),
      questions: [],
      promptThreshold: 0.3,
    };
  });

  it('gives one entry per chunk with seed 001 item fields, chunk 0 at similarity 1', () => {
    const spec = buildTopicSpec(input);
    const d = input.documents[0]!;
    expect(spec.chunks).toHaveLength(d.chunks.length);
    expect(spec.documents).toEqual([
      { doc: 'golden-reference', source: 'golden-reference.md', manifest: '_chunks/golden-reference.json', strategyKey: d.strategyKey, sourceSha256: d.sourceSha256, count: d.chunks.length, baseline_conceptual: 0 },
    ]);
    spec.chunks.forEach((c, i) => {
      expect(c.index).toBe(i);
      expect(c.href).toBe(`_chunks/golden-reference-${i}.md`);
      expect(c.title).toBe(d.chunks[i]!.sectionTitle);
      expect(c.is_code).toBe(d.chunks[i]!.isCode);
      expect(c.tokens).toBe(d.chunks[i]!.tokenStats.tokens);
      expect(c.similarity_conceptual).toBeCloseTo(cosine(d.vectors[i]!, d.vectors[0]!), 4);
      expect(c.similarity_technical).toBeUndefined();
      expect(c.prompt_hashes).toBeUndefined();
    });
    expect(spec.chunks[0]!.similarity_conceptual).toBe(1);
  });

  it('gives each chunk only keywords of the table that occur in it, with the table scores', () => {
    const spec = buildTopicSpec(input);
    const scores = new Map(input.keywords.map((k) => [k.name, k.score]));
    let total = 0;
    for (const c of spec.chunks) {
      for (const k of c.keywords) {
        expect(scores.get(k.name)).toBe(k.score);
        total++;
      }
    }
    expect(total).toBeGreaterThan(spec.chunks.length);
    // A keyword that occurs nowhere in the document is never attached.
    const spec2 = buildTopicSpec({ ...input, keywords: [...input.keywords, { name: 'zebra crossing', score: 10 }] });
    expect(spec2.chunks.some((c) => c.keywords.some((k) => k.name === 'zebra crossing'))).toBe(false);
  });

  it('adds similarity_technical when chunk 1 is titled as a reference section', async () => {
    const md = [
      '# Widgets',
      '',
      'Widgets render reusable parts of a page. '.repeat(20),
      '',
      '## Quick Reference',
      '',
      '```js\nwidget.create({ id: 1 });\nwidget.render(target);\n```\n',
      '`widget.create(options)` makes a widget. '.repeat(25),
      '',
      '## Styling widgets',
      '',
      'Widgets take a theme and a size, and style themselves from both. '.repeat(20),
    ].join('\n');
    const doc = await document(md, 'widgets');
    expect(doc.chunks[1]!.sectionTitle).toBe('Quick Reference');
    const spec = buildTopicSpec({ ...input, documents: [doc], keywords: [] });
    expect(spec.documents[0]!.baseline_technical).toBe(1);
    expect(spec.chunks[1]!.similarity_technical).toBe(1);
    for (const c of spec.chunks) expect(c.similarity_technical).toBeCloseTo(cosine(doc.vectors[c.index]!, doc.vectors[1]!), 4);
  });

  it('stores a question hash exactly on the chunks at or above the threshold', async () => {
    const d = input.documents[0]!;
    const questions = ['How do I specify options for source generation with JsonSerializerOptions?', 'How can I serialize enum fields as strings?'];
    const qv = await provider.embed(questions);
    const withQuestions = { ...input, questions: questions.map((question, i) => ({ question, vector: qv[i]! })) };
    for (const threshold of [0.1, 0.2, 0.3, 0.5]) {
      const spec = buildTopicSpec({ ...withQuestions, promptThreshold: threshold });
      expect(spec.questions).toEqual(questions.map((question) => ({ question, hash: toHex(simhash64(question)) })));
      spec.chunks.forEach((c, i) => {
        const expected = questions.filter((_, qi) => cosine(qv[qi]!, d.vectors[i]!) >= threshold).map((q) => toHex(simhash64(q)));
        expect(c.prompt_hashes ?? []).toEqual([...new Set(expected)].sort());
      });
    }
    // The enum question lands on the enum chunk at the default threshold.
    const spec = buildTopicSpec(withQuestions);
    const enumChunk = spec.chunks.find((c) => c.title === 'Serialize enum fields as strings')!;
    expect(enumChunk.prompt_hashes).toContain(toHex(simhash64(questions[1]!)));
  });

  it('refuses mismatched vectors and impossible thresholds', () => {
    const d = input.documents[0]!;
    expect(() => buildTopicSpec({ ...input, documents: [{ ...d, vectors: d.vectors.slice(1) }] })).toThrow(/chunks but/);
    expect(() => buildTopicSpec({ ...input, promptThreshold: 2 })).toThrow(RangeError);
    expect(() => buildTopicSpec({ ...input, promptThreshold: Number.NaN })).toThrow(RangeError);
  });

  // Readers resolve href and manifest as URLs (docs-query, the inspector, docs-score's href
  // check): a source named c#-guide.md wrote `_chunks/c#-guide-0.md`, a fragment after `c`,
  // and 50%-off.md a malformed %-escape. Each is the chunk file's name, percent-encoded.
  it('writes href and manifest as URLs that resolve to the chunk files, whatever the document is named', async () => {
    for (const doc of ['c#-guide', '50%-off', 'what?', 'a b', 'café']) {
      const spec = buildTopicSpec({ ...input, documents: [await document('# T\n\nSome text.\n', doc)] });
      const base = new URL('http://docs.test/topic/index.json');
      expect(decodeURIComponent(new URL(spec.documents[0]!.manifest, base).pathname), doc).toBe(`/topic/_chunks/${doc}.json`);
      for (const [i, c] of spec.chunks.entries()) expect(decodeURIComponent(new URL(c.href, base).pathname), doc).toBe(`/topic/_chunks/${doc}-${i}.md`);
    }
    expect(buildTopicSpec(input).chunks[0]!.href).toBe('_chunks/golden-reference-0.md');
  });

  it('is deterministic', () => {
    expect(JSON.stringify(buildTopicSpec(input))).toBe(JSON.stringify(buildTopicSpec(input)));
  });
});

describe('buildTopicSpec with a long keyword table', () => {
  it('matches 10,000 keywords against 2,000 chunks in time linear in the two, with matchKeywords\'s answer', () => {
    // Each chunk worked out every entry's term key again (parsed, lexed and stemmed): 10,000
    // keywords times 2,000 chunks is 20 million term keys, minutes of work (100,000 keywords and
    // 56 chunks took topic-spec 42 s); now each is worked out once.
    const keywords = Array.from({ length: 10_000 }, (_, i) => ({ name: `kw${i} term`, score: (i % 10) + 1 }));
    const chunks = Array.from({ length: 2_000 }, (_, i) => ({
      chunkNumber: i,
      originalText: `## Part ${i}\n\nThe kw${i * 7} term and the kw${i * 7 + 1} terms, kw${i} TERM again.\n`,
      sectionTitle: `Part ${i}`,
      isCode: false,
      tokenStats: { tokens: 12 },
    }));
    const vectors = chunks.map((_, i) => new Float32Array([1, i / 2_000]));
    const spec = buildTopicSpec({
      title: 'T',
      embedding: { provider: 'local', model: 'm', dimensions: 2 },
      documents: [{ doc: 'golden-reference', source: 'golden-reference.md', strategyKey: 'k', sourceSha256: '0'.repeat(64), fileTitle: 'T', chunks, vectors }],
      keywords,
      questions: [],
      promptThreshold: 0.3,
    });
    for (const i of [0, 1_999]) {
      expect(spec.chunks[i]!.keywords).toEqual(matchKeywords(keywords, chunks[i]!.originalText));
    }
    expect(spec.chunks[5]!.keywords.map((k) => k.name)).toEqual(['kw5 term', 'kw35 term', 'kw36 term']);
  });
});

