import fc from 'fast-check';
import GithubSlugger, { slug as githubSlug } from 'github-slugger';
import { describe, expect, it } from 'vitest';
import { HeadingSlugger, slugOf } from './slugs.js';

const ascii = fc.array(fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)), { maxLength: 30 }).map((a) => a.join(''));
const headingish = fc
  .array(fc.constantFrom('Class', ': ', '`fs.readFile(path[, options])`', ' ', '-', '_', 'API', 'v2.0', 'É', 'ß', 'İ', '日本', '😀', '\u00a0', '--', 'a-b', '#', '!'), { maxLength: 8 })
  .map((a) => a.join(''));

describe('slugOf', () => {
  it('gives github-slugger’s slug', () => {
    expect(slugOf('Class: `fs.Stats`')).toBe('class-fsstats');
    expect(slugOf('Über uns')).toBe(githubSlug('Über uns'));
    fc.assert(
      fc.property(fc.oneof(ascii, headingish, fc.string()), (s) => {
        expect(slugOf(s)).toBe(githubSlug(s));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('slugOf on long headings', () => {
  it('gives github-slugger’s slug above the length where it maps bytes', () => {
    const words = fc.array(fc.constantFrom('Alpha', 'beta', ' ', '  ', 'X_1', 'a-b', 'Zed', '9'), { minLength: 1, maxLength: 40 }).map((a) => a.join(''));
    fc.assert(
      fc.property(words, fc.integer({ min: 4000, max: 9000 }), fc.option(fc.constantFrom('.', 'é', '!'), { nil: '' }), (w, n, extra) => {
        const s = `${w.repeat(Math.ceil(n / w.length)).slice(0, n)}${extra}`;
        expect(slugOf(s)).toBe(githubSlug(s));
      }),
      { numRuns: 60 },
    );
  });
});

describe('HeadingSlugger', () => {
  it('numbers repeated slugs as github-slugger does', () => {
    const ours = new HeadingSlugger();
    expect(['Example', 'Example', 'Example-1', 'Example'].map((h) => ours.slug(h))).toEqual(['example', 'example-1', 'example-1-1', 'example-2']);
    fc.assert(
      fc.property(fc.array(fc.oneof(headingish, fc.constantFrom('a', 'a-1', 'A', 'a 1', 'a-2', 'a-01', 'a-0', 'a-1-1', 'a-10', '-1', '-', '', 'a-', 'a--1', '1', 'a-١')), { maxLength: 40 }), (headings) => {
        const reference = new GithubSlugger();
        const slugger = new HeadingSlugger();
        expect(headings.map((h) => slugger.slug(h))).toEqual(headings.map((h) => reference.slug(h)));
      }),
      { numRuns: 4000 },
    );
  });

  it('looks up a candidate only where a stored slug reads as that base numbered that far', () => {
    const reference = new GithubSlugger();
    const slugger = new HeadingSlugger();
    // One numbered-looking heading elsewhere, then repeats of other names: no candidate to try.
    const names = ['Step 1', ...Array.from({ length: 200 }, (_, i) => ['Parameters', 'Example'][i % 2]!)];
    // `a-1` … `a-300`, then `a` over and over: the second `a` tries past them once, the rest none.
    for (let i = 1; i <= 300; i++) names.push(`a-${i}`);
    for (let i = 0; i < 500; i++) names.push('a');
    for (const n of names) {
      const k = slugger.slugNumber(n);
      expect(k === 0 ? slugger.base : `${slugger.base}-${k}`).toBe(reference.slug(n));
    }
    expect(slugger.candidatesTried).toBe(300);
  });

  it('numbers thousands of repeats of a few names (no numbered-looking slug stored: the count alone decides) as github-slugger does', () => {
    const reference = new GithubSlugger();
    const slugger = new HeadingSlugger();
    const names = Array.from({ length: 3000 }, (_, i) => `h${i % 100}`);
    names.push('h5-30', 'h5', 'h5', 'h5-31');
    for (const n of names) {
      const k = slugger.slugNumber(n);
      expect(k === 0 ? slugger.base : `${slugger.base}-${k}`).toBe(reference.slug(n));
    }
  });
});
