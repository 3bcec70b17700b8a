import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sectionTierPieces, snippetTierPieces } from './hierarchical.js';
import type { Piece } from './pieces.js';
import { documentBlocks } from './semantic.js';
import { splitOversized, type SplitContext } from './split-oversized.js';
import { TokenIndex } from './tokens.js';
import { newUnitsState, toUnits, type Unit } from './units.js';

// Hostile mixes: tiny headings, long paragraphs and lists over both tiers' budgets, tables,
// fenced code, quotes, blank-line gaps.
const part = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 6 }), fc.constantFrom('a', 'B c', 'Intro')).map(([d, t]) => `${'#'.repeat(d)} ${t}\n`),
  fc.constantFrom('| a | b |\n| - | - |\n| 1 | 2 |\n', '- one\n- two\n  - deep\n', '> quote\n> more\n', '```js\nx\ny\n```\n', '***\n'),
  fc.integer({ min: 1, max: 40 }).map((n) => `${'word and more words. '.repeat(n)}\n`),
  fc.integer({ min: 1, max: 30 }).map((n) => `- ${'item text here. '.repeat(n)}\n`),
  fc.integer({ min: 2, max: 30 }).map((n) => `\`\`\`\n${'code line\n'.repeat(n)}\`\`\`\n`),
  fc.constantFrom('\n', '\n\n\n', 'text\n'),
);
const doc = fc.array(part, { maxLength: 25 }).map((parts) => parts.join('\n'));

describe('hierarchical tier pieces', () => {
  it('are what toUnits, a splitOversized per unit and a flatMap per section made', () => {
    fc.assert(
      fc.property(doc, fc.constantFrom('fast' as const, 'remark' as const), fc.integer({ min: 8, max: 30 }), fc.integer({ min: 20, max: 120 }), (source, parser, snippetBudget, extra) => {
        const { blocks, lines } = documentBlocks(source, parser);
        const tokens = new TokenIndex(source);
        const sectionBudget = snippetBudget + extra;
        const ctx = (target: number, budget: number): SplitContext => ({ source, lines, tokens, target, budget: () => budget });
        const snippetSplit = ctx(Math.max(4, snippetBudget - 4), snippetBudget);

        // The old section tier.
        const units = toUnits(blocks);
        const unitOf = new Map<unknown, Unit>(units.map((u) => [u.block, u]));
        const want = units.flatMap((u) =>
          tokens.count(u.block.start, u.block.end) <= sectionBudget ? splitOversized([u], ctx(sectionBudget, sectionBudget)) : splitOversized([u], snippetSplit),
        );
        const state = newUnitsState();
        const table = sectionTierPieces(blocks, state, tokens, sectionBudget, snippetSplit);
        const got = table.piecesOf();
        expect(got).toEqual(want.flatMap((pieces) => pieces.piecesOf()));

        // The old snippet tier, over runs of the section pieces (any run: a section is one).
        for (let from = 0; from < got.length; from += 3) {
          const to = Math.min(got.length, from + 5);
          const own = got.slice(from, to);
          const old = own.flatMap((p): Piece[] => (!p.splitUnit && p.tokens > snippetBudget ? splitOversized([unitOf.get(p.unit)!], snippetSplit).piecesOf() : [p]));
          expect(snippetTierPieces(table, from, to, state.headings, snippetBudget, snippetSplit).piecesOf()).toEqual(old);
          // The section's own table is left as it was.
          expect(table.piecesOf()).toEqual(got);
        }
      }),
      { numRuns: 120 },
    );
  });
});
