/**
 * The anchors keep hidden classes alive between documents, not documents: what they reach after
 * a call must not grow with the document chunked (a 10 MB document of tiny headings left 414 MiB
 * anchored until the next call).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkDocumentStream } from './index.js';
import { blockExemplars } from './semantic.js';
import { anchoredForTests, exemplars } from './shape-anchor.js';
import type { Block } from './types.js';
import type { ChunkOptions, StrategyName } from './types.js';

/** Objects, array slots and typed-array bytes reachable from `roots` (strings count as one each). */
function reach(roots: readonly unknown[]): { objects: number; slots: number; bytes: number } {
  const seen = new Set<object>();
  const stack: unknown[] = [...roots];
  let slots = 0;
  let bytes = 0;
  while (stack.length) {
    const v = stack.pop();
    if (v === null || (typeof v !== 'object' && typeof v !== 'function') || seen.has(v)) continue;
    seen.add(v);
    if (ArrayBuffer.isView(v)) {
      bytes += v.byteLength;
      continue;
    }
    if (v instanceof Map) {
      slots += v.size;
      for (const [k, x] of v) stack.push(k, x);
      continue;
    }
    if (v instanceof Set) {
      slots += v.size;
      for (const x of v) stack.push(x);
      continue;
    }
    if (Array.isArray(v)) slots += v.length;
    // Own fields, private-by-convention ones included (TypeScript's `private` is a plain field).
    for (const key of Object.getOwnPropertyNames(v)) {
      const d = Object.getOwnPropertyDescriptor(v, key);
      if (d && 'value' in d) stack.push(d.value);
    }
  }
  return { objects: seen.size, slots, bytes };
}

/** What the anchors reach, the module-wide ones (markdown-it's, made once) included. */
const anchoredReach = () => reach([...anchoredForTests().values()]);

const tinyHeadings = (n: number) => Array.from({ length: n }, (_, i) => `# h${i % 100}\n`).join('');
const longList = (n: number) => `# List\n\n${Array.from({ length: n }, (_, i) => `- item ${i}\n`).join('')}`;
const prose = (n: number) =>
  Array.from({ length: n }, (_, i) => `${i % 12 === 0 ? `## Section ${i}\n\n` : ''}The parser reads the option ${i} and writes the output. It counts tokens.\n\n`).join('');
const tinyLines = (n: number) => `# Lines\n\n## One\n\n## Two\n\n${Array.from({ length: n }, (_, i) => `x${i % 10}\n`).join('')}`;
const bigQuote = (n: number) => `# Quote\n\n${Array.from({ length: n }, (_, i) => `> paragraph ${i} of the quote.\n>\n`).join('')}`;
const nestedList = (n: number) => `# Nested\n\n- top\n${Array.from({ length: n }, (_, i) => `  - inner ${i}\n`).join('')}`;
const table = (n: number) => `# Table\n\n| a | b |\n| - | - |\n${Array.from({ length: n }, (_, i) => `| ${i} | v${i} |\n`).join('')}`;

describe('anchored parser states', () => {
  // First in this file, so that the module's first parse is this document's.
  it('hold no document, not even the first one chunked', () => {
    chunkDocument(tinyHeadings(3000), { docName: 'first' });
    const states = [...anchoredForTests()].filter(([kind]) => kind.startsWith('markdown-it') && kind.endsWith('state'));
    expect(states.map(([kind]) => kind).sort()).toEqual(['markdown-it block state', 'markdown-it core state', 'markdown-it inline state']);
    for (const [kind, state] of states) expect((state as { src: string }).src, kind).toBe('');
  });
});

describe('anchors', () => {
  const shapes = { tinyHeadings, longList, prose, tinyLines, table, bigQuote, nestedList };
  for (const strategy of ['semantic', 'hierarchical', 'paginate', 'token-window'] as StrategyName[]) {
    for (const [name, shape] of Object.entries(shapes)) {
      it(`reach as much after ${name} ×8 as after ×1 (${strategy})`, () => {
        const options: Partial<ChunkOptions> = { docName: 'anchored', strategy };
        // The smaller twice, so that what is made once (on first use) is there for both.
        chunkDocument(shape(2000), options);
        chunkDocument(shape(2000), options);
        const small = anchoredReach();
        chunkDocument(shape(16000), options);
        const large = anchoredReach();
        // Exemplars are a few dozen of each kind whatever the size; a document's working set is
        // tens of thousands (16,000 headings: 16,000 blocks, 16,000 pieces and their columns).
        expect(large.objects).toBeLessThan(small.objects + 200);
        expect(large.slots).toBeLessThan(small.slots + 400);
        expect(large.bytes).toBeLessThan(small.bytes + 64 * 1024);
      });
    }
  }
});

describe('anchors after a stream', () => {
  const consume = (source: string) => {
    for (const record of chunkDocumentStream(source, { docName: 'streamed' }, { windowChars: 4096 }).chunks) void record;
  };
  for (const [name, shape] of Object.entries({ tinyHeadings, bigQuote, prose })) {
    it(`reach as much after ${name} ×8 as after ×1`, () => {
      consume(shape(2000));
      consume(shape(2000));
      const small = anchoredReach();
      consume(shape(16000));
      const large = anchoredReach();
      expect(large.objects).toBeLessThan(small.objects + 200);
      expect(large.slots).toBeLessThan(small.slots + 400);
      expect(large.bytes).toBeLessThan(small.bytes + 64 * 1024);
    });
  }
});

describe('exemplars', () => {
  it('keeps each end, the first of every kind between, in order, and at most 2 × 16 + kinds', () => {
    fc.assert(
      // Runs of one kind (as a document's blocks come), each item an object of its own, so that
      // which item of a kind was kept shows.
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 1, max: 40 })), { maxLength: 60 }), (runs) => {
        const items = runs.flatMap(([kind, length]) => Array.from({ length }, () => ({ kind })));
        const kept = exemplars(items, (x) => x.kind);
        const n = items.length;
        if (n <= 32) {
          expect(kept).toEqual(items);
          kept.forEach((x, i) => expect(x).toBe(items[i]));
          return;
        }
        const head = items.slice(0, 16);
        const tail = items.slice(n - 16);
        const middle: { kind: number }[] = [];
        const kinds = new Set(head.map((x) => x.kind));
        for (const x of items.slice(16, n - 16)) {
          if (!kinds.has(x.kind)) {
            kinds.add(x.kind);
            middle.push(x);
          }
        }
        const want = [...head, ...middle, ...tail];
        expect(kept.length).toBe(want.length);
        kept.forEach((x, i) => expect(x).toBe(want[i]));
        expect(kept.length).toBeLessThanOrEqual(32 + 10);
      }),
    );
  });

  it('is a new array, not the one given', () => {
    const items = [1, 2, 3];
    expect(exemplars(items)).not.toBe(items);
  });
});

describe('blockExemplars', () => {
  const heading = (text: string, line: number): Block => ({ type: 'heading', depth: 2, text, start: line * 10, end: line * 10 + 5, startLine: line, endLine: line });
  const paragraph = (line: number): Block => ({ type: 'paragraph', start: line * 10, end: line * 10 + 5, startLine: line, endLine: line });

  it('anchors no heading text over 1,024 characters, at the top or inside a container, and keeps the blocks around it', () => {
    const long = heading('x'.repeat(1025), 0);
    const short = heading('y'.repeat(1024), 2);
    const p = paragraph(1);
    const inner = heading('z'.repeat(5000), 3);
    const innerParagraph = paragraph(4);
    const item: Block = { type: 'listItem', start: 30, end: 50, startLine: 3, endLine: 4, children: [inner, innerParagraph] };
    const list: Block = { type: 'list', ordered: false, start: 30, end: 50, startLine: 3, endLine: 4, children: [item] };
    const kept = blockExemplars([long, p, short, list]);
    expect(kept).toContain(p);
    expect(kept).toContain(short);
    expect(kept).toContain(innerParagraph);
    expect(kept).not.toContain(long);
    expect(kept).not.toContain(inner);
    expect(kept).not.toContain(list);
    expect(kept).not.toContain(item);
  });
});
