/**
 * chunkDocumentStream gives chunkDocument's result, byte for byte, on hostile markdown (small
 * windows, so that every document is cut into many groups and windows) and on the real
 * sample documents joined into one big document.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { lineTable } from './lines.js';
import { attachSourceLines, LineCursor } from './source-lines.js';
import { chunkDocumentStream, resetStreamWorkForTests, streamWorkForTests, type ChunkStreamExtras } from './stream.js';
import { realDocuments } from './test-corpus.js';
import { seededText } from './test-helpers.js';
import type { ChunkDocumentResult, ChunkOptions, ChunkRecord } from './types.js';

/**
 * Both paths' full results, as JSON, for one comparison; a path that throws gives its error's
 * name (chunkDocument's invariant check throws on some hostile documents: the stream must too).
 */
function both(source: string, options: Partial<ChunkOptions>, extras: ChunkStreamExtras): { whole: string; stream: string; sectioned: boolean; chunks: number } {
  let whole: ChunkDocumentResult;
  try {
    whole = chunkDocument(source, options, { recount: extras.recount });
  } catch (err) {
    let thrown = 'nothing';
    try {
      [...chunkDocumentStream(source, options, extras).chunks];
    } catch (e) {
      thrown = (e as Error).name;
    }
    return { whole: (err as Error).name, stream: thrown, sectioned: false, chunks: 0 };
  }
  const s = chunkDocumentStream(source, options, extras);
  const { chunks, sectioned, ...rest } = s;
  const records = [...chunks];
  const fields: Record<string, unknown> = { ...rest, chunks: records };
  // The same fields, in chunkDocument's order.
  const stream = Object.fromEntries([...Object.keys(whole), ...Object.keys(fields).filter((k) => !(k in whole))].map((k) => [k, fields[k]]));
  return { whole: JSON.stringify(whole), stream: JSON.stringify(stream), sectioned, chunks: records.length };
}

const word = fc.constantFrom('data', 'JSON', 'the', 'of', 'options', 'naïve', '日本語', 'x', 'API', '`code[0]`', '**bold**', '[link](https://e.x)', '[ref]', '[Ref][other]', 'Reference');
const words = (min: number, max: number) => fc.array(word, { minLength: min, maxLength: max }).map((w) => w.join(' '));
const sentence = words(2, 16).map((w) => `${w}.`);
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 12 }).map((s) => s.join(' '));
const atx = fc.tuple(fc.integer({ min: 1, max: 6 }), fc.constantFrom('', ' ', '  ', '   '), words(0, 5), fc.constantFrom('', ' #', ' ##')).map(([d, indent, w, close]) => `${indent}${'#'.repeat(d)} ${w}${close}`);
const setext = fc.tuple(words(1, 4), fc.constantFrom('===', '---', '=')).map(([w, u]) => `${w}\n${u}`);
const technical = fc.constantFrom('## API Reference', '# Quick Reference', '### Cheat sheet');
const code = fc.tuple(fc.constantFrom('```', '~~~'), fc.array(fc.oneof(fc.constant(''), fc.constant('# not a heading'), words(1, 8)), { minLength: 0, maxLength: 40 }), fc.boolean())
  .map(([f, lines, closed]) => `${f}js\n${lines.join('\n')}${closed ? `\n${f}` : ''}`);
const table = fc.integer({ min: 1, max: 30 }).map((rows) => ['| a | b |', '| --- | --- |', ...Array.from({ length: rows }, (_, r) => `| ${r} | [ref] x |`)].join('\n'));
const list = fc.array(paragraph, { minLength: 1, maxLength: 6 }).map((items) => items.map((p) => `- ${p}\n  # nested heading`).join('\n'));
const quote = paragraph.map((p) => `> ${p}\n> # quoted heading`);
const html = fc.constantFrom('<div>\n# inside html\n</div>', '<!-- comment\n# in comment -->', '<details>\n\ntext\n\n</details>');
const definition = fc.constantFrom('[ref]: https://example.com/ref', '[other]: /other "T"', '[REF]: /dup', '  [ref]: /x\n  "title"');
const long = fc.integer({ min: 0, max: 99 }).map((seed) => seededText('abcdefghijklmnopqrstuvwxyz', 3000, seed));
const bigHeading = fc.integer({ min: 0, max: 99 }).map((seed) => `## ${seededText('abcde fghij klmno ', 2500, seed)}`);
const block = fc.oneof(
  { weight: 6, arbitrary: paragraph },
  { weight: 6, arbitrary: atx },
  { weight: 1, arbitrary: setext },
  { weight: 1, arbitrary: technical },
  { weight: 2, arbitrary: code },
  { weight: 1, arbitrary: table },
  { weight: 1, arbitrary: list },
  { weight: 1, arbitrary: quote },
  { weight: 1, arbitrary: html },
  { weight: 2, arbitrary: definition },
  { weight: 1, arbitrary: long },
  { weight: 1, arbitrary: bigHeading },
);
const frontMatter = fc.constantFrom('', '---\ntitle: Front Title\n---\n', '---\nother: 1\n---\n');
const document = fc
  .tuple(frontMatter, fc.array(fc.tuple(block, fc.constantFrom('\n\n', '\n', '\n\n\n')), { minLength: 10, maxLength: 60 }), fc.constantFrom('\n', '\r\n', '\r'))
  .map(([fm, blocks, eol]) => (fm + blocks.map(([b, sep]) => b + sep).join('')).replace(/\n/g, eol));
const options = fc
  .record({
    minTokens: fc.integer({ min: 0, max: 80 }),
    extraTarget: fc.integer({ min: 0, max: 300 }),
    extraMax: fc.integer({ min: 0, max: 200 }),
    overlapSentences: fc.integer({ min: 0, max: 3 }),
    breadcrumbMode: fc.constantFrom('conditional' as const, 'always' as const, 'none' as const),
  })
  .map(({ minTokens, extraTarget, extraMax, overlapSentences, breadcrumbMode }): Partial<ChunkOptions> => {
    const targetTokens = Math.max(minTokens + extraTarget, 40);
    return { docName: 'doc', minTokens, targetTokens, maxTokens: Math.max(targetTokens + extraMax, 96), overlapSentences, breadcrumbMode };
  });

describe('chunkDocumentStream', () => {
  it('gives chunkDocument’s result on hostile markdown, cut into small windows', () => {
    let sectioned = 0;
    fc.assert(
      fc.property(document, options, fc.integer({ min: 40, max: 1500 }), (source, opts, windowChars) => {
        const r = both(source, opts, { windowChars, recount: true });
        expect(r.stream).toBe(r.whole);
        if (r.sectioned) sectioned++;
      }),
      { numRuns: 300 },
    );
    // The property must exercise the sectioned path, not only the fallbacks (since session 41
    // one of them is a group holding more than half the document, common with tiny windows).
    // About a fifth of the 300 documents are sectioned since then (57 to 70 over runs): a
    // threshold of 60 failed one run in CI. 40 still demands the path be taken many times.
    expect(sectioned).toBeGreaterThan(40);
  });

  it('gives chunkDocument’s result on the real documents joined into one', () => {
    const source = realDocuments()
      .map(([, text]) => text)
      .join('\n\n');
    for (const windowChars of [300, 5000, 40000]) {
      const r = both(source, { docName: 'joined' }, { windowChars });
      expect(r.sectioned).toBe(true);
      expect(r.chunks).toBeGreaterThan(20);
      expect(r.stream).toBe(r.whole);
    }
  });

  it('falls back to the whole document where sections cannot be cut, with the same result', () => {
    const md = Array.from({ length: 40 }, (_, i) => `## Part ${i}\n\n${'Some words here. '.repeat(30)}`).join('\n\n');
    for (const [opts, why] of [
      [{ strategy: 'hierarchical' }, 'strategy'],
      [{ parser: 'remark' }, 'parser'],
      [{ sourceFile: 'notes.txt' }, 'plain text'],
    ] as const) {
      const r = both(md, { docName: 'd', ...opts }, { windowChars: 500 });
      expect(r.sectioned, why).toBe(false);
      expect(r.stream).toBe(r.whole);
    }
    const r = both(md, { docName: 'd' }, { windowChars: 500 });
    expect(r.sectioned).toBe(true);
    expect(r.stream).toBe(r.whole);
  });

  // Fuzz seed 4001: a setext heading whose first line continues a definition's paragraph (an
  // indented line, an ordered item not starting at 1) is a top-level heading of the whole parse,
  // but parsed alone from its line it is indented code or a list. The stream cut there.
  it('does not cut before a setext heading whose first line only continues a definition', () => {
    const tail = '\n\nSome text after it, long enough to fill a window.\n\n# d\n\nMore words here.\n';
    const firsts = ['\tfoo', '    foo', '2) foo', '   \tfoo', '-', '<x-y>', '10. foo'];
    for (const first of firsts) {
      for (const underline of ['---', '===']) {
        const source = `# a\n\n# b\n\n# c\n\n[x]: /u\n${first}\n${underline}${tail}`;
        for (const windowChars of [16, 32]) {
          const r = both(source, { docName: 'd' }, { windowChars });
          expect(r.stream, JSON.stringify(source)).toBe(r.whole);
        }
      }
    }
  });

  it('gives chunkDocument’s result where definitions run into lines of any kind before a heading underline', () => {
    const line = fc.constantFrom('foo', ' foo', '    foo', '\tfoo', '2) foo', '1. foo', '- foo', '-', '> foo', '<div>', '<x-y>', '[y]: /v', '"t"', '# h', '```', '| a |');
    const source = fc
      .tuple(fc.array(fc.tuple(definition, fc.array(line, { maxLength: 3 }), fc.constantFrom('===', '---', '')), { minLength: 3, maxLength: 12 }))
      .map(([parts]) => `# a\n\n# b\n\n# c\n\n${parts.map(([d, lines, u]) => [d, ...lines, u].filter((x) => x !== '').join('\n')).join('\n\nWords between the parts.\n\n')}\n\n# z\n\nEnd.\n`);
    fc.assert(
      fc.property(source, fc.integer({ min: 16, max: 200 }), (md, windowChars) => {
        const r = both(md, { docName: 'd' }, { windowChars });
        expect(r.stream).toBe(r.whole);
      }),
      { numRuns: 300 },
    );
  });

  // Session 41 (bench/scaling.mjs --stage stream): on documents it cannot cut, the stream did
  // the whole document's work two or three times over before falling back to it, or streaming
  // it as one window. A flat list of 4 MB took 3.4 times chunkDocument's time, quotes holding
  // headings twice, and each held more memory than chunkDocument. Each case here must give
  // chunkDocument's records, with at most the work named.
  describe('does no more than chunkDocument where there is nothing to stream', () => {
    const streamed = (source: string, windowChars: number) => {
      resetStreamWorkForTests();
      const r = both(source, { docName: 'd' }, { windowChars });
      expect(r.stream).toBe(r.whole);
      // both() runs chunkDocument, which the stream's counters do not see, and then the stream.
      return { ...streamWorkForTests(), sectioned: r.sectioned, chars: source.length };
    };

    it('chunks a document with fewer than three ATX heading lines whole, with no planning parse', () => {
      const list = Array.from({ length: 20_000 }, (_, i) => `- item ${i}
`).join('');
      const quotes = Array.from({ length: 10_000 }, (_, i) => `> # h${i % 100}
lazy ${i}
`).join('');
      for (const source of [list, `# Title

## One

${list}`, quotes]) {
        const w = streamed(source, 4096);
        expect(w.sectioned).toBe(false);
        expect(w.parsedChars).toBe(0);
      }
    });

    it('does not parse a last group of over half the document before chunking it whole', () => {
      // Three headings, then 200 KB of one paragraph: before, the planner's slab doubled to the
      // end (parsing the paragraph about twice) and the stream then parsed it once more.
      const lines = Array.from({ length: 60_000 }, (_, i) => `x${i % 10}
`).join('');
      const w = streamed(`# Lines

## One

## Two

${lines}`, 4096);
      expect(w.sectioned).toBe(false);
      expect(w.parsedChars).toBeLessThan(w.chars / 4);
    });

    it('jumps to the next line a heading can end on when a slab has no cut', () => {
      // A paragraph of many lines between headings: the slab doubled line by line's worth of
      // windows, parsing the paragraph some 2 times over; it reaches the next heading at once.
      const para = Array.from({ length: 30_000 }, (_, i) => `word${i % 7}
`).join('');
      const source = `# A

Intro.

# B

${para}
# C

Text.

# D

${para}
# E

End.
`;
      const w = streamed(source, 512);
      expect(w.sectioned).toBe(true);
      // Planning parses the document about once (a slab's last lines again), the groups once.
      expect(w.parsedChars).toBeLessThan(2.2 * w.chars);
    });

    it('grows a window no piece of which can open a kept chunk without packing it', () => {
      // 8,000 bare headings (the window doubles through them unpacked), then sections of prose.
      const headings = Array.from({ length: 8_000 }, (_, i) => `# h${i % 100}\n`).join('');
      const prose = Array.from({ length: 120 }, (_, i) => `## Part ${i}\n\n${'Some words here, and more of them. '.repeat(40)}\n\n`).join('');
      const w = streamed(headings + prose, 4096);
      expect(w.sectioned).toBe(true);
      // Before, the headings were packed at every doubling of the window: 4 Ki, 8 Ki, … 64 Ki.
      expect(w.packedPieces).toBeLessThan(8_000 + 3_000);
    });

    it('chunks a document of bare headings whole, with no planning parse', () => {
      // No line but headings and blank lines: no chunk can hold more than headings, so no window
      // can be cut. Streamed, 1 MB of tiny headings took 0.23 s a pass (parsed twice, and held
      // whole anyway), chunkDocument 0.08 s.
      const headings = Array.from({ length: 30_000 }, (_, i) => `${i % 7 ? '' : '\n'}${'#'.repeat(1 + (i % 6))} h${i % 100}\n`).join('');
      const w = streamed(headings, 4096);
      expect(w.sectioned).toBe(false);
      expect(w.parsedChars).toBe(0);
      // One line of text is enough to plan (the plan then finds a cut or not).
      const withText = streamed(`${headings}\nSome text.\n`, 4096);
      expect(withText.parsedChars).toBeGreaterThan(0);
    });
  });

  it('makes records as they are read', () => {
    const md = Array.from({ length: 200 }, (_, i) => `## Part ${i}\n\n${'Some words here. '.repeat(60)}`).join('\n\n');
    const s = chunkDocumentStream(md, { docName: 'd' }, { windowChars: 2000 });
    const first = s.chunks.next();
    expect(first.done).toBe(false);
    expect((first.value as ChunkRecord).chunkNumber).toBe(0);
    expect((first.value as ChunkRecord).prevId).toBeNull();
    const rest = [...s.chunks];
    expect(rest.length).toBeGreaterThan(60);
    expect(rest[rest.length - 1]!.nextId).toBeNull();
  });
});

describe('LineCursor', () => {
  /** The cursor gives `records` the source lines attachSourceLines gives them from the line table. */
  const expectCursorAgrees = (source: string, records: ChunkRecord[]): void => {
    const expected = records.map((r) => ({ ...r }));
    attachSourceLines(expected, source, 'f.md', lineTable(source));
    const cursor = new LineCursor(source);
    for (const r of records) cursor.attach(r, 'f.md');
    expect(records.map((r) => r.source)).toEqual(expected.map((r) => r.source));
  };

  it('numbers lines as attachSourceLines does, moving back and forth', () => {
    const text = fc.array(fc.constantFrom('a', ' ', '\n', '\r', '\r\n', 'b\n\n'), { maxLength: 80 }).map((p) => p.join(''));
    fc.assert(
      fc.property(text, fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 20 }), (source, ranges) => {
        const records = ranges.map(([a, b]) => {
          const s = source.length ? a % (source.length + 1) : 0;
          const e = source.length ? Math.max(s, b % (source.length + 1)) : 0;
          return { sourcePosition: { charStart: s, charEnd: e, totalChars: source.length } } as ChunkRecord;
        });
        expectCursorAgrees(source, records);
      }),
    );
  });

  it('numbers lines alike in a text without CR (the line feeds it finds by indexOf), long lines included', () => {
    // Ranges mostly forward, as records stream, with steps back (overlap) and ranges ending
    // exactly at, before and after a line feed.
    const text = fc.array(fc.oneof(fc.constantFrom('a', ' ', '\n', '\n\n', 'b\n'), fc.integer({ min: 1, max: 300 }).map((n) => 'x'.repeat(n))), { maxLength: 40 }).map((p) => p.join(''));
    fc.assert(
      fc.property(text, fc.array(fc.tuple(fc.integer({ min: -30, max: 200 }), fc.nat(80)), { maxLength: 30 }), (source, steps) => {
        let at = 0;
        const records = steps.map(([move, length]) => {
          const s = Math.min(source.length, Math.max(0, at + move));
          const e = Math.min(source.length, s + length);
          at = e;
          return { sourcePosition: { charStart: s, charEnd: e, totalChars: source.length } } as ChunkRecord;
        });
        expectCursorAgrees(source, records);
      }),
      { numRuns: 500 },
    );
  });
});
