/**
 * ChunkyardTextSplitter.createDocuments with metadata that is not an object (session 59's probe):
 * a string's characters were spread into every Document's metadata, an array's items likewise.
 */
import { Document } from '@langchain/core/documents';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { docNameControl } from './interop.js';
import { MarkdownTextSplitter } from './langchain.js';

const MD = '# T\n\nText here.\n';

describe('createDocuments refuses metadata that is not an object', () => {
  it('names the text whose metadata is a string, an array, a number or a boolean', async () => {
    const splitter = new MarkdownTextSplitter();
    for (const [bad, kind] of [
      ['abc', 'a string'],
      [['x', 'y'], 'an array'],
      [5, 'number'],
      [true, 'boolean'],
    ] as const) {
      await expect(splitter.createDocuments([MD, MD], [{ source: 'a.md' }, bad as never])).rejects.toThrow(
        new TypeError(`createDocuments: metadatas[1] must be an object, got ${kind}`),
      );
    }
  });

  it('still takes null, undefined and missing metadata as none, and keeps an object\'s keys', async () => {
    const splitter = new MarkdownTextSplitter();
    const docs = await splitter.createDocuments([MD, MD, MD], [null as never, undefined as never]);
    // Named by their content (langchain-sourceless.test.ts), one text thrice: numbered in the call.
    const [name] = /^doc:(document-[0-9a-f]{12})::ch0$/.exec(docs[0]!.id!)?.slice(1) ?? [];
    expect(docs.map((d) => d.id)).toEqual([`doc:${name}::ch0`, `doc:${name}#2::ch0`, `doc:${name}#3::ch0`]);
    for (const d of docs) expect(Object.keys(d.metadata).filter((k) => /^\d+$/.test(k))).toEqual([]);
    const [own] = await splitter.splitDocuments([new Document({ pageContent: MD, metadata: { source: 'g.md', team: 'x' } })]);
    expect(own!.metadata.team).toBe('x');
    expect(own!.id).toBe('doc:g::ch0');
  });
});

describe('ChunkyardTextSplitter reads its options by name (a class instance\'s getters were ignored, the defaults used)', () => {
  const source = `# T\n\n${'Sentence number one is here. '.repeat(200)}`;
  class Options {
    get maxTokens(): number {
      return 64;
    }
    get targetTokens(): number {
      return 48;
    }
    get pageContent(): 'embed' {
      return 'embed';
    }
  }

  it('ChunkyardTextSplitter takes getters on the prototype like own keys', async () => {
    const fromClass = new MarkdownTextSplitter(new Options() as never);
    const plain = new MarkdownTextSplitter({ maxTokens: 64, targetTokens: 48, pageContent: 'embed' });
    expect(fromClass.chunkOptions).toEqual({ maxTokens: 64, targetTokens: 48 });
    expect(fromClass.pageContent).toBe('embed');
    expect(await fromClass.splitText(source)).toEqual(await plain.splitText(source));
    expect(() => new MarkdownTextSplitter(Object.create({ maxTokens: 5 }))).toThrow('maxTokens must be an integer >= 16, got 5');
  });
});

describe('a document name derived from the metadata', () => {
  it('shows a control character in the source path as U+FFFD rather than failing the split (session 62: chunkDocument refuses them in docName)', async () => {
    const docs = await new MarkdownTextSplitter().createDocuments([MD, MD], [{ source: 'notes/a\nb.md' }, { source: 'x\u001b[2J.md' }]);
    expect(docs.map((d) => d.id)).toEqual(['doc:notes/a\ufffdb::ch0', 'doc:x\ufffd[2J::ch0']);
    // sourceFile too (it kept the raw newline, and a NUL or an ESC, where the id showed them).
    expect(docs.map((d) => d.metadata.sourceFile)).toEqual(['a\ufffdb.md', 'x\ufffd[2J.md']);
    // The loader's own source is the caller's metadata, kept as given.
    expect(docs[0]!.metadata.source).toBe('notes/a\nb.md');
    // A URL's host names a bare page, and is its sourceFile.
    const [host] = await new MarkdownTextSplitter().createDocuments([MD], [{ source: 'https://docs\u0000x.example/' }]);
    expect([host!.id, host!.metadata.sourceFile, host!.metadata.fileTitle]).toEqual(['doc:https://docs\ufffdx.example::ch0', 'docs\ufffdx.example', 'T']);
  });

  it('adds no control character of a source path to any metadata value of its own (property)', async () => {
    const splitter = new MarkdownTextSplitter();
    const part = fc.string({ unit: fc.constantFrom('a', '/', '.', 'md', '\u0000', '\u001b', '\n', '\u0085', '\u202e', '\u2066', '\u061c'), minLength: 1, maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(part, fc.constantFrom('', 'https://', 'https://h/'), async (path, prefix) => {
        const docs = await splitter.createDocuments([MD, 'Plain words.\n'], [{ source: prefix + path }, { source: prefix + path }]);
        for (const d of docs) {
          for (const [key, value] of Object.entries(d.metadata)) {
            if (key !== 'source' && typeof value === 'string') expect(docNameControl(value), `${key}: ${JSON.stringify(value)}`).toBeNull();
          }
          expect(docNameControl(d.id!)).toBeNull();
        }
      }),
      { numRuns: 150 },
    );
  });
});
