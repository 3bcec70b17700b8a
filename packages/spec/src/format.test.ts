import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSpec, formatTopicSpecMd, parseTopicSpecMd, TopicSpecError } from './format.js';
import type { SpecChunk, TopicSpec } from './types.js';

const text = fc.string({ minLength: 1, maxLength: 40 });
const hex = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((h) => h.toString(16).padStart(16, '0'));
const sim = fc.double({ min: -1, max: 1, noNaN: true }).map((x) => Math.round(x * 1e4) / 1e4 || 0);

const specArb: fc.Arbitrary<TopicSpec> = fc
  .record({
    title: text,
    technical: fc.boolean(),
    chunks: fc.array(
      fc.record({
        title: text,
        is_code: fc.boolean(),
        tokens: fc.nat(600),
        c: sim,
        t: sim,
        keywords: fc.uniqueArray(fc.record({ name: text, score: fc.integer({ min: 1, max: 10 }) }), { selector: (k) => k.name, maxLength: 5 }),
        hashes: fc.uniqueArray(hex, { maxLength: 3 }),
      }),
      { minLength: 1, maxLength: 8 },
    ),
    questions: fc.array(fc.record({ hash: hex, question: text }), { maxLength: 4 }),
  })
  .map(({ title, technical, chunks, questions }) => ({
    schemaVersion: 1 as const,
    title,
    embedding: { provider: 'local', model: 'local-lexical-v1-d512', dimensions: 512 },
    promptMatching: { simhash: 'simhash64-lexical-v1', threshold: 0.3 },
    documents: [
      {
        doc: 'golden-reference',
        source: 'golden-reference.md',
        manifest: '_chunks/golden-reference.json',
        strategyKey: 'semantic-64-400-512',
        sourceSha256: 'a'.repeat(64),
        count: chunks.length,
        baseline_conceptual: 0 as const,
        ...(technical ? { baseline_technical: 1 as const } : {}),
      },
    ],
    chunks: chunks.map((c, index): SpecChunk => ({
      doc: 'golden-reference',
      index,
      href: `_chunks/golden-reference-${index}.md`,
      title: c.title,
      is_code: c.is_code,
      tokens: c.tokens,
      similarity_conceptual: c.c,
      ...(technical ? { similarity_technical: c.t } : {}),
      keywords: c.keywords,
      ...(c.hashes.length ? { prompt_hashes: [...c.hashes].sort() } : {}),
    })),
    questions,
  }));

describe('topic-spec.md', () => {
  it('round-trips any spec through its front matter, whatever the titles and keywords hold', () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        const md = formatTopicSpecMd(spec);
        expect(parseTopicSpecMd(md, 'topic-spec.md')).toEqual(spec);
        expect(formatTopicSpecMd(spec)).toBe(md);
      }),
      { numRuns: 200 },
    );
  });

  it('has a readable body: one table row per chunk', () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        const body = formatTopicSpecMd(spec).split(/\n---\n/)[1]!;
        const rows = body.split('\n').filter((l) => /^\| \d+ \| \[/.test(l));
        expect(rows).toHaveLength(spec.chunks.length);
      }),
      { numRuns: 50 },
    );
  });

  it('reports a missing front matter and bad YAML with a line', () => {
    expect(() => parseTopicSpecMd('# no front matter\n', 'x/topic-spec.md')).toThrow(/^x\/topic-spec\.md:1: no YAML front matter/);
    let err: unknown;
    try {
      parseTopicSpecMd('---\nschemaVersion: 1\ntitle: [unclosed\n---\n', 'x/topic-spec.md');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TopicSpecError);
    expect((err as TopicSpecError).line).toBeGreaterThanOrEqual(2);
    expect((err as Error).message).toContain('not valid YAML');
  });

  it.each([
    ['a scalar token after a list', '---\n- a\nb: hunter2-secret\n---\n'],
    ['an unresolved alias', '---\nschemaVersion: *hunter2-secret\n---\n'],
  ])('front matter YAML errors never quote the file: %s (issue 15: a topic-spec.md linked to a secret printed it)', (_what, text) => {
    let err: unknown;
    try {
      parseTopicSpecMd(text, 'x/topic-spec.md');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TopicSpecError);
    expect((err as Error).message).not.toMatch(/hunter2/);
  });

  it('a YAML alias bomb in the front matter is a TopicSpecError, not a ReferenceError (issue 15 probe)', () => {
    // Eight lines of anchors standing for 9^8 strings: index-tool printed yaml's ReferenceError with a stack trace.
    const anchors = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++) anchors.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]`);
    const text = `---\nschemaVersion: 1\n${anchors.join('\n')}\n---\n`;
    expect(() => parseTopicSpecMd(text, 'x/topic-spec.md')).toThrow(TopicSpecError);
    expect(() => parseTopicSpecMd(text, 'x/topic-spec.md')).toThrow(/^x\/topic-spec\.md: front matter: .*alias.*; run topic-spec again to rewrite it$/);
  });

  it('reads a front matter of 160,000 keys in linear time: yaml’s own duplicate-key check was quadratic (issue 15 probe)', () => {
    // yaml's uniqueKeys check compares each key with every earlier one: 40,000 keys (540 KB) took
    // index-tool 12 s, 80,000 about 70 s, and this flow mapping of 160,000 would take minutes, past
    // vitest's 60 s limit, which is the failure that counts; linear it is a few seconds.
    const text = `---\n{${Array.from({ length: 160_000 }, (_, i) => `k${i.toString(36)}`).join(', ')}}\n---\n`;
    expect(() => parseTopicSpecMd(text, 'x/topic-spec.md')).toThrow(/^x\/topic-spec\.md: front matter: schemaVersion: expected 1/);
  });

  it('still refuses a key given twice in one mapping, with its line', () => {
    const text = '---\nschemaVersion: 1\ntitle: a\nembedding:\n  provider: local\n  provider: ollama\n---\n';
    expect(() => parseTopicSpecMd(text, 'x/topic-spec.md')).toThrow(/^x\/topic-spec\.md:6: front matter is not valid YAML: embedding\.provider is set twice \(first on line 5\)/);
  });

  it('names the field that is wrong', () => {
    const spec = fc.sample(specArb, { numRuns: 1, seed: 7 })[0]!;
    const broken = (f: (s: Record<string, unknown>) => void) => {
      const s = structuredClone(spec) as unknown as Record<string, unknown>;
      f(s);
      return checkSpec(s);
    };
    expect(broken((s) => (s.schemaVersion = 2))).toMatch(/^schemaVersion/);
    expect(broken((s) => ((s.chunks as SpecChunk[])[0]!.index = 5))).toMatch(/chunks\[0\]\.index: expected 0/);
    expect(broken((s) => ((s.chunks as SpecChunk[])[0]!.prompt_hashes = ['XYZ']))).toMatch(/prompt_hashes/);
    expect(broken((s) => ((s.chunks as SpecChunk[])[0]!.keywords = [{ name: 'a', score: 11 }]))).toMatch(/keywords/);
    expect(broken((s) => ((s.documents as { count: number }[])[0]!.count = 99))).toMatch(/count 99 but/);
    expect(broken((s) => ((s.chunks as SpecChunk[])[0]!.similarity_technical = undefined))).toSatisfy((m: string | null) => spec.documents[0]!.baseline_technical === undefined ? m === null : /similarity_technical/.test(m ?? ''));
    expect(() => parseTopicSpecMd(`---\nschemaVersion: 1\n---\n`, 'f.md')).toThrow(/^f\.md: front matter: title/);
  });
});

describe('parseTopicSpecMd messages', () => {
  it.each([
    ['a megabyte string', `"${'x'.repeat(1_000_000)}"`],
    ['a long list', `[${Array(200_000).fill('1').join(',')}]`],
  ])('quote at most 60 characters of a wrong value: %s', (_what, value) => {
    let message = '';
    try {
      parseTopicSpecMd(`---\nschemaVersion: ${value}\n---\n`, 'f.md');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^f\.md: front matter: schemaVersion: expected 1, got /);
    expect(message.length).toBeLessThan(200);
    expect(message).toMatch(/\.\.\. \(\d+ characters\)$/);
  });

  it('escape C1 and bidirectional controls that JSON leaves raw', () => {
    expect(() => parseTopicSpecMd('---\nschemaVersion: "\u009b2J\u202e"\n---\n', 'f.md')).toThrow('schemaVersion: expected 1, got "\\u009b2J\\u202e"');
  });
});

