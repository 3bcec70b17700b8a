/**
 * A leading byte order mark is not content (bom.ts): a document with one chunks as the same
 * document without it, every offset one further. Before, the fast parser missed a first
 * heading behind the mark and remark's records ended one character short.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkDocumentStream } from './index.js';
import type { ChunkOptions, ChunkRecord } from './types.js';

const BOM = '\ufeff';

/** A record as chunkDocument of the text after `shift` marks gives it, moved onto the whole source. */
function shifted(record: ChunkRecord, shift: number, totalChars: number): ChunkRecord {
  const { charStart, charEnd } = record.sourcePosition;
  return {
    ...record,
    sourcePosition: { charStart: charStart + shift, charEnd: charEnd + shift, totalChars },
    ...(record.removed ? { removed: record.removed.map((r) => ({ start: r.start + shift, end: r.end + shift })) } : {}),
  };
}

describe('a leading byte order mark', () => {
  it.each(['fast', 'remark'] as const)('is not content: the first heading is found and every chunk is whole (%s parser)', (parser) => {
    const source = `${BOM}# Title\n\nBody text.\n\n## Next\n\nMore text.\n`;
    const { chunks, fileTitle } = chunkDocument(source, { docName: 'd', parser, minTokens: 1, targetTokens: 4 });
    expect(fileTitle).toBe('Title');
    expect(chunks.map((c) => [c.sectionTitle, c.originalText, c.sourcePosition.charStart])).toEqual([
      ['Title', '# Title\n\nBody text.', 1],
      ['Next', '## Next\n\nMore text.', 22],
    ]);
    for (const c of chunks) {
      expect(source.slice(c.sourcePosition.charStart, c.sourcePosition.charEnd)).toBe(c.originalText);
      expect(c.sourcePosition.totalChars).toBe(source.length);
    }
    expect(chunks[0]!.source).toEqual({ filePath: 'd.md', startLine: 1, endLine: 3 });
  });

  it('moves front matter past the mark too', () => {
    const result = chunkDocument(`${BOM}---\ntitle: Front\n---\n# Real\n\nBody.\n`, { docName: 'd' });
    expect(result.fileTitle).toBe('Front');
    expect(result.frontMatter).toEqual({ start: 1, end: 22 });
  });

  const line = fc.oneof(
    fc.constantFrom('# Title', '## Setup', '### Deep', 'Title\n===', 'Plain prose that goes on.', 'Dr. Who said so. Then more.', '- item', '1. first', '> quoted', '```js', '```', '| a | b |', '| - | - |', '    indented', '', '\u00a0', `${BOM}inner mark`),
    fc.string({ maxLength: 40 }),
  );
  const body = fc.tuple(fc.array(line, { minLength: 1, maxLength: 30 }), fc.constantFrom('\n', '\r\n', '\r')).map(([ls, nl]) => ls.join(nl) + nl);
  const options = fc.record({
    strategy: fc.constantFrom('semantic' as const, 'token-window' as const, 'hierarchical' as const, 'paginate' as const),
    parser: fc.constantFrom('fast' as const, 'remark' as const),
    marks: fc.integer({ min: 1, max: 3 }),
  });

  it('gives the records of the text after it, every offset moved, in every strategy and parser (property)', () => {
    fc.assert(
      fc.property(body, options, (text, { marks, ...o }) => {
        const chunkOptions: Partial<ChunkOptions> = { docName: 'd', ...o, minTokens: 2, targetTokens: 12, maxTokens: 128, ctxSize: 600, bufSize: 0 };
        const source = BOM.repeat(marks) + text;
        const withMark = chunkDocument(source, chunkOptions, { recount: true });
        const without = chunkDocument(text, chunkOptions);
        expect(withMark.chunks).toEqual(without.chunks.map((r) => shifted(r, marks, source.length)));
        expect(withMark.fileTitle).toBe(without.fileTitle);
      }),
      { numRuns: 300 },
    );
  });

  it('streams the same records as chunkDocument (property)', () => {
    const long = fc.array(body, { minLength: 4, maxLength: 12 }).map((parts) => `# Top\n\n${parts.join('\n## Part\n\n')}`);
    fc.assert(
      fc.property(long, fc.integer({ min: 32, max: 512 }), (text, windowChars) => {
        const source = BOM + text;
        const streamed = chunkDocumentStream(source, { docName: 'd' }, { windowChars });
        expect([...streamed.chunks]).toEqual(chunkDocument(source, { docName: 'd' }).chunks);
      }),
      { numRuns: 100 },
    );
  });
});
