/**
 * The LangChain.js splitter against the real @langchain/core and @langchain/textsplitters:
 * a TextSplitter subclass, Documents carrying chunkyard's metadata, and a round trip through
 * LangChain's own in-memory vector store (FakeVectorStore, the one @langchain/core ships)
 * with an Embeddings subclass over chunkyard's offline lexical embedder.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Document } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';
import { FakeVectorStore } from '@langchain/core/utils/testing';
import { MarkdownTextSplitter as LangChainMarkdownTextSplitter, TextSplitter } from '@langchain/textsplitters';
import { createProvider } from '@chunkyard/embeddings';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { lineRange, lineRanges } from './interop.js';
import { ChunkyardTextSplitter, MarkdownTextSplitter } from './langchain.js';

const DOCS = join(import.meta.dirname, '../../../docs');
const POLY = 'libraries/system-text-json-polymorphism/golden-reference.md';
const AOT = 'deployment/native-aot/golden-reference.md';
const read = (rel: string) => readFileSync(join(DOCS, rel), 'utf8');

/** LangChain's Embeddings interface over chunkyard's local lexical embedder (offline, deterministic). */
class LocalEmbeddings extends Embeddings {
  private readonly provider = createProvider({ provider: 'local' });
  constructor() {
    super({});
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return (await this.provider.embed(texts)).map((v) => Array.from(v));
  }
  async embedQuery(text: string): Promise<number[]> {
    return (await this.embedDocuments([text]))[0]!;
  }
}

describe('ChunkyardTextSplitter (LangChain.js)', () => {
  it('is a TextSplitter, exported under MarkdownTextSplitter too, and constructs from the fields LangChain takes', () => {
    const splitter = new MarkdownTextSplitter({ chunkSize: 1000, chunkOverlap: 100 });
    expect(splitter).toBeInstanceOf(TextSplitter);
    expect(splitter).toBeInstanceOf(ChunkyardTextSplitter);
    expect(MarkdownTextSplitter).toBe(ChunkyardTextSplitter);
    // The base class still validates its own fields.
    expect(() => new ChunkyardTextSplitter({ chunkSize: 10, chunkOverlap: 20 })).toThrow(/chunkOverlap/);
    // And chunkyard's options fail at construction, not at the first document.
    expect(() => new ChunkyardTextSplitter({ targetTokens: 400, maxTokens: 300 })).toThrow(/minTokens <= targetTokens <= maxTokens/);
  });

  it('splitText gives the chunks chunkyard gives, and nothing for a blank text', async () => {
    const text = read(POLY);
    const got = await new ChunkyardTextSplitter({ targetTokens: 200, maxTokens: 300 }).splitText(text);
    expect(got).toEqual(chunkDocument(text, { targetTokens: 200, maxTokens: 300 }).chunks.map((c) => c.originalText));
    expect(got.length).toBeGreaterThan(5);
    expect(await new ChunkyardTextSplitter().splitText(' \n\n ')).toEqual([]);
  });

  it('splitDocuments: Documents with the input metadata, loc.lines, chunkyard ids, offsets and heading paths', async () => {
    const inputs = [POLY, AOT].map((rel) => new Document({ pageContent: read(rel), metadata: { source: `docs/${rel}`, owner: 'docs-team' } }));
    const docs = await new ChunkyardTextSplitter().splitDocuments(inputs);
    for (const [i, input] of inputs.entries()) {
      const text = input.pageContent;
      const mine = docs.filter((d) => d.metadata.source === input.metadata.source);
      const expected = chunkDocument(text, { docName: `docs/${[POLY, AOT][i]!.replace(/\.md$/, '')}`, sourceFile: 'golden-reference.md' }).chunks;
      expect(mine.map((d) => d.pageContent)).toEqual(expected.map((c) => c.originalText));
      for (const [n, d] of mine.entries()) {
        expect(d).toBeInstanceOf(Document);
        const c = expected[n]!;
        // Ids carry the source path, so two files named golden-reference.md do not collide.
        expect(d.id).toBe(c.id);
        expect(d.id).toMatch(/^doc:docs\/(libraries|deployment)\/.+\/golden-reference::ch\d+$/);
        expect(d.metadata).toMatchObject({
          owner: 'docs-team',
          chunkId: c.id,
          prevId: c.prevId,
          nextId: c.nextId,
          headerBreadcrumb: c.headerBreadcrumb,
          charStart: c.sourcePosition.charStart,
          charEnd: c.sourcePosition.charEnd,
          tokens: c.tokenStats.tokens,
          sourceFile: 'golden-reference.md',
          strategy: 'semantic',
        });
        const { charStart, charEnd } = d.metadata as { charStart: number; charEnd: number };
        if (!c.splitUnit) expect(text.slice(charStart, charEnd)).toBe(d.pageContent);
        // LangChain's own convention: 1-based lines of the chunk in its source.
        const from = text.slice(0, charStart).split('\n').length;
        expect(d.metadata.loc).toEqual({ lines: { from, to: from + (d.pageContent.match(/\n/g)?.length ?? 0) } });
      }
    }
    expect(new Set(docs.map((d) => d.id)).size).toBe(docs.length);
  });

  // A vector store upserts by id: two Documents with one id kept one of them (issue 15 probe).
  it('gives every Document of a call its own id: pages of one source, texts without a source, a given docName', async () => {
    const pages = ['# Page one\n\nAlpha text.\n', '# Page two\n\nBeta text.\n', '# Page three\n\nGamma text.\n'];
    const pdf = pages.map((text, k) => new Document({ pageContent: text, metadata: { source: 'manuals/guide.pdf', loc: { pageNumber: k + 1 } } }));
    const docs = await new ChunkyardTextSplitter().splitDocuments(pdf);
    expect(docs.map((d) => d.id)).toEqual(['doc:manuals/guide::ch0', 'doc:manuals/guide#2::ch0', 'doc:manuals/guide#3::ch0']);
    expect(docs.map((d) => d.metadata.chunkId)).toEqual(docs.map((d) => d.id));
    // The same inputs give the same ids again (stable across runs, unlike random UUIDs).
    expect((await new ChunkyardTextSplitter().splitDocuments(pdf)).map((d) => d.id)).toEqual(docs.map((d) => d.id));
    // No source, and a docName given for every text; a source that reads like a numbered name.
    const bare = await new ChunkyardTextSplitter().createDocuments(pages);
    expect(new Set(bare.map((d) => d.id)).size).toBe(3);
    const given = await new ChunkyardTextSplitter({ docName: 'kb' }).createDocuments(pages);
    expect(given.map((d) => d.id)).toEqual(['doc:kb::ch0', 'doc:kb#2::ch0', 'doc:kb#3::ch0']);
    const tricky = await new ChunkyardTextSplitter().createDocuments(pages, [{ source: 'a.md' }, { source: 'a.md' }, { source: 'a#2.md' }]);
    expect(new Set(tricky.map((d) => d.id)).size).toBe(3);
  });

  it('names a text whose source is all extension (`.md`) after it, where the name was empty and chunkDocument refused it', async () => {
    const docs = await new ChunkyardTextSplitter().createDocuments(['# T\n\nBody.\n'], [{ source: 'notes/.md' }]);
    expect(docs.map((d) => d.id)).toEqual(['doc:notes/.md::ch0']);
  });

  // Web loaders (RecursiveUrlLoader, CheerioWebBaseLoader, Sitemap) set `source` to the page URL.
  // One ending in `/` was named `document` and a query told apart no pages, so pages split in
  // separate calls (a crawl, one page at a time) shared ids and a store upserting by id kept one.
  it('names a Document by its URL source: a trailing slash, a bare host, a query or fragment are pages of their own', async () => {
    const splitter = new ChunkyardTextSplitter();
    const idOf = async (source: string) => (await splitter.createDocuments(['# T\n\nBody.\n'], [{ source }]))[0]!;
    const sources = [
      'https://docs.example.com/',
      'https://docs.example.org/',
      'https://docs.example.com/guide/',
      'https://docs.example.com/api/',
      'https://docs.example.com/list.php?page=1',
      'https://docs.example.com/list.php?page=2',
      'https://docs.example.com/faq#install',
      'docs/guide/',
      'docs/api/',
    ];
    // Each in a call of its own, as a crawl splits them.
    const docs = await Promise.all(sources.map(idOf));
    expect(new Set(docs.map((d) => d.id)).size).toBe(sources.length);
    expect(docs.map((d) => d.id)).not.toContain('doc:document::ch0');
    expect(docs[2]!.id).toBe('doc:https://docs.example.com/guide::ch0');
    expect(docs[4]!.metadata.sourceFile).toBe('list.php');
    // A file URL's extension still goes, as a path's does.
    expect((await idOf('https://x.example/a/b.html')).id).toBe('doc:https://x.example/a/b::ch0');
    expect((await idOf('docs/guide.md')).id).toBe('doc:docs/guide::ch0');
  });

  it('leaves a URL source\'s credentials out of the name that opens every chunk id', async () => {
    const splitter = new ChunkyardTextSplitter();
    const first = async (source: string) => (await splitter.createDocuments(['# T\n\nBody.\n'], [{ source }]))[0]!;
    const page = await first('https://reader:s3cret@docs.example.com/guide/install.html?v=2');
    expect(page.id).toBe('doc:https://docs.example.com/guide/install?v=2::ch0');
    // The authority ends at its last `@`: a password holding one leaves nothing of it behind.
    const host = await first('https://u:p@ss@docs.example.com/');
    expect(host.id).toBe('doc:https://docs.example.com::ch0');
    expect(host.metadata.sourceFile).toBe('docs.example.com');
    // The loader's own `source` is the caller's metadata, kept as given; nothing chunkyard adds holds them.
    for (const doc of [page, host]) {
      const { source, ...added } = doc.metadata;
      expect(source).toMatch(/@/);
      expect(JSON.stringify([doc.id, added])).not.toMatch(/s3cret|reader|p@ss/);
    }
  });

  // A PDF loader's source is the file's (often absolute) path and its pages share it: a page
  // without a heading was titled by the whole path, numbered, and with pageContent: 'embed'
  // '/home/u/manuals/guide#2' was the first line of what the store embedded.
  it('titles a text without a heading by its file name, not by the source path or its page number', async () => {
    const pages = [1, 2].map((n) => new Document({ pageContent: `Plain page ${n} text.\n\nMore words.\n`, metadata: { source: '/home/u/manuals/guide.pdf', loc: { pageNumber: n } } }));
    const docs = await new ChunkyardTextSplitter({ pageContent: 'embed' }).splitDocuments(pages);
    expect(docs.map((d) => d.id)).toEqual(['doc:/home/u/manuals/guide::ch0', 'doc:/home/u/manuals/guide#2::ch0']);
    expect(docs.map((d) => d.metadata.fileTitle)).toEqual(['guide', 'guide']);
    expect(docs.map((d) => d.pageContent.split('\n')[0])).toEqual(['guide', 'guide']);
    // A bare host is its own title; a given docName is the title, unnumbered; a given title wins.
    expect((await new ChunkyardTextSplitter().createDocuments(['Body.\n'], [{ source: 'https://docs.example.com/' }]))[0]!.metadata.fileTitle).toBe('docs.example.com');
    expect((await new ChunkyardTextSplitter({ docName: 'kb' }).splitDocuments(pages)).map((d) => d.metadata.fileTitle)).toEqual(['kb', 'kb']);
    expect((await new ChunkyardTextSplitter({ fallbackTitle: 'Guide' }).splitDocuments(pages)).map((d) => d.metadata.fileTitle)).toEqual(['Guide', 'Guide']);
  });

  it('honours chunkHeader, and transformDocuments is splitDocuments', async () => {
    const input = [new Document({ pageContent: read(AOT), metadata: { source: 'aot.md' } })];
    const splitter = new ChunkyardTextSplitter({ strategy: 'hierarchical' });
    const docs = await splitter.splitDocuments(input, { chunkHeader: 'DOC: aot\n', appendChunkOverlapHeader: true });
    expect(docs[0]!.pageContent.startsWith('DOC: aot\n')).toBe(true);
    expect(docs[1]!.pageContent.startsWith("DOC: aot\n(cont'd) ")).toBe(true);
    expect(docs.some((d) => d.metadata.tier === 'snippet')).toBe(true);
    expect((await splitter.transformDocuments(input)).map((d) => d.id)).toEqual(docs.map((d) => d.id));
  });

  it('one import to switch: the same calls as MarkdownTextSplitter, then indexed and queried in LangChain\'s in-memory store', async () => {
    const inputs = [POLY, AOT].map((rel) => new Document({ pageContent: read(rel), metadata: { source: rel } }));
    // The code a LangChain user has, run with either class.
    const split = (Splitter: typeof LangChainMarkdownTextSplitter | typeof MarkdownTextSplitter) =>
      new Splitter({ chunkSize: 2000, chunkOverlap: 200 }).splitDocuments(inputs);
    const theirs = await split(LangChainMarkdownTextSplitter);
    const ours = await split(MarkdownTextSplitter);
    expect(theirs.length).toBeGreaterThan(0);
    expect(ours[0]!.metadata.headerBreadcrumb).toBeDefined();
    expect(theirs[0]!.metadata.headerBreadcrumb).toBeUndefined();

    const store = await FakeVectorStore.fromDocuments(ours, new LocalEmbeddings());
    expect(store.memoryVectors).toHaveLength(ours.length);
    const [top] = await store.similaritySearch('How do I publish a native AOT app and what are its limitations?', 3);
    expect(top!.metadata.source).toBe(AOT);
    expect(top!.metadata.headerBreadcrumb).toMatch(/AOT/i);
    const poly = await store.similaritySearch('type discriminator for polymorphic deserialization of derived classes', 3);
    expect(poly[0]!.metadata.source).toBe(POLY);
  });

  it('loc.lines of a 200,000-line text in linear time (s47 probe: each chunk counted its lines from the text\'s start, minutes of work)', async () => {
    const lines = 200_000;
    const text = Array.from({ length: lines }, (_, i) => `line ${i}\n`).join('\n');
    const docs = await new MarkdownTextSplitter({ maxTokens: 100, targetTokens: 40, minTokens: 10 }).splitDocuments([new Document({ pageContent: text })]);
    expect(docs.length).toBeGreaterThan(1000);
    const last = docs.at(-1)!.metadata.loc.lines as { from: number; to: number };
    expect(last.to).toBe(2 * lines - 1);
  }, 60_000);

  it('lineRanges counts the line breaks before and inside each range, as lineRange does', () => {
    const naive = (text: string, start: number, end: number) => {
      const from = text.slice(0, start).split('\n').length;
      return { from, to: from + Math.max(0, text.slice(start, end).split('\n').length - 1) };
    };
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '\n', 'b', '\r') }), fc.nat(40), fc.nat(40), (text, a, b) => {
        const at = lineRanges(text);
        expect(at(a, b)).toEqual(naive(text, a, b));
        expect(lineRange(text, a, b)).toEqual(naive(text, a, b));
      }),
    );
  });
});
