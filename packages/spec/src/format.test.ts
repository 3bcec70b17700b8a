import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSpec, formatTopicSpecMd, parseTopicSpecMd, TopicSpecError } from './format.js';
import type { SpecChunk, TopicSpec } from './types.js';

const text = fc.string({ minLength: 1, maxLength: 40 });
const hex = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((h) => h.toString(16).padStart(16, '0'));
const sim = fc.double({ min: -1, max: 1, noNaN: true }).map((x) => Math.round(x * 1e4) / 1e4 || 0);

/** Specs whose titles, keywords and questions are drawn from `text`. */
const specOf = (text: fc.Arbitrary<string>): fc.Arbitrary<TopicSpec> =>
  fc
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
const specArb = specOf(text);

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

  it('round-trips a question or keyword whose line breaks yaml would write as a plain scalar it cannot read back', () => {
    const spec = fc.sample(specArb, { numRuns: 1, seed: 3 })[0]!;
    for (const s of ["chunks:\n'", "x:\n'", 'a:\n"b', "a\n\n'"]) {
      const edited: TopicSpec = { ...spec, questions: [{ hash: '00000000000000aa', question: s }], chunks: spec.chunks.map((c) => ({ ...c, keywords: [{ name: s, score: 2 }] })) };
      expect(parseTopicSpecMd(formatTopicSpecMd(edited), 'topic-spec.md')).toEqual(edited);
    }
  });

  it("reads each chunk's document a bounded number of times, however many documents there are (the body filtered every chunk per document)", () => {
    const n = 300;
    let reads = 0;
    const spec = fc.sample(specArb, { numRuns: 1, seed: 5 })[0]!;
    const documents = Array.from({ length: n }, (_, i) => ({ ...spec.documents[0]!, doc: `d${i}`, source: `d${i}.md`, manifest: `_chunks/d${i}.json`, count: 1 }));
    const chunks = documents.map((d) => {
      const c = { ...spec.chunks[0]!, index: 0, href: `_chunks/${d.doc}-0.md` } as SpecChunk;
      Object.defineProperty(c, 'doc', { enumerable: true, get: () => (reads++, d.doc) });
      return c;
    });
    const md = formatTopicSpecMd({ ...spec, documents, chunks });
    expect(md.split('\n').filter((l) => /^\| 0 \| \[/.test(l))).toHaveLength(n);
    expect(reads).toBeLessThan(10 * n);
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
    // manifestSha256 (session 56): 64 hex digits or absent, as index-tool compares it.
    expect(broken((s) => ((s.documents as Record<string, unknown>[])[0]!.manifestSha256 = 'f'.repeat(64)))).toBeNull();
    expect(broken((s) => ((s.documents as Record<string, unknown>[])[0]!.manifestSha256 = 'XYZ'))).toBe('documents[0].manifestSha256: expected 64 hex digits or absent');
    expect(broken((s) => ((s.documents as Record<string, unknown>[])[0]!.manifestSha256 = 7))).toBe('documents[0].manifestSha256: expected 64 hex digits or absent');
  });

  it('refuses a threshold, cosine or count outside its range, as the YAML gives it (issue 15 probe: each was accepted)', () => {
    const md = formatTopicSpecMd(fc.sample(specOf(fc.constant('t')), { numRuns: 1, seed: 3 })[0]!);
    const edited = (from: RegExp, to: string) => {
      const text = md.replace(from, to);
      expect(text).not.toBe(md);
      try {
        parseTopicSpecMd(text, 'f.md');
      } catch (err) {
        expect(err).toBeInstanceOf(TopicSpecError);
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(edited(/threshold: [\d.]+/, 'threshold: 99')).toBe('f.md: front matter: promptMatching.threshold: expected a number from 0 to 1, got 99');
    expect(edited(/threshold: [\d.]+/, 'threshold: -0.5')).toBe('f.md: front matter: promptMatching.threshold: expected a number from 0 to 1, got -0.5');
    expect(edited(/similarity_conceptual: [-\d.]+/, 'similarity_conceptual: -99')).toBe('f.md: front matter: chunks[0].similarity_conceptual: expected a number from -1 to 1 (a cosine)');
    expect(edited(/similarity_conceptual: [-\d.]+/, 'similarity_conceptual: 1e300')).toMatch(/chunks\[0\]\.similarity_conceptual: expected a number from -1 to 1/);
    expect(edited(/tokens: \d+/, 'tokens: 1e300')).toBe('f.md: front matter: chunks[0].tokens: expected a whole number');
    expect(edited(/dimensions: \d+/, 'dimensions: 1e20')).toBe('f.md: front matter: embedding: expected { provider, model, dimensions }');
    // The ends of each range are in it.
    expect(edited(/threshold: [\d.]+/, 'threshold: 1')).toBe('accepted');
    expect(edited(/similarity_conceptual: [-\d.]+/, 'similarity_conceptual: -1')).toBe('accepted');
  });

  it('refuses a technical cosine outside -1 to 1 and a null one where the document has no technical baseline', () => {
    const spec = fc.sample(specOf(fc.constant('t')), { numRuns: 1, seed: 3 })[0]!;
    const technical = structuredClone(spec);
    technical.documents[0]!.baseline_technical = 1;
    technical.chunks.forEach((c) => (c.similarity_technical = 0.5));
    expect(checkSpec(technical)).toBeNull();
    technical.chunks[0]!.similarity_technical = 1.5;
    expect(checkSpec(technical)).toBe('chunks[0].similarity_technical: expected a number from -1 to 1 (a cosine)');
    const plain = structuredClone(spec);
    delete plain.documents[0]!.baseline_technical;
    plain.chunks.forEach((c) => delete c.similarity_technical);
    expect(checkSpec(plain)).toBeNull();
    (plain.chunks[0] as unknown as Record<string, unknown>).similarity_technical = null;
    expect(checkSpec(plain)).toBe('chunks[0].similarity_technical: expected none (no technical baseline)');
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

  // Issue 15 probe: each said "no YAML front matter (the file must start with ---)" of a file
  // that starts with it, or "Maximum call stack size exceeded" (a RangeError's text).
  it.each([
    ['front matter never closed', `---\nschemaVersion: 1\n${'title: x\n'.repeat(10)}`, 'f.md:1: front matter not closed (no --- line after the opening one)'],
    ['a byte order mark, then front matter never closed', '\ufeff---\r\nschemaVersion: 1\r\n', 'f.md:1: front matter not closed (no --- line after the opening one)'],
    ['an empty front matter', '---\n---\n# body\n', 'f.md:2: front matter must be a mapping'],
    ['spaces after the opening ---', '--- \nschemaVersion: 2\n---\n', 'f.md: front matter: schemaVersion: expected 1, got 2'],
    ['10,000 nested lists', `---\nschemaVersion: 1\ntitle: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n---\n`, 'f.md:3: front matter is not valid YAML: nested too deeply to read (thousands of levels)'],
    ['no front matter', '# title\n---\nx: 1\n---\n', 'f.md:1: no YAML front matter (the file must start with ---)'],
  ])('say what is wrong: %s', (_what, text, message) => {
    let error: unknown;
    try {
      parseTopicSpecMd(text, 'f.md');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(TopicSpecError);
    expect((error as Error).message).toBe(message);
  });

  it('read a file that starts with a byte order mark, or has spaces after its opening ---, as the spec it holds', () => {
    fc.assert(
      fc.property(specArb, fc.constantFrom('\ufeff', ''), fc.constantFrom(' ', '\t', ' \t', ''), fc.boolean(), (spec, bom, spaces, crlf) => {
        let md = formatTopicSpecMd(spec).replace(/^---\n/, `${bom}---${spaces}\n`);
        if (crlf) md = md.replace(/\n/g, '\r\n');
        expect(parseTopicSpecMd(md, 'topic-spec.md')).toEqual(spec);
      }),
      { numRuns: 100 },
    );
  });

  it('escape C1 and bidirectional controls that JSON leaves raw', () => {
    expect(() => parseTopicSpecMd('---\nschemaVersion: "\u009b2J\u202e"\n---\n', 'f.md')).toThrow('schemaVersion: expected 1, got "\\u009b2J\\u202e"');
  });
});


// Strings YAML 1.1 reads as something else, characters PyYAML's scanner stops at, and both mixed.
// Strings YAML 1.1 reads as something else, characters PyYAML's scanner stops at or reads as
// line breaks (NEL, LS, PS) or refuses (DEL, C1), and all of them mixed.
const yamlHostile = fc.oneof(
  text,
  fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom(...':?#, \t-[]{}\n\r"\'|>!&*%@`~=<x1.e\u0085\u2028\u2029\ufeff\u007f\u009b\u00a0'.split('')),
    minLength: 1,
    maxLength: 8,
  }),
  fc
    .array(
      fc.constantFrom(
        'yes', 'No', 'on', 'OFF', 'y', 'n', '~', '=', '<<', '1:20', '0x1F', '0o17', '1_000', '2001-12-14', '.5', '1e3', '.inf', 'null', 'true',
        'What is X?', 'a?b', '? x', 'x ?', 'a, b', '[x]', '{y}', '#c', 'a #b', 'a: b', ':x', '- x', '!tag', '&a', '*a', '%x', '@x', '`x', '|', '>',
        '"q"', "'q'", '\\', '\t', ' ', 'é', '😀', 'NaN',
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((parts) => parts.join('')),
);

/** Each front matter as PyYAML's safe_load reads it, as JSON (a date or other non-JSON value fails the run). */
function pyYamlLoad(fronts: string[]): unknown[] {
  const script = 'import json, sys, yaml\nprint(json.dumps([yaml.safe_load(f) for f in json.load(sys.stdin)]))';
  const r = spawnSync('python3', ['-c', script], { input: JSON.stringify(fronts), encoding: 'utf8', maxBuffer: 1 << 28 });
  // npm test installs python3-yaml where it is missing (tools/ensure-test-deps.mjs).
  if (r.error || r.status !== 0) throw new Error(`python3 with PyYAML failed: ${r.error?.message ?? r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout) as unknown[];
}

describe('topic-spec.md read by PyYAML (Python scripts and loaders read the front matter too)', () => {
  it('gives PyYAML the very data it gives our reader, for hostile titles, keywords and questions', () => {
    const specs = fc.sample(specOf(yamlHostile), { numRuns: 400, seed: 15 });
    const fronts = specs.map((spec) => formatTopicSpecMd(spec).split('---\n')[1]!);
    const read = pyYamlLoad(fronts);
    for (let k = 0; k < specs.length; k++) expect([k, read[k]]).toEqual([k, JSON.parse(JSON.stringify(specs[k]))]);
  });

  it('reads a spec whose question holds a question mark (every one did: "expected \',\' or \'}\', but got \'?\'")', () => {
    const spec = fc.sample(specArb, { numRuns: 1, seed: 7 })[0]!;
    spec.questions = [{ hash: '1205a46cb285c41c', question: 'How do I enable source generation for a type?' }];
    spec.chunks[0]!.keywords = [{ name: 'on', score: 2 }];
    spec.title = 'No';
    expect(pyYamlLoad([formatTopicSpecMd(spec).split('---\n')[1]!])).toEqual([JSON.parse(JSON.stringify(spec))]);
  });
});

describe('the body of topic-spec.md', () => {
  // Session 56 (helper-54's probe): questions of only common words all hash to 0…0, and the
  // chunk table named the last of them for every one.
  it('names every question of a shared hash on the chunks that list it, and says they share it', () => {
    const spec = fc.sample(specArb, { numRuns: 1, seed: 7 })[0]!;
    const zero = '0000000000000000';
    spec.questions = [
      { hash: zero, question: 'What is it?' },
      { hash: '1205a46cb285c41c', question: 'How do I enable source generation?' },
      { hash: zero, question: 'Is it what it is?' },
    ];
    spec.chunks = spec.chunks.map((c, i) => ({ ...c, prompt_hashes: i === 0 ? [zero, '1205a46cb285c41c'] : [] }));
    for (const c of spec.chunks) if (c.prompt_hashes?.length === 0) delete c.prompt_hashes;
    const md = formatTopicSpecMd(spec);
    const row = md.split('\n').find((l) => l.startsWith(`| ${spec.chunks[0]!.index} |`))!;
    expect(row).toMatch(/\| Q1\/Q3, Q2 \|$/);
    expect(md).toContain('Questions 1 and 3 share the hash `0000000000000000`, so a chunk that lists it (Q1/Q3 above) may be close to any of them.');
    // The front matter is unchanged by it, and reads back.
    expect(parseTopicSpecMd(md, 'f.md')).toEqual(JSON.parse(JSON.stringify(spec)));
  });
});
