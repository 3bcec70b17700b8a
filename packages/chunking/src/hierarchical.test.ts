import { extractKeywords, matchKeywords } from '@chunkyard/keywords';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { formatPrefix, fitPrefix } from './retrieval-prefix.js';
import { sampleTopic } from './test-corpus.js';
import { code, para, table } from './test-helpers.js';
import { countTokens } from './tokens.js';
import type { ChunkRecord } from './types.js';

const H = { strategy: 'hierarchical' as const };
const sections = (cs: ChunkRecord[]) => cs.filter((c) => c.tier!.level === 'section');
const snippets = (cs: ChunkRecord[]) => cs.filter((c) => c.tier!.level === 'snippet');
const PREFIX = /^\[DOC: [^\]\n]*\]\[PATH: [^\]\n]*\]\[CONCEPTS: [^\]\n]*\]\n/;

describe('hierarchical on the first sample topic', () => {
  const source = sampleTopic();
  const result = chunkDocument(source, { ...H, docName: 'golden-reference' }, { recount: true });
  const secs = sections(result.chunks);
  const snips = snippets(result.chunks);

  it('has the strategy key and two tiers of the seed 003 sizes', () => {
    expect(result.strategyKey).toBe('hierarchical-1700-420');
    expect(secs.length).toBeGreaterThan(1);
    expect(snips.length).toBeGreaterThan(secs.length * 2);
    for (const s of secs) expect(countTokens(s.embedText)).toBeLessThanOrEqual(2048);
    for (const s of snips) expect(countTokens(s.embedText)).toBeLessThanOrEqual(512);
    // "About" 1700 and 420: the middle chunks of each tier come close to their targets.
    const mid = (cs: ChunkRecord[]) => cs.slice(0, -1).map((c) => c.tokenStats.tokens);
    expect(Math.max(...mid(secs))).toBeGreaterThan(1100);
    expect(Math.max(...mid(snips))).toBeGreaterThan(300);
  });

  it('gives each snippet its section as parent, inside the section, and each section its children', () => {
    for (const sec of secs) {
      const children = snips.filter((s) => s.parentId === sec.id);
      expect(children.length).toBeGreaterThan(0);
      expect(sec.tier!.childIds).toEqual(children.map((c) => c.id));
      expect(sec.parentId).toBe('doc:golden-reference');
      for (const c of children) {
        expect(c.tier!.sectionId).toBe(sec.id);
        expect(c.id.startsWith(`${sec.id}::sn`)).toBe(true);
        expect(c.sourcePosition.charStart).toBeGreaterThanOrEqual(sec.sourcePosition.charStart);
        expect(c.sourcePosition.charEnd).toBeLessThanOrEqual(sec.sourcePosition.charEnd);
        expect(sec.originalText.includes(c.originalText)).toBe(true);
      }
    }
    // Records come in reading order: a section, then its snippets; chunkNumber counts them all.
    expect(result.chunks.map((c) => c.chunkNumber)).toEqual(result.chunks.map((_, i) => i));
    expect(result.chunks[0]!.tier!.level).toBe('section');
  });

  it('links prev/next within each tier', () => {
    for (const tier of [secs, snips]) {
      tier.forEach((c, i) => {
        expect(c.prevId).toBe(tier[i - 1]?.id ?? null);
        expect(c.nextId).toBe(tier[i + 1]?.id ?? null);
      });
    }
  });

  it('overlaps sections by at most 120 tokens and snippets by at most 80, as repeated source text', () => {
    for (const [tier, max] of [[secs, 120], [snips, 80]] as const) {
      let overlapping = 0;
      tier.forEach((c, i) => {
        const prev = tier[i - 1];
        const o = c.tier!.overlapTokens;
        expect(o).toBeLessThanOrEqual(max);
        if (!prev || o === 0) return;
        overlapping++;
        const shared = source.slice(c.sourcePosition.charStart, prev.sourcePosition.charEnd);
        expect(prev.originalText.endsWith(shared)).toBe(true);
        expect(c.originalText.startsWith(shared)).toBe(true);
        expect(countTokens(shared)).toBe(o);
      });
      expect(overlapping).toBeGreaterThan(0);
    }
  });

  it('prefixes retrieval text with [DOC][PATH][CONCEPTS], concepts being the document keywords in the chunk', () => {
    const table = extractKeywords([{ name: 'golden-reference.md', text: source.slice(result.frontMatter!.end) }]);
    const names = new Set(table.map((k) => k.name));
    for (const c of result.chunks) {
      expect(c.embedText).toMatch(PREFIX);
      expect(c.embedText).toBe(`${c.tier!.retrievalPrefix}\n${c.originalText}`);
      expect(c.tier!.retrievalPrefix.startsWith(`[DOC: ${result.fileTitle}][PATH: ${c.headerPath.join(' > ')}`)).toBe(true);
      const inChunk = new Set(matchKeywords(table, c.originalText).map((k) => k.name));
      for (const concept of c.tier!.concepts) {
        expect(names.has(concept)).toBe(true);
        expect(inChunk.has(concept)).toBe(true);
      }
      expect(c.tier!.concepts.length).toBeLessThanOrEqual(8);
    }
    expect(result.chunks.filter((c) => c.tier!.concepts.length > 0).length).toBeGreaterThan(result.chunks.length / 2);
  });

  it('is deterministic', () => {
    expect(JSON.stringify(chunkDocument(source, { ...H, docName: 'golden-reference' }))).toBe(JSON.stringify(result));
  });
});

describe('hierarchical tables and large units', () => {
  it('records containsTable, tableColumns and the header cells in the path', () => {
    const doc = `# Guide\n\n${para(30)}\n\n## Options\n\n${para(3)}\n\n${table(4, 3)}\n\n## Other\n\n${para(30)}\n`;
    const { chunks } = chunkDocument(doc, H);
    const withTable = chunks.filter((c) => c.containsTable);
    expect(withTable.length).toBeGreaterThanOrEqual(2); // its section and a snippet
    for (const c of withTable) {
      expect(c.tableColumns).toEqual([3]);
      expect(c.tier!.retrievalPrefix).toContain(' > table: Column 1, Column 2, Column 3]');
      expect(c.contentHints === 'table' || c.contentHints === 'mixed').toBe(true);
    }
    // The snippet holding the table sits under its heading.
    expect(withTable.some((c) => c.tier!.retrievalPrefix.includes('[PATH: Guide > Options > table: Column 1, Column 2, Column 3]'))).toBe(true);
    expect(chunks.filter((c) => !c.containsTable).every((c) => !c.tier!.retrievalPrefix.includes('table:'))).toBe(true);
  });

  it('keeps a unit larger than a snippet whole in its section and splits it for snippets only', () => {
    const big = table(60, 3);
    const tokens = countTokens(big);
    expect(tokens).toBeGreaterThan(512);
    expect(tokens).toBeLessThan(1900);
    const doc = `# Guide\n\n${para(4)}\n\n${big}\n\n${para(4)}\n`;
    const { chunks } = chunkDocument(doc, H, { recount: true });
    const secs = sections(chunks);
    expect(secs.filter((s) => s.originalText.includes(big))).toHaveLength(1);
    const parts = snippets(chunks).filter((s) => s.containsTable);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) {
      expect(p.splitUnit).toBe(true);
      // Every part repeats the header and delimiter rows.
      expect(p.originalText).toContain('| Column 1 | Column 2 | Column 3 |\n| --- | --- | --- |');
    }
  });

  it('splits a unit larger than a section at the same places in both tiers', () => {
    const huge = code(900);
    expect(countTokens(huge)).toBeGreaterThan(2048);
    const doc = `# Guide\n\n${para(2)}\n\n${huge}\n`;
    const { chunks } = chunkDocument(doc, H, { recount: true });
    for (const tier of [sections(chunks), snippets(chunks)]) {
      const parts = tier.filter((c) => c.isCode || c.splitUnit);
      expect(parts.length).toBeGreaterThan(1);
      for (const c of parts) expect(c.originalText.split('\n').filter((l) => l.startsWith('```')).length % 2).toBe(0);
    }
    // Each snippet's text lies inside its section's text.
    for (const s of snippets(chunks)) {
      const parent = chunks.find((c) => c.id === s.parentId)!;
      expect(parent.originalText.includes(s.originalText)).toBe(true);
    }
  });

  it('falls back to no concepts when maxConcepts is 0, and says so in the key', () => {
    const { chunks, strategyKey } = chunkDocument(`# T\n\n${para(5)}\n`, { ...H, maxConcepts: 0 });
    expect(strategyKey).toBe('hierarchical-1700-420-c0');
    expect(chunks.every((c) => c.tier!.retrievalPrefix.endsWith('[CONCEPTS: ]'))).toBe(true);
  });
});

describe('the retrieval prefix', () => {
  it('formats seed 003 prefixes and removes brackets from the parts', () => {
    expect(formatPrefix({ doc: 'Guide [v2]', path: ['A', 'B'], tableHeaders: [['x', 'y']], concepts: ['json', 'source generation'] })).toBe(
      '[DOC: Guide v2][PATH: A > B > table: x, y][CONCEPTS: json, source generation]',
    );
  });

  it('drops concepts, then table context, then outer headings to fit its reserve', () => {
    const parts = { doc: 'Guide', path: ['Outer heading', 'Inner heading'], tableHeaders: [['alpha', 'beta']], concepts: Array.from({ length: 30 }, (_, i) => `concept${i}`) };
    const { prefix, parts: kept } = fitPrefix(parts, 40);
    expect(countTokens(`${prefix}\n`)).toBeLessThanOrEqual(40);
    expect(kept.concepts.length).toBeLessThan(30);
    expect(kept.path).toEqual(['Outer heading', 'Inner heading']);
    const tight = fitPrefix(parts, 14);
    expect(countTokens(`${tight.prefix}\n`)).toBeLessThanOrEqual(14);
    expect(tight.parts.concepts).toEqual([]);
  });
});
