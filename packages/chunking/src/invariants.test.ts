/**
 * The six invariants of the semantic strategy, checked on random documents
 * and random options (fast-check), and on the real sample documents.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flatten } from './flatten.js';
import { chunkDocument } from './index.js';
import { fullBreadcrumb } from './metadata.js';
import { parse } from './parse.js';
import { realDocuments } from './test-corpus.js';
import { countTokens } from './tokens.js';
import type { Block, ChunkOptions, ChunkRecord } from './types.js';

const word = fc.constantFrom('data', 'JSON', 'serializer', 'the', 'of', 'options', 'naïve', 'größe', '日本語', 'x', 'Async', 'value', '42', 'émoji😀', 'API', '`code`', '**bold**', '[link](https://example.com)');
const sentence = fc.array(word, { minLength: 3, maxLength: 18 }).map((w) => `${w.join(' ')}.`);
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 45 }).map((s) => s.join(' '));
const heading = fc.tuple(fc.integer({ min: 1, max: 4 }), fc.array(word, { minLength: 1, maxLength: 5 })).map(([d, w]) => `${'#'.repeat(d)} ${w.join(' ')}`);
const codeLine = fc.oneof(fc.constant(''), fc.array(word, { minLength: 1, maxLength: 10 }).map((w) => `    ${w.join(' ')};`));
const code = fc.tuple(fc.constantFrom('```', '~~~', '````'), fc.constantFrom('', 'js', 'csharp'), fc.array(codeLine, { minLength: 1, maxLength: 260 }))
  .map(([f, lang, lines]) => `${f}${lang}\n${lines.join('\n')}\n${f}`);
const table = fc.tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 140 })).map(([cols, rows]) =>
  [`|${' h |'.repeat(cols)}`, `|${' --- |'.repeat(cols)}`, ...Array.from({ length: rows }, (_, r) => `|${` cell ${r} value |`.repeat(cols)}`)].join('\n'));
const listItem = fc.tuple(paragraph, fc.boolean()).map(([p, nested]) => (nested ? `- ${p.slice(0, 200)}\n  - nested ${p.slice(0, 60)}` : `- ${p}`));
const list = fc.array(listItem, { minLength: 1, maxLength: 25 }).map((items) => items.join('\n'));
const quote = fc.array(paragraph, { minLength: 1, maxLength: 4 }).map((ps) => ps.map((p) => `> ${p}`).join('\n>\n'));
const html = fc.constantFrom('<div class="note">\n<p>Some <b>html</b></p>\n</div>', '<!-- a comment\nover lines -->');
const misc = fc.constantFrom('***', '[ref]: https://example.com/ref "Ref"', '> [!NOTE]\n> An alert.');
const block = fc.oneof({ weight: 4, arbitrary: paragraph }, { weight: 3, arbitrary: heading }, { weight: 2, arbitrary: code },
  { weight: 1, arbitrary: table }, { weight: 2, arbitrary: list }, { weight: 1, arbitrary: quote }, { weight: 1, arbitrary: html }, { weight: 1, arbitrary: misc });
const frontMatter = fc.option(fc.constant('---\ntitle: Generated Doc\nms.date: 2024-01-01\n---\n'), { nil: '' });
const document = fc.tuple(frontMatter, fc.array(block, { minLength: 1, maxLength: 30 }), fc.constantFrom('\n', '\r\n')).map(([fm, blocks, eol]) =>
  (fm + blocks.join('\n\n') + '\n').replace(/\n/g, eol));

const options = fc
  .record({
    minTokens: fc.integer({ min: 0, max: 120 }),
    extraTarget: fc.integer({ min: 0, max: 500 }),
    extraMax: fc.integer({ min: 0, max: 300 }),
    overlapSentences: fc.integer({ min: 0, max: 3 }),
    breadcrumbMode: fc.constantFrom('conditional' as const, 'always' as const, 'none' as const),
  })
  .map(({ minTokens, extraTarget, extraMax, overlapSentences, breadcrumbMode }): Partial<ChunkOptions> => {
    const targetTokens = Math.max(minTokens + extraTarget, 40);
    return { minTokens, targetTokens, maxTokens: Math.max(targetTokens + extraMax, 96), overlapSentences, breadcrumbMode };
  });

/** Top-level units as the packer sees them: blocks, with lists replaced by their items. */
function units(source: string): Block[] {
  return flatten(parse(source)).flatMap((b) => (b.type === 'list' ? (b.children ?? []) : [b]));
}

function checkInvariants(source: string, opts: Partial<ChunkOptions>): void {
  const result = chunkDocument(source, opts, { recount: true });
  const { chunks, options: o, fileTitle } = result;
  const bodyStart = result.frontMatter?.end ?? 0;
  const headings = flatten(parse(source)).filter((b) => b.type === 'heading').map((b) => b.text ?? '');
  const reserve = o.breadcrumbMode === 'none' ? 0 : countTokens(`${fullBreadcrumb(fileTitle, headings.map((text) => ({ text, depth: 1, slug: '' })))}\n\n`) + 8;
  const budget = o.maxTokens - reserve;

  expect(chunks.length).toBeGreaterThan(0);
  for (const c of chunks) {
    // 1. exact offsets
    if (!c.splitUnit) expect(source.slice(c.sourcePosition.charStart, c.sourcePosition.charEnd)).toBe(c.originalText);
    // 2. hard cap, exact counts
    expect(countTokens(c.originalText)).toBeLessThanOrEqual(o.maxTokens);
    expect(countTokens(c.embedText)).toBeLessThanOrEqual(o.maxTokens);
    expect(c.sourcePosition.charStart).toBeGreaterThanOrEqual(bodyStart);
  }
  // 3. atomic units that fit are never cut; those that do not are split along their structure
  for (const u of units(source)) {
    if (!['code', 'table', 'blockquote', 'html', 'listItem'].includes(u.type)) continue;
    const tokens = countTokens(source.slice(u.start, u.end));
    const touching = chunks.filter((c) => c.sourcePosition.charStart < u.end && u.start < c.sourcePosition.charEnd);
    if (tokens <= budget) {
      for (const c of touching) {
        const cut = (x: number) => x > u.start && x < u.end;
        expect(cut(c.sourcePosition.charStart) || cut(c.sourcePosition.charEnd)).toBe(false);
      }
      expect(touching.some((c) => c.originalText.includes(source.slice(u.start, u.end)))).toBe(true);
    } else if (tokens > o.maxTokens) {
      expect(touching.length).toBeGreaterThan(1);
      expect(touching.every((c) => c.splitUnit)).toBe(true);
      if (u.type === 'code' && u.fenced) {
        for (const c of touching) expect(c.originalText.split(/\r?\n/).filter((l) => /^ {0,3}(```|~~~)/.test(l)).length % 2).toBe(0);
      }
    }
  }
  // 4. nothing under min unless the whole document is, or no neighbour merge fits
  const core = (c: ChunkRecord) => c.sourcePosition.charStart + c.overlapChars;
  chunks.forEach((c, i) => {
    if (c.tokenStats.tokens >= o.minTokens || chunks.length === 1) return;
    const prev = chunks[i - 1];
    const next = chunks[i + 1];
    if ([c, prev, next].some((x) => x?.splitUnit)) return;
    if (prev) expect(countTokens(source.slice(core(prev), c.sourcePosition.charEnd))).toBeGreaterThan(budget);
    if (next) expect(countTokens(source.slice(core(c), next.sourcePosition.charEnd))).toBeGreaterThan(budget);
  });
  // 5. every non-whitespace character of the body is in some chunk
  const covered = new Uint8Array(source.length);
  for (const c of chunks) covered.fill(1, c.sourcePosition.charStart, c.sourcePosition.charEnd);
  for (let i = bodyStart; i < source.length; i++) {
    if (!covered[i] && !/\s/.test(source[i]!)) throw new Error(`character ${i} (${JSON.stringify(source.slice(i, i + 20))}) is in no chunk`);
  }
  // 6. determinism, and the same result from the reference parser
  expect(JSON.stringify(chunkDocument(source, opts))).toBe(JSON.stringify(result));
  const viaRemark = chunkDocument(source, { ...opts, parser: 'remark' });
  expect(JSON.stringify(viaRemark.chunks.map((c) => c.originalText))).toBe(JSON.stringify(chunks.map((c) => c.originalText)));
}

describe('invariants', () => {
  it('hold on random documents with random options', () => {
    fc.assert(fc.property(document, options, (source, opts) => checkInvariants(source, opts)), { numRuns: 120 });
  });

  it('hold on every real sample document with the defaults and with small caps', () => {
    for (const [, text] of realDocuments()) {
      checkInvariants(text, {});
      checkInvariants(text, { minTokens: 32, targetTokens: 128, maxTokens: 160, breadcrumbMode: 'always' });
    }
  });
});
