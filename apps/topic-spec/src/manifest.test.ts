// readManifest's messages: a wrong value is quoted short and safe, never whole.
import { describe, expect, it } from 'vitest';
import { readManifest } from './manifest.js';

const chunk = { chunkNumber: 0, originalText: 'a', embedText: 'a', sectionTitle: 's', isCode: false, tokenStats: { tokens: 1 } };
const manifest = (over: Record<string, unknown>) =>
  JSON.stringify({ schemaVersion: 1, source: 'g.md', strategyKey: 'k', fileTitle: 'T', sourceSha256: 'a'.repeat(64), chunks: [chunk], ...over });

function message(text: string): string {
  try {
    readManifest(text, 't/_chunks/g.json');
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected readManifest to throw');
}

describe('readManifest messages', () => {
  it.each([
    ['schemaVersion', manifest({ schemaVersion: 'x'.repeat(1_000_000) }), /^t\/_chunks\/g\.json: schemaVersion "x{56}\.\.\. \(1000002 characters\) is not 1; rebuild it with chunking-tool$/],
    ['chunkNumber', manifest({ chunks: [{ ...chunk, chunkNumber: Array(200_000).fill(7) }] }), /^t\/_chunks\/g\.json: chunks\[0\]\.chunkNumber is \[7,7,.*\.\.\. \(\d+ characters\), expected 0; rebuild it with chunking-tool$/],
  ])('quotes at most 60 characters of a wrong %s', (_what, text, expected) => {
    const m = message(text);
    expect(m.length).toBeLessThan(200);
    expect(m).toMatch(expected);
  });

  it('escapes C1 and bidirectional controls, which JSON leaves raw', () => {
    expect(message(manifest({ schemaVersion: '\u009b2J\u202e' }))).toContain('schemaVersion "\\u009b2J\\u202e" is not 1');
  });

  it('quotes a short value as before', () => {
    expect(message(manifest({ schemaVersion: 2 }))).toBe('t/_chunks/g.json: schemaVersion 2 is not 1; rebuild it with chunking-tool');
  });
});

// A manifest whose tokens were -5 or 1e308 was read, and topic-spec wrote a topic-spec.md that
// parseTopicSpecMd (index-tool) then refused ("chunks[0].tokens: expected a whole number"),
// naming the spec instead of the manifest (helper-85 probe).
describe('readManifest tokens', () => {
  it.each([[-5], [-1], [1e308], [2 ** 53]])('refuses tokens %s, which topic-spec.md cannot carry', (tokens) => {
    expect(message(manifest({ chunks: [{ ...chunk, tokenStats: { tokens } }] }))).toBe('t/_chunks/g.json: chunks[0].tokenStats.tokens is not a whole number; rebuild it with chunking-tool');
  });

  it('reads 0 and the largest safe whole number', () => {
    for (const tokens of [0, Number.MAX_SAFE_INTEGER]) expect(readManifest(manifest({ chunks: [{ ...chunk, tokenStats: { tokens } }] }), 't/_chunks/g.json').chunks[0]!.tokenStats.tokens).toBe(tokens);
  });
});

// A manifest whose strategyKey was "" was read, and the embedding cache then threw a TypeError
// out of topic-spec with a stack trace ("an empty model name or strategy key cannot name a cache
// folder"; helper-85 probe).
describe('readManifest strategyKey', () => {
  it('refuses an empty strategyKey, which names the cache folder of the chunks', () => {
    expect(message(manifest({ strategyKey: '' }))).toBe('t/_chunks/g.json: strategyKey is empty; rebuild it with chunking-tool');
  });
});
