import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitTfidf, tfidfTokens } from './tfidf.mjs';

describe('tfidf', () => {
  it('tokenises like scikit-learn: lower-cased runs of two or more word characters', () => {
    expect(tfidfTokens('A JsonSerializer, x_y and ÄÖ 9 42!')).toEqual(['jsonserializer', 'x_y', 'and', 'äö', '42']);
  });

  it('ranks by cosine of smooth-idf weighted counts (hand-computed)', () => {
    // docs: [cat cat dog], [dog fish], [bird]. idf = ln(4/(1+df)) + 1: cat 1.693, dog 1.288, fish 1.693.
    const index = fitTfidf(['cat cat dog', 'dog fish', 'bird']);
    // query "dog": doc0 dog weight 1.288/|(3.386, 1.288)| = 0.356, doc1 1.288/|(1.288, 1.693)| = 0.605.
    expect(index.search('dog', 3)).toEqual([1, 0, 2]);
    expect(index.search('cat', 1)).toEqual([0]);
    // Unknown words score nothing: ties go to the lower index.
    expect(index.search('zebra', 2)).toEqual([0, 1]);
  });

  it('sublinear tf and stop words change the weights as documented', () => {
    const docs = ['the the the cat dog', 'cat', 'dog'];
    expect(fitTfidf(docs).search('the cat', 1)).toEqual([0]);
    expect(fitTfidf(docs, { stopWords: new Set(['the']) }).search('the cat', 1)).toEqual([1]);
  });

  it('a document always retrieves itself first when it is unique', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z]{2,6}$/), { minLength: 2, maxLength: 12 }), (words) => {
        const docs = words.map((w, i) => `${w} ${words[(i + 1) % words.length]} ${w}`);
        const index = fitTfidf(docs);
        docs.forEach((d, i) => expect(index.search(d, 1)).toEqual([i]));
      }),
    );
  });
});
