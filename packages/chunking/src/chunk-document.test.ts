import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { ChunkOptionsError, CONTENT_TYPE } from './options.js';
import { code, fenceLines, para, table } from './test-helpers.js';
import { sampleTopic } from './test-corpus.js';
import { countTokens } from './tokens.js';

/**
 * Seed 002's configuration (64/400/512, two sentences of overlap), the default until issue 17
 * measured small chunks widened at query time as better: the tests of merging, overlap and
 * mid-section breadcrumbs need chunks that big.
 */
const SEED_002 = { minTokens: 64, targetTokens: 400, maxTokens: 512, overlapSentences: 2 } as const;

const exact = (source: string, c: { sourcePosition: { charStart: number; charEnd: number }; originalText: string }) =>
  source.slice(c.sourcePosition.charStart, c.sourcePosition.charEnd) === c.originalText;

describe('chunkDocument on the first sample topic', () => {
  const source = sampleTopic();
  const result = chunkDocument(source, { docName: 'golden-reference' }, { recount: true });

  it('returns seed 002 records with every required field', () => {
    expect(result.chunks.length).toBeGreaterThan(5);
    const c = result.chunks[1]!;
    for (const key of ['id', 'parentId', 'chunkNumber', 'contentType', 'embedText', 'originalText', 'fileTitle', 'sectionTitle',
      'headerPath', 'headerBreadcrumb', 'headerDepths', 'headerSlugs', 'sectionSlug', 'sourcePosition', 'tokenStats',
      'prevId', 'nextId', 'nodeTypes', 'metadata', 'contentHints', 'containsTable', 'tableColumns', 'isCode', 'splitUnit']) {
      expect(c).toHaveProperty(key);
    }
    expect(c.id).toBe('doc:golden-reference::ch1');
    expect(c.parentId).toBe('doc:golden-reference');
    expect(c.prevId).toBe('doc:golden-reference::ch0');
    expect(c.nextId).toBe('doc:golden-reference::ch2');
    expect(result.chunks[0]!.prevId).toBeNull();
    expect(result.chunks.at(-1)!.nextId).toBeNull();
    expect(result.strategyKey).toBe('semantic-16-80-512');
  });

  it('takes fileTitle from front matter title', () => {
    expect(result.fileTitle).toBe(/^title: *"?(.+?)"?$/m.exec(source)![1]);
    expect(result.frontMatter?.start).toBe(0);
    expect(result.chunks[0]!.sourcePosition.charStart).toBeGreaterThanOrEqual(result.frontMatter!.end);
  });

  it('keeps offsets exact, tokens exact and within 512', () => {
    for (const c of result.chunks) {
      expect(exact(source, c)).toBe(true);
      expect(c.tokenStats.tokens).toBe(countTokens(c.originalText));
      expect(c.tokenStats.embedTokens).toBe(countTokens(c.embedText));
      expect(c.tokenStats.embedTokens).toBeLessThanOrEqual(512);
      expect(c.sourcePosition.totalChars).toBe(source.length);
    }
  });

  it('never cuts a fenced code block', () => {
    for (const c of result.chunks) expect(fenceLines(c.originalText) % 2).toBe(0);
  });

  it('gives GitHub slugs and a breadcrumb per chunk', () => {
    const withPath = result.chunks.find((c) => c.headerPath.length >= 2)!;
    expect(withPath.headerBreadcrumb).toBe(withPath.headerPath.join(' > '));
    expect(withPath.sectionTitle).toBe(withPath.headerPath.at(-1));
    expect(withPath.sectionSlug).toBe(withPath.headerSlugs.at(-1));
    expect(withPath.headerSlugs.every((s) => /^[a-z0-9-]+$/.test(s))).toBe(true);
  });
});

describe('titles', () => {
  it('falls back to the first H1, then the document name', () => {
    expect(chunkDocument(`Intro.\n\n# The Title\n\n${para(3)}`).fileTitle).toBe('The Title');
    expect(chunkDocument(`## Only h2\n\n${para(3)}`, { docName: 'my-doc' }).fileTitle).toBe('my-doc');
    expect(chunkDocument(`# H1\n\n${para(3)}`, { fileTitle: 'Given' }).fileTitle).toBe('Given');
  });
});

describe('sections and sizes', () => {
  it('starts a chunk at a heading once the chunk is big enough, and merges small sections', () => {
    const doc = [`# Doc`, para(20), `## Small one`, para(1), `## Small two`, para(1), `## Big`, para(30)].join('\n\n');
    const { chunks } = chunkDocument(doc, { ...SEED_002, overlapSentences: 0 });
    const small = chunks.find((c) => c.originalText.includes('## Small one'))!;
    expect(small.originalText).toContain('## Small two');
    expect(chunks.some((c) => c.originalText.startsWith('## Big'))).toBe(true);
    for (const c of chunks) expect(c.tokenStats.tokens).toBeGreaterThanOrEqual(64);
  });

  it('keeps a whole small document as one chunk even under min', () => {
    const { chunks } = chunkDocument('# Tiny\n\nJust this.');
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.originalText).toBe('# Tiny\n\nJust this.');
  });

  it('never ends a chunk with a heading when what follows fits', () => {
    const doc = [para(25), '## Next section', code(30)].join('\n\n');
    const { chunks } = chunkDocument(doc, { overlapSentences: 0 });
    for (const c of chunks) expect(c.originalText.trimEnd().split('\n').at(-1)!.startsWith('#')).toBe(false);
  });
});

describe('oversized units', () => {
  it('splits a long code block by lines with the fence re-opened and closed', () => {
    const block = code(400, 'js');
    const doc = `# Code\n\n${para(2)}\n\n${block}\n\n${para(2)}`;
    const { chunks } = chunkDocument(doc, {}, { recount: true });
    const parts = chunks.filter((c) => c.splitUnit);
    expect(parts.length).toBeGreaterThan(2);
    for (const p of parts) {
      expect(p.tokenStats.tokens).toBeLessThanOrEqual(512);
      expect(fenceLines(p.originalText) % 2).toBe(0);
      expect(p.originalText).toContain('```js\nvar ');
      expect(p.originalText).toMatch(/\n```(\n|$)/);
      expect(p.isCode).toBe(true);
    }
    // Every code line appears in some part.
    for (const line of block.split('\n').filter((l) => l.startsWith('var '))) {
      expect(parts.some((p) => p.originalText.includes(line))).toBe(true);
    }
  });

  it('splits a long table by rows, repeating header and delimiter rows', () => {
    const t = table(200, 4);
    const { chunks } = chunkDocument(`# Table\n\n${t}\n`, {}, { recount: true });
    const parts = chunks.filter((c) => c.splitUnit);
    expect(parts.length).toBeGreaterThan(1);
    const [header, sep] = t.split('\n');
    for (const p of parts) {
      const lines = p.originalText.split('\n').filter((l) => l.startsWith('|'));
      expect(lines[0]).toBe(header);
      expect(lines[1]).toBe(sep);
      expect(p.containsTable).toBe(true);
      expect(p.tableColumns).toEqual([4]);
      expect(p.tokenStats.tokens).toBeLessThanOrEqual(512);
    }
    for (let r = 0; r < 200; r++) expect(parts.some((p) => p.originalText.includes(`| cell ${r}.0 |`))).toBe(true);
  });

  it('splits a long paragraph at sentence boundaries, keeping exact offsets', () => {
    const doc = `# Prose\n\n${para(120)}`;
    const { chunks } = chunkDocument(doc, { overlapSentences: 0 }, { recount: true });
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(exact(doc, c)).toBe(true);
      expect(c.originalText.trimEnd().endsWith('.')).toBe(true);
    }
  });

  it('handles a huge single-line paragraph and a long unbroken token run', () => {
    // Quadratic splitting would blow the test timeout on these; correctness is asserted below.
    const words = Array.from({ length: 60_000 }, (_, i) => `word${i % 977}`).join(' ');
    // A data-URI-sized base64 blob (digits, + and / break it into short pre-tokens) and one
    // 20,000-letter word (a single pre-token: gpt-tokenizer's BPE is quadratic in its length).
    const blob = Buffer.from(Array.from({ length: 90_000 }, (_, i) => (i * 7919) % 251)).toString('base64');
    for (const doc of [`# Big\n\n${words}\n`, `# Blob\n\n${blob}\n`, `# Word\n\n${'a'.repeat(20_000)}\n`]) {
      const { chunks } = chunkDocument(doc, { overlapSentences: 0 });
      expect(chunks.length).toBeGreaterThan(2);
      let covered = 0;
      for (const c of chunks) {
        expect(exact(doc, c)).toBe(true);
        expect(countTokens(c.originalText)).toBe(c.tokenStats.tokens);
        expect(c.tokenStats.embedTokens).toBeLessThanOrEqual(512);
        covered += c.originalText.replace(/\s/g, '').length;
      }
      expect(covered).toBe(doc.replace(/\s/g, '').length);
    }
  });

  it('splits a long list between items, keeping each item whole', () => {
    const items = Array.from({ length: 80 }, (_, i) => `- Item ${i}: ${para(1, i)}`);
    const doc = `# List\n\n${items.join('\n')}`;
    const { chunks } = chunkDocument(doc, { overlapSentences: 0 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const item of items) expect(chunks.some((c) => c.originalText.includes(item))).toBe(true);
    expect(chunks.every((c) => c.contentHints === 'list' || c.contentHints === 'mixed')).toBe(true);
  });
});

describe('overlap', () => {
  it('repeats the last two sentences of the previous chunk when a section continues', () => {
    const doc = `# One section\n\n${Array.from({ length: 12 }, (_, i) => para(5, i)).join('\n\n')}`;
    const { chunks } = chunkDocument(doc, SEED_002, { recount: true });
    expect(chunks.length).toBeGreaterThan(1);
    const second = chunks[1]!;
    expect(second.overlapChars).toBeGreaterThan(0);
    const overlap = second.originalText.slice(0, second.overlapChars).trim();
    expect(chunks[0]!.originalText.endsWith(overlap)).toBe(true);
    expect(overlap.split(/(?<=\.) /).length).toBe(2);
    expect(exact(doc, second)).toBe(true);
  });

  it('adds no overlap before a new section or when disabled', () => {
    const doc = `# A\n\n${para(30)}\n\n# B\n\n${para(30)}`;
    const withOverlap = chunkDocument(doc, SEED_002).chunks;
    const b = withOverlap.find((c) => c.originalText.includes('# B'))!;
    expect(b.originalText.startsWith('# B')).toBe(true);
    expect(b.overlapChars).toBe(0);
    expect(chunkDocument(doc, { overlapSentences: 0 }).chunks.every((c) => c.overlapChars === 0)).toBe(true);
  });
});

describe('breadcrumbMode', () => {
  const doc = `---\ntitle: Guide\n---\n# Setup\n\n${para(20)}\n\n${para(20)}\n\n${para(20)}\n\n## Auth\n\n${para(8)}\n\n${code(6)}`;

  it('none: embedText is originalText', () => {
    for (const c of chunkDocument(doc, { breadcrumbMode: 'none' }).chunks) expect(c.embedText).toBe(c.originalText);
  });

  it('always: every chunk gets fileTitle > headerBreadcrumb', () => {
    for (const c of chunkDocument(doc, { breadcrumbMode: 'always' }).chunks) {
      expect(c.embedText).toBe(`Guide > ${c.headerBreadcrumb}\n\n${c.originalText}`);
    }
  });

  it('always: no repeated title when fileTitle is the first heading', () => {
    const d = `# Guide\n\n${para(3)}\n\n## Part\n\n${para(3)}`;
    const c = chunkDocument(d, { breadcrumbMode: 'always' }).chunks[0]!;
    expect(c.embedText.startsWith('Guide\n\n') || c.embedText.startsWith('Guide > ')).toBe(true);
    expect(c.embedText.startsWith('Guide > Guide')).toBe(false);
  });

  it('conditional: full breadcrumb on a section start, title only in mid-section prose', () => {
    const chunks = chunkDocument(doc, SEED_002).chunks;
    const auth = chunks.find((c) => c.originalText.startsWith('## Auth'))!;
    expect(auth.embedText.startsWith('Guide > Setup > Auth\n\n')).toBe(true);
    const middle = chunks.find((c) => !/^#/.test(c.originalText.slice(c.overlapChars).trimStart()) && c.contentHints === 'prose');
    expect(middle).toBeDefined();
    expect(middle!.embedText).toBe(`Guide\n\n${middle!.originalText}`);
  });

  it('conditional: nothing in mid-section prose when the title is the first heading', () => {
    const d = `# Guide\n\n${Array.from({ length: 10 }, (_, i) => para(6, i)).join('\n\n')}`;
    const chunks = chunkDocument(d, SEED_002).chunks;
    const later = chunks.slice(1).filter((c) => c.contentHints === 'prose' && c.tokenStats.tokens - 64 > 64);
    expect(later.length).toBeGreaterThan(0);
    for (const c of later) expect(c.embedText).toBe(c.originalText);
  });

  it('conditional: a code-only chunk gets the full breadcrumb', () => {
    const d = `# Guide\n\n## Sample\n\n${para(30)}\n\n${code(70)}`;
    const codeChunk = chunkDocument(d).chunks.find((c) => c.contentHints === 'code')!;
    expect(codeChunk.embedText.startsWith('Guide > Sample\n\n')).toBe(true);
  });
});

describe('content analysis', () => {
  it('classifies chunks', () => {
    const d = (body: string) => chunkDocument(body, SEED_002).chunks[0]!;
    expect(d(code(20)).isCode).toBe(true);
    expect(d(code(20)).contentHints).toBe('code');
    expect(d(para(3)).isCode).toBe(false);
    expect(d(para(3)).contentHints).toBe('prose');
    expect(d(`${table(3)}`).contentHints).toBe('table');
    expect(d(`> ${para(2)}`).contentHints).toBe('quote');
    expect(d(`${para(2)}\n\n${code(3)}`).contentHints).toBe('mixed');
    expect(d(`${para(2)}\n\n${table(2, 5)}\n\n${table(2, 2)}`).tableColumns).toEqual([5, 2]);
    expect(d(`- a\n- b\n\n${code(2)}`).nodeTypes).toEqual(expect.arrayContaining(['list', 'listItem', 'paragraph', 'code']));
  });
});

describe('options', () => {
  it('rejects impossible settings with a message naming the option', () => {
    expect(() => chunkDocument('x', { maxTokens: 10 })).toThrow(ChunkOptionsError);
    expect(() => chunkDocument('x', { minTokens: 500, targetTokens: 400 })).toThrow(/minTokens <= targetTokens/);
    expect(() => chunkDocument('x', { breadcrumbMode: 'sometimes' as never })).toThrow(/breadcrumbMode/);
  });

  it('takes a contentType that is one word without ":", as it opens every id (s37 probe: a newline or "::" went into ids)', () => {
    for (const bad of ['a b', 'api:v2', 'x::y', 'line\nbreak', '\u001b[31m', 'tab\there', '\u0085']) {
      expect(() => chunkDocument('x', { contentType: bad })).toThrow(/contentType must be one word without ":"/);
    }
    expect(chunkDocument('x', { contentType: 'api-ref.v2_é' }).chunks[0]!.id).toBe('api-ref.v2_é:document::ch0');
  });

  it('refuses a contentType with an invisible character, showing it escaped (s58 probe: `do\u200bcs` made ids that read as `docs`)', () => {
    expect(() => chunkDocument('x', { contentType: 'do\u200bcs' })).toThrow('contentType must be one word without ":" (it opens every chunk id), got "do\\u200bcs"');
    for (const bad of ['\u00adx', 'x\u202e', '\ufeffdoc', 'a\u2060b', 'x\ud800', '\udc00x']) {
      expect(() => chunkDocument('x', { contentType: bad }), JSON.stringify(bad)).toThrow(/contentType must be one word/);
    }
    expect(chunkDocument('x', { contentType: 'emoji\u{1f600}' }).chunks[0]!.id).toBe('emoji\u{1f600}:document::ch0');
    // The pattern has no \p{…} (a JSON Schema pattern): it agrees with one that has, on every BMP code point.
    const refused = /[\s:\p{Cc}\p{Cf}\p{Cs}]/u;
    const differ: string[] = [];
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      if (CONTENT_TYPE.test(`a${ch}b`) === refused.test(ch)) differ.push(c.toString(16));
    }
    expect(differ).toEqual([]);
  });

  it('names non-default settings in the strategy key', () => {
    expect(chunkDocument('x', { overlapSentences: 1, breadcrumbMode: 'none' }).strategyKey).toBe('semantic-16-80-512-o1-bnone');
    expect(chunkDocument('x', SEED_002).strategyKey).toBe('semantic-64-400-512-o2');
    expect(chunkDocument('x', { minTokens: 32, targetTokens: 200, maxTokens: 256 }).strategyKey).toBe('semantic-32-200-256');
  });

  it('gives the same records with either parser', () => {
    const source = sampleTopic();
    expect(JSON.stringify(chunkDocument(source, { parser: 'remark' }).chunks.map((c) => ({ ...c, metadata: null })))).toBe(
      JSON.stringify(chunkDocument(source, { parser: 'fast' }).chunks.map((c) => ({ ...c, metadata: null }))),
    );
  });
});

describe('token counts with U+0085 and U+FEFF', () => {
  // gpt-tokenizer counts these differently from tiktoken (its split uses JS's \s,
  // its rank table lacks the BOM); every strategy's counts must be tiktoken's.
  const tiktoken = get_encoding('cl100k_base');
  afterAll(() => tiktoken.free());
  const reference = (text: string): number => tiktoken.encode(text, [], []).length;
  const line = 'Some words\u0085with NEL and \ufeffBOM marks\ufeff inside, repeated here. ';
  const text = `# Title\n\n${line.repeat(20)}\n\n## Part\n\n${line.repeat(60)}\n\n\`\`\`\ncode\ufeff line\u0085\n\`\`\`\n`;
  const strategies = {
    semantic: { maxTokens: 64, targetTokens: 48, minTokens: 8 },
    'token-window': { windowTokens: 64, windowOverlapTokens: 8, singlePieceMaxTokens: 64 },
    paginate: { ctxSize: 512, bufSize: 0 },
    hierarchical: { snippetMaxTokens: 256, snippetTargetTokens: 200 },
  } as const;

  for (const [strategy, options] of Object.entries(strategies)) {
    it(`are tiktoken's in ${strategy}`, () => {
      const { chunks } = chunkDocument(text, { docName: 'nel-bom', strategy: strategy as keyof typeof strategies, ...options });
      expect(chunks.length).toBeGreaterThan(1);
      for (const c of chunks) {
        expect(c.tokenStats.tokens).toBe(reference(c.originalText));
        expect(c.tokenStats.embedTokens).toBe(reference(c.embedText));
      }
    });
  }
});

describe('shared record parts (issue 15)', () => {
  const source = ['# T', '', 'Intro text.', '', '## A', '', 'Some prose here.', '', '## B', '', 'More prose.'].join('\n');

  it('gives every record one frozen metadata with the recorded options, and source as the last key', () => {
    const result = chunkDocument(source, { docName: 'd', minTokens: 1, targetTokens: 8, maxTokens: 64 });
    expect(result.chunks.length).toBeGreaterThan(1);
    const [first, second] = result.chunks;
    expect(second!.metadata).toBe(first!.metadata);
    expect(Object.isFrozen(first!.metadata)).toBe(true);
    expect(first!.metadata.chunkingOptions).toBe(result.options);
    expect(() => {
      (first!.metadata as { sourceFile: string }).sourceFile = 'x';
    }).toThrow();
    for (const c of result.chunks) {
      const keys = Object.keys(c);
      expect(keys[keys.length - 1]).toBe('source');
      expect(keys.indexOf('metadata')).toBe(keys.length - 2);
      expect(c.source).toEqual({ filePath: 'd.md', startLine: expect.any(Number), endLine: expect.any(Number) });
    }
  });

  it('puts `removed` before `source` when boilerplate was cut', () => {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'kappa', 'lambda'];
    let text = '';
    for (let p = 1; p <= 30; p++) text += `ACME Corp Manual\n\nThe ${words[p % 8]} unit talks to ${words[(p * 3) % 8]} over bus ${p * 7}.\n\n${p}\n\f`;
    const { chunks } = chunkDocument(text, { sourceFile: 'm.txt', docName: 'm', minTokens: 100, targetTokens: 300, maxTokens: 400 });
    const cut = chunks.filter((c) => c.removed !== undefined);
    expect(cut.length).toBeGreaterThan(0);
    for (const c of cut) expect(Object.keys(c).slice(-3)).toEqual(['metadata', 'removed', 'source']);
  });
});
