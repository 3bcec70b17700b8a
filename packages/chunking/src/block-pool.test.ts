import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { idleBlockPoolForTests, setBlockPoolingForTests } from './block-pool.js';
import { chunkDocument, chunkDocumentStream, documentBlocks } from './index.js';
import type { ChunkOptions } from './types.js';

fc.configureGlobal({ seed: 20261128 });

afterEach(() => setBlockPoolingForTests(true));

/** Documents of the blocks the pool makes (headings, paragraphs, rules, HTML), with others between. */
const line = fc.oneof(
  fc.constantFrom('# Title', '## Part', '### h1', 'Setext', '===', '---', '***', '* * *', '___', '<div>x</div>', '', '', 'plain words here.', 'p1', '- item', '1. one', '> quote', '> # Quoted head', 'lazy', '```', 'code()', '[a]: /u', 'Page 3 of 9'),
  fc.string({ unit: fc.constantFrom('a', 'b', ' ', '#', '*', '-', '.'), maxLength: 12 }),
);
const documents = fc.array(line, { maxLength: 60 }).map((lines) => lines.join('\n'));
const options = fc.record({
  maxTokens: fc.constantFrom(16, 64, 512),
  strategy: fc.constantFrom('semantic', 'hierarchical', 'paginate', 'token-window' as const),
}).map((o): Partial<ChunkOptions> => ({ ...o, minTokens: 4, targetTokens: Math.min(o.maxTokens, 48), docName: 'pool' }));

/** chunkDocument's result with no pool at all: every block a fresh object. */
function unpooled(text: string, o: Partial<ChunkOptions>): unknown {
  setBlockPoolingForTests(false);
  try {
    return chunkDocument(text, o);
  } finally {
    setBlockPoolingForTests(true);
  }
}

describe('block pool (block-pool.ts)', () => {
  it('gives every call the records fresh blocks give, whatever the call before it chunked', () => {
    fc.assert(
      fc.property(documents, documents, options, (before, text, o) => {
        chunkDocument(before, { docName: 'before', maxTokens: 32, minTokens: 4, targetTokens: 24 });
        expect(chunkDocument(text, o)).toEqual(unpooled(text, o));
      }),
      { numRuns: 400 },
    );
  });

  it('refills the last call\'s blocks, and keeps none of its texts', () => {
    const rules = (n: number): string => `# Rules\n\n${'***\n'.repeat(n)}`;
    const headings = Array.from({ length: 300 }, (_, i) => `## heading number ${i}\n\nText ${i}.\n`).join('');
    const lists = Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? `- item number ${i}\n` : `1. item number ${i}\n`)).join('');
    chunkDocument(rules(300), { docName: 'first' });
    const pool = idleBlockPoolForTests();
    expect(pool).not.toBeNull();
    const before = pool!.refilled;
    chunkDocument(rules(250), { docName: 'second' });
    // The H1 and the 250 rules, refilled from the objects the first call handed back.
    expect(idleBlockPoolForTests()).toBe(pool);
    expect(pool!.refilled - before).toBe(251);
    chunkDocument(headings, { docName: 'third' });
    chunkDocument(lists, { docName: 'fourth' });
    chunkDocument(lists.replaceAll('item number', 'entry'), { docName: 'fifth' });
    // Lists alternating their marker: a list and an item a line, refilled by the fifth call.
    expect(pool!.refilled - before).toBeGreaterThan(251 + 600);
    // Quotes of one heading, each ended by a lazy line (a quote and a paragraph a pair of lines).
    const quotes = (word: string): string => Array.from({ length: 200 }, (_, i) => `> # ${word} ${i}\nlazy ${i}\n`).join('');
    chunkDocument(quotes('head'), { docName: 'sixth' });
    const beforeQuotes = pool!.refilled;
    chunkDocument(quotes('title'), { docName: 'seventh' });
    expect(pool!.refilled - beforeQuotes).toBeGreaterThanOrEqual(400);
    // Handed back, its blocks hold no string of the documents they were made for.
    const held = JSON.stringify(pool);
    expect(held).not.toContain('heading number');
    expect(held).not.toContain('entry');
  });

  it('is not refilled under a stream that is still being read', () => {
    const text = Array.from({ length: 400 }, (_, i) => `## Part ${i}\n\nParagraph ${i} says something.\n\n***\n`).join('\n');
    const other = `# Other\n\n${'---\n\nline\n\n'.repeat(200)}`;
    const whole = [...chunkDocumentStream(text, { docName: 'streamed', maxTokens: 64, targetTokens: 48 }).chunks].map((r) => r.originalText);
    const read: string[] = [];
    for (const record of chunkDocumentStream(text, { docName: 'streamed', maxTokens: 64, targetTokens: 48 }).chunks) {
      read.push(record.originalText);
      // A call between two records of the stream: its pool must not be the stream's blocks.
      if (read.length % 5 === 0) chunkDocument(other, { docName: 'between' });
    }
    expect(read).toEqual(whole);
  });

  it('never hands a pooled object to a caller of documentBlocks', () => {
    const text = `# Title\n\n${'para\n\n***\n\n## sub\n\n'.repeat(50)}`;
    chunkDocument(text, { docName: 'first' });
    const blocks = documentBlocks(text, 'fast').blocks;
    const copy = structuredClone(blocks);
    // A later call refills the pool: the caller's blocks must not change under it.
    chunkDocument(`# Other\n\n${'x\n\n- - -\n\n'.repeat(120)}`, { docName: 'second' });
    expect(blocks).toEqual(copy);
  });

  it('lends a call\'s large block arrays to the next, with the records fresh arrays give', () => {
    // Past 8,192 blocks a BlockArray is one array made at its extrapolated size (fast-lists.ts):
    // from the last call's spare when one is long enough. Each shape sends it through another
    // maker: direct blocks, the plain-text path, a long list's items, quotes, lists a line.
    const n = 9000;
    const shapes: Record<string, string> = {
      rules: `# Rules\n\n## One\n\n## Two\n\n${'***\n'.repeat(n)}`,
      headings: Array.from({ length: n }, (_, i) => `# h${i % 100}\n`).join(''),
      paragraphs: Array.from({ length: n }, (_, i) => `p${i % 100}\n\n`).join(''),
      list: Array.from({ length: n }, (_, i) => `- item ${i}\n`).join(''),
      quotes: Array.from({ length: n / 2 }, (_, i) => `> # h${i % 100}\nlazy ${i}\n`).join(''),
      alternating: Array.from({ length: n }, (_, i) => (i % 2 ? `- item ${i}\n` : `1. step ${i}\n`)).join(''),
      // Blocks made from uncovered lines after the parse, merged into the parse's (fast-blocks' addUncoveredLines).
      definitions: `# Links\n\n## One\n\n## Two\n\n${Array.from({ length: n }, (_, i) => `[ref${i}]: https://example.com/page/${i}\n`).join('')}`,
    };
    const o: Partial<ChunkOptions> = { docName: 'arrays', maxTokens: 256 };
    // (Turning pooling off drops the idle pool: the fresh results come first.)
    const fresh = new Map(Object.entries(shapes).map(([name, text]) => [name, unpooled(text, o)]));
    chunkDocument(shapes.rules!, o);
    const pool = idleBlockPoolForTests()!;
    const before = pool.reusedArrays;
    // Longer, shorter and of other makers than the call before, twice round.
    const order = ['headings', 'rules', 'definitions', 'paragraphs', 'list', 'quotes', 'alternating', 'definitions', 'rules', 'headings', 'list', 'paragraphs'];
    for (const name of order) expect(chunkDocument(shapes[name]!, o), name).toEqual(fresh.get(name));
    expect(idleBlockPoolForTests()).toBe(pool);
    expect(pool.reusedArrays - before).toBeGreaterThanOrEqual(order.length);
    // A spare holds no block of the document it was lent to (headings hold their text).
    chunkDocument(shapes.headings!.replaceAll('# h', '# heading'), o);
    expect(JSON.stringify(pool)).not.toContain('heading99');
  });

  it('never lends a documentBlocks caller\'s array', () => {
    const text = `# Title\n\n${'para\n\n***\n\n'.repeat(6000)}`;
    chunkDocument(text, { docName: 'first' });
    const { blocks } = documentBlocks(text, 'fast');
    const copy = structuredClone(blocks);
    chunkDocument(`# Other\n\n${'x\n\n- - -\n\n'.repeat(7000)}`, { docName: 'second' });
    chunkDocument(`# Other\n\n${'y\n\n'.repeat(14000)}`, { docName: 'third' });
    expect(blocks).toEqual(copy);
  });

  it('gives the second parse of a document with boilerplate its own objects', () => {
    // A plain-text document (fewer than three `#` headings) with running headers and page
    // numbers: prepare parses it, cuts them and parses the cut text with the same pool.
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
    const page = (n: number): string => `Running Header\n\nBody text about ${words[n - 1]} says things.\n\n***\n\n${n}\n\n`;
    const text = Array.from({ length: 8 }, (_, i) => page(i + 1)).join('');
    chunkDocument(text, { docName: 'warm' });
    const o: Partial<ChunkOptions> = { docName: 'boiler', maxTokens: 64, targetTokens: 48 };
    const pooled = chunkDocument(text, o);
    expect(pooled.removed?.length).toBeGreaterThan(0);
    expect(pooled).toEqual(unpooled(text, o));
  });
});
