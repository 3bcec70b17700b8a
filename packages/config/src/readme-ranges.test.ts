// The README states each numeric setting's range; these tests hold it to the checks
// themselves (numericRanges), so the documentation cannot drift from what parseConfig refuses.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_TOKENS, numericRanges, parseConfig } from './index.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** numericRanges(section) as key -> [min, max]. */
function ranges(section: 'chunking' | 'spec' | 'embeddings' | 'llm'): Map<string, [number, number]> {
  return new Map(
    numericRanges(section).map((item) => {
      const [key, range] = item.split(' ') as [string, string];
      const [min, max] = range.split('..').map(Number) as [number, number];
      return [key, [min, max]];
    }),
  );
}

describe('packages/config/README.md states the ranges the code checks', () => {
  it('every `key: value  # a..b` comment of the YAML examples is that key’s range', () => {
    const all = new Map([...ranges('chunking'), ...ranges('spec'), ...ranges('embeddings'), ...ranges('llm')]);
    const stated = [...README.matchAll(/^[ \t]*#?[ \t]*(\w+): \S+[ \t]+#[^\n]*?(-?\d+)\.\.(\d+)/gm)];
    expect(stated.length).toBeGreaterThanOrEqual(7);
    for (const [, key, min, max] of stated) expect([key, [Number(min), Number(max)]]).toEqual([key, all.get(key!)]);
  });

  it('every `# >= N` comment of the chunking example is that key’s minimum', () => {
    const chunking = ranges('chunking');
    const stated = [...README.matchAll(/^[ \t]*(\w+): \S+[ \t]+# >= (\d+)/gm)];
    expect(stated.length).toBeGreaterThanOrEqual(3);
    for (const [, key, min] of stated) expect([key, Number(min)]).toEqual([key, chunking.get(key!)?.[0]]);
  });

  it('the token counts’ minimums and maximum are the ones listed', () => {
    const m = /token counts ([\d, or]+) up to\s+(\d+)/.exec(README.replace(/\s+/g, ' '));
    expect(m).not.toBeNull();
    const listed = new Set(m![1]!.split(/,? or |, /).map(Number));
    const tokenKeys = [...ranges('chunking')].filter(([key]) => key !== 'overlapSentences' && key !== 'maxConcepts');
    expect(new Set(tokenKeys.map(([, [min]]) => min))).toEqual(listed);
    for (const [key, [, max]] of tokenKeys) expect([key, max]).toEqual([key, Number(m![2])]);
    expect(Number(m![2])).toBe(MAX_TOKENS);
  });

  it('a value just below each stated minimum is refused, naming the range', () => {
    for (const [key, [min, max]] of ranges('chunking')) {
      expect(() => parseConfig(`chunking:\n  ${key}: ${min - 1}\n`, 'c.yaml')).toThrow(`chunking.${key}: expected a whole number from ${min} to ${max}, got ${min - 1}`);
    }
  });
});
