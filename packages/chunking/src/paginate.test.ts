import { describe, expect, it } from 'vitest';
import { chunkDocument, ChunkOptionsError } from './index.js';
import { ctComment, ctId, pageReserve } from './paginate.js';
import { sampleTopic } from './test-corpus.js';
import { code, para } from './test-helpers.js';
import { countTokens } from './tokens.js';
import type { ChunkRecord } from './types.js';

const P = { strategy: 'paginate' as const };
const SMALL = { ...P, ctxSize: 2048, bufSize: 512, pageOverlapTokens: 60 };
const CT_LINE = /^<!--CT (\{.*\})-->\n/;

/** Follows next links from the first page: every page once, no dangling or circular link (seed 000, exit 13). */
function walk(chunks: ChunkRecord[]): string[] {
  const byId = new Map(chunks.map((c) => [c.page!.ct.id, c]));
  const seen: string[] = [];
  let cur: ChunkRecord | undefined = chunks.find((c) => c.page!.ct.prev === null);
  while (cur) {
    if (seen.includes(cur.page!.ct.id)) throw new Error(`circular at ${cur.page!.ct.id}`);
    seen.push(cur.page!.ct.id);
    const next: string | null = cur.page!.ct.next;
    if (next === null) break;
    const nextChunk = byId.get(next);
    if (!nextChunk) throw new Error(`dangling ${next}`);
    expect(nextChunk.page!.ct.prev).toBe(cur.page!.ct.id);
    cur = nextChunk;
  }
  return seen;
}

describe('paginate on the first sample topic', () => {
  const source = sampleTopic();

  it('keeps a document under Nmax = 16384 - 512 on one page with no links and no lead lines', () => {
    const { chunks, strategyKey } = chunkDocument(source, P, { recount: true });
    expect(strategyKey).toBe('paginate-15872');
    expect(chunks).toHaveLength(1);
    const page = chunks[0]!.page!;
    expect(page.ct).toEqual({ id: 'document:chunk-001', prev: null, next: null });
    expect(page.leadIn).toBeNull();
    expect(page.leadOut).toBeNull();
    expect(page.text).toBe(`${ctComment(page.ct)}\n${chunks[0]!.originalText}\n`);
    expect(page.jsonLd.pagination).toBe('1/1');
  });

  const result = chunkDocument(source, { ...SMALL, docName: 'golden-reference', sourceFile: 'golden-reference.md' }, { recount: true });
  const { chunks } = result;

  it('cuts pages of at most Nmax tokens with the CT comment and lead lines counted', () => {
    expect(result.strategyKey).toBe('paginate-1536-o60');
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(countTokens(c.page!.text)).toBe(c.page!.tokens);
      expect(c.page!.tokens).toBeLessThanOrEqual(1536);
      expect(c.page!.nmax).toBe(1536);
    }
    // Pages are filled: all but the last hold more than half of Nmax.
    for (const c of chunks.slice(0, -1)) expect(c.page!.tokens).toBeGreaterThan(768);
  });

  it('builds a CT graph golden-reference:chunk-001 … with prev/next, no dangling or circular links, injected as the first line', () => {
    expect(walk(chunks)).toEqual(chunks.map((_, i) => `golden-reference:chunk-${String(i + 1).padStart(3, '0')}`));
    for (const c of chunks) {
      const m = CT_LINE.exec(c.page!.text)!;
      expect(JSON.parse(m[1]!)).toEqual(c.page!.ct);
      expect(Object.keys(JSON.parse(m[1]!))).toEqual(['id', 'prev', 'next']);
    }
  });

  it('recaps the previous page and previews the next in extractive lead lines', () => {
    chunks.forEach((c, i) => {
      const { leadIn, leadOut, text } = c.page!;
      if (i === 0) expect(leadIn).toBeNull();
      else {
        expect(leadIn).toMatch(new RegExp(`^<p>\\[Lead-in\\] Continuing from golden-reference:chunk-${String(i).padStart(3, '0')}: .+</p>$`));
        expect(text.startsWith(`${ctComment(c.page!.ct)}\n${leadIn}\n\n${c.originalText}`)).toBe(true);
        // The recap names the previous page's heading.
        const prev = chunks[i - 1]!;
        const heading = prev.sectionTitle.replace(/[`*_]+/g, '').replace(/</g, '&lt;').replace(/>/g, '&gt;');
        expect(leadIn).toContain(heading.slice(0, 20));
      }
      if (i === chunks.length - 1) expect(leadOut).toBeNull();
      else {
        expect(leadOut).toMatch(new RegExp(`^<p>\\[Lead-out\\] Upcoming in golden-reference:chunk-${String(i + 2).padStart(3, '0')}: .+</p>$`));
        expect(text.endsWith(`\n\n${leadOut}\n`)).toBe(true);
      }
      for (const line of [leadIn, leadOut]) if (line) expect(countTokens(line)).toBeLessThanOrEqual(60);
      expect(c.embedText).toBe(text.slice(text.indexOf('\n') + 1, -1));
    });
  });

  it('gives each page a schema.org CreativeWork record', () => {
    chunks.forEach((c, i) => {
      const ld = c.page!.jsonLd;
      expect(ld['@context']).toBe('https://schema.org');
      expect(ld['@type']).toBe('CreativeWork');
      expect(ld['@id']).toBe(`golden-reference.md#${c.page!.ct.id}`);
      expect(ld.position).toBe(i + 1);
      expect(ld.isBasedOn).toBe('golden-reference.md');
      expect(ld.pagination).toBe(`${i + 1}/${chunks.length}`);
      const token = ld.continuityToken as { '@type': string; name: string; value: string };
      expect(token['@type']).toBe('PropertyValue');
      expect(token.name).toBe('CT');
      expect(JSON.parse(token.value)).toEqual(c.page!.ct);
    });
  });

  it('overlaps pages by at most pageOverlapTokens of repeated source text', () => {
    let overlapping = 0;
    chunks.forEach((c, i) => {
      expect(c.page!.overlapTokens).toBeLessThanOrEqual(60);
      if (i === 0 || c.page!.overlapTokens === 0) return;
      overlapping++;
      const prev = chunks[i - 1]!;
      const shared = source.slice(c.sourcePosition.charStart, prev.sourcePosition.charEnd);
      expect(prev.originalText.endsWith(shared)).toBe(true);
      expect(countTokens(shared)).toBe(c.page!.overlapTokens);
    });
    expect(overlapping).toBeGreaterThan(0);
  });

  it('is deterministic', () => {
    expect(JSON.stringify(chunkDocument(source, { ...SMALL, docName: 'golden-reference', sourceFile: 'golden-reference.md' }))).toBe(JSON.stringify(result));
  });
});

describe('paginate rules', () => {
  it('moves a whole code block that straddles Nmax to the next page', () => {
    const block = code(60);
    const doc = `# Guide\n\n${para(50)}\n\n${block}\n\n${para(10)}\n`;
    const nmax = 1024;
    expect(countTokens(`${para(50)}\n\n${block}`)).toBeGreaterThan(nmax - pageReserve());
    const { chunks } = chunkDocument(doc, { ...P, ctxSize: nmax, bufSize: 0, pageOverlapTokens: 0 });
    const holders = chunks.filter((c) => c.originalText.includes('```'));
    expect(holders).toHaveLength(1);
    expect(holders[0]!.originalText).toContain(block);
    expect(holders[0]!.chunkNumber).toBeGreaterThan(0);
  });

  it('rejects an overlap above 5% of Nmax', () => {
    expect(() => chunkDocument('# x\n\ny\n', { ...P, ctxSize: 2048, bufSize: 48, pageOverlapTokens: 101 })).toThrow(ChunkOptionsError);
    expect(() => chunkDocument('# x\n\ny\n', { ...P, ctxSize: 2048, bufSize: 48, pageOverlapTokens: 100 })).not.toThrow();
  });

  it('leaves lead lines out when leadLines is none', () => {
    const doc = `# Guide\n\n${para(200)}\n`;
    const { chunks, strategyKey } = chunkDocument(doc, { ...SMALL, leadLines: 'none' });
    expect(strategyKey).toBe('paginate-1536-o60-lnone');
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.page!.leadIn).toBeNull();
      expect(c.page!.leadOut).toBeNull();
      expect(c.page!.text).toBe(`${ctComment(c.page!.ct)}\n${c.originalText}\n`);
    }
  });

  it('rejects nothing at the smallest Nmax even for a long or unusual document name', () => {
    const doc = `# Guide\n\n${para(400)}\n`;
    for (const docName of ['x'.repeat(300), 'Ω😀'.repeat(40), 'a-->b <c> & d']) {
      const { chunks } = chunkDocument(doc, { ...P, ctxSize: 512, bufSize: 0, pageOverlapTokens: 0, docName }, { recount: true });
      expect(chunks.length).toBeGreaterThan(1);
      for (const c of chunks) expect(countTokens(c.page!.text)).toBeLessThanOrEqual(512);
    }
  });
});

describe('continuity ids across a topic (seed 000: "CT collision in merged docs")', () => {
  const doc = `# Guide\n\n${para(200)}\n`;
  const ids = (docName: string) => chunkDocument(doc, { ...SMALL, docName }).chunks.map((c) => c.page!.ct.id);

  it('are {docName}:chunk-NNN, so two sources of one topic never share an id', () => {
    const a = ids('golden-reference');
    const b = ids('faq');
    expect(a.length).toBeGreaterThan(1);
    expect(a[1]).toBe('golden-reference:chunk-002');
    expect(b[0]).toBe('faq:chunk-001');
    expect(a.filter((id) => b.includes(id))).toEqual([]);
    // The same text under two names: same pages, different ids.
    expect(a.map((id) => id.replace(/^.*:/, ''))).toEqual(b.map((id) => id.replace(/^.*:/, '')));
  });

  it('depend only on the document: the same on every run', () => {
    expect(ids('golden-reference')).toEqual(ids('golden-reference'));
    expect(ctId('golden-reference', 0)).toBe('golden-reference:chunk-001');
  });

  it('hash a name too long to repeat in every CT comment, and escape < > so the comment cannot end early', () => {
    const long = 'a very long document name that goes on and on '.repeat(4).trim();
    expect(ctId(long, 0)).toMatch(/^doc-[0-9a-f]{12}:chunk-001$/);
    expect(ctId(`${long}!`, 0)).not.toBe(ctId(long, 0));
    const ct = { id: ctId('a-->b', 0), prev: null, next: ctId('a-->b', 1) };
    const comment = ctComment(ct);
    expect(comment.indexOf('-->')).toBe(comment.length - 3);
    expect(JSON.parse(CT_LINE.exec(`${comment}\n`)![1]!)).toEqual(ct);
  });
});
