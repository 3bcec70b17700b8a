// Seed 001 §7: chunk 0 is the overview (conceptual baseline) and chunk 1 may be a
// Quick Reference (technical baseline). In real docs the overview is short, so the
// packer used to merge it forward into the reference section: chunk 0 held both and
// the topic had no technical baseline. A reference-titled section starts its own chunk.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { TECHNICAL_TITLE } from './semantic.js';
import type { ChunkRecord } from './types.js';

const prose = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `The ${topic} step ${i + 1} configures how widgets are rendered, cached and styled on a page.`).join(' ');

/** Shaped like a Microsoft Learn article: front matter, a two-sentence overview, then the reference section. */
const article = (title: string) => `---
title: Render widgets
ms.date: 2025-04-01
---
# Render widgets with the Widgets library

The Widgets library renders reusable parts of a page. This article shows how to install it and configure rendering.

## ${title}

| API | Purpose |
| --- | --- |
| \`widget.create(options)\` | makes a widget from options |
| \`widget.render(target)\` | renders a widget into a DOM node |
| \`widget.dispose()\` | releases the widget's resources |

\`\`\`js
const w = widget.create({ id: 1, theme: 'dark' });
w.render(document.querySelector('#app'));
\`\`\`

## Install the library

${prose('install', 14)}

## Configure rendering

${prose('configure', 14)}

### Caching

${prose('caching', 10)}

## Troubleshooting

${prose('troubleshooting', 12)}
`;

const titled = (chunks: ChunkRecord[]) => chunks.map((c) => c.sectionTitle);

describe('a reference section starts its own chunk (seed 001 technical baseline)', () => {
  it.each(['Quick reference', 'API Reference', 'Cheat sheet', 'Cheat-Sheet'])('"## %s" after a short overview is chunk 1', (title) => {
    const { chunks } = chunkDocument(article(title), { docName: 'widgets' }, { recount: true });
    // The overview is far below seed 001's minTokens (64), yet it stays chunk 0 on its own.
    expect(chunks[0]!.tokenStats.tokens).toBeLessThan(64);
    expect(chunks[0]!.originalText).not.toContain(`## ${title}`);
    expect(chunks[0]!.sectionTitle).toBe('Render widgets with the Widgets library');
    expect(chunks[1]!.originalText.startsWith(`## ${title}`)).toBe(true);
    expect(chunks[1]!.sectionTitle).toBe(title);
    expect(TECHNICAL_TITLE.test(chunks[1]!.sectionTitle)).toBe(true);
  });

  it('leaves other sections to the usual packing: a short overview still merges into a plain next section', () => {
    // Seed 001's sizes (min 64): the default min of 16 keeps most short overviews apart anyway.
    const { chunks } = chunkDocument(article('Overview of the API'), { docName: 'widgets', minTokens: 64, targetTokens: 400 });
    expect(chunks[0]!.originalText).toContain('## Overview of the API');
    expect(titled(chunks)).not.toContain('Overview of the API');
  });

  it('keeps a bare title heading with the reference section it introduces', () => {
    const md = `# Widgets\n\n## Quick Reference\n\n${prose('reference', 6)}\n\n## Install\n\n${prose('install', 30)}\n`;
    const { chunks } = chunkDocument(md, { docName: 'widgets' });
    expect(chunks[0]!.originalText.startsWith('# Widgets\n\n## Quick Reference')).toBe(true);
  });

  it('lets a short reference section take the sections after it, never the one before', () => {
    const md = `# Widgets\n\n${prose('intro', 3)}\n\n## API reference\n\nCall \`widget.create\`.\n\n## Install\n\n${prose('install', 3)}\n`;
    const { chunks } = chunkDocument(md, { docName: 'widgets' });
    expect(chunks).toHaveLength(2);
    expect(chunks[1]!.originalText.startsWith('## API reference')).toBe(true);
    expect(chunks[1]!.originalText).toContain('## Install');
  });

  it('holds in random documents: the chunk holding a reference heading has only headings before it (property)', () => {
    const sentence = fc.array(fc.constantFrom('widgets', 'render', 'the', 'page', 'cache', 'theme', 'of', 'options'), { minLength: 4, maxLength: 14 }).map((w) => `${w.join(' ')}.`);
    const paragraph = fc.array(sentence, { minLength: 1, maxLength: 30 }).map((s) => s.join(' '));
    const heading = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom('Install', 'Configure', 'Usage', 'Details')).map(([d, t]) => `${'#'.repeat(d)} ${t}`);
    const reference = fc.tuple(fc.integer({ min: 2, max: 3 }), fc.constantFrom('Quick Reference', 'API reference', 'Cheat sheet')).map(([d, t]) => `${'#'.repeat(d)} ${t}`);
    const blocks = fc.array(fc.oneof({ weight: 3, arbitrary: paragraph }, { weight: 2, arbitrary: heading }, { weight: 1, arbitrary: reference }), { minLength: 1, maxLength: 25 });
    const options = fc.record({ minTokens: fc.integer({ min: 0, max: 120 }), overlapSentences: fc.integer({ min: 0, max: 3 }) });
    fc.assert(
      fc.property(blocks, options, (bs, o) => {
        const source = `${bs.join('\n\n')}\n`;
        const { chunks } = chunkDocument(source, { ...o, targetTokens: 200, maxTokens: 256 }, { recount: true });
        const lineStarts = [...source.matchAll(/^#{2,3} (Quick Reference|API reference|Cheat sheet)$/gm)].map((m) => m.index);
        for (const at of lineStarts) {
          const holder = chunks.find((c) => c.sourcePosition.charStart <= at && at < c.sourcePosition.charEnd && !c.splitUnit);
          if (!holder) continue;
          const before = source.slice(holder.sourcePosition.charStart, at);
          expect(before.split('\n').every((line) => line.trim() === '' || /^#{1,6} /.test(line))).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('opensTechnicalBaseline', () => {
  it('answers as TECHNICAL_TITLE does for short and long titles (its length shortcut skips no match)', async () => {
    const { opensTechnicalBaseline } = await import('./semantic.js');
    const piece = (text: string) => ({ type: 'heading', text, start: 0, end: text.length, startLine: 0, endLine: 0 }) as Parameters<typeof opensTechnicalBaseline>[0];
    const words = ['reference', 'Reference', 'REFERENCE', 'quick', 'api', 'cheat', 'sheet', '-', ' ', '\t', 'x', 'refer', 'ence', 'ſ', 'K'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { maxLength: 6 }), fc.string({ maxLength: 12 }), (ws, extra) => {
        const text = ws.join('') + extra;
        expect(opensTechnicalBaseline(piece(text))).toBe(TECHNICAL_TITLE.test(text));
      }),
    );
    expect(opensTechnicalBaseline(piece('Reference'))).toBe(true);
    expect(opensTechnicalBaseline(piece('Referenc'))).toBe(false);
  });
});
