// embeddings.model and llm.model are printed by the tools (docs-score's "LLM ollama/<model>",
// docs-query's "embedding search with <model>", docs-export's "vectors of <model>"), and a
// docs repo's chunkyard.config.yaml is as untrusted as its documents. A model name holding a
// line break or a control character was accepted and went out raw: "model: "m\r\nFAKE: x""
// split docs-score's line in two (helper-78 probe). No provider has such a name.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './index.js';

const UNPRINTABLE = /[\p{Cc}\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

function problemOf(text: string): string | null {
  try {
    parseConfig(text, 'c.yaml');
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
}

describe('a model name holding a control character, line break or bidi control is a config error', () => {
  it.each([
    ['embeddings', 'provider: ollama'],
    ['llm', 'provider: ollama'],
  ])('%s.model', (section, provider) => {
    for (const model of ['m\r\nFAKE: x', 'm\n', 'x\u001b[2J', 'a\u009b31m', 'gpt\u202e', 'a\tb', 'm\u2028']) {
      const message = problemOf(`${section}:\n  ${provider}\n  model: ${JSON.stringify(model)}\n`);
      expect(message, JSON.stringify(model)).toMatch(new RegExp(`^c\\.yaml:3: ${section}\\.model: expected a model name without control characters or line breaks, got "`));
      expect(message).not.toMatch(UNPRINTABLE);
    }
  });

  it('any other non-empty name is taken as given (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }), (model) => {
        fc.pre(model.trim() !== '' && !UNPRINTABLE.test(model));
        const config = parseConfig(`embeddings:\n  model: ${JSON.stringify(model)}\nllm:\n  provider: openai\n  model: ${JSON.stringify(model)}\n`, 'c.yaml');
        expect(config.embeddings?.model).toBe(model);
        expect(config.llm?.model).toBe(model);
      }),
    );
  });

  it('any name with one refused (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 10 }), fc.constantFrom('\r', '\n', '\u0000', '\u001b', '\u007f', '\u0085', '\u009b', '\u200f', '\u202e', '\u2066', '\u2028'), fc.string({ maxLength: 10 }), (a, bad, b) => {
        expect(problemOf(`embeddings:\n  model: ${JSON.stringify(`x${a}${bad}${b}`)}\n`)).toMatch(/embeddings\.model: expected a model name without control characters/);
      }),
    );
  });
});
