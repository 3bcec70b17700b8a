import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalize } from './normalize.js';
import { addOverlap } from './overlap.js';
import { blockMinima, budgetOf, equalStretches, pack, rangeMin, runText, tokensOf, type PackContext } from './pack.js';
import { grown, type DraftChunk, type PieceTable } from './pieces.js';
import { documentBlocks, opensTechnicalBaseline } from './semantic.js';
import { splitOversized } from './split-oversized.js';
import { countTokens, TokenIndex } from './tokens.js';
import { chunkDocument } from './index.js';
import { newUnitsState, toUnits } from './units.js';

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'Reference', 'x', 'fn()', 'Quick', 'data');
const heading = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.array(word, { minLength: 1, maxLength: 4 })).map(([d, w]) => `${'#'.repeat(d)} ${w.join(' ')}`);
// Some end with a colon: an introduction, which packing carries to what follows it.
const paragraph = fc
  .tuple(fc.array(word, { minLength: 1, maxLength: 60 }), fc.constantFrom('.', '.', ':', '：', ': '))
  .map(([w, end]) => `${w.join(' ')}${end}`);
const fence = fc.array(word, { minLength: 1, maxLength: 80 }).map((w) => `\`\`\`\n${w.join(' ')}\n\`\`\``);
// Runs of bare headings (the carry of trailing headings), prose, code that may be split and rebuilt.
const doc = fc.array(fc.oneof({ weight: 5, arbitrary: heading }, { weight: 3, arbitrary: paragraph }, { weight: 1, arbitrary: fence }), { minLength: 1, maxLength: 80 }).map((b) => `${b.join('\n\n')}\n`);

describe('pack', () => {
  it('keeps every piece once and in order, counts each chunk exactly, and keeps multi-piece chunks within their budget', () => {
    fc.assert(
      fc.property(doc, fc.integer({ min: 8, max: 120 }), fc.integer({ min: 0, max: 60 }), (source, cap, min) => {
        const { blocks, lines } = documentBlocks(source, 'fast');
        const tokens = new TokenIndex(source);
        // A budget that depends on the path, as the breadcrumb reserve does.
        const state = newUnitsState();
        const budget = (heading: number): number => Math.max(4, cap - state.headings.refs(heading).reduce((n, h) => n + h.text.length, 0) % 7);
        const pieces = splitOversized(toUnits(blocks, state), { source, lines, tokens, target: cap, budget });
        const ctx = { source, tokens, minTokens: min, targetTokens: Math.max(1, cap - 4), budget, opensChunk: opensTechnicalBaseline };
        const drafts = pack(pieces, ctx);
        // Every draft is a range of the table, the ranges in order with none left out.
        let at = 0;
        for (const d of drafts) {
          expect(d.table).toBe(pieces);
          expect(d.from).toBe(at);
          expect(d.to).toBeGreaterThan(d.from);
          at = d.to;
        }
        expect(at).toBe(pieces.length);
        for (const d of drafts) {
          const own = d.table.piecesOf(d.from, d.to);
          expect(d.tokens).toBe(countTokens(runText(d.table, d.from, d.to, source)));
          expect(d.start).toBe(own[0]!.start);
          expect(d.end).toBe(own[own.length - 1]!.end);
          if (own.length > 1) expect(d.tokens).toBeLessThanOrEqual(Math.min(...own.map((p) => budget(p.heading))));
        }
      }),
      { numRuns: 200 },
    );
  });
});

/**
 * pack's rules restated over arrays of pieces, each count and budget taken afresh (tokensOf,
 * budgetOf): what pack's typed-array runs must give, run for run.
 */
function referencePack(table: PieceTable, ctx: PackContext): { from: number; to: number }[] {
  const pieces = table.piecesOf();
  const tok = (from: number, to: number): number => tokensOf(table, from, to, ctx);
  const bud = (from: number, to: number): number => budgetOf(table, from, to, ctx);
  const isHeading = (k: number): boolean => pieces[k]!.unit.type === 'heading' && !pieces[k]!.splitUnit;
  const allHeadings = (from: number, to: number): boolean => pieces.slice(from, to).every((_, j) => isHeading(from + j));
  const opens = (k: number): boolean => ctx.opensChunk !== undefined && isHeading(k) && ctx.opensChunk(pieces[k]!.unit);
  const opensRun = (from: number, to: number): boolean => {
    for (let k = from; k < to; k++) {
      if (opens(k)) return true;
      if (!isHeading(k)) return false;
    }
    return false;
  };
  const sectionEnd = (i: number): number => {
    let k = i + 1;
    while (k < pieces.length && !isHeading(k)) k++;
    return k;
  };
  // A whole paragraph ending with a colon, before a piece that is not a heading.
  const introduces = (k: number): boolean =>
    k + 1 < pieces.length &&
    !isHeading(k + 1) &&
    pieces[k]!.unit.type === 'paragraph' &&
    !pieces[k]!.splitUnit &&
    pieces[k]!.rebuiltText === null &&
    /[:：][ \t\n\r\f\v]*$/.test(ctx.source.slice(pieces[k]!.start, pieces[k]!.end));
  const onlyHeadingsAndIntroductions = (from: number, to: number): boolean => {
    for (let k = from; k < to; k++) if (!isHeading(k) && !introduces(k)) return false;
    return true;
  };
  const runs: { from: number; to: number }[] = [];
  let cur: { from: number; to: number } | null = null;
  for (let i = 0; i < pieces.length; i++) {
    if (cur) {
      const joined = tok(cur.from, i + 1);
      const own = tok(cur.from, cur.to);
      const close =
        (opens(i) && !allHeadings(cur.from, cur.to)) ||
        joined > Math.min(bud(cur.from, cur.to), ctx.budget(pieces[i]!.heading)) ||
        (!isHeading(cur.to - 1) &&
          !onlyHeadingsAndIntroductions(cur.from, cur.to) &&
          own >= ctx.minTokens &&
          (isHeading(i)
            ? // A run that starts inside a section ends at the next heading; one a heading opens takes small sections in.
              !isHeading(cur.from) || tok(cur.from, sectionEnd(i)) > ctx.targetTokens
            : // A section's last pieces, under min together, stay with the run when they all fit it.
              !(sectionEnd(i) - i <= 64 && tok(i, sectionEnd(i)) < ctx.minTokens && tok(cur.from, sectionEnd(i)) <= bud(cur.from, sectionEnd(i))) &&
              joined > ctx.targetTokens &&
              joined - ctx.targetTokens > ctx.targetTokens - own));
      if (close) {
        let lastNonHeading = -1;
        for (let k = cur.from; k < cur.to; k++) if (!isHeading(k)) lastNonHeading = k;
        // Introductions are carried with the headings, unless the run holds nothing else.
        let lastKept = -1;
        for (let k = cur.from; k < cur.to; k++) if (!isHeading(k) && !introduces(k)) lastKept = k;
        if (lastKept >= cur.from) lastNonHeading = lastKept;
        // A run of bare headings only keeps all but its last heading and the shallower ones right above it.
        const depth = (k: number): number => pieces[k]!.unit.depth ?? 0;
        let lastOpening = cur.to - 1;
        while (lastOpening - 1 > cur.from && depth(lastOpening - 1) < depth(lastOpening)) lastOpening--;
        const cut = Math.max(cur.from + 1, lastNonHeading >= cur.from ? lastNonHeading + 1 : lastOpening);
        runs.push({ from: cur.from, to: cut });
        const carried: { from: number; to: number } | null = cut < cur.to ? { from: cut, to: cur.to } : null;
        cur = carried;
        if (carried && tok(carried.from, i + 1) > Math.min(bud(carried.from, carried.to), ctx.budget(pieces[i]!.heading))) {
          runs.push(carried);
          cur = null;
        }
      }
    }
    if (cur) cur.to = i + 1;
    else cur = { from: i, to: i + 1 };
  }
  if (cur) runs.push(cur);
  const done: { from: number; to: number }[] = [];
  let k = 0;
  let run = runs[k++];
  while (run) {
    if (done.length + 1 + (runs.length - k) > 1 && tok(run.from, run.to) < ctx.minTokens) {
      const next = runs[k];
      if (next && !(opensRun(next.from, next.to) && !allHeadings(run.from, run.to)) && tok(run.from, next.to) <= bud(run.from, next.to)) {
        run = { from: run.from, to: next.to };
        k++;
        continue;
      }
      const prev = done[done.length - 1];
      if (prev && !opensRun(run.from, run.to) && tok(prev.from, run.to) <= bud(prev.from, run.to)) {
        done.pop();
        run = { from: prev.from, to: run.to };
        continue;
      }
    }
    done.push(run);
    run = runs[k++];
  }
  return done;
}

describe('pack against its rules restated', () => {
  const tinyHeading = fc.nat(99).map((n) => `# h${n}`);
  const longToken = fc.integer({ min: 20, max: 400 }).map((n) => 'q'.repeat(n));
  const wideRow = fc.integer({ min: 2, max: 40 }).map((n) => {
    const cells = Array.from({ length: n }, (_, c) => `c${c}`);
    return `| ${cells.join(' | ')} |\n|${' --- |'.repeat(n)}\n| ${cells.join(' | ')} |`;
  });
  const hostile = fc
    .array(
      fc.oneof({ weight: 6, arbitrary: tinyHeading }, { weight: 3, arbitrary: heading }, { weight: 2, arbitrary: paragraph }, { weight: 1, arbitrary: fence }, { weight: 1, arbitrary: longToken }, { weight: 1, arbitrary: wideRow }),
      { minLength: 1, maxLength: 120 },
    )
    .map((b) => `${b.join('\n\n')}\n`);
  it('gives the same runs, each with its exact count, on tiny headings, long tokens, wide rows and tiny caps', () => {
    fc.assert(
      fc.property(hostile, fc.integer({ min: 4, max: 120 }), fc.integer({ min: 0, max: 80 }), fc.boolean(), (source, cap, min, forced) => {
        const { blocks, lines } = documentBlocks(source, 'fast');
        const tokens = new TokenIndex(source);
        const state = newUnitsState();
        const budget = (heading: number): number => Math.max(4, cap - (state.headings.refs(heading).reduce((n, h) => n + h.text.length, 0) % 7));
        const pieces = splitOversized(toUnits(blocks, state), { source, lines, tokens, target: cap, budget });
        const ctx: PackContext = { source, tokens, minTokens: min, targetTokens: Math.max(1, cap - 4), budget, ...(forced ? { opensChunk: opensTechnicalBaseline } : {}) };
        const drafts: DraftChunk[] = pack(pieces, ctx);
        const expected = referencePack(pieces, ctx);
        expect(drafts.map((d) => ({ from: d.from, to: d.to }))).toEqual(expected);
        for (const d of drafts) expect(d.tokens).toBe(countTokens(runText(d.table, d.from, d.to, source)));
      }),
      { numRuns: 300 },
    );
  });
});

describe('pack against its rules restated, on thousands of tiny headings', () => {
  // A run of bare headings closes at nearly every piece and carries all but its first on: the
  // runs go to mergeSmall as they close, and most are merged away as they arrive.
  const tinyHeading = fc.tuple(fc.integer({ min: 1, max: 3 }), fc.nat(99)).map(([d, n]) => `${'#'.repeat(d)} h${n}`);
  const rare = fc.constantFrom('# Quick Reference', '## API Reference', 'Some prose, a sentence or two. Another one.', '- item\n- item', '```\ncode\n```');
  const block = fc.oneof({ weight: 40, arbitrary: tinyHeading }, { weight: 1, arbitrary: rare });
  const many = fc.array(block, { minLength: 500, maxLength: 2500 }).map((b) => `${b.join('\n')}\n`);
  it('gives the same runs with one budget for all, budgets by path, forced headings or none, tiny caps and mins', () => {
    fc.assert(
      fc.property(many, fc.integer({ min: 4, max: 200 }), fc.integer({ min: 0, max: 40 }), fc.boolean(), fc.boolean(), (source, cap, min, forced, byPath) => {
        const { blocks, lines } = documentBlocks(source, 'fast');
        const tokens = new TokenIndex(source);
        const state = newUnitsState();
        const budget = byPath ? (heading: number): number => Math.max(4, cap - (heading < 0 ? 0 : state.headings.text(heading).length % 3)) : (): number => cap;
        const pieces = splitOversized(toUnits(blocks, state), { source, lines, tokens, target: cap, budget });
        const ctx: PackContext = { source, tokens, minTokens: min, targetTokens: Math.max(1, cap - 4), budget, ...(forced ? { opensChunk: opensTechnicalBaseline } : {}) };
        const drafts: DraftChunk[] = pack(pieces, ctx);
        expect(drafts.map((d) => ({ from: d.from, to: d.to }))).toEqual(referencePack(pieces, ctx));
        for (const d of drafts) expect(d.tokens).toBe(countTokens(runText(d.table, d.from, d.to, source)));
      }),
      { numRuns: 25 },
    );
  });
});

describe('pack (pooled columns)', () => {
  it('gives the same runs as referencePack whatever documents were packed before (its columns are pooled)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(doc, fc.integer({ min: 8, max: 120 }), fc.integer({ min: 0, max: 60 })), { minLength: 2, maxLength: 4 }), (docs) => {
        const runsOf = (source: string, cap: number, min: number): { from: number; to: number; tokens: number }[] => {
          const { blocks, lines } = documentBlocks(source, 'fast');
          const tokens = new TokenIndex(source);
          const budget = (heading: number): number => Math.max(4, cap - (heading % 5));
          const pieces = splitOversized(toUnits(blocks), { source, lines, tokens, target: cap, budget });
          const ctx = { source, tokens, minTokens: min, targetTokens: Math.max(1, cap - 4), budget, opensChunk: opensTechnicalBaseline };
          const runs = pack(pieces, ctx).map((d) => ({ from: d.from, to: d.to, tokens: d.tokens }));
          expect(runs.map(({ from, to }) => ({ from, to }))).toEqual(referencePack(pieces, ctx));
          return runs;
        };
        const forward = docs.map(([source, cap, min]) => runsOf(source, cap, min));
        const backward = [...docs].reverse().map(([source, cap, min]) => runsOf(source, cap, min)).reverse();
        expect(backward).toEqual(forward);
      }),
      { numRuns: 60 },
    );
  });
});

describe('rangeMin', () => {
  it('is the least value of the range, whatever blocks it spans', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 600 }), { maxLength: 200 }), fc.nat(), fc.nat(), (xs, a, b) => {
        const values = Float64Array.from(xs);
        const from = xs.length ? a % (xs.length + 1) : 0;
        const to = from + (xs.length ? b % (xs.length - from + 1) : 0);
        expect(rangeMin(values, blockMinima(values), from, to)).toBe(Math.min(Infinity, ...xs.slice(from, to)));
      }),
      { numRuns: 2000 },
    );
  });

  it('is the least value of the range with the stretches of equal values given, whatever they span', () => {
    // Few values, so that stretches of equal ones are long and end anywhere.
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 200 }), fc.nat(), fc.nat(), (xs, a, b) => {
        const values = Float64Array.from(xs);
        const from = xs.length ? a % (xs.length + 1) : 0;
        const to = from + (xs.length ? b % (xs.length - from + 1) : 0);
        expect(rangeMin(values, blockMinima(values), from, to, equalStretches(values))).toBe(Math.min(Infinity, ...xs.slice(from, to)));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('normalize', () => {
  it('gives what spreading each draft with its trimmed range and text gives, key order included', () => {
    fc.assert(
      fc.property(doc, fc.integer({ min: 8, max: 120 }), fc.nat(2), (source, cap, overlap) => {
        const { blocks, lines } = documentBlocks(source, 'fast');
        const tokens = new TokenIndex(source);
        const budget = (): number => cap;
        const pieces = splitOversized(toUnits(blocks), { source, lines, tokens, target: cap, budget });
        const ctx = { source, tokens, minTokens: 4, targetTokens: Math.max(1, cap - 4), budget };
        const drafts = addOverlap(pack(pieces, ctx), overlap, ctx);
        // The formulation it replaced.
        const reference = drafts.flatMap((draft) => {
          let start = draft.start;
          while (start < draft.end && /\s/.test(source[start]!) && source.charCodeAt(start) < 128) start++;
          let end = draft.end;
          while (end > start && /\s/.test(source[end - 1]!) && source.charCodeAt(end - 1) < 128) end--;
          const own = draft.table.piecesOf(draft.from, draft.to);
          const exact = own.every((p) => p.rebuiltText === null);
          if (end <= start || (exact && source.slice(start, end).trim() === '')) return [];
          const text = exact ? source.slice(start, end) : source.slice(start, own[0]!.start) + runText(draft.table, draft.from, draft.to, source);
          // A trimmed range is counted again (the count was of the untrimmed one).
          const trimmed = exact ? start !== draft.start || end !== draft.end : start !== draft.start;
          return [{ ...draft, start, end, text, exact, tokens: trimmed ? countTokens(text) : draft.tokens }];
        });
        const normalized = normalize(drafts, source, tokens);
        expect(normalized).toStrictEqual(reference);
        expect(normalized.map((c) => Object.keys(c))).toEqual(reference.map((c) => Object.keys(c)));
      }),
      { numRuns: 200 },
    );
  });
});

describe('grown', () => {
  it('copies a column into a zeroed one of the same type and the given size', () => {
    for (const column of [Int32Array.of(-1, 2), Float64Array.of(0.5, Infinity), Uint8Array.of(1, 255)]) {
      const bigger = grown(column, 5);
      expect(bigger.constructor).toBe(column.constructor);
      expect([...bigger]).toEqual([...column, 0, 0, 0]);
      expect(bigger).not.toBe(column);
    }
  });
});

describe('a run of bare headings longer than the cap', () => {
  const options = { docName: 'd', minTokens: 4, targetTokens: 20, maxTokens: 64 };

  it('is cut into chunks that fill the cap, not peeled a heading at a time (issue 15 probe)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 40, max: 600 }), fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 7 }), fc.integer({ min: 1, max: 100 }), (n, depths, names) => {
        const source = Array.from({ length: n }, (_, i) => `${'#'.repeat(depths[i % depths.length]!)} h${i % names}`).join('\n') + '\n';
        const { chunks } = chunkDocument(source, options);
        const total = countTokens(source.trimEnd());
        // Before: chunks of a few headings each, merged only up to minTokens (200 headings made 16 chunks where 100 made one).
        expect(chunks.length).toBeLessThanOrEqual(Math.ceil(total / (options.maxTokens / 2)) + 1);
        for (const c of chunks.slice(0, -1)) expect(c.tokenStats.tokens).toBeGreaterThan(options.maxTokens / 2);
      }),
      { numRuns: 60 },
    );
  });

  it('carries its last heading and the shallower ones right above it to what follows', () => {
    const bare = Array.from({ length: 40 }, (_, i) => `## h${i}`).join('\n');
    const { chunks } = chunkDocument(`${bare}\n## Parent\n### Child\n\nThe content under the child heading.\n`, options);
    const last = chunks[chunks.length - 1]!;
    expect(last.originalText).toBe('## Parent\n### Child\n\nThe content under the child heading.');
    expect(chunks.slice(0, -1).every((c) => c.tokenStats.tokens > options.maxTokens / 2)).toBe(true);
  });
});

describe('the text between a piece and a rebuilt part (issue 15 probe: quadratic in a run of spaces)', () => {
  const code = '```\n' + Array.from({ length: 300 }, (_, i) => `const value${i} = compute(${i}, "some text here");`).join('\n') + '\n```\n';
  const doc = (spaces: number) => `# T\n\n## A\n\n## B\n\nSome paragraph text here.\n${' '.repeat(spaces)}\n${code}`;

  it('is made in linear time however long the run: 400,000 spaces before a split code block', () => {
    // `/[ \t]+$/` tried the rest of the run from each of its characters (36 s for 200,000 on this machine; over the tests' 60 s limit for 400,000).
    const source = doc(400_000);
    const chunks = chunkDocument(source, { docName: 'g' }).chunks;
    expect(chunks.some((c) => c.splitUnit)).toBe(true);
    // Every character but whitespace is in a chunk, in order, once (the parts repeat their fences).
    const bare = (t: string) => t.replace(/\s+/g, '');
    expect(bare(chunks.map((c) => c.originalText).join('')).replace(/```/g, '')).toBe(bare(source).replace(/```/g, ''));
  });
});
