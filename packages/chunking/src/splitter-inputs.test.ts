/**
 * What the LangChain and LlamaIndex splitters do with input their callers get wrong or that is
 * merely odd (issue 15's library probe, against the real @langchain/textsplitters and
 * llamaindex): every constructor call is either taken or refused with a ChunkOptionsError naming
 * the option, every argument that is not text is a TypeError saying which one, and odd but valid
 * documents are chunked.
 */
import fc from 'fast-check';
import { Document as LlamaDocument } from 'llamaindex';
import { describe, expect, it } from 'vitest';
import { ChunkOptionsError, DEFAULT_OPTIONS } from './index.js';
import { contentDocName } from './interop.js';
import { ChunkyardTextSplitter, MarkdownTextSplitter } from './langchain.js';
import { ChunkyardNodeParser } from './llamaindex.js';
import { thrown } from './test-helpers.js';

const SPLITTERS = [
  ['ChunkyardTextSplitter', (o: unknown) => new ChunkyardTextSplitter(o as never)],
  ['ChunkyardNodeParser', (o: unknown) => new ChunkyardNodeParser(o as never)],
] as const;

/** Any value a JavaScript caller could put in an options object. */
const anyValue = fc.oneof(
  fc.double(),
  fc.integer({ min: -5, max: 5000 }),
  fc.constantFrom(1e308, -0, Number.NaN, null, undefined, true, 'semantic', 'hierarchical', '512', ''),
  fc.string(),
  fc.array(fc.nat(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);

describe('splitter options (issue 15 library probe)', () => {
  it('refuse a key chunkyard does not know, naming it and the option it resembles (`maxTokenz: 100` was ignored, the defaults used)', () => {
    for (const [name, make] of SPLITTERS) {
      const err = thrown(() => make({ maxTokenz: 100 }));
      expect(err, name).toBeInstanceOf(ChunkOptionsError);
      expect(err?.message).toMatch(new RegExp(`^${name}: unknown option "maxTokenz" \\(did you mean maxTokens\\?\\); chunkyard's options are docName, `));
      expect(thrown(() => make({ MaxTokens: 100 }))?.message).toContain('unknown option "MaxTokens" (did you mean maxTokens?)');
      // A hostile key is quoted cut short, with no terminal control characters.
      const long = thrown(() => make({ [`\u001b[2J${'k'.repeat(100_000)}`]: 1 }));
      expect(long).toBeInstanceOf(ChunkOptionsError);
      expect(long!.message.length).toBeLessThan(1000);
      expect(long!.message).not.toMatch(/[\u0000-\u001f]/);
    }
    // LlamaIndex's SentenceSplitter sizes are not chunkyard's: said, not ignored.
    expect(thrown(() => new ChunkyardNodeParser({ chunkSize: 512 } as never))?.message).toMatch(/^ChunkyardNodeParser: unknown option "chunkSize"/);
    // LangChain's own fields are still taken (a MarkdownTextSplitter call runs unchanged), and the message lists them.
    expect(() => new MarkdownTextSplitter({ chunkSize: 1000, chunkOverlap: 100, keepSeparator: true, lengthFunction: (t: string) => t.length })).not.toThrow();
    expect(thrown(() => new MarkdownTextSplitter({ separators: ['\n'] } as never))?.message).toContain('and chunkSize, chunkOverlap, keepSeparator, lengthFunction (accepted, not used)');
  });

  it('refuse options that are not an object with a ChunkOptionsError (null threw "Cannot destructure property \'chunkSize\' of \'fields\'"; a string\'s characters were taken as keys)', () => {
    for (const [name, make] of SPLITTERS) {
      for (const [bad, shown] of [[null, 'null'], ['abc', '"abc"'], [5, 'number'], [[1], 'an array']] as const) {
        const err = thrown(() => make(bad));
        expect(err, `${name} ${shown}`).toBeInstanceOf(ChunkOptionsError);
        expect(err?.message).toBe(`${name}: options must be an object (or left out), got ${shown}`);
      }
      expect(thrown(() => make(undefined))).toBeNull();
    }
  });

  it('any options object is taken or refused with a ChunkOptionsError, never another error', () => {
    const known = [...Object.keys(DEFAULT_OPTIONS), 'fileTitle', 'sourceFile', 'sourceId', 'sourceSystem'];
    const key = fc.oneof(fc.constantFrom(...known), fc.string({ maxLength: 12 }));
    fc.assert(
      fc.property(fc.dictionary(key, anyValue, { maxKeys: 4 }), (options) => {
        for (const [, make] of SPLITTERS) {
          const err = thrown(() => make(options));
          if (err !== null) expect(err).toBeInstanceOf(ChunkOptionsError);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('LangChain splitter arguments (issue 15 library probe)', () => {
  it('a text that is not a string is a TypeError saying which one (was "text.trim is not a function")', async () => {
    const splitter = new MarkdownTextSplitter();
    await expect(splitter.createDocuments(['# A\n\nok', 5 as never])).rejects.toThrow(new TypeError("createDocuments: texts[1] (a Document's pageContent) must be a string, got number"));
    await expect(splitter.splitDocuments([{ pageContent: null, metadata: {} } as never])).rejects.toThrow("texts[0] (a Document's pageContent) must be a string, got null");
    await expect(splitter.createDocuments('abc' as never)).rejects.toThrow(new TypeError('createDocuments: texts must be an array of strings, got string'));
    await expect(splitter.createDocuments(['x'], 'meta' as never)).rejects.toThrow(new TypeError('createDocuments: metadatas must be an array of objects, got string'));
    await expect(splitter.splitText(undefined as never)).rejects.toThrow(new TypeError('splitText: text must be a string, got undefined'));
    expect(() => splitter.chunkRecords([] as never)).toThrow(new TypeError('chunkRecords: text must be a string, got an array'));
  });

  it('null metadatas or header options are taken as none, where LangChain\'s own splitter threw reading them', async () => {
    const splitter = new MarkdownTextSplitter();
    const docs = await splitter.createDocuments(['# A\n\nBody.'], null as never, null as never);
    expect(docs.map((d) => d.pageContent)).toEqual(['# A\n\nBody.']);
    expect((await splitter.createDocuments(['# A\n\nBody.'], [null as never]))[0]!.metadata.loc).toEqual({ lines: { from: 1, to: 3 } });
  });

  it('any string is chunked into Documents with the input metadata, unique ids and loc.lines inside the text', async () => {
    const unit = fc.constantFrom('a', 'b ', '\n', '\r\n', '\r', '#', '# ', '```', '|', '-', '\u0000', '\ud800', '\udc00', '\ud83d\ude00', '\ufeff', '\t', '> ', '1. ');
    const splitter = new MarkdownTextSplitter({ maxTokens: 32, targetTokens: 16, minTokens: 4 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit, maxLength: 300 }), { minLength: 1, maxLength: 3 }), async (texts) => {
        const docs = await splitter.createDocuments(texts, texts.map((_, i) => ({ source: 'same.md', page: i })));
        expect(new Set(docs.map((d) => d.id)).size).toBe(docs.length);
        for (const d of docs) {
          expect(d.metadata.source).toBe('same.md');
          expect(typeof d.metadata.page).toBe('number');
          const text = texts[d.metadata.page as number]!;
          const { from, to } = (d.metadata.loc as { lines: { from: number; to: number } }).lines;
          expect(1 <= from && from <= to && to <= text.split('\n').length).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('LlamaIndex node parser inputs (issue 15 library probe)', () => {
  it('a Document with an empty id_ is chunked under its content name (was "docName must be a non-empty string", an option never given)', () => {
    const nodes = new ChunkyardNodeParser().getNodesFromDocuments([new LlamaDocument({ id_: '', text: '# A\n\nBody.' })]);
    // Not the default name `document` any more: every such document had the node ids
    // `/doc:document::ch0`, …, so two parsed in separate calls collided in a store keyed by node
    // id. It is `document-<12 hex of the text's SHA-256>`, as LangChain's splitter names a text
    // without source or id (llamaindex-sourceless.test.ts).
    const name = contentDocName('# A\n\nBody.');
    expect(name).toMatch(/^document-[0-9a-f]{12}$/);
    expect(nodes.map((n) => n.id_)).toEqual([`/doc:${name}::ch0`]);
    expect(nodes[0]!.metadata.chunkId).toBe(`doc:${name}::ch0`);
  });

  it('a Document whose text is not a string is a TypeError saying which one (was "text.trim is not a function")', () => {
    const parser = new ChunkyardNodeParser();
    const docs = [new LlamaDocument({ id_: 'a', text: '# A\n\nok' }), new LlamaDocument({ id_: 'b', text: 5 as never })];
    expect(() => parser.getNodesFromDocuments(docs)).toThrow(new TypeError('ChunkyardNodeParser: documents[1].text must be a string, got number'));
  });

  it('two Documents sharing an id_ get distinct node ids, each node its own document\'s metadata and SOURCE (the second\'s nodes had the first\'s ids)', () => {
    const docs = ['First text about alpha.', 'Second text about beta.', 'Third text about gamma.'].map(
      (body, k) => new LlamaDocument({ id_: 'same', text: `# Part ${k}\n\n${body}`, metadata: { page: k } }),
    );
    const nodes = new ChunkyardNodeParser().getNodesFromDocuments(docs);
    expect(nodes.map((n) => n.id_)).toEqual(['same/doc:same::ch0', 'same#2/doc:same#2::ch0', 'same#3/doc:same#3::ch0']);
    nodes.forEach((node, k) => {
      expect(node.metadata.page).toBe(k);
      expect(node.text).toContain(`Part ${k}`);
      expect(node.sourceNode?.nodeId).toBe('same');
      expect(node.sourceNode?.hash).toBe(docs[k]!.hash);
    });
  });
});
