// checkTopic on paginate output from the real chunker (small Nmax so a document
// makes several pages), with chunk files and a chunks.json laid out as the
// chunking-tool writes them, then corrupted one way at a time.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkDocument } from '@chunkyard/chunking';
import { describe, expect, it } from 'vitest';
import { checkIndexes, checkTopic, report, type LoadedTopic } from './built-checks.js';

const source = readFileSync(join(import.meta.dirname, '../../../docs/deployment/native-aot/golden-reference.md'), 'utf8');
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function built(): { topic: LoadedTopic; manifest: ReturnType<typeof chunkDocument>; pages: { checksum: { value: string }; documents: { source: string; chunks: { ct: unknown; file: string; sha256: string }[] }[] } } {
  const r = chunkDocument(source, { strategy: 'paginate', ctxSize: 1024, bufSize: 0, pageOverlapTokens: 40, docName: 'golden-reference', sourceFile: 'golden-reference.md' });
  const files = new Map(r.chunks.map((c, i) => [`_chunks/golden-reference-${i}.md`, c.page!.text]));
  const documents = [{ source: 'golden-reference.md', chunks: r.chunks.map((c, i) => ({ ct: c.page!.ct, file: `golden-reference-${i}.md`, sha256: sha(c.page!.text) })) }];
  const pages = { checksum: { value: sha(JSON.stringify(documents)) }, documents };
  const manifest: Record<string, unknown> = { schemaVersion: 1, ...r, source: 'golden-reference.md', sourceSha256: sha(source) };
  const topic: LoadedTopic = {
    dir: 'topic',
    documents: [{ name: 'golden-reference', manifestFile: '_chunks/golden-reference.json', manifest, sourceFile: 'golden-reference.md', source, chunkFiles: files, chunkFileOf: (n) => `_chunks/golden-reference-${n}.md` }],
    pages: { file: '_chunks/chunks.json', json: pages },
  };
  return { topic, manifest: r, pages };
}
const score = (t: LoadedTopic) => {
  const { tally, graphs } = checkTopic(t);
  return report(tally, graphs);
};

describe('checkTopic on paginate pages', () => {
  it('passes a faithful build: three graphs (prev/next, page CT, CT comments) plus chunks.json, PIS 100', () => {
    const { topic, manifest } = built();
    expect(manifest.chunks.length).toBeGreaterThan(2);
    const r = score(topic);
    expect(r.findings).toEqual([]);
    expect(r.graphs).toBe(4);
    expect(r.pis).toBe(100);
  });
  it('refuses a manifest of another schema version (or none) as not one it reads (s34 probe: 999 was scored as 1)', () => {
    for (const [version, shown] of [[999, '999'], [undefined, 'missing'], ['1', '"1"']] as const) {
      const { topic } = built();
      const manifest = topic.documents[0]!.manifest as Record<string, unknown>;
      if (version === undefined) delete manifest.schemaVersion;
      else manifest.schemaVersion = version;
      const { findings } = score(topic);
      expect(findings[0]).toEqual({ check: 'checksum', file: '_chunks/golden-reference.json', message: `not a chunk manifest: schemaVersion ${shown} is not 1; rebuild it with this chunkyard's chunking-tool` });
    }
  });
  it('fails the chunks.json checksum when the manifest is edited', () => {
    const { topic, pages } = built();
    pages.documents[0]!.chunks[0]!.file = 'renamed.md';
    expect(score(topic).findings.map((f) => f.message)).toEqual([expect.stringMatching(/checksum .* is not the SHA-256 of JSON.stringify\(documents\)/)]);
  });
  it('fails a page whose file changed, through its SHA-256 and the manifest', () => {
    const { topic } = built();
    const files = topic.documents[0]!.chunkFiles as Map<string, string>;
    files.set('_chunks/golden-reference-1.md', `${files.get('_chunks/golden-reference-1.md')!}tampered\n`);
    const msgs = score(topic).findings.map((f) => `${f.check}: ${f.message}`);
    expect(msgs).toContain('checksum: golden-reference.md page 1 (golden-reference-1.md): sha256 does not match the file');
    expect(msgs.some((m) => m.startsWith('offsets:') && m.includes("page text"))).toBe(true);
  });
  it('breaks the graph (exit-13 class) when a CT comment points nowhere', () => {
    const { topic } = built();
    const files = topic.documents[0]!.chunkFiles as Map<string, string>;
    const f = '_chunks/golden-reference-1.md';
    files.set(f, files.get(f)!.replace(/"next":"golden-reference:chunk-003"/, '"next":"golden-reference:chunk-404"'));
    const breaks = score(topic).findings.filter((x) => x.graphBreak);
    expect(breaks.map((b) => b.message)).toEqual([expect.stringContaining('CT comments: dangling: golden-reference:chunk-002: next points to golden-reference:chunk-404')]);
  });
  it('flags a page over Nmax', () => {
    const { topic, manifest } = built();
    manifest.chunks[0]!.page!.nmax = 10;
    expect(score(topic).findings.some((f) => f.check === 'tokens' && /Nmax 10/.test(f.message))).toBe(true);
  });
});

describe('a chunks.json of another shape (s46 probe)', () => {
  // Each threw a TypeError out of checkTopic, which docs-score printed as
  // "docs-score: Cannot read properties of null (reading 'ct')", naming no file.
  it.each([
    ['a document that is null', [null], /^documents\[0\] is not an object with "source" and "chunks"/],
    ['a document that is a list', [[]], /^documents\[0\] is not an object with "source" and "chunks"/],
    ['chunks that is a string', [{ source: 'golden-reference.md', chunks: 'xx' }], /^golden-reference\.md: "chunks" is not a list/],
    ['a page that is null', [{ source: 'golden-reference.md', chunks: [null] }], /^golden-reference\.md page 0: no continuity token/],
    ['a page that is a number', [{ source: 'golden-reference.md', chunks: [7] }], /^golden-reference\.md page 0: no continuity token/],
  ])('%s is a finding naming chunks.json', (_what, documents, message) => {
    const { topic } = built();
    topic.pages = { file: '_chunks/chunks.json', json: { checksum: { value: sha(JSON.stringify(documents)) }, documents } };
    const findings = score(topic).findings.filter((f) => f.file === '_chunks/chunks.json');
    expect(findings.map((f) => f.message)).toEqual([expect.stringMatching(message)]);
  });
});

describe('checkIndexes on a hand-edited index.json (s46 probe)', () => {
  // Each threw out of checkIndexes (a URIError or TypeError), which docs-score printed as
  // "docs-score: URI malformed", naming no file.
  const self = { self: { href: '/a/index.json' } };
  it.each([
    ['a self href with a malformed %-escape', { _links: { self: { href: '/a%ZZ/index.json' } } }, /^_links\.self\.href \/a%ZZ\/index\.json is not a URL path/],
    ['an item href with a malformed %-escape', { _links: self, _embedded: { chunks: { g: { manifest: 'm.json', items: [{ href: '_chunks/%E0%A4.md' }] } } } }, /^chunks\.g\.items\[0\]: _chunks\/%E0%A4\.md is not a URL path/],
    ['a manifest href that is no URL', { _links: self, _embedded: { chunks: { g: { manifest: 'http://[', items: [] } } } }, /^chunks\.g\.manifest: http:\/\/\[ is not a URL$/],
    ['topics that is a string', { _links: self, _embedded: { topics: 'xx' } }, /^_embedded\.topics is not a list$/],
    ['items that is a string', { _links: self, _embedded: { chunks: { g: { manifest: 'm.json', items: 'xx' } } } }, /^chunks\.g\.items is not a list$/],
  ])('%s is a finding naming the file', (_what, json, message) => {
    const t = checkIndexes([{ file: 'docs/a/index.json', json }], () => true);
    expect(t.findings.map((f) => [f.file, f.message])).toEqual([['docs/a/index.json', expect.stringMatching(message)]]);
  });
});
