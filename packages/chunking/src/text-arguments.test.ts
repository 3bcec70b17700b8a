import { describe, expect, it } from 'vitest';
import { countTokens, estimateTokens, sentenceStarts } from './index.js';

// What a JavaScript caller (no type checker) may hand the text functions: before, a number
// counted 0 tokens and had the sentence starts [0], and undefined threw from inside.
describe('the text functions of the public API', () => {
  const fns = { countTokens, estimateTokens, sentenceStarts } as Record<string, (text: unknown) => unknown>;
  it.each(Object.keys(fns))('%s names a text that is not a string, and what was given', (name) => {
    const fn = fns[name]!;
    expect(() => fn(5)).toThrow(new TypeError(`${name}: text must be a string, got 5`));
    expect(() => fn(undefined)).toThrow(new TypeError(`${name}: text must be a string, got undefined`));
    expect(() => fn(Buffer.from('hi'))).toThrow(/text must be a string, got a Buffer of 2 bytes \(decode it first/);
  });
  it('read a String object as its string', () => {
    const boxed = new String('One sentence. Another one.') as unknown as string;
    expect(countTokens(boxed)).toBe(countTokens('One sentence. Another one.'));
    expect(estimateTokens(boxed)).toBe(estimateTokens('One sentence. Another one.'));
    expect(sentenceStarts(boxed)).toEqual([0, 14]);
  });
});
