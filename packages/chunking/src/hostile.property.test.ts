/**
 * Issue 15: valid markdown of hostile shapes never throws, in any strategy, parser or option
 * set the options allow, with every record recounted (so validate checks each token count and
 * cap). The generators are the s36 fuzz probe's atoms, kept small: long fences and info strings,
 * runs of one character, no-break spaces and other non-ASCII whitespace, deep lists and quotes,
 * wide rows, bare CR line endings, tiny caps. Each shape here once broke an invariant.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument, chunkDocumentStream } from './index.js';
import type { ChunkOptions } from './types.js';

const word = fc.constantFrom('the', 'API', 'fn()', 'x', 'données', '数据', '🙂', 'HTTP/2', '`code`', '**bold**', '[l](http://x)', 'e.g.', '1.5', 'İ', 'ﬁ', '\u00a0', '\u200b', '\t', '|');
const gap = fc.constantFrom(' ', ' ', '  ', '\t', '\u00a0', ' \u00a0 ');
const words = (max: number) => fc.array(fc.tuple(word, gap), { minLength: 0, maxLength: max }).map((ws) => ws.map(([w, g]) => w + g).join(''));
const eol = fc.constantFrom('\n', '\n', '\r\n', '\r');
const run = fc.tuple(fc.constantFrom('a', 'Z9+/', '-', '=', '`', '~', '*', '|', '数', '🙂', '\u00a0', ' \u00a0'), fc.integer({ min: 1, max: 400 })).map(([c, n]) => c.repeat(n));
const fence = fc.tuple(fc.constantFrom('`', '~'), fc.integer({ min: 3, max: 140 }), words(12), fc.array(fc.oneof(words(10), run), { maxLength: 12 }), fc.boolean(), eol).map(
  ([c, n, info, body, closed, nl]) => `${c.repeat(n)}${c === '`' ? info.replace(/`/g, '') : info}${nl}${body.join(nl)}${closed ? `${nl}${c.repeat(n)}` : ''}`,
);
const heading = fc.tuple(fc.integer({ min: 1, max: 7 }), words(30)).map(([d, w]) => `${'#'.repeat(d)} ${w}`);
const list = fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.constantFrom('-', '*', '1.', '2)'), words(6)), { minLength: 1, maxLength: 40 }).map((items) =>
  items.map(([d, m, w]) => `${'  '.repeat(d)}${m} ${w}`).join('\n'),
);
const quote = fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.constantFrom('', '# ', '- ', '```'), words(5)), { minLength: 1, maxLength: 30 }).map((lines) =>
  lines.map(([d, k, w]) => `${'>'.repeat(d)} ${k}${w}`).join('\n'),
);
const table = fc.tuple(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 8 }), words(2)).map(([cols, rows, w]) =>
  [`|${` ${w} |`.repeat(cols)}`, `|${' --- |'.repeat(cols)}`, ...Array.from({ length: rows }, () => `|${' 1.5\u00a0 |'.repeat(cols)}`)].join('\n'),
);
const blank = fc.constantFrom('\u00a0', '\ufeff', '\u3000', ' \u00a0 ', '\u2028');
const block = fc.oneof({ weight: 3, arbitrary: words(80) }, { weight: 2, arbitrary: fence }, { weight: 2, arbitrary: heading }, run, list, quote, table, blank);
const document = fc.tuple(fc.array(block, { minLength: 1, maxLength: 12 }), fc.array(eol, { minLength: 12, maxLength: 12 })).map(([blocks, nls]) =>
  blocks.map((b, i) => b + nls[i]! + nls[(i + 1) % 12]!).join(''),
);

const options = fc
  .record({
    strategy: fc.constantFrom('semantic' as const, 'semantic' as const, 'token-window' as const, 'hierarchical' as const, 'paginate' as const),
    maxTokens: fc.constantFrom(16, 17, 24, 32, 64, 128, 512),
    targetShare: fc.double({ min: 0, max: 1, noNaN: true }),
    minShare: fc.double({ min: 0, max: 1, noNaN: true }),
    breadcrumbMode: fc.constantFrom('conditional' as const, 'always' as const, 'none' as const),
    overlapSentences: fc.integer({ min: 0, max: 3 }),
    parser: fc.constantFrom('fast' as const, 'fast' as const, 'remark' as const),
    docName: fc.constantFrom('d', 'golden-reference', 'ü y'),
  })
  .map(({ targetShare, minShare, ...o }): Partial<ChunkOptions> => {
    const targetTokens = Math.max(1, Math.round(o.maxTokens * targetShare));
    // The hierarchical tiers' smallest allowed caps (128), with the shares above.
    const snippetMaxTokens = Math.max(128, o.maxTokens);
    return {
      ...o,
      targetTokens,
      minTokens: Math.round(targetTokens * minShare),
      windowTokens: o.maxTokens,
      windowOverlapTokens: Math.floor(o.maxTokens / 8),
      snippetMaxTokens,
      snippetTargetTokens: Math.max(1, Math.round(snippetMaxTokens * targetShare)),
      snippetOverlapTokens: Math.floor(snippetMaxTokens / 4),
      sectionMaxTokens: 4 * snippetMaxTokens,
      sectionTargetTokens: 3 * snippetMaxTokens,
      ctxSize: 1024,
      bufSize: 0,
    };
  });

describe('hostile markdown (s36 fuzz shapes)', () => {
  it('never throws, and every record holds its invariants when recounted, in every strategy and parser', () => {
    fc.assert(
      fc.property(document, options, (source, o) => {
        expect(() => chunkDocument(source, o, { recount: true })).not.toThrow();
      }),
      { numRuns: 400 },
    );
  });

  it('streams the records chunkDocument gives, window by window', () => {
    fc.assert(
      fc.property(document, options, fc.integer({ min: 64, max: 2048 }), (source, o, windowChars) => {
        const semantic = { ...o, strategy: 'semantic' as const, parser: 'fast' as const };
        const whole = chunkDocument(source, semantic).chunks;
        expect([...chunkDocumentStream(source, semantic, { windowChars }).chunks]).toEqual(whole);
      }),
      { numRuns: 200 },
    );
  });
});
