import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HeadingRef } from './pieces.js';
import { contentHintOf, headerBreadcrumbOf, headingFields, withHint } from './range-context.js';
import type { BlockType, ContentHint } from './types.js';

const TYPES: BlockType[] = ['paragraph', 'heading', 'code', 'table', 'list', 'listItem', 'blockquote', 'html', 'thematicBreak'];
const HINT: Partial<Record<BlockType, ContentHint>> = { paragraph: 'prose', code: 'code', table: 'table', listItem: 'list', blockquote: 'quote' };

/** The definition: the set of the content blocks' hints; one kind is that kind, none is prose. */
function reference(types: BlockType[]): ContentHint {
  const hints = new Set(types.map((t) => HINT[t]).filter((h) => h !== undefined));
  return hints.size === 0 ? 'prose' : hints.size === 1 ? [...hints][0]! : 'mixed';
}

describe('contentHintOf', () => {
  it('is the one kind of every content block, mixed for several, prose for none', () => {
    expect(contentHintOf([])).toBe('prose');
    expect(contentHintOf(['heading', 'heading'])).toBe('prose');
    expect(contentHintOf(['heading', 'code', 'code'])).toBe('code');
    expect(contentHintOf(['table', 'heading', 'table'])).toBe('table');
    expect(contentHintOf(['code', 'paragraph', 'code'])).toBe('mixed');
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TYPES), { maxLength: 12 }), (types) => {
        expect(contentHintOf(types)).toBe(reference(types));
        // withHint folded one type at a time gives the same answer (metadata's chunkShape does so).
        let hint: ContentHint | null = null;
        for (const t of types) hint = withHint(hint, t);
        expect(hint ?? 'prose').toBe(reference(types));
      }),
    );
  });
});

describe('headerBreadcrumbOf', () => {
  const ref = fc.record({ text: fc.string({ maxLength: 8 }), depth: fc.integer({ min: 1, max: 6 }), slug: fc.string({ maxLength: 8 }) });
  it("is the path's texts joined by ' > ', also for empty and one-heading paths", () => {
    fc.assert(
      fc.property(fc.array(ref, { maxLength: 5 }), (path: HeadingRef[]) => {
        expect(headerBreadcrumbOf(path)).toBe(path.map((h) => h.text).join(' > '));
        // Asked again (the cached answer for a longer path) it is the same.
        expect(headerBreadcrumbOf(path)).toBe(path.map((h) => h.text).join(' > '));
        expect(headingFields(path).headerBreadcrumb).toBe(path.map((h) => h.text).join(' > '));
      }),
    );
  });
});
