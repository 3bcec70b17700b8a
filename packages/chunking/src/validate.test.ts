import { describe, expect, it } from 'vitest';
import { chunkDocument } from './index.js';
import { documentBlocks } from './semantic.js';
import { ChunkingInvariantError, validate } from './validate.js';

const source = ['# Title', '', 'Some prose before the code.', '', '```js', 'const a = 1;', 'const b = 2;', '```', '', '| a | b |', '| - | - |', '| 1 | 2 |', '', 'After.', ''].join('\n');

/** The single record of `source`, cut to end at `end` (its text kept an exact slice). */
function cutAt(end: number, splitUnit = false) {
  const [r] = chunkDocument(source, { docName: 'v' }).chunks;
  return [{ ...r!, originalText: source.slice(0, end), embedText: source.slice(0, end), sourcePosition: { ...r!.sourcePosition, charEnd: end }, splitUnit }];
}

describe('validate: atomic units', () => {
  const blocks = documentBlocks(source, 'fast').blocks;
  const opts = { maxTokens: 512, docName: 'v', blocks };

  it('rejects a chunk without splitUnit that ends inside a fenced code block (unbalanced fence)', () => {
    const end = source.indexOf('const b');
    expect(() => validate(source, cutAt(end), opts)).toThrow(/inside a fenced code block \(unbalanced fence\) at lines 5-8/);
    expect(() => validate(source, cutAt(end), opts)).toThrow(ChunkingInvariantError);
  });

  it('rejects one that ends inside a table', () => {
    expect(() => validate(source, cutAt(source.indexOf('| 1 |')), opts)).toThrow(/inside a table at lines 10-12/);
  });

  it('accepts the cut when the chunk says it split a unit, and whole units', () => {
    expect(() => validate(source, cutAt(source.indexOf('const b'), true), opts)).not.toThrow();
    expect(() => validate(source, cutAt(source.indexOf('| a |')), opts)).not.toThrow();
    expect(() => validate(source, cutAt(source.indexOf('After')), opts)).not.toThrow();
  });

  it('accepts a cut inside a code block over the cap', () => {
    expect(() => validate(source, cutAt(source.indexOf('const b')), { ...opts, maxTokens: 5 })).toThrow(/tokens > max 5/);
    expect(() => validate(source, cutAt(source.indexOf('const b')), { ...opts, maxTokens: 5 })).not.toThrow(/fenced/);
  });
});

describe('an oversized list item split by its children', () => {
  it('keeps a fenced block in it whole when the block fits the cap (fast-check counterexample)', () => {
    const src = "- data data data.\ndata data data.\n\n  ```console\n  $ data\n  ```\n\n```\n    [link](https://example.com) data data `code`;\n```\n\n# data data data data data data data data data data data data data data data data data data data data\n";
    const { chunks } = chunkDocument(src, { docName: 'x', maxTokens: 16, targetTokens: 12, minTokens: 2, overlapSentences: 0 });
    expect(chunks.some((c) => c.originalText.includes('```console\n  $ data\n  ```'))).toBe(true);
    for (const c of chunks) expect(c.originalText.split('\n').filter((l) => /^ {0,3}```/.test(l)).length % 2).toBe(0);
  });
});

describe('validate: text and emptiness', () => {
  const [r] = chunkDocument(source, { docName: 'v' }).chunks;
  it('rejects a text of the right length that is not the source slice, and a text of only (Unicode) whitespace', () => {
    const other = `${r!.originalText.slice(0, -1)}X`;
    expect(() => validate(source, [{ ...r!, originalText: other }], { maxTokens: 512, docName: 'v' })).toThrow(/text is not source\.slice/);
    const blank = '\u2003\u00a0 \n';
    expect(() => validate(blank, [{ ...r!, originalText: blank, splitUnit: true, sourcePosition: { charStart: 0, charEnd: blank.length, totalChars: blank.length } }], { maxTokens: 512, docName: 'v' })).toThrow(/chunk 0: empty/);
    expect(validate(source, [r!], { maxTokens: 512, docName: 'v' })).toEqual([r]);
  });
});
