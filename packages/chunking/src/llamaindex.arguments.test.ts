/**
 * ChunkyardNodeParser.getNodesFromDocuments with arguments that are not documents (session 59's
 * probe): each threw a TypeError from inside LlamaIndex or the parser that named no argument.
 */
import { Document } from 'llamaindex';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { docNameControl } from './interop.js';
import { ChunkyardNodeParser } from './llamaindex.js';

const MD = '# T\n\nText here.\n';

describe('getNodesFromDocuments names a wrong argument', () => {
  it('refuses documents that are not an array, a document that is not an object, metadata that is not an object', () => {
    const parser = new ChunkyardNodeParser();
    expect(() => parser.getNodesFromDocuments(null as never)).toThrow(new TypeError('ChunkyardNodeParser: documents must be an array of Documents, got null'));
    expect(() => parser.getNodesFromDocuments(MD as never)).toThrow(new TypeError('ChunkyardNodeParser: documents must be an array of Documents, got a string'));
    const good = new Document({ id_: 'a', text: MD });
    expect(() => parser.getNodesFromDocuments([good, null as never])).toThrow(new TypeError('ChunkyardNodeParser: documents[1] must be a Document, got null'));
    expect(() => parser.getNodesFromDocuments([good, 5 as never])).toThrow(new TypeError('ChunkyardNodeParser: documents[1] must be a Document, got number'));
    const bare = new Document({ id_: 'b', text: MD });
    (bare as { metadata: unknown }).metadata = null;
    expect(() => parser.getNodesFromDocuments([good, bare])).toThrow(new TypeError('ChunkyardNodeParser: documents[1].metadata must be an object, got null'));
  });

  it('still parses Documents, with their metadata merged and node ids unique', () => {
    const parser = new ChunkyardNodeParser();
    const nodes = parser.getNodesFromDocuments([new Document({ id_: 'a', text: MD, metadata: { team: 'x' } }), new Document({ id_: 'a', text: MD })]);
    // The second's name is numbered too, so its metadata's chunk ids are its own.
    expect(nodes.map((n) => n.id_)).toEqual(['a/doc:a::ch0', 'a#2/doc:a#2::ch0']);
    expect(nodes[0]!.metadata.team).toBe('x');
    expect(nodes[1]!.metadata.team).toBeUndefined();
  });
});

describe('ChunkyardNodeParser reads its options by name (a class instance\'s getters were ignored, the defaults used)', () => {
  it('takes getters on the prototype like own keys', () => {
    const source = `# T\n\n${'Sentence number one is here. '.repeat(200)}`;
    class Options {
      get maxTokens(): number {
        return 64;
      }
      get targetTokens(): number {
        return 48;
      }
    }
    const doc = () => [new Document({ id_: 'a', text: source })];
    const fromClass = new ChunkyardNodeParser(new Options() as never);
    expect(fromClass.chunkOptions).toEqual({ maxTokens: 64, targetTokens: 48 });
    const plain = new ChunkyardNodeParser({ maxTokens: 64, targetTokens: 48 }).getNodesFromDocuments(doc());
    expect(fromClass.getNodesFromDocuments(doc()).map((n) => n.text)).toEqual(plain.map((n) => n.text));
    expect(plain.length).toBeGreaterThan(20);
  });
});

describe('a document name derived from the metadata', () => {
  it('shows a control character in file_name or the id as U+FFFD rather than failing the parse (session 62: chunkDocument refuses them in docName)', () => {
    const parser = new ChunkyardNodeParser();
    const nodes = parser.getNodesFromDocuments([new Document({ id_: 'a', text: MD, metadata: { file_name: 'a\tb.md' } }), new Document({ id_: 'c\u202ed', text: MD })]);
    expect(nodes.map((n) => n.id_)).toEqual(['a/doc:a\ufffdb::ch0', 'c\u202ed/doc:c\ufffdd::ch0']);
    // sourceFile too (it kept the raw tab, NUL or ESC where the chunk id showed them); the
    // document's own file_name, merged in, is the caller's and kept as given.
    expect(nodes[0]!.metadata.sourceFile).toBe('a\ufffdb.md');
    expect(nodes[0]!.metadata.file_name).toBe('a\tb.md');
    const [byPath] = parser.getNodesFromDocuments([new Document({ id_: 'p', text: MD, metadata: { file_path: '/x/a\u0000b\u001b.md' } })]);
    expect([byPath!.metadata.chunkId, byPath!.metadata.sourceFile]).toEqual(['doc:/x/a\ufffdb\ufffd::ch0', 'a\ufffdb\ufffd.md']);
  });

  it('adds no control character of a file_path or file_name to a metadata value of its own (property)', () => {
    const parser = new ChunkyardNodeParser();
    const part = fc.string({ unit: fc.constantFrom('a', '/', '.', 'md', '\u0000', '\u001b', '\t', '\u0085', '\u202e', '\u2066', '\u061c'), minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(part, fc.option(part, { nil: undefined }), (path, name) => {
        const metadata = { file_path: path, ...(name !== undefined ? { file_name: name } : {}) };
        const nodes = parser.getNodesFromDocuments([new Document({ id_: 'd', text: MD, metadata }), new Document({ id_: 'e', text: 'Plain words.\n', metadata })]);
        for (const n of nodes) {
          for (const [key, value] of Object.entries(n.metadata)) {
            if (key !== 'file_path' && key !== 'file_name' && typeof value === 'string') expect(docNameControl(value), `${key}: ${JSON.stringify(value)}`).toBeNull();
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
