// fallbackTitle: the title of a document that names none (no front matter title, no H1), for a
// caller that knows it by another name than its file (chunking-tool: a topic's folder, since
// every topic's document is golden-reference.md). Both paths, chunkDocument and the stream.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headingLabel } from './heading-label.js';
import { chunkDocument, chunkDocumentStream } from './index.js';
import { lineTable } from './lines.js';
import { ChunkOptionsError } from './options.js';
import { deriveFileTitle } from './semantic.js';
import type { Block, BlockType } from './types.js';

const titles = (source: string, options: Record<string, unknown>) => {
  const whole = chunkDocument(source, { docName: 'golden-reference', ...options });
  const stream = chunkDocumentStream(source, { docName: 'golden-reference', ...options });
  return { whole: whole.fileTitle, stream: stream.fileTitle, records: [...whole.chunks.map((c) => c.fileTitle), ...[...stream.chunks].map((c) => c.fileTitle)] };
};

describe('fallbackTitle', () => {
  const body = 'Install it.\n\n## Steps\n\nRun the tool once.\n';
  it('titles a document that names none, in the result and every record, whole and streamed', () => {
    const { whole, stream, records } = titles(body, { fallbackTitle: 'install-guide' });
    expect([whole, stream]).toEqual(['install-guide', 'install-guide']);
    expect(records.length).toBeGreaterThan(0);
    expect(new Set(records)).toEqual(new Set(['install-guide']));
    expect(titles(body, {}).whole).toBe('golden-reference');
    // Blank is as good as none.
    expect(titles(body, { fallbackTitle: '  ' }).whole).toBe('golden-reference');
  });

  it('gives way to an H1, a front matter title and fileTitle', () => {
    expect(titles(`# Installing\n\n${body}`, { fallbackTitle: 'install-guide' }).whole).toBe('Installing');
    expect(titles(`---\ntitle: From front matter\n---\n\n${body}`, { fallbackTitle: 'install-guide' }).stream).toBe('From front matter');
    expect(titles(body, { fallbackTitle: 'install-guide', fileTitle: 'Given' }).whole).toBe('Given');
  });

  it('is a per-document option: not in the recorded options or the strategy key, and a non-string is refused', () => {
    const a = chunkDocument(body, { fallbackTitle: 'x' });
    const b = chunkDocument(body, {});
    expect(a.strategyKey).toBe(b.strategyKey);
    expect(a.options).toEqual(b.options);
    expect(() => chunkDocument(body, { fallbackTitle: 5 as unknown as string })).toThrow(new ChunkOptionsError('fallbackTitle must be a string, got 5'));
  });
});

describe('deriveFileTitle', () => {
  // The first depth-1 heading whose text is not blank, read by a loop of its own since session
  // 69: held to the `.find` it replaced, over blocks of every kind a heading can be confused with.
  const block = fc.record({
    type: fc.constantFrom<BlockType>('heading', 'paragraph', 'list'),
    depth: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    text: fc.option(fc.constantFrom('', '  ', 'Title', ' Spaced ', '\tTab'), { nil: undefined }),
  });
  it('takes the first H1 with text, past blank ones and other depths, else the fallback', () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 12 }), (specs) => {
        const blocks = specs.map((s, k) => ({ ...s, start: k, end: k + 1, startLine: k, endLine: k }) as Block);
        const h1 = blocks.find((b) => b.type === 'heading' && b.depth === 1 && b.text?.trim());
        const want = headingLabel(h1?.text ? h1.text.trim() : 'fallback');
        expect(deriveFileTitle({ blocks, frontMatter: null, lines: lineTable('') }, 'fallback')).toBe(want);
      }),
    );
  });
});
