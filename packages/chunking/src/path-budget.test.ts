import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Headings, NO_HEADING } from './headings.js';
import { fullBreadcrumb } from './metadata.js';
import type { HeadingRef } from './pieces.js';
import { pathBudget } from './semantic.js';
import { countTokens } from './tokens.js';

const prefixTokens = (p: string): number => countTokens(`${p}\n\n`);

// The budget as chunkSemantic computed it before the trie: from the path's full breadcrumb.
function budgetRef(fileTitle: string, maxTokens: number, mode: 'none' | 'always' | 'conditional', path: HeadingRef[]): number {
  const reserve = mode === 'none' ? 0 : Math.max(prefixTokens(fullBreadcrumb(fileTitle, path)), prefixTokens(fileTitle));
  return Math.max(1, maxTokens - Math.min(reserve, Math.floor(maxTokens / 2)));
}

// Few distinct texts, so that paths share trie nodes, differ only by slug, or repeat.
const text = fc.constantFrom('Intro', 'API', 'api', 'Setup', 'Intro > API', 'a long heading that is a whole figure caption '.repeat(8), '', 'Título');
const heading = fc.record({ text, depth: fc.integer({ min: 1, max: 6 }), slug: fc.string({ maxLength: 4 }) });

describe('pathBudget', () => {
  it('gives every path the budget of its full breadcrumb, whatever was asked before', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('Intro', 'Guide', ''),
        fc.integer({ min: 1, max: 600 }),
        fc.constantFrom('none' as const, 'always' as const, 'conditional' as const),
        fc.array(fc.array(heading, { maxLength: 4 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (fileTitle, maxTokens, breadcrumbMode, paths, order) => {
          // Each path is a chain of the table's headings, asked by the index of its last one.
          const headings = new Headings();
          const indexes = paths.map((path) => path.reduce((parent, h) => headings.add(h.text, h.depth, parent, h.slug, 0), NO_HEADING));
          const budget = pathBudget(fileTitle, { maxTokens, breadcrumbMode }, headings, prefixTokens);
          // Each path asked in order, then again in a random order (the same paths again, as pack asks).
          paths.forEach((path, k) => expect(budget(indexes[k]!)).toBe(budgetRef(fileTitle, maxTokens, breadcrumbMode, path)));
          for (const k of order) {
            const path = paths[k % paths.length]!;
            expect(budget(indexes[k % paths.length]!)).toBe(budgetRef(fileTitle, maxTokens, breadcrumbMode, path));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('answers the same as headings are added after it was made (the stream asks section by section)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 600 }),
        fc.array(fc.tuple(fc.array(heading, { minLength: 1, maxLength: 3 }), fc.nat()), { minLength: 1, maxLength: 120 }),
        (maxTokens, steps) => {
          const headings = new Headings();
          const budget = pathBudget('Guide', { maxTokens, breadcrumbMode: 'always' }, headings, prefixTokens);
          const paths: HeadingRef[][] = [];
          const indexes: number[] = [];
          for (const [path, ask] of steps) {
            // A new path of new headings, then a budget asked of it and of an earlier one.
            indexes.push(path.reduce((parent, h) => headings.add(h.text, h.depth, parent, h.slug, 0), NO_HEADING));
            paths.push(path);
            const k = ask % paths.length;
            expect(budget(indexes[indexes.length - 1]!)).toBe(budgetRef('Guide', maxTokens, 'always', path));
            expect(budget(indexes[k]!)).toBe(budgetRef('Guide', maxTokens, 'always', paths[k]!));
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
