/**
 * The six invariants, checked for every strategy on random documents and
 * random options (fast-check), and on the real sample documents. Each
 * strategy is held to exactly the invariants it promises (`LAWS`); the ones it
 * breaks by design are named there with the reason.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flatten } from './flatten.js';
import { chunkDocument } from './index.js';
import { fullBreadcrumb } from './metadata.js';
import { parse } from './parse.js';
import { realDocuments } from './test-corpus.js';
import { countTokens } from './tokens.js';
import { resolveOptions } from './options.js';
import type { Block, ChunkOptions, ChunkRecord, ResolvedChunkOptions, StrategyName } from './types.js';

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

type Invariant = 'offsets' | 'caps' | 'atomic' | 'minSize' | 'coverage' | 'determinism';

interface Laws {
  holds: Set<Invariant>;
  /** Why the others do not hold. */
  byDesign: Partial<Record<Invariant, string>>;
  /** Groups of chunks that each cover the document on their own (hierarchical has two tiers). */
  tiers(chunks: ChunkRecord[]): ChunkRecord[][];
  /** Hard cap on a chunk's originalText and embedText (paginate: on the emitted page). */
  cap(c: ChunkRecord, o: ResolvedChunkOptions, all: ChunkRecord[]): number;
  /** Text the cap applies to besides originalText and embedText. */
  capped(c: ChunkRecord): string[];
  /** Atomic units of at most this many tokens are never cut within a tier. */
  atomicBudget(tier: ChunkRecord[], o: ResolvedChunkOptions, reserve: number): number;
  /** The largest chunk a tier's splitting may produce (units above it must be split). */
  tierMax(tier: ChunkRecord[], o: ResolvedChunkOptions): number;
}

const LAWS: Record<StrategyName, Laws> = {
  semantic: {
    holds: new Set(['offsets', 'caps', 'atomic', 'minSize', 'coverage', 'determinism']),
    byDesign: {},
    tiers: (chunks) => [chunks],
    cap: (_c, o) => o.maxTokens,
    capped: () => [],
    // An atomic unit that fits the cap stays whole even when the breadcrumb
    // reserve does not fit beside it: the prefix shrinks instead.
    atomicBudget: (_t, o) => o.maxTokens,
    tierMax: (_t, o) => o.maxTokens,
  },
  'token-window': {
    holds: new Set(['offsets', 'caps', 'coverage', 'determinism']),
    byDesign: {
      atomic: 'seed 004 is a pure token window: it cuts code blocks, tables and sentences wherever 900 tokens end',
      minSize: 'the last window is whatever remains; there is no minimum',
    },
    tiers: (chunks) => [chunks],
    cap: (_c, o, all) => (all.length === 1 ? Math.max(o.singlePieceMaxTokens, o.windowTokens) : o.windowTokens),
    capped: () => [],
    atomicBudget: () => 0,
    tierMax: (_t, o) => o.windowTokens,
  },
  hierarchical: {
    holds: new Set(['offsets', 'caps', 'atomic', 'coverage', 'determinism']),
    byDesign: { minSize: 'seed 003 sets no minimum; a short section is one section and one snippet' },
    tiers: (chunks) => [chunks.filter((c) => c.tier?.level === 'section'), chunks.filter((c) => c.tier?.level === 'snippet')],
    cap: (c, o) => (c.tier?.level === 'section' ? o.sectionMaxTokens : o.snippetMaxTokens),
    capped: () => [],
    atomicBudget: (tier, o) => (tier[0]?.tier?.level === 'section' ? o.sectionMaxTokens : o.snippetMaxTokens) - HIERARCHICAL_PREFIX_RESERVE,
    tierMax: (tier, o) => (tier[0]?.tier?.level === 'section' ? o.sectionMaxTokens : o.snippetMaxTokens),
  },
  paginate: {
    holds: new Set(['offsets', 'caps', 'atomic', 'coverage', 'determinism']),
    byDesign: { minSize: 'seed 000 fills pages up to Nmax; the last page is what remains' },
    tiers: (chunks) => [chunks],
    cap: (_c, o) => o.ctxSize - o.bufSize,
    capped: (c) => [c.page?.text ?? ''],
    atomicBudget: (_t, o) => o.ctxSize - o.bufSize - PAGINATE_RESERVE_BOUND,
    tierMax: (_t, o) => o.ctxSize - o.bufSize,
  },
};

/** Upper bounds of what hierarchical and paginate reserve around the text (prefix; CT comment and lead lines). */
const HIERARCHICAL_PREFIX_RESERVE = 64;
const PAGINATE_RESERVE_BOUND = 200;

/** The source text of a chunk's range without the boilerplate spans removed from it. */
function keptText(source: string, c: ChunkRecord): string {
  let text = '';
  let at = c.sourcePosition.charStart;
  for (const r of c.removed ?? []) {
    text += source.slice(at, r.start);
    at = r.end;
  }
  return text + source.slice(at, c.sourcePosition.charEnd);
}

/** A fence line, at the top level or after container markers. */
const FENCE_LINE = /^(?: {0,3}(?:[-*+]|\d{1,9}[.)]|>) ?)* {0,3}(```|~~~)/;

function checkInvariants(source: string, opts: Partial<ChunkOptions>): void {
  const result = chunkDocument(source, opts, { recount: true });
  const { chunks, fileTitle } = result;
  const o = resolveOptions(opts);
  const laws = LAWS[o.strategy];
  const bodyStart = result.frontMatter?.end ?? 0;
  const headings = flatten(parse(source)).filter((b) => b.type === 'heading').map((b) => b.text ?? '');
  const reserve = o.breadcrumbMode === 'none' ? 0 : countTokens(`${fullBreadcrumb(fileTitle, headings.map((text) => ({ text, depth: 1, slug: '' })))}\n\n`) + 8;

  expect(chunks.length).toBeGreaterThan(0);
  for (const c of chunks) {
    // 1. exact offsets (for what is kept, when plain-text boilerplate was removed)
    if (laws.holds.has('offsets') && !c.splitUnit) expect(keptText(source, c)).toBe(c.originalText);
    // 2. hard cap, exact counts
    if (laws.holds.has('caps')) {
      const cap = laws.cap(c, o, chunks);
      for (const text of [c.originalText, c.embedText, ...laws.capped(c)]) expect(countTokens(text)).toBeLessThanOrEqual(cap);
    }
    expect(c.sourcePosition.charStart).toBeGreaterThanOrEqual(bodyStart);
  }
  for (const tier of laws.tiers(chunks)) {
    expect(tier.length).toBeGreaterThan(0);
    const budget = laws.atomicBudget(tier, o, reserve);
    // Merges must leave room for the breadcrumb; only a unit kept whole may take it.
    const mergeBudget = o.strategy === 'semantic' ? o.maxTokens - reserve : budget;
    // 3. atomic units that fit are never cut; those that do not are split along their structure
    if (laws.holds.has('atomic')) {
      for (const u of units(source)) {
        if (!['code', 'table', 'blockquote', 'html', 'listItem'].includes(u.type)) continue;
        const tokens = countTokens(source.slice(u.start, u.end));
        const touching = tier.filter((c) => c.sourcePosition.charStart < u.end && u.start < c.sourcePosition.charEnd);
        if (tokens <= budget) {
          for (const c of touching) {
            const cut = (x: number) => x > u.start && x < u.end;
            expect(cut(c.sourcePosition.charStart) || cut(c.sourcePosition.charEnd)).toBe(false);
          }
          expect(touching.some((c) => c.originalText.includes(source.slice(u.start, u.end)))).toBe(true);
        } else if (tokens > laws.tierMax(tier, o)) {
          // Split: in several chunks, or in one whose text is rebuilt (a list item's fenced code
          // re-fenced without the item's indentation can fit the cap again, all its parts at once).
          expect(touching.length > 1 || !touching[0]!.originalText.includes(source.slice(u.start, u.end))).toBe(true);
          expect(touching.every((c) => c.splitUnit)).toBe(true);
          if (u.type === 'code' && u.fenced) {
            // A fence line may follow a list item's marker or a quote's (`- \`\`\``, `> \`\`\``).
            for (const c of touching) expect(c.originalText.split(/\r?\n/).filter((l) => FENCE_LINE.test(l)).length % 2).toBe(0);
          }
        }
      }
    }
    // 4. nothing under min unless the whole document is, or no neighbour merge fits
    if (laws.holds.has('minSize')) {
      const core = (c: ChunkRecord) => c.sourcePosition.charStart + c.overlapChars;
      tier.forEach((c, i) => {
        if (c.tokenStats.tokens >= o.minTokens || tier.length === 1) return;
        const prev = tier[i - 1];
        const next = tier[i + 1];
        if ([c, prev, next].some((x) => x?.splitUnit)) return;
        if (prev) expect(countTokens(source.slice(core(prev), c.sourcePosition.charEnd))).toBeGreaterThan(mergeBudget);
        if (next) expect(countTokens(source.slice(core(c), next.sourcePosition.charEnd))).toBeGreaterThan(mergeBudget);
      });
    }
    // 5. every non-whitespace character of the body is in some chunk (of every tier)
    if (laws.holds.has('coverage')) {
      const covered = new Uint8Array(source.length);
      for (const r of result.removed ?? []) covered.fill(1, r.start, r.end);
      for (const c of tier) covered.fill(1, c.sourcePosition.charStart, c.sourcePosition.charEnd);
      for (let i = bodyStart; i < source.length; i++) {
        if (!covered[i] && !/\s/.test(source[i]!)) throw new Error(`character ${i} (${JSON.stringify(source.slice(i, i + 20))}) is in no chunk`);
      }
    }
  }
  // 6. determinism, and the same result from the reference parser
  if (laws.holds.has('determinism')) {
    expect(JSON.stringify(chunkDocument(source, opts))).toBe(JSON.stringify(result));
    const viaRemark = chunkDocument(source, { ...opts, parser: 'remark' });
    expect(JSON.stringify(viaRemark.chunks.map((c) => c.originalText))).toBe(JSON.stringify(chunks.map((c) => c.originalText)));
  }
}

/** Random options of each strategy, small enough that random documents exercise every rule. */
const OPTIONS: Partial<Record<StrategyName, fc.Arbitrary<Partial<ChunkOptions>>>> = {
  semantic: options,
  'token-window': fc
    .record({ windowTokens: fc.integer({ min: 16, max: 600 }), overlapShare: fc.integer({ min: 0, max: 40 }), singlePieceMaxTokens: fc.integer({ min: 0, max: 1500 }) })
    .map(({ windowTokens, overlapShare, singlePieceMaxTokens }) => ({
      strategy: 'token-window' as const,
      windowTokens,
      windowOverlapTokens: Math.floor((windowTokens * overlapShare) / 100),
      singlePieceMaxTokens,
    })),
  hierarchical: fc
    .record({
      snippetMax: fc.integer({ min: 128, max: 600 }),
      sectionExtra: fc.integer({ min: 0, max: 1500 }),
      targetShare: fc.integer({ min: 30, max: 100 }),
      overlapShare: fc.integer({ min: 0, max: 50 }),
      maxConcepts: fc.integer({ min: 0, max: 10 }),
    })
    .map(({ snippetMax, sectionExtra, targetShare, overlapShare, maxConcepts }) => {
      const sectionMax = snippetMax + sectionExtra;
      return {
        strategy: 'hierarchical' as const,
        snippetMaxTokens: snippetMax,
        snippetTargetTokens: Math.max(1, Math.floor(((snippetMax - 64) * targetShare) / 100)),
        snippetOverlapTokens: Math.floor((snippetMax * overlapShare) / 100),
        sectionMaxTokens: sectionMax,
        sectionTargetTokens: Math.max(1, Math.floor(((sectionMax - 64) * targetShare) / 100)),
        sectionOverlapTokens: Math.floor((sectionMax * overlapShare) / 100),
        maxConcepts,
      };
    }),
  paginate: fc
    .record({ nmax: fc.integer({ min: 512, max: 3000 }), bufSize: fc.integer({ min: 0, max: 600 }), overlapShare: fc.integer({ min: 0, max: 5 }), lead: fc.boolean() })
    .map(({ nmax, bufSize, overlapShare, lead }) => ({
      strategy: 'paginate' as const,
      ctxSize: nmax + bufSize,
      bufSize,
      pageOverlapTokens: Math.floor((nmax * overlapShare) / 100),
      leadLines: lead ? ('extractive' as const) : ('none' as const),
    })),
};

/** Options the real documents are chunked with: the defaults, and small caps that make many chunks. */
const REAL_OPTIONS: Partial<Record<StrategyName, Partial<ChunkOptions>[]>> = {
  semantic: [{}, { minTokens: 32, targetTokens: 128, maxTokens: 160, breadcrumbMode: 'always' }],
  'token-window': [{ strategy: 'token-window' }, { strategy: 'token-window', windowTokens: 200, windowOverlapTokens: 50, singlePieceMaxTokens: 0 }],
  hierarchical: [
    { strategy: 'hierarchical' },
    { strategy: 'hierarchical', sectionTargetTokens: 300, sectionMaxTokens: 400, snippetTargetTokens: 100, snippetMaxTokens: 160, sectionOverlapTokens: 60, snippetOverlapTokens: 30 },
  ],
  paginate: [{ strategy: 'paginate' }, { strategy: 'paginate', ctxSize: 1024, bufSize: 256, pageOverlapTokens: 38 }],
};

describe.each(Object.keys(OPTIONS) as StrategyName[])('invariants of %s', (strategy) => {
  it('hold on random documents with random options', () => {
    fc.assert(fc.property(document, OPTIONS[strategy]!, (source, opts) => checkInvariants(source, opts)), { numRuns: strategy === 'semantic' ? 120 : 40 });
  });

  it('hold on every real sample document with the defaults and with small caps', () => {
    for (const [, text] of realDocuments()) for (const opts of REAL_OPTIONS[strategy]!) checkInvariants(text, opts);
  });

  it('name a reason for every invariant the strategy does not hold', () => {
    const laws = LAWS[strategy];
    for (const inv of ['offsets', 'caps', 'atomic', 'minSize', 'coverage', 'determinism'] as const) {
      expect(laws.holds.has(inv) !== (laws.byDesign[inv] !== undefined)).toBe(true);
    }
  });
});

// Hostile shapes (issue 15): valid markdown that once threw an invariant
// violation or was cut without a splitUnit flag. Long unspaced tokens, deep
// nesting, table rows wider than the cap, headings longer than the cap, and
// caps small enough that a breadcrumb alone is over them.
const letters = fc.constantFrom('a', 'Z', 'é', '日', '0', '/', '+', '=', '_');
const longToken = fc.tuple(fc.array(letters, { minLength: 1, maxLength: 4 }), fc.integer({ min: 50, max: 1500 })).map(([cs, n]) => cs.join('').repeat(n).slice(0, 3000));
const wideTable = fc.tuple(fc.integer({ min: 20, max: 400 }), fc.integer({ min: 0, max: 4 }), word).map(([cols, rows, w]) =>
  [`|${` ${w} h |`.repeat(cols)}`, `|${' --- |'.repeat(cols)}`, ...Array.from({ length: rows }, (_, r) => `|${` c${r} |`.repeat(cols)}`)].join('\n'));
const longHeading = fc.tuple(fc.integer({ min: 1, max: 6 }), fc.array(word, { minLength: 20, maxLength: 1200 })).map(([d, w]) => `${'#'.repeat(d)} ${w.join(' ')}`);
const deepList = fc.tuple(fc.integer({ min: 2, max: 40 }), paragraph).map(([depth, p]) =>
  Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- ${p.slice(0, 80)}`).join('\n'));
const deepQuote = fc.tuple(fc.integer({ min: 2, max: 40 }), paragraph).map(([depth, p]) =>
  Array.from({ length: depth }, (_, i) => `${'>'.repeat(i + 1)} ${p.slice(0, 80)}`).join('\n'));
// A list item with a lazy continuation line, then fenced blocks indented into it.
const itemWithFences = fc.tuple(paragraph, fc.array(fc.array(word, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 4 }))
  .map(([p, lines, fences]) => `- ${p.slice(0, 300)}\n${p.slice(0, 120)}\n${Array.from({ length: fences }, () => `\n  \`\`\`console\n${lines.map((l) => `  $ ${l.join(' ')}`).join('\n')}\n  \`\`\``).join('\n')}`);
const hostileBlock = fc.oneof(longToken, wideTable, longHeading, deepList, deepQuote, itemWithFences, paragraph, heading, code);
const hostileDocument = fc.array(hostileBlock, { minLength: 1, maxLength: 6 }).map((blocks) => `${blocks.join('\n\n')}\n`);

/** Caps down to each strategy's minimum, where a breadcrumb or a header row alone is over the cap. */
const TINY_OPTIONS: Record<StrategyName, fc.Arbitrary<Partial<ChunkOptions>>> = {
  semantic: fc.record({ maxTokens: fc.integer({ min: 16, max: 600 }), breadcrumbMode: fc.constantFrom('conditional' as const, 'always' as const, 'none' as const), overlapSentences: fc.integer({ min: 0, max: 2 }) })
    .map(({ maxTokens, breadcrumbMode, overlapSentences }) => ({ maxTokens, targetTokens: Math.max(1, Math.floor(maxTokens * 0.75)), minTokens: Math.floor(maxTokens / 8), breadcrumbMode, overlapSentences })),
  'token-window': fc.integer({ min: 16, max: 300 }).map((w) => ({ strategy: 'token-window' as const, windowTokens: w, windowOverlapTokens: Math.floor(w / 10), singlePieceMaxTokens: 0 })),
  hierarchical: fc.integer({ min: 128, max: 600 }).map((m) => ({
    strategy: 'hierarchical' as const, snippetMaxTokens: m, snippetTargetTokens: m - 64, snippetOverlapTokens: 16, sectionMaxTokens: m * 2, sectionTargetTokens: m * 2 - 64, sectionOverlapTokens: 32,
  })),
  paginate: fc.integer({ min: 512, max: 1500 }).map((n) => ({ strategy: 'paginate' as const, ctxSize: n, bufSize: 0, pageOverlapTokens: 0 })),
};

/** `CHUNKYARD_FC_SEED=N` explores another draw of the seeded properties below, with more runs (pin what it finds). */
const HUNT_SEED = process.env.CHUNKYARD_FC_SEED ? Number(process.env.CHUNKYARD_FC_SEED) : undefined;

describe.each(Object.keys(TINY_OPTIONS) as StrategyName[])('hostile shapes with %s', (strategy) => {
  it('never throw, and every invariant the strategy claims holds', () => {
    // Seeded: an unseeded run on a fresh clone (2026-11-23) found the bug pinned below, and CI
    // must not pass or fail by the draw. Change the seed to explore; pin what it finds.
    fc.assert(fc.property(hostileDocument, TINY_OPTIONS[strategy], (source, opts) => checkInvariants(source, opts)), { numRuns: HUNT_SEED === undefined ? 25 : 100, seed: HUNT_SEED ?? 20261123 });
  });
});

// Fences inside and after list items and quotes, indented by the container, under tiny caps:
// the family of the case pinned below. Every chunk, split or not, holds whole fences (an even
// number of fence lines, whatever the container prefix), and every invariant holds.
const fenceBody = fc.array(fc.oneof(fc.constant(''), fc.array(word, { minLength: 1, maxLength: 14 }).map((w) => `$ ${w.join(' ')}`)), { minLength: 1, maxLength: 12 });
const fenceIn = (indent: string, lang: string, body: string[]): string => [`${indent}\`\`\`${lang}`, ...body.map((l) => (l ? `${indent}${l}` : '')), `${indent}\`\`\``].join('\n');
const fenceFamilyBlock = fc.oneof(
  fc.tuple(sentence, fc.boolean(), fc.constantFrom('', 'console', 'js'), fenceBody).map(([p, lazy, lang, body]) => `- ${p}${lazy ? `\n${p}` : ''}\n\n${fenceIn('  ', lang, body)}`),
  fc.tuple(sentence, fc.constantFrom('', 'console'), fenceBody).map(([p, lang, body]) => `- ${p}\n  - ${p}\n\n${fenceIn('    ', lang, body)}`),
  fc.tuple(fc.constantFrom('', 'console'), fenceBody).map(([lang, body]) => `- ${fenceIn('', lang, body).replace(/\n/g, '\n  ')}`),
  fc.tuple(fc.constantFrom('', 'js'), fenceBody).map(([lang, body]) => fenceIn('', lang, body).split('\n').map((l) => `> ${l}`).join('\n')),
  fc.tuple(fc.constantFrom('', 'js'), fenceBody).map(([lang, body]) => fenceIn('', lang, body)),
  sentence,
);
const fenceFamilyDocument = fc.array(fenceFamilyBlock, { minLength: 1, maxLength: 6 }).map((blocks) => `${blocks.join('\n\n')}\n`);
const tinySemantic = fc.record({ maxTokens: fc.integer({ min: 16, max: 64 }), breadcrumbMode: fc.constantFrom('conditional' as const, 'none' as const) })
  .map(({ maxTokens, breadcrumbMode }) => ({ maxTokens, targetTokens: Math.max(1, Math.floor(maxTokens * 0.75)), minTokens: 2, breadcrumbMode, overlapSentences: 0 }));

it('fences in and after list items and quotes stay balanced in every chunk under tiny caps', () => {
  fc.assert(fc.property(fenceFamilyDocument, tinySemantic, (source, opts) => {
    checkInvariants(source, opts);
    for (const c of chunkDocument(source, opts).chunks) {
      expect(c.originalText.split(/\r?\n/).filter((l) => /^[ >]*(?:- )?(```|~~~)/.test(l)).length % 2).toBe(0); // nested fences too
    }
  }), { numRuns: HUNT_SEED === undefined ? 60 : 300, seed: HUNT_SEED ?? 20261124 });
});

// Found with other seeds of the property above. A fenced block over the cap whose re-fenced
// parts (without trailing blank lines, or without the list item's marker and indentation) fit
// the cap together again lands in one splitUnit chunk. It is split all the same: the law asks
// for a rebuilt text, not for two chunks.
it.each([
  ['- ```\n  \n  \n  \n  $ émoji😀 größe data **bold** data\n  $ 日本語 data data [link](https://example.com) data data `code` data\n  $ naïve data data data\n  $ data\n  \n  ```\n\n- data data data.\n\n  ```\n  $ data\n  ```\n', 55, 'conditional' as const],
  ['```\n$ data [link](https://example.com) größe data `code`\n\n\n```\n', 19, 'none' as const],
  // The law once missed the fence of `- \`\`\`` and found a chunk of balanced fences odd.
  ['- ```\n  \n  ```\n\n```\n$ data [link](https://example.com) data 42\n\n```\n', 16, 'conditional' as const],
  // Seeds 606/707: a nested list's empty fence, kept whole, started a part at its fence with its
  // closing fence four columns in (so closing nothing) before the next block's re-fenced part.
  ['- data [link](https://example.com) data.\n  - data [link](https://example.com) data.\n\n    ```\n\n    ```\n\n```\n$ data\n$ [link](https://example.com) data\n\n```\n\n- data data data.\n\n  ```\n  $ data\n  ```\n', 16, 'conditional' as const],
  ['- data data data data 42.\n  - data data data data 42.\n\n    ```\n    $ data\n    $ data\n    ```\n\n```\n\n$ data data data data data [link](https://example.com) **bold**\n```\n\n- data data data.\n  - data data data.\n\n    ```\n\n    ```\n', 19, 'conditional' as const],
])('split fences found by other seeds stay balanced (%#)', (source, maxTokens, breadcrumbMode) => {
  checkInvariants(source, { maxTokens, targetTokens: Math.floor(maxTokens * 0.75), minTokens: 2, breadcrumbMode, overlapSentences: 0 });
  const chunks = chunkDocument(source, { maxTokens, targetTokens: Math.floor(maxTokens * 0.75), minTokens: 2, breadcrumbMode, overlapSentences: 0 }).chunks;
  expect(chunks.some((c) => c.splitUnit)).toBe(true);
  for (const c of chunks) expect(c.originalText.split('\n').filter((l) => FENCE_LINE.test(l)).length % 2).toBe(0);
});

// Found by an unseeded run (issue 15): a list item's console fence over a 16-token cap was cut
// as plain lines, and packing joined its lone closing fence line to the first part of the next
// (top-level) fenced block: three fence lines in one splitUnit chunk. Nested fences are now split
// like top-level ones, each part re-fenced.
it('a split fence after a list item with indented fences keeps its fences balanced', () => {
  const source = '- data data data.\ndata data data.\n\n  ```console\n  $ émoji😀 日本語 data\n  ```\n\n```\n    [link](https://example.com);\n    日本語;\n\n```\n\n- data data data.\ndata data data.\n\n  ```console\n  $ data\n  ```\n';
  checkInvariants(source, { maxTokens: 16, targetTokens: 12, minTokens: 2, breadcrumbMode: 'conditional', overlapSentences: 0 });
});
