// Ids across a topic's documents, on paginate output from the real chunker laid
// out as chunking-tool writes it: two sources, then the pre-fix numbering
// (`chunk-001…` in every document) that the per-document graphs cannot see.
import { chunkDocument, type ChunkRecord } from '@chunkyard/chunking';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTopic, report, Tally, type LoadedDocument, type LoadedTopic } from './built-checks.js';
import { checkUniqueIds, findIdCollisions } from './unique-ids.js';

const para = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `The ${topic} section explains part ${i} of the workflow in some detail.`).join(' ');
const SOURCES = {
  'golden-reference.md': `# Guide\n\n${para('guide', 120)}\n\n## Setup\n\n${para('setup', 120)}\n`,
  'faq.md': `# FAQ\n\n${para('question', 120)}\n\n## More\n\n${para('answer', 120)}\n`,
};

function topicOf(rewrite: (docName: string, c: ChunkRecord, i: number) => void = () => {}): LoadedTopic {
  const documents: LoadedDocument[] = [];
  const pageDocs: { source: string; chunks: { ct: unknown; file: string }[] }[] = [];
  for (const [file, source] of Object.entries(SOURCES)) {
    const name = file.replace(/\.md$/, '');
    const r = chunkDocument(source, { strategy: 'paginate', ctxSize: 768, bufSize: 0, pageOverlapTokens: 0, docName: name, sourceFile: file });
    r.chunks.forEach((c, i) => rewrite(name, c, i));
    documents.push({
      name,
      manifestFile: `_chunks/${name}.json`,
      manifest: { ...r, source: file },
      sourceFile: file,
      source,
      chunkFiles: new Map(),
      chunkFileOf: (n) => `_chunks/${name}-${n}.md`,
    });
    pageDocs.push({ source: file, chunks: r.chunks.map((c, i) => ({ ct: c.page!.ct, file: `${name}-${i}.md` })) });
  }
  return { dir: 'topic', documents, pages: { file: '_chunks/chunks.json', json: { documents: pageDocs } } };
}

/** What paginate wrote before ids were unique: `chunk-NNN` in every document. */
const legacyCt = (_: string, c: ChunkRecord, i: number) => {
  const id = (k: number) => `chunk-${String(k + 1).padStart(3, '0')}`;
  c.page!.ct = { id: id(i), prev: c.page!.ct.prev === null ? null : id(i - 1), next: c.page!.ct.next === null ? null : id(i + 1) };
};

describe('ids unique across a topic', () => {
  it('passes two paged sources chunked today: every id kind checked per document, no collision', () => {
    const topic = topicOf();
    expect(topic.documents.every((d) => (d.manifest as { chunks: unknown[] }).chunks.length > 1)).toBe(true);
    expect(findIdCollisions(topic)).toEqual([]);
    const t = new Tally();
    checkUniqueIds(topic, t);
    // record ids and page CT ids per manifest, CT ids per chunks.json document
    expect(t.counts.get('continuity')).toEqual({ checked: 6, failed: 0 });
    expect(t.findings).toEqual([]);
  });

  it('catches the CT collision the per-document graphs miss, as a graph break (exit 13)', () => {
    const topic = topicOf(legacyCt);
    // Each document's own graph is intact: checkTopic alone reports no break.
    const alone = checkTopic(topic);
    expect(report(alone.tally, alone.graphs).findings.filter((f) => f.graphBreak)).toEqual([]);

    const collisions = findIdCollisions(topic);
    expect(collisions.map((c) => `${c.kind} ${c.id}`)).toContain('page CT id chunk-001');
    expect(collisions.map((c) => `${c.kind} ${c.id}`)).toContain('chunks.json CT id chunk-001');
    expect(collisions.find((c) => c.id === 'chunk-001')!.documents).toEqual(['_chunks/golden-reference.json', '_chunks/faq.json']);
    expect(collisions.some((c) => c.kind === 'record id')).toBe(false);

    const t = new Tally();
    checkUniqueIds(topic, t);
    const messages = t.findings.map((f) => `${f.file}: ${f.message}`);
    expect(t.findings.every((f) => f.graphBreak && f.check === 'continuity')).toBe(true);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^_chunks\/golden-reference\.json: page CT ids chunk-001, chunk-002.* also used by _chunks\/faq\.json: ids must be unique/),
        expect.stringMatching(/^_chunks\/chunks\.json \(faq\.md\): chunks\.json CT ids chunk-001.* also used by _chunks\/chunks\.json \(golden-reference\.md\)/),
      ]),
    );
    expect(t.counts.get('continuity')).toEqual({ checked: 6, failed: 4 });
  });

  it('catches colliding record ids (two manifests of one docName)', () => {
    const topic = topicOf();
    const [a, b] = topic.documents as [LoadedDocument, LoadedDocument];
    (b.manifest as { chunks: ChunkRecord[] }).chunks[0]!.id = (a.manifest as { chunks: ChunkRecord[] }).chunks[0]!.id;
    expect(findIdCollisions(topic)).toEqual([{ kind: 'record id', id: 'doc:golden-reference::ch0', documents: ['_chunks/golden-reference.json', '_chunks/faq.json'] }]);
  });

  it('finds exactly the ids that several documents share (property)', () => {
    const docIds = fc.array(fc.array(fc.constantFrom<string>('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 5 }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(docIds, (lists) => {
        const topic: LoadedTopic = {
          dir: 't',
          pages: null,
          documents: lists.map((ids, i) => ({
            name: `d${i}`,
            manifestFile: `d${i}.json`,
            manifest: { chunks: ids.map((id) => ({ id })) },
            sourceFile: `d${i}.md`,
            source: '',
            chunkFiles: new Map(),
            chunkFileOf: (n: number) => `d${i}-${n}.md`,
          })),
        };
        const shared = new Set(['a', 'b', 'c', 'd', 'e', 'f'].filter((id) => lists.filter((l) => l.includes(id)).length > 1));
        const found = findIdCollisions(topic);
        expect(new Set(found.map((c) => c.id))).toEqual(shared);
        for (const c of found) expect(c.documents).toEqual(lists.flatMap((l, i) => (l.includes(c.id) ? [`d${i}.json`] : [])));
      }),
    );
  });
});
