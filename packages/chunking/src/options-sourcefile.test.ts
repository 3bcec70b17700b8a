/**
 * The sourceFile a document's records carry: `chunkDocument(text, { sourceFile: 'a\u0000b.md' })`
 * put the NUL into every record's metadata.sourceFile and source.filePath, where docName refuses
 * it and the adapters show it as U+FFFD. sourceFileOf shows it too (not refused: a real path or
 * an MCP source id may hold one, and @chunkyard/store passes it as given).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkDocumentStream } from './index.js';
import { docNameControl, visibleDocName } from './interop.js';
import { resolveOptions, sourceFileOf } from './options.js';

const of = (options: Record<string, unknown>) => sourceFileOf(options, resolveOptions(options));

describe('sourceFileOf', () => {
  it('shows a control character of the caller\'s sourceFile as U+FFFD, as the adapters show it', () => {
    expect(of({ sourceFile: 'a\u0000b.md' })).toBe('a\ufffdb.md');
    expect(of({ sourceFile: 'docs/x\u001b[2J/notes\n.txt' })).toBe('docs/x\ufffd[2J/notes\ufffd.txt');
    expect(of({ sourceFile: 'rtl\u202egpj.md' })).toBe('rtl\ufffdgpj.md');
    // What the LangChain and LlamaIndex adapters give for the same path (visibleDocName).
    expect(of({ sourceFile: 'a\tb.md' })).toBe(visibleDocName('a\tb.md'));
  });

  it('keeps a clean path as given, and is <docName>.md without one', () => {
    expect(of({ sourceFile: 'guide/std::vector.md' })).toBe('guide/std::vector.md');
    expect(of({ sourceFile: '' })).toBe('');
    expect(of({})).toBe('document.md');
    expect(of({ docName: 'kb-42' })).toBe('kb-42.md');
  });

  it('holds no control character, changes nothing else, and keeps a .txt extension (property)', () => {
    const unit = fc.constantFrom('a', '/', '.', 'txt', 'md', ' ', 'é', '😀', '\u0000', '\t', '\n', '\u001b', '\u007f', '\u0085', '\u061c', '\u200e', '\u202e', '\u2066', '\u2069');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 24 }), fc.boolean(), (path, txt) => {
        const given = txt ? `${path}.txt` : path;
        const shown = of({ sourceFile: given });
        expect(docNameControl(shown)).toBeNull();
        const a = [...given];
        const b = [...shown];
        expect(b).toHaveLength(a.length);
        a.forEach((ch, i) => expect(b[i]).toBe(docNameControl(ch) === null ? ch : '\ufffd'));
        if (txt) expect(shown.endsWith('.txt')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('is what chunkDocument and chunkDocumentStream store: no record carries the NUL (was raw in every record)', () => {
    const text = `# T\n\n${'Words in a paragraph here. '.repeat(400)}`;
    for (const strategy of ['semantic', 'hierarchical', 'token-window', 'paginate'] as const) {
      const { chunks } = chunkDocument(text, { sourceFile: 'a\u0000b.md', strategy });
      expect(chunks.length).toBeGreaterThan(0);
      for (const c of chunks) {
        expect(c.metadata.sourceFile).toBe('a\ufffdb.md');
        expect(JSON.stringify(c)).not.toContain('\\u0000');
      }
    }
    const streamed = [...chunkDocumentStream(text, { sourceFile: 'a\u0000b.md' }).chunks];
    expect(streamed.length).toBeGreaterThan(1);
    for (const c of streamed) expect(c.metadata.sourceFile).toBe('a\ufffdb.md');
  });
});
