/**
 * Issue 15: a heading's label is bounded, so the records under a huge heading grow with the
 * input, not with (heading length × chunks under it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HEADING_LABEL_MAX, headingLabel } from './heading-label.js';
import { chunkDocument } from './index.js';
import { visibleDocName } from './interop.js';
import { deriveFileTitle, documentBlocks } from './semantic.js';
import type { ChunkOptions } from './types.js';

const WORDS = 'the of and to in a is that for it as was with be by on not'.split(' ');
const wordsOf = (chars: number): string => {
  let s = '';
  for (let i = 0; s.length < chars; i++) s += `${WORDS[i % WORDS.length]} `;
  return s.trim();
};

describe('headingLabel', () => {
  it('keeps a heading of up to HEADING_LABEL_MAX characters as it is', () => {
    const text = 'x'.repeat(HEADING_LABEL_MAX);
    expect(headingLabel(text)).toBe(text);
    expect(headingLabel('Install')).toBe('Install');
  });

  it('cuts a longer one after its last whole word that fits, with …', () => {
    const label = headingLabel(wordsOf(1000));
    expect(label.endsWith('…')).toBe(true);
    const kept = label.slice(0, -1);
    expect(label.length).toBeLessThanOrEqual(HEADING_LABEL_MAX);
    expect(wordsOf(1000).startsWith(`${kept} `)).toBe(true);
    expect(headingLabel(label)).toBe(label);
  });

  it('cuts a first word longer than the limit inside it, never between a surrogate pair', () => {
    expect(headingLabel('a'.repeat(300))).toBe(`${'a'.repeat(HEADING_LABEL_MAX - 1)}…`);
    const emoji = '😀'.repeat(200); // 400 code units: a pair straddles the cut at 255/256
    const label = headingLabel(`x${emoji}`);
    expect(label.slice(0, -1)).toBe(`x${'😀'.repeat(127)}`);
    // Here the cut falls between the two halves of a pair: the pair goes.
    expect(headingLabel(`xx${emoji}`).slice(0, -1)).toBe(`xx${'😀'.repeat(126)}`);
  });

  it('property: short texts are kept; long ones give a bounded, well-formed prefix with …', () => {
    const unit = fc.oneof(fc.constantFrom(' ', '\t', 'a', 'é', '😀', '中', 'ab', 'word '), fc.string({ unit: 'grapheme', maxLength: 3 }));
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 400 }).map((parts) => parts.join('').trim()), (text) => {
        const label = headingLabel(text);
        if (text.length <= HEADING_LABEL_MAX) {
          expect(label).toBe(text);
          return;
        }
        expect(label.endsWith('…')).toBe(true);
        const kept = label.slice(0, -1);
        expect(label.length).toBeLessThanOrEqual(HEADING_LABEL_MAX);
        expect(text.startsWith(kept)).toBe(true);
        expect(headingLabel(label)).toBe(label);
        expect(kept).toBe(kept.trimEnd());
        // Valid UTF-16: no lone surrogate at the cut.
        expect(() => encodeURIComponent(kept)).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });
});

describe('records under a huge heading', () => {
  const STRATEGIES: Partial<ChunkOptions>[] = [{}, { strategy: 'hierarchical' }, { strategy: 'paginate' }, { strategy: 'token-window' }];
  const huge = wordsOf(40_000);
  const shapes: [string, string][] = [
    ['an h2', `# Title\n\n## ${huge}\n\nBody.\n`],
    ['an h1 (the file title)', `# ${huge}\n\nBody text.\n`],
    ['a setext h2', `Title\n=====\n\n${huge}\n----\n\nBody.\n`],
  ];

  it.each(shapes)('%s of 40,000 characters: records stay within a fixed multiple of the input and keep every word', (_, source) => {
    for (const opts of STRATEGIES) {
      const { chunks, fileTitle } = chunkDocument(source, { docName: 'doc', ...opts });
      let bytes = 0;
      for (const c of chunks) {
        bytes += JSON.stringify(c).length;
        for (const name of c.headerPath) expect(name.length).toBeLessThanOrEqual(HEADING_LABEL_MAX);
        expect(c.sectionTitle.length).toBeLessThanOrEqual(HEADING_LABEL_MAX);
        expect(c.sectionSlug.length).toBeLessThanOrEqual(HEADING_LABEL_MAX);
      }
      expect(fileTitle.length).toBeLessThanOrEqual(HEADING_LABEL_MAX);
      // Unbounded labels made 360-440 bytes of records per input byte here; prose makes about 5.
      expect(bytes / source.length).toBeLessThan(40);
      // The chunk texts still hold the whole heading.
      const squeeze = (t: string): string => t.replace(/\s+/g, '');
      expect(squeeze(chunks.map((c) => c.originalText).join(''))).toContain(squeeze(huge.slice(-200)));
    }
  });

  it('a caller-given fileTitle and a front-matter title are bounded too', () => {
    const long = wordsOf(5000);
    expect(chunkDocument('# T\n\nBody.\n', { docName: 'doc', fileTitle: long }).fileTitle).toBe(headingLabel(long));
    expect(chunkDocument(`---\ntitle: ${long}\n---\n\n# T\n\nBody.\n`, { docName: 'doc' }).fileTitle).toBe(headingLabel(long));
  });
});

describe('the derived file title', () => {
  // chunkDocument labels only a caller's title: deriveFileTitle labels the one it derives.
  const piece = fc.oneof(
    fc.constantFrom('*em*', '**strong**', '`code`', '\\*', '\\#', '&amp;', '[link](u)', '<b>', '\u0000', '\u0007', '\u001b[1m', '\u00a0', '\t', '😀', ' ', 'word'),
    fc.string({ maxLength: 8 }),
  );
  const title = fc.array(piece, { maxLength: 120 }).map((parts) => parts.join(''));
  it('is headingLabel of itself, as chunkDocument returned it before (property)', () => {
    fc.assert(
      fc.property(title, fc.constantFrom('h1', 'front matter', 'none'), (t, where) => {
        const line = t.replace(/[\r\n]/g, ' ');
        const source =
          where === 'h1' ? `# ${line}\n\nBody text.\n` : where === 'front matter' ? `---\ntitle: ${JSON.stringify(line)}\n---\n\nBody text.\n` : 'Body text.\n';
        // A docName holds no control character (resolveOptions refuses one since session 62).
        const docName = visibleDocName(line).trim() || 'doc';
        const derived = deriveFileTitle(documentBlocks(source, 'fast'), docName);
        expect(headingLabel(derived)).toBe(derived);
        expect(chunkDocument(source, { docName }).fileTitle).toBe(derived);
      }),
      { numRuns: 300 },
    );
  });
});
