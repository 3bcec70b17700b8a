// matchKeywords: a table's keywords found in one chunk by the same rules that extracted them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeywordMatcher, matchKeywords, type KeywordEntry } from './index.js';

const TABLE: KeywordEntry[] = [
  { name: 'source generation', score: 10 },
  { name: 'JsonSerializerContext', score: 9 },
  { name: 'System.Text.Json', score: 8 },
  { name: 'native aot', score: 6 },
  { name: 'publish a self contained app today', score: 2 },
];

describe('matchKeywords', () => {
  it('finds phrases by stem, identifiers case-insensitively, in table order', () => {
    const chunk = 'Source generators need a `jsonSerializerContext`; see System.Text.Json docs.';
    expect(matchKeywords(TABLE, chunk)).toEqual([TABLE[0], TABLE[1], TABLE[2]]);
  });

  it('reads identifiers from xrefs and code blocks, and words across hyphens', () => {
    const chunk = 'Derive from <xref:System.Text.Json.Serialization.JsonSerializerContext>.\n\nA Native-AOT app.\n';
    expect(matchKeywords(TABLE, chunk).map((e) => e.name)).toEqual(['JsonSerializerContext', 'native aot']);
    expect(matchKeywords(TABLE, '```csharp\nclass C : JsonSerializerContext {}\n```\n').map((e) => e.name)).toEqual(['JsonSerializerContext']);
  });

  it('does not match a phrase whose words are apart, or a word inside a longer identifier', () => {
    expect(matchKeywords(TABLE, 'The source of the generation. `MyJsonSerializerContextFactory` is not it.')).toEqual([]);
  });

  it('matches a name the scan cannot produce as one term as plain text', () => {
    expect(matchKeywords(TABLE, 'You can Publish a self\ncontained app TODAY.').map((e) => e.name)).toEqual(['publish a self contained app today']);
  });
});

describe('KeywordMatcher', () => {
  it('gives what matchKeywords gives, in table order, for tables with entries of one term key and plain-text entries (property)', () => {
    const names = ['source generation', 'source generators', 'Source Generation', 'JsonSerializerContext', 'jsonserializercontext', 'native aot',
      'publish a self contained app today', 'a self contained app today', 'cache', 'caches', 'System.Text.Json', 'widget'];
    const words = ['Source', 'generators', 'generation', 'JsonSerializerContext', 'native', 'AOT', 'publish', 'a', 'self', 'contained', 'app', 'today', 'cache', 'caches', 'System.Text.Json', 'widget', '\n', '.'];
    fc.assert(
      fc.property(fc.shuffledSubarray(names), fc.array(fc.array(fc.constantFrom(...words), { maxLength: 30 }), { maxLength: 6 }), (picked, chunks) => {
        const table = picked.map((name, i) => ({ name, score: (i % 10) + 1 }));
        const matcher = new KeywordMatcher(table);
        for (const chunk of chunks.map((c) => c.join(' '))) expect(matcher.match(chunk)).toEqual(matchKeywords(table, chunk));
      }),
      { numRuns: 300 },
    );
  });
});
