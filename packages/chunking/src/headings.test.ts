import fc from 'fast-check';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';
import { Headings, NO_HEADING } from './headings.js';
import type { HeadingRef } from './pieces.js';
import { documentBlocks } from './semantic.js';
import type { Block } from './types.js';
import { newUnitsState, toUnits, visitUnits } from './units.js';

/** Each unit's heading path as toUnits made it before the heading table: arrays of HeadingRefs, github-slugger's slugs. */
function referencePaths(blocks: Block[]): HeadingRef[][] {
  const slugger = new GithubSlugger();
  let path: HeadingRef[] = [];
  const out: HeadingRef[][] = [];
  for (const b of blocks) {
    if (b.type === 'heading') {
      const depth = b.depth ?? 1;
      const text = b.text ?? '';
      path = [...path.filter((h) => h.depth < depth), { text, depth, slug: slugger.slug(text) }];
      out.push(path);
    } else if (b.type === 'list' && b.children?.length) for (let k = 0; k < b.children.length; k++) out.push(path);
    else out.push(path);
  }
  return out;
}

// Few names, so that slugs repeat and get numbered; some read like numbered slugs themselves.
const name = fc.constantFrom('h1', 'h2', 'Intro', 'intro', 'a-1', 'a', 'A 1', 'Setup', 'h1-1', 'Reference');
const heading = fc.tuple(fc.integer({ min: 1, max: 6 }), name).map(([d, n]) => `${'#'.repeat(d)} ${n}`);
const other = fc.constantFrom('Some prose.', '- one\n- two', '```\ncode\n```', '> quote');
const doc = fc.array(fc.oneof({ weight: 3, arbitrary: heading }, { weight: 1, arbitrary: other }), { minLength: 1, maxLength: 60 }).map((b) => `${b.join('\n\n')}\n`);

describe('Headings (heading paths as indexes)', () => {
  it('gives every unit the path, depths and numbered slugs the path arrays gave', () => {
    fc.assert(
      fc.property(doc, (source) => {
        const { blocks } = documentBlocks(source, 'fast');
        const state = newUnitsState();
        const units = toUnits(blocks, state);
        const expected = referencePaths(blocks);
        expect(units.map((u) => u.path)).toEqual(expected);
        const { headings } = state;
        for (let i = 0; i < units.length; i++) {
          const h = units[i]!.heading;
          const path = expected[i]!;
          expect(headings.pathLength(h)).toBe(path.length);
          for (let k = 0; k < path.length; k++) {
            const at = headings.at(h, k);
            expect([headings.text(at), headings.depth(at), headings.slug(at)]).toEqual([path[k]!.text, path[k]!.depth, path[k]!.slug]);
          }
          if (path.length > 0) expect(headings.parent(h)).toBe(path.length > 1 ? headings.at(h, path.length - 2) : NO_HEADING);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('makes no heading objects while visiting: a path is the index of its innermost heading', () => {
    const { blocks } = documentBlocks('# a\n\n## b\n\ntext\n\n# a\n\n### c\n', 'fast');
    const state = newUnitsState();
    const seen: number[] = [];
    visitUnits(blocks, state, (_b, h) => seen.push(h));
    expect(seen).toEqual([0, 1, 1, 2, 3]);
    expect(state.heading).toBe(3);
    expect(state.headings.slug(2)).toBe('a-1');
    expect(state.headings.refs(3)).toEqual([
      { text: 'a', depth: 1, slug: 'a-1' },
      { text: 'c', depth: 3, slug: 'c' },
    ]);
    expect(state.headings.refs(NO_HEADING)).toEqual([]);
  });

  it('grows past its first typed arrays', () => {
    const headings = new Headings();
    let parent = NO_HEADING;
    for (let i = 0; i < 100; i++) parent = headings.add(`t${i}`, (i % 6) + 1, i % 6 === 0 ? NO_HEADING : parent, `t${i}`, i % 3);
    expect(headings.count).toBe(100);
    expect(headings.depth(99)).toBe(4);
    expect(headings.pathLength(99)).toBe(4);
    expect(headings.slug(98)).toBe('t98-2');
    expect(headings.slug(99)).toBe('t99');
    for (let h = 0; h < 100; h++) expect(headings.text(h)).toBe(`t${h}`);
  });

  it('keeps every text across a reserve and the growths after it (texts are written by index)', () => {
    const headings = new Headings();
    for (let i = 0; i < 20; i++) headings.add(`a${i}`, 1, NO_HEADING, `a${i}`, 0);
    headings.reserve(5000); // above RESERVE_FROM: the columns and texts are made 5000 long at once
    for (let i = 20; i < 12000; i++) headings.add(`a${i}`, 1, NO_HEADING, i % 2 ? `b${i}` : `a${i}`, 0);
    expect(headings.count).toBe(12000);
    for (let h = 0; h < 12000; h++) {
      expect(headings.text(h)).toBe(`a${h}`);
      expect(headings.slug(h)).toBe(h >= 20 && h % 2 ? `b${h}` : `a${h}`);
    }
  });

  it('hands its slug bases on with its columns, emptied of the document\'s strings', () => {
    // Private columns, read to see what a released table keeps between documents.
    type Columns = { slugBases: string[]; texts: string[] };
    const first = new Headings();
    first.reserve(10000);
    for (let i = 0; i < 10000; i++) first.add(`Heading ${i}`, 1, NO_HEADING, `heading-${i}`, 0);
    const bases = (first as unknown as Columns).slugBases;
    first.release();
    // Kept for the next table, without a string of the document it was made for.
    expect(bases.slice(0, 10000).every((b) => b === '')).toBe(true);
    const second = new Headings();
    second.reserve(10000);
    expect((second as unknown as Columns).slugBases).toBe(bases);
    for (let i = 0; i < 10000; i++) second.add(`Part ${i}`, 1, NO_HEADING, i % 3 ? `part-${i}` : `Part ${i}`, 0);
    for (let h = 0; h < 10000; h++) expect(second.slug(h)).toBe(h % 3 ? `part-${h}` : `Part ${h}`);
    second.release();
  });
});
