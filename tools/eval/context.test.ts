import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { countTokens } from '@chunkyard/chunking';
import { contextualTexts, parseContextModes } from './context.mjs';

const stopWords = new Set(['the', 'and', 'are']);
const env = (cap: number) => ({ cap, countTokens, stopWords });
const rec = (text: string, path: string[]) => ({ embedText: text, originalText: text, headerPath: path });
const records = [
  rec('Trimming removes unused code. The trimmer analyses the app.', ['Guide', 'Trimming']),
  rec('Reflection breaks trimming analysis in the trimmer.', ['Guide', 'Trimming']),
  rec('Native AOT compiles ahead of time.', ['Guide', 'AOT']),
];

describe('contextualTexts', () => {
  it('adds the section path, the section lead and neighbour terms, each only where it adds something', () => {
    const out = contextualTexts(records, parseContextModes('path,lead,nkw:2'), env(512));
    expect(out[0]).toContain('Guide > Trimming');
    expect(out[0]!.split('Trimming removes unused code.')).toHaveLength(2); // its own lead is not repeated
    expect(out[1]).toContain('Trimming removes unused code.');
    // Neighbour terms come from the same section only: chunk 2 (AOT) gets none from chunk 1.
    expect(out[2]).not.toMatch(/reflection|trimmer/i);
    expect(out[1]).toMatch(/unused|removes|code|analyses|app/);
  });
  it('never exceeds the cap, and with no mode returns the embedText unchanged', () => {
    expect(contextualTexts(records, parseContextModes(''), env(512))).toEqual(records.map((r) => r.embedText));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), (cap) => {
        const out = contextualTexts(records, parseContextModes('path,lead,kw:5,nkw:5,lkw:5:2'), env(cap));
        out.forEach((t, i) => expect(t === records[i]!.embedText || countTokens(t) <= cap).toBe(true));
      }),
    );
  });
  it('rejects an unknown mode', () => {
    expect(() => parseContextModes('path,bogus')).toThrow(/unknown mode "bogus"/);
  });
});
