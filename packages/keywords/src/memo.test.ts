// ScanMemo and KeywordMatcher: the memoized scan must give exactly what the direct scan gives,
// for any piece of a document, in any order, however much the memo has already seen.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractKeywords, KeywordMatcher, matchKeywords, ScanMemo, type KeywordEntry } from './index.js';
import { scanMarkdown } from './scan.js';

/** Markdown lines with repeated terms, stems, identifiers, code, links and references. */
const WORDS = ['source', 'generation', 'generators', 'generated', 'native', 'AOT', 'of', 'and', 'the', 'serializer', 'options', 'stream', 'streams', 'readable'];
const IDENTS = ['JsonSerializer', 'System.Text.Json', 'readableStream', 'IAsyncEnumerable', 'C#', 'fs.readFile'];
const word = fc.constantFrom(...WORDS, ...IDENTS);
const phrase = fc.array(word, { minLength: 1, maxLength: 6 }).map((ws) => ws.join(' '));
const inline = fc.oneof(
  phrase,
  phrase.map((p) => `\`${p.replace(/ /g, '.')}\``),
  phrase.map((p) => `[${p}][ref]`),
  phrase.map((p) => `[${p}](https://example.com/${p.length})`),
  phrase.map((p) => `*${p}*`),
  fc.constantFrom('<xref:System.Text.Json.JsonSerializer>', '`a` b', 'source-generation', '\\[escaped]', '<b>html</b>', '9.0', '—'),
);
const line = fc.oneof(
  { weight: 6, arbitrary: fc.array(inline, { minLength: 1, maxLength: 4 }).map((xs) => xs.join(' ')) },
  { weight: 2, arbitrary: phrase.map((p) => `# ${p}`) },
  { weight: 2, arbitrary: phrase.map((p) => `- ${p}`) },
  { weight: 1, arbitrary: phrase.map((p) => `    ${p.replace(/ /g, '.')}`) },
  { weight: 1, arbitrary: fc.constantFrom('```cs', '```', 'using System.Text.Json;', 'var x = new JsonSerializer();', '---', '[ref]: /target', ':::code source="x.cs":::', '> [!NOTE]', '| a | b |', '|---|---|', 'title: Source generation', '') },
  { weight: 3, arbitrary: fc.constant('') },
  // A reference definition turns `[…][ref]` into a link: pieces with and without it must differ.
  { weight: 1, arbitrary: fc.constant('\n[ref]: /target\n') },
);
const markdown = fc
  .tuple(fc.array(line, { maxLength: 30 }), fc.boolean(), fc.boolean())
  .map(([lines, frontMatter, crlf]) => {
    const text = (frontMatter ? ['---', 'title: Native AOT', '---', ...lines] : lines).join('\n');
    return crlf ? text.replace(/\n/g, '\r\n') : text;
  });
/** A document and pieces of it: consecutive pieces at arbitrary cut points, and overlapping ones. */
const documentAndPieces = markdown.chain((doc) =>
  fc.tuple(
    fc.constant(doc),
    fc.array(fc.integer({ min: 0, max: doc.length }), { maxLength: 8 }),
    fc.array(fc.tuple(fc.integer({ min: 0, max: doc.length }), fc.integer({ min: 0, max: doc.length })), { maxLength: 6 }),
  ),
);

function piecesOf(doc: string, cuts: number[], ranges: [number, number][]): string[] {
  const bounds = [0, ...[...cuts].sort((a, b) => a - b), doc.length];
  const pieces = bounds.slice(1).map((end, i) => doc.slice(bounds[i], end));
  for (const [a, b] of ranges) pieces.push(doc.slice(Math.min(a, b), Math.max(a, b)));
  // The same piece twice: the second time comes from the memo.
  return [...pieces, ...pieces];
}

/** Entries the scan cannot produce as one term: matched on whitespace-normalized text. */
const HAND_WRITTEN: KeywordEntry[] = [
  { name: 'source generation of  the serializer', score: 3 },
  { name: 'a b', score: 2 },
  // Text only where no reference definition makes `[…][ref]` a link.
  { name: 'ref', score: 4 },
];

describe('ScanMemo and KeywordMatcher', () => {
  it('scanMarkdown with a memo gives the occurrences scanMarkdown gives without one', () => {
    fc.assert(
      fc.property(documentAndPieces, ([doc, cuts, ranges]) => {
        const memo = new ScanMemo();
        for (const piece of [doc, ...piecesOf(doc, cuts, ranges)]) expect(scanMarkdown(piece, memo)).toEqual(scanMarkdown(piece));
      }),
      { numRuns: 300 },
    );
  });

  it('a matcher seeded by the extraction matches every piece as matchKeywords does', () => {
    fc.assert(
      fc.property(documentAndPieces, ([doc, cuts, ranges]) => {
        const memo = new ScanMemo();
        const table = extractKeywords([{ name: 'doc.md', text: doc }], { max: 100, handWritten: HAND_WRITTEN, memo });
        expect(table).toEqual(extractKeywords([{ name: 'doc.md', text: doc }], { max: 100, handWritten: HAND_WRITTEN }));
        const matcher = new KeywordMatcher(table, memo);
        for (const piece of piecesOf(doc, cuts, ranges)) expect(matcher.match(piece)).toEqual(matchKeywords(table, piece));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a link that only a reference definition makes apart from the same text without it', () => {
    const table: KeywordEntry[] = [{ name: 'label', score: 5 }, { name: 'text', score: 4 }];
    const doc = 'Some [text][label] here.\n\n[label]: /target\n';
    const memo = new ScanMemo();
    const matcher = new KeywordMatcher(table, memo);
    // With the definition `[text][label]` is a link (only "text" counts), without it plain text.
    expect(matcher.match(doc).map((e) => e.name)).toEqual(['text']);
    expect(matcher.match('Some [text][label] here.').map((e) => e.name)).toEqual(['label', 'text']);
    expect(matcher.match(doc).map((e) => e.name)).toEqual(['text']);
  });

  it('matches nothing for an empty table', () => {
    expect(new KeywordMatcher([]).match('JsonSerializer source generation')).toEqual([]);
  });
});
