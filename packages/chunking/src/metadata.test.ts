import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { isCode, shrinkBreadcrumb } from './metadata.js';
import { countTokens } from './tokens.js';

/** Seed 001's rule written the obvious way: split into lines, match each against the fence pattern. */
function isCodeByLines(text: string): boolean {
  if (!text.includes('```') && !text.includes('~~~')) return false;
  const lines = text.split(/\r\n|\r|\n/);
  let inside = 0;
  let fence: string | null = null;
  for (const line of lines) {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === null) {
      if (m) {
        fence = m[1]!;
        inside++;
      }
    } else {
      inside++;
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) fence = null;
    }
  }
  return inside * 2 > lines.length;
}

describe('isCode', () => {
  it('is true when more than half the lines are inside fences, fences included', () => {
    expect(isCode('```js\nconst a = 1;\n```\ntext')).toBe(true); // 3 of 4
    expect(isCode('```\nx\n```\none\ntwo\nthree')).toBe(false); // 3 of 6
    expect(isCode('text\n\n~~~~\ncode\n~~~\nmore code\n~~~~')).toBe(true); // a shorter run does not close
    expect(isCode('    ```\ncode\n    ```')).toBe(false); // four spaces: not a fence
    expect(isCode('```\ncode\n```  \u00a0\r\n')).toBe(true); // closes with trailing whitespace; CRLF
    expect(isCode('```\ncode\n``` x\nstill code')).toBe(true); // a fence with text after it does not close
    expect(isCode('no fences here')).toBe(false);
  });

  it('agrees with the line-splitting definition on arbitrary text', () => {
    const piece = fc.constantFrom('```', '~~~', '````', '~~~~', '`', '~', ' ', '   ', '    ', '\t', '\n', '\r', '\r\n', 'a', 'js', '\u00a0', '\u2028', '\ufeff');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(isCode(text)).toBe(isCodeByLines(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('records share only frozen objects', () => {
  const word = fc.constantFrom('alpha', 'beta', 'x', 'Reference', 'fn()');
  const block = fc.oneof(
    fc.tuple(fc.integer({ min: 1, max: 4 }), fc.array(word, { minLength: 1, maxLength: 3 })).map(([d, w]) => `${'#'.repeat(d)} ${w.join(' ')}`),
    fc.array(word, { minLength: 1, maxLength: 40 }).map((w) => `${w.join(' ')}.`),
    fc.constant('| a | b |\n| - | - |\n| 1 | 2 |'),
    fc.constant('- one\n- two'),
    fc.constant('```\ncode\n```'),
  );
  const doc = fc.array(block, { minLength: 1, maxLength: 40 }).map((b) => `${b.join('\n\n')}\n`);
  const FIELDS = ['headerPath', 'headerDepths', 'headerSlugs', 'nodeTypes', 'tableColumns'] as const;

  it('an array or pipeline object held by two records is frozen, so changing it in place cannot change another record', async () => {
    const { chunkDocument } = await import('./index.js');
    fc.assert(
      fc.property(doc, (source) => {
        const { chunks } = chunkDocument(source, { docName: 'd', minTokens: 4, targetTokens: 12, maxTokens: 64 });
        const owner = new Map<object, number>();
        for (let n = 0; n < chunks.length; n++) {
          const r = chunks[n]!;
          for (const value of [...FIELDS.map((f) => r[f]), r.metadata.pipeline] as object[]) {
            const first = owner.get(value);
            if (first !== undefined && first !== n) expect(Object.isFrozen(value)).toBe(true);
            owner.set(value, n);
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('tiny headings share their depths, types, empty table columns and pipeline, and a shared array refuses changes', async () => {
    const { chunkDocument } = await import('./index.js');
    const source = Array.from({ length: 600 }, (_, i) => `# h${i % 10}\n`).join('');
    const { chunks } = chunkDocument(source, { docName: 'd' });
    const [a, b] = [chunks[1]!, chunks[2]!];
    expect(a.headerDepths).toBe(b.headerDepths);
    expect(a.nodeTypes).toBe(b.nodeTypes);
    expect(a.tableColumns).toBe(b.tableColumns);
    expect(a.metadata.pipeline).toBe(b.metadata.pipeline);
    expect(() => a.headerDepths.push(2)).toThrow(TypeError);
    expect(() => a.nodeTypes.push('code')).toThrow(TypeError);
    expect(b.headerDepths).toEqual([1]);
    // Assigning a new array is how a consumer changes one record.
    a.nodeTypes = ['code'];
    expect(b.nodeTypes).toEqual(['heading']);
  });
});

describe('breadcrumbs per heading path', () => {
  // RecordBuilder keeps a path's breadcrumbs in a trie of heading texts: paths that repeat
  // names under other parents, at other depths, or that start with the title must still each
  // get their own. Checked against the record's own headerPath, built independently.
  const names = ['A', 'B', 'Guide', 'a b c d e f g h i j k l m n o p q r s t u v w x y z'];
  const doc = fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.constantFrom(...names), fc.integer({ min: 0, max: 40 })), { minLength: 1, maxLength: 40 }).map((parts) =>
    parts.map(([depth, name, words]) => `${depth ? `${'#'.repeat(depth)} ${name}\n\n` : ''}${'word '.repeat(words)}end.\n\n`).join(''),
  );
  it('gives each record the breadcrumb of its path, shortened only to fit (property)', () => {
    fc.assert(
      fc.property(doc, fc.constantFrom('always', 'conditional'), fc.constantFrom(undefined, 'Guide', 'A'), fc.integer({ min: 24, max: 120 }), (source, breadcrumbMode, fileTitle, maxTokens) => {
        const prefixTokens = (p: string): number => countTokens(`${p}\n\n`);
        const { chunks, fileTitle: title } = chunkDocument(source, { docName: 'd', breadcrumbMode, maxTokens, targetTokens: Math.floor(maxTokens / 2), minTokens: 8, ...(fileTitle ? { fileTitle } : {}) }, { recount: true });
        for (const c of chunks) {
          expect(c.headerBreadcrumb).toBe(c.headerPath.join(' > '));
          const full = c.headerPath.length === 0 ? title : c.headerPath[0] === title ? c.headerBreadcrumb : `${title} > ${c.headerBreadcrumb}`;
          expect(c.embedText.endsWith(c.originalText)).toBe(true);
          const head = c.embedText.slice(0, c.embedText.length - c.originalText.length);
          if (head === '') continue;
          expect(head.endsWith('\n\n')).toBe(true);
          const prefix = head.slice(0, -2);
          const room = maxTokens - c.tokenStats.tokens;
          // The title alone (mid-section prose), or the path's breadcrumb as shrinkBreadcrumb fits it.
          const asTitle = shrinkBreadcrumb(title, room, prefixTokens);
          const asFull = shrinkBreadcrumb(full, room, prefixTokens);
          expect([asTitle, asFull]).toContain(prefix);
          expect(c.tokenStats.embedTokens).toBe(countTokens(c.embedText));
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('heading fields shared per path', () => {
  // RecordBuilder shares a path node's headerPath, and headerSlugs across a section's records and
  // across paths of the same texts whose slugs are the same. Held to the heading refs toUnits
  // makes for each unit (Headings.refs, numbered by the slugger in document order), found for a
  // record's range as the other strategies find them (RangeContexts).
  const name = fc.constantFrom('A', 'B', 'Setup', 'A B');
  const doc = fc
    .array(fc.tuple(fc.integer({ min: 0, max: 3 }), name, fc.integer({ min: 0, max: 3 })), { minLength: 3, maxLength: 40 })
    .map((parts) =>
      parts
        .map(([depth, text, paragraphs]) => `${depth ? `${'#'.repeat(depth)} ${text}\n\n` : ''}${'Some words here. '.repeat(6).concat('\n\n').repeat(paragraphs)}`)
        .join(''),
    );
  it('gives each record the texts, slugs and section slug of its own heading path (property)', async () => {
    const { documentBlocks } = await import('./semantic.js');
    const { toUnits } = await import('./units.js');
    const { RangeContexts } = await import('./range-context.js');
    fc.assert(
      fc.property(doc, (body) => {
        // Three top-level headings first: the markdown path (no heuristic headings, no cut text).
        const source = `# T\n\n## U\n\n## V\n\n${body}`;
        const { chunks } = chunkDocument(source, { docName: 'd', minTokens: 4, targetTokens: 16, maxTokens: 64 });
        const contexts = new RangeContexts(toUnits(documentBlocks(source, 'fast').blocks));
        for (const c of chunks) {
          const { path } = contexts.of(c.sourcePosition.charStart, c.sourcePosition.charEnd);
          expect(c.headerPath).toEqual(path.map((h) => h.text));
          expect(c.headerSlugs).toEqual(path.map((h) => h.slug));
          expect(c.sectionSlug).toBe(path[path.length - 1]?.slug ?? '');
        }
      }),
      { numRuns: 200 },
    );
  });
});
